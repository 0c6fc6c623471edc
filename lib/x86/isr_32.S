/* SPDX-License-Identifier: GPL-2.0-only */
/* 32-bit entry stubs for all 256 vectors: build a struct ex_regs and call do_exception(). */
#include "x86/processor.h"

/* Vectors for which the CPU pushes an error code (SDM vol. 3, table 6-1). */
#define HAS_ERROR_CODE(v) ((v) == DF_VECTOR || (v) == TS_VECTOR || (v) == NP_VECTOR || \
	(v) == SS_VECTOR || (v) == GP_VECTOR || (v) == PF_VECTOR || (v) == AC_VECTOR || \
	(v) == CP_VECTOR || (v) == 29 || (v) == 30)
#define ISR_STUB_SIZE 16

	.text
	.code32
	.balign ISR_STUB_SIZE
	.globl isr_stubs
isr_stubs:
	.set vec, 0
	.rept 256
	.balign ISR_STUB_SIZE
	.if !HAS_ERROR_CODE(vec)
	pushl $0
	.endif
	pushl $vec
	jmp isr_common
	.set vec, vec + 1
	.endr

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

	.section .rodata
	.globl isr_stub_size
isr_stub_size:
	.long ISR_STUB_SIZE
