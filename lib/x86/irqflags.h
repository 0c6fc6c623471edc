/* SPDX-License-Identifier: GPL-2.0-only */
/* x86's definitions of lib/irq.h's interrupts on and off: the IF flag. */
#ifndef VMTICK_X86_IRQFLAGS_H
#define VMTICK_X86_IRQFLAGS_H

static inline void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

#endif
