/* SPDX-License-Identifier: GPL-2.0-only */
/* Interrupts on and off on this CPU: the one arch hook tests and drivers use for it. */
#ifndef VMTICK_IRQ_H
#define VMTICK_IRQ_H

/*
 * irq_enable(): interrupts on (x86 sti; arm64 IRQs unmasked in DAIF).
 * irq_disable(): interrupts off (x86 cli; arm64 IRQs masked).
 * Both are compiler barriers. Inline, defined per arch in
 * lib/x86/irqflags.h and lib/arm64/irqflags.h: the interrupt benchmarks time
 * windows a call would widen.
 */
static inline void irq_enable(void);
static inline void irq_disable(void);

#ifdef VMTICK_ARCH_aarch64
#include "arm64/irqflags.h"
#else
#include "x86/irqflags.h"
#endif

#endif
