/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's figures, each named timer_tick.SOURCE.NAME: plain, or bounded (lib/report.h). */
#ifndef VMTICK_TICK_FIGURE_H
#define VMTICK_TICK_FIGURE_H

#include "libc.h"
#include "checks.h"

/* RESULT: timer_tick.SOURCE.NAME value unit */
void tick_result(struct checks *out, const char *source, const char *name, const char *unit,
		 u64 value);
/*
 * A bounded check of timer_tick.SOURCE.NAME (report_bounded): value and
 * its band lo..hi in 10^-scale units of unit, then the sentence.
 */
bool tick_bounded(struct checks *out, const char *source, const char *name, const char *unit,
		  unsigned scale, s64 value, s64 lo, s64 hi, const char *fmt, ...) __printf(9, 10);

#endif
