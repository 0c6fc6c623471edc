/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the timer-tick engine (common/tick/timer_tick.h): its hooks, its sources and the vectors they use. */
#ifndef VMTICK_X86_TICK_H
#define VMTICK_X86_TICK_H

#include "x86/hpet.h"
#include "x86/ioapic.h"
#include "timer_tick.h"

/* Vectors of the timer-tick kernels: the source under test, and the wake-up that ends a run. */
#define TIMER_TICK_VECTOR 0x60
#define TIMER_WAKE_VECTOR 0x61
#define TIMER_GUARD_VECTOR 0x62

/* The hooks (tick.c). */
extern const struct tick_arch tick_arch_x86;

/*
 * The LAPIC timer's clock (divide by 1) against the TSC, measured once
 * with a one-shot count from the largest initial count and cached. false
 * when the timer does not count.
 */
bool tick_lapic_calibrate(struct tick_cal *cal);

/* ---- shared by tick.c, tick_chipset.c and tick_rtc.c ---- */

/*
 * Set by a source whose device must be quieted before the EOI (the RTC's
 * register C); NULL otherwise.
 */
extern void (*tick_device_ack)(void);

/* The LAPIC timer: periodic; one-shot re-armed every tick; TSC-deadline. */
extern const struct tick_source tick_source_lapic_periodic;
extern const struct tick_source tick_source_lapic_oneshot;
extern const struct tick_source tick_source_tsc_deadline;
/* HPET timer 0, periodic, on a pin of its own above 15 or in legacy replacement (ISA IRQ 0). */
extern const struct tick_source tick_source_hpet;
/*
 * The HPET's last timer, never legacy replacement: edge-triggered on the
 * first IOAPIC input above 15 its Tn_INT_ROUTE_CAP allows (q35: 16),
 * periodic (a SKIP without Tn_PER_INT_CAP) or one-shot re-armed.
 */
extern const struct tick_source tick_source_hpet_routed;
extern const struct tick_source tick_source_hpet_routed_oneshot;
/* PIT channel 0, rate generator, ISA IRQ 0 through the IOAPIC. */
extern const struct tick_source tick_source_pit;
/* PIT channel 0, mode 0 (one-shot) re-armed every tick, ISA IRQ 0: hz 19 or more (a 16-bit count). */
extern const struct tick_source tick_source_pit_oneshot;
/* The CMOS RTC's periodic interrupt, ISA IRQ 8 through the IOAPIC: hz a power of two, 2..8192. */
extern const struct tick_source tick_source_rtc;

#endif
