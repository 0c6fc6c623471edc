/* SPDX-License-Identifier: GPL-2.0-only */
/* The table of 256 interrupt entry stubs, as the 32- and 64-bit entry code (isr_32.S, isr_64.S) both lay it out. */
#ifndef VMTICK_X86_ISR_STUBS_H
#define VMTICK_X86_ISR_STUBS_H

#include "x86/processor.h"

/* #VC and #SX, the last vectors that push an error code */
#define VC_VECTOR 29
#define SX_VECTOR 30
/* Vectors for which the CPU pushes an error code (SDM vol. 3, table 6-1). */
#define HAS_ERROR_CODE(v) ((v) == DF_VECTOR || (v) == TS_VECTOR || (v) == NP_VECTOR || \
	(v) == SS_VECTOR || (v) == GP_VECTOR || (v) == PF_VECTOR || (v) == AC_VECTOR || \
	(v) == CP_VECTOR || (v) == VC_VECTOR || (v) == SX_VECTOR)
/* Each stub fits in ISR_STUB_SIZE bytes, so stub n is at isr_stubs + n * ISR_STUB_SIZE. */
#define ISR_STUB_SIZE 16

/*
 * isr_stubs: stub n pushes a 0 where the CPU pushed no error code (so that
 * every frame has one), then n, and jumps to the mode's isr_common; push is
 * the mode's push of a word (pushl, pushq). isr_stub_size tells desc.c the
 * stride.
 */
.macro isr_stub_table push
	.balign ISR_STUB_SIZE
	.globl isr_stubs
isr_stubs:
	.set vec, 0
	.rept 256
	.balign ISR_STUB_SIZE
	.if !HAS_ERROR_CODE(vec)
	\push $0
	.endif
	\push $vec
	jmp isr_common
	.set vec, vec + 1
	.endr

	.pushsection .rodata
	.globl isr_stub_size
isr_stub_size:
	.long ISR_STUB_SIZE
	.popsection
.endm

#endif
