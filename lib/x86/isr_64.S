/* SPDX-License-Identifier: GPL-2.0-only */
/* 64-bit entry stubs for all 256 vectors: build a struct ex_regs and call do_exception(). */
#include "x86/isr_stubs.h"

	.text
	.code64
	isr_stub_table pushq

isr_common:
	push %r15
	push %r14
	push %r13
	push %r12
	push %r11
	push %r10
	push %r9
	push %r8
	push %rbp
	push %rdi
	push %rsi
	push %rdx
	push %rcx
	push %rbx
	push %rax
	cld
	mov %rsp, %rdi
	mov %rsp, %rbx
	and $-16, %rsp
	call do_exception
	mov %rbx, %rsp
	pop %rax
	pop %rbx
	pop %rcx
	pop %rdx
	pop %rsi
	pop %rdi
	pop %rbp
	pop %r8
	pop %r9
	pop %r10
	pop %r11
	pop %r12
	pop %r13
	pop %r14
	pop %r15
	add $16, %rsp
	iretq
