/* SPDX-License-Identifier: GPL-2.0-only */
/* 32-bit entry stubs for all 256 vectors: build a struct ex_regs and call do_exception(). */
#include "x86/isr_stubs.h"

	.text
	.code32
	isr_stub_table pushl

isr_common:
	push %ebp
	push %edi
	push %esi
	push %edx
	push %ecx
	push %ebx
	push %eax
	cld
	mov %esp, %eax
	push %eax
	call do_exception
	add $4, %esp
	pop %eax
	pop %ebx
	pop %ecx
	pop %edx
	pop %esi
	pop %edi
	pop %ebp
	add $8, %esp
	iret
