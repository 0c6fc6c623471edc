/* SPDX-License-Identifier: GPL-2.0-only */
/* The generic timer as common/timer_tick.h sources: the virtual and physical timers, one-shot by CVAL. */
#ifndef VMTICK_ARM64_TICK_H
#define VMTICK_ARM64_TICK_H

#include "timer_tick.h"

/*
 * source=vtimer: CNTV, compared against CNTVCT, the counter itself.
 * source=ptimer: CNTP, compared against CNTPCT = CNTVCT + CNTVOFF.
 * Each is re-armed from its own interrupt; the other one is the wake-up
 * timer (tick_arch_wake_at) for the run.
 */
extern const struct tick_source tick_source_vtimer;
extern const struct tick_source tick_source_ptimer;

#endif
