/* SPDX-License-Identifier: GPL-2.0-only */
/* arm64's definitions of lib/irq.h's interrupts on and off: DAIF's I bit. */
#ifndef VMTICK_ARM64_IRQFLAGS_H
#define VMTICK_ARM64_IRQFLAGS_H

/* daifclr/daifset take DAIF's bits 9:6 as an immediate: 2 is I, the IRQ mask */
#define DAIF_IMM_IRQ	2

static inline void irq_enable(void)
{
	asm volatile("msr daifclr, %0" ::"i"(DAIF_IMM_IRQ) : "memory");
}

static inline void irq_disable(void)
{
	asm volatile("msr daifset, %0" ::"i"(DAIF_IMM_IRQ) : "memory");
}

#endif
