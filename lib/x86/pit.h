/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8254 PIT's channel 0 as a tick source (ISA IRQ 0 via the IOAPIC), silenced otherwise. */
#ifndef VMTICK_X86_PIT_H
#define VMTICK_X86_PIT_H

#include "timer_tick.h"

#define PIT_HZ 1193182

/*
 * Stop channel 0: QEMU starts it at reset in mode 3 with the largest
 * count (18.2 Hz), which keeps a host timer running even while the
 * interrupt is masked everywhere.
 */
void pit_quiesce(void);

extern const struct tick_source tick_source_pit;

#endif
