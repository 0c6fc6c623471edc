/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the timer-tick engine (common/tick/timer_tick.h): its hooks and its sources, the virtual and physical timers, one-shot by CVAL. */
#ifndef VMTICK_ARM64_TICK_H
#define VMTICK_ARM64_TICK_H

#include "timer_tick.h"

/*
 * source=vtimer: CNTV, compared against CNTVCT, the counter itself.
 * source=ptimer: CNTP, compared against CNTPCT = CNTVCT + CNTVOFF.
 * Each is re-armed from its own interrupt; the other one is the wake-up
 * timer (wake_at) for the run.
 */
extern const struct tick_arch tick_arch_arm64;
extern const struct tick_source tick_source_vtimer;
extern const struct tick_source tick_source_ptimer;

#endif
