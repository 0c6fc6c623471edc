/* SPDX-License-Identifier: GPL-2.0-only */
/* Entry points: the Image header, EL2-to-EL1 drop, bss, MMU on, then C for boot and secondary CPUs. */
#include "arm64/sysreg.h"
#include "arm64/setup.h"
#include "arm64/el2.h"

/* PC-relative address of sym: works before and after the MMU is on. */
.macro adr_l reg, sym
	adrp	\reg, \sym
	add	\reg, \reg, :lo12:\sym
.endm

/* Arm64 Image header (Documentation of the Linux arm64 boot protocol). */
#define IMAGE_FLAG_LE		0
#define IMAGE_FLAG_PAGE_4K	(1 << 1)
#define IMAGE_MAGIC		0x644d5241	/* "ARM\x64" */

	.section .text.head, "ax"
	.global _text_start
_text_start:
	b	primary_entry			/* code0 */
	.long	0				/* code1 */
	.quad	0				/* text_offset */
	.quad	__image_size			/* image_size */
	.quad	IMAGE_FLAG_LE | IMAGE_FLAG_PAGE_4K /* flags: 2 MiB aligned base, near DRAM start */
	.quad	0, 0, 0				/* res2..res4 */
	.long	IMAGE_MAGIC
	.long	0				/* res5: no PE/COFF header */

primary_entry:
	mov	x19, x0				/* device tree address */
	mrs	x20, CurrentEL			/* kept for boot_entry_el (el2.h) */
	lsr	x20, x20, #CURRENTEL_SHIFT
	bl	el_setup

	/* Linked, not relocated: stop here if QEMU put us elsewhere. */
	adr	x0, _text_start
	ldr	x1, =_text_start
	cmp	x0, x1
	b.ne	halt

	adr_l	x0, __bss_start
	adr_l	x1, __bss_end
1:	stp	xzr, xzr, [x0], #16
	stp	xzr, xzr, [x0], #16
	stp	xzr, xzr, [x0], #16
	stp	xzr, xzr, [x0], #16
	cmp	x0, x1
	b.lo	1b
	/* bss is cleared: the entry EL goes there, before the D-cache is dropped below. */
	adr_l	x0, boot_entry_el
	str	w20, [x0]

	adr_l	x0, boot_stack
	add	sp, x0, #STACK_SIZE
	mov	x29, xzr
	msr	tpidr_el1, xzr			/* smp_id() of the boot CPU */

	/* Tables are written with the MMU (and so the D-cache) off. */
	mov	x0, x19
	bl	mmu_build_tables

	/*
	 * Nothing of ours was cached yet, but stale lines from the loader may
	 * be: drop them, so the first cacheable reads see what we wrote.
	 */
	adr_l	x0, _text_start
	adr_l	x1, _end
2:	dc	ivac, x0
	add	x0, x0, #64
	cmp	x0, x1
	b.lo	2b
	dsb	sy

	bl	mmu_enable
	adr_l	x0, vectors
	msr	vbar_el1, x0
	isb
	mov	x0, x19
	bl	boot_main			/* does not return */
	b	halt

/*
 * Secondary CPUs arrive here from PSCI CPU_ON with the MMU off and x0 =
 * their dense id; smp.c left their stack top in secondary_stacks[id] and
 * cleaned it to memory.
 */
	.text
	.global secondary_entry
secondary_entry:
	mov	x19, x0
	bl	el_setup
	adr_l	x1, secondary_stacks
	ldr	x1, [x1, x19, lsl #3]
	mov	sp, x1
	mov	x29, xzr
	msr	tpidr_el1, x19
	bl	mmu_enable
	adr_l	x0, vectors
	msr	vbar_el1, x0
	isb
	mov	x0, x19
	bl	secondary_main			/* does not return */
	b	halt

/*
 * From EL2, configure EL1 as AArch64 with the counter, timers and GICv3
 * system registers open to it, the virtual counter offset boot_cntvoff
 * (0 unless the kernel says), EL2's own vectors for the kernel's HVC calls
 * (el2_vectors.S, el2.h), and eret to the caller at EL1 with all
 * exceptions masked. A kernel that defines boot_stay_el2 = 1 stays at EL2
 * with VHE (E2H, TGE), where the *_EL1 register names reach EL2's.
 * Clobbers x0-x2; returns at EL1 (or EL2 with VHE).
 */
el_setup:
	mrs	x0, CurrentEL
	cmp	x0, #CURRENTEL_EL2
	b.ne	9f

	mrs	x0, ID_AA64PFR0_EL1
	ubfx	x0, x0, #ID_AA64PFR0_GIC_SHIFT, #4
	cbz	x0, 1f
	mrs	x0, SYS_ICC_SRE_EL2
	orr	x0, x0, #ICC_SRE_SRE
	orr	x0, x0, #ICC_SRE_EL2_ENABLE
	msr	SYS_ICC_SRE_EL2, x0
	isb
1:
	adr_l	x0, boot_stay_el2
	ldrb	w0, [x0]
	cbz	w0, 2f
	mrs	x1, ID_AA64MMFR1_EL1
	ubfx	x1, x1, #ID_AA64MMFR1_VH_SHIFT, #4
	cbz	x1, 2f
	mov	x0, #(HCR_EL2_RW | HCR_EL2_TGE)
	orr	x0, x0, #(1 << HCR_EL2_E2H_SHIFT)
	msr	hcr_el2, x0
	isb
	ret
2:
	mov	x0, #HCR_EL2_RW
	msr	hcr_el2, x0
	mrs	x0, cnthctl_el2
	orr	x0, x0, #(CNTHCTL_EL1PCTEN | CNTHCTL_EL1PCEN)
	msr	cnthctl_el2, x0
	adr_l	x0, boot_cntvoff
	ldr	x0, [x0]
	msr	cntvoff_el2, x0
	adr_l	x0, el2_vectors
	msr	vbar_el2, x0
	mov	x0, #CPTR_EL2_RES1
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	msr	vttbr_el2, xzr
	ldr	x0, =SCTLR_EL1_RES1
	msr	sctlr_el1, x0
	mov	x0, #(PSR_DAIF_MASK | PSR_MODE_EL1h)
	msr	spsr_el2, x0
	msr	elr_el2, x30
	isb
	eret
9:
	ret

/*
 * Turn the MMU on with the tables mmu_build_tables() made (mmu_ttbr0):
 * identity map, attributes by MAIR index, output size from PARange.
 * Clobbers x0-x2.
 */
	.global mmu_enable
mmu_enable:
	ldr	x0, =MAIR_EL1_VALUE
	msr	mair_el1, x0
	mrs	x1, ID_AA64MMFR0_EL1
	and	x1, x1, #ID_AA64MMFR0_PARANGE_MASK
	cmp	x1, #ID_AA64MMFR0_PARANGE_48
	mov	x2, #ID_AA64MMFR0_PARANGE_48
	csel	x1, x1, x2, ls			/* no 52-bit outputs with 4 KiB pages */
	ldr	x0, =TCR_EL1_VALUE
	orr	x0, x0, x1, lsl #TCR_IPS_SHIFT
	msr	tcr_el1, x0
	adr_l	x0, mmu_ttbr0
	ldr	x0, [x0]
	msr	ttbr0_el1, x0
	isb
	mrs	x0, CurrentEL
	cmp	x0, #CURRENTEL_EL2
	b.eq	1f
	tlbi	vmalle1
	b	2f
1:	tlbi	alle2
2:	dsb	nsh
	isb
	ldr	x0, =(SCTLR_EL1_RES1 | SCTLR_M | SCTLR_C | SCTLR_SA | SCTLR_I)
	msr	sctlr_el1, x0
	isb
	ret

	.global halt
halt:
	msr	daifset, #(PSR_DAIF_MASK >> 6)
1:	wfi
	b	1b

	.bss
	.balign	16
boot_stack:
	.space	STACK_SIZE
