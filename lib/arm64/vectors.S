/* SPDX-License-Identifier: GPL-2.0-only */
/* The exception vector table: every entry saves a struct pt_regs and calls do_exception(). */
#include "arm64/processor.h"

/* Save x0-x30, the interrupted SP, ELR and SPSR, then do_exception(regs, vec). */
.macro vector_entry vec
	.balign	128
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #16 * 0]
	stp	x2, x3, [sp, #16 * 1]
	stp	x4, x5, [sp, #16 * 2]
	stp	x6, x7, [sp, #16 * 3]
	stp	x8, x9, [sp, #16 * 4]
	stp	x10, x11, [sp, #16 * 5]
	stp	x12, x13, [sp, #16 * 6]
	stp	x14, x15, [sp, #16 * 7]
	stp	x16, x17, [sp, #16 * 8]
	stp	x18, x19, [sp, #16 * 9]
	stp	x20, x21, [sp, #16 * 10]
	stp	x22, x23, [sp, #16 * 11]
	stp	x24, x25, [sp, #16 * 12]
	stp	x26, x27, [sp, #16 * 13]
	stp	x28, x29, [sp, #16 * 14]
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #PT_REGS_X30]
	mrs	x0, elr_el1
	mrs	x1, spsr_el1
	stp	x0, x1, [sp, #PT_REGS_PC]
	mov	x0, sp
	mov	x1, #\vec
	b	exception_common
.endm

	.text
	.balign	2048
	.global	vectors
vectors:
	.irp	vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vector_entry \vec
	.endr

/* Frame record first, so backtraces walk from the handler into the interrupted code. */
exception_common:
	ldr	x29, [sp, #16 * 14 + 8]
	stp	x29, x2, [sp, #-16]!
	ldr	x2, [sp, #16 + PT_REGS_PC]
	str	x2, [sp, #8]
	mov	x29, sp
	bl	do_exception
	add	sp, sp, #16

	ldp	x0, x1, [sp, #PT_REGS_PC]
	msr	elr_el1, x0
	msr	spsr_el1, x1
	ldp	x0, x1, [sp, #16 * 0]
	ldp	x2, x3, [sp, #16 * 1]
	ldp	x4, x5, [sp, #16 * 2]
	ldp	x6, x7, [sp, #16 * 3]
	ldp	x8, x9, [sp, #16 * 4]
	ldp	x10, x11, [sp, #16 * 5]
	ldp	x12, x13, [sp, #16 * 6]
	ldp	x14, x15, [sp, #16 * 7]
	ldp	x16, x17, [sp, #16 * 8]
	ldp	x18, x19, [sp, #16 * 9]
	ldp	x20, x21, [sp, #16 * 10]
	ldp	x22, x23, [sp, #16 * 11]
	ldp	x24, x25, [sp, #16 * 12]
	ldp	x26, x27, [sp, #16 * 13]
	ldp	x28, x29, [sp, #16 * 14]
	ldr	x30, [sp, #PT_REGS_X30]
	add	sp, sp, #PT_REGS_SIZE
	eret
