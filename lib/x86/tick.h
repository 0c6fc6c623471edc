/* SPDX-License-Identifier: GPL-2.0-only */
/* The LAPIC timer against the TSC: calibration, the LAPIC tick sources, the tick vectors. */
#ifndef VMTICK_X86_APIC_TIMER_H
#define VMTICK_X86_APIC_TIMER_H

#include "timer_tick.h"

/* Vectors of the timer-tick kernels: the source under test, and the wake-up that ends a run. */
#define TIMER_TICK_VECTOR 0x60
#define TIMER_WAKE_VECTOR 0x61
#define TIMER_GUARD_VECTOR 0x62

/*
 * The LAPIC timer's clock (divide by 1) against the TSC, measured once
 * with a one-shot count from the largest initial count and cached. false
 * when the timer does not count.
 */
bool apic_timer_calibrate(struct tick_cal *cal);
bool apic_timer_has_tsc_deadline(void);

extern const struct tick_source tick_source_lapic_periodic;
extern const struct tick_source tick_source_lapic_oneshot;
extern const struct tick_source tick_source_tsc_deadline;

#endif
