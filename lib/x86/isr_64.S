/* SPDX-License-Identifier: GPL-2.0-only */
/* 64-bit entry stubs for all 256 vectors: build a struct ex_regs and call do_exception(). */
#include "x86/processor.h"

/* Vectors for which the CPU pushes an error code (SDM vol. 3, table 6-1). */
#define HAS_ERROR_CODE(v) ((v) == DF_VECTOR || (v) == TS_VECTOR || (v) == NP_VECTOR || \
	(v) == SS_VECTOR || (v) == GP_VECTOR || (v) == PF_VECTOR || (v) == AC_VECTOR || \
	(v) == CP_VECTOR || (v) == 29 || (v) == 30)
/* Each stub fits in ISR_STUB_SIZE bytes, so stub n is at isr_stubs + n * ISR_STUB_SIZE. */
#define ISR_STUB_SIZE 16

	.text
	.code64
	.balign ISR_STUB_SIZE
	.globl isr_stubs
isr_stubs:
	.set vec, 0
	.rept 256
	.balign ISR_STUB_SIZE
	.if !HAS_ERROR_CODE(vec)
	pushq $0
	.endif
	pushq $vec
	jmp isr_common
	.set vec, vec + 1
	.endr
isr_stubs_end:

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

	.section .rodata
	.globl isr_stub_size
isr_stub_size:
	.long ISR_STUB_SIZE
