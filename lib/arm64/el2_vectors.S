/* SPDX-License-Identifier: GPL-2.0-only */
/* The EL2 exception vectors el_setup (head.S) leaves under an EL1 kernel: HVC calls that read and set CNTVOFF_EL2 (el2.h). */
#include "arm64/sysreg.h"
#include "arm64/el2.h"

/* Each vector entry is 32 instructions; VBAR_EL2 ignores its low 11 bits. */
#define VECTOR_ENTRY_SIZE	128
#define VECTOR_TABLE_ALIGN	2048

.macro ventry target
	.balign	VECTOR_ENTRY_SIZE
	b	\target
.endm

	.text
	.balign	VECTOR_TABLE_ALIGN
	.global	el2_vectors
el2_vectors:
	/* Current EL with SP_EL0, then with SP_ELx: EL2 itself never faults on purpose. */
	.rept	8
	ventry	el2_unexpected
	.endr
	/* Lower EL, AArch64: synchronous (the HVC), IRQ, FIQ, SError. */
	ventry	el2_sync_lower
	.rept	3
	ventry	el2_unexpected
	.endr
	/* Lower EL, AArch32: the kernel never runs AArch32. */
	.rept	4
	ventry	el2_unexpected
	.endr

/*
 * Runs with the EL2 MMU off and every exception masked, on no stack: x0
 * is the call's value, x1 the only scratch register (el2.h). ELR_EL2
 * already points past the HVC.
 */
el2_sync_lower:
	mrs	x1, esr_el2
	lsr	x1, x1, #ESR_EC_SHIFT
	and	x1, x1, #ESR_EC_MASK
	cmp	x1, #ESR_EC_HVC64
	b.ne	el2_unexpected
	mrs	x1, esr_el2
	and	x1, x1, #ESR_ISS_IMM16_MASK
	cmp	x1, #EL2_HVC_CNTVOFF_GET
	b.eq	1f
	cmp	x1, #EL2_HVC_CNTVOFF_SET
	b.eq	2f
	cmp	x1, #EL2_HVC_SMCCC
	b.ne	el2_unexpected
	mov	x0, #EL2_HVC_NOT_SUPPORTED
	eret
1:	mrs	x0, cntvoff_el2
	eret
2:	msr	cntvoff_el2, x0
	isb
	eret

/* A bug of the kernel's: stop this CPU here (the runner's timeout reports it). */
el2_unexpected:
	wfi
	b	el2_unexpected
