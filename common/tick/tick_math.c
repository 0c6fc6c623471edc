/* SPDX-License-Identifier: GPL-2.0-only */
/* 32.32 fixed-point conversions between counter ticks and a timer source's counts. */
#include "tick_math.h"
#include "units.h"

u64 tick_counts_to_ticks(const struct tick_cal *cal, u64 counts)
{
	return mul_u64_u64_shr32(counts, cal->ratio_fx);
}

u64 tick_ticks_to_counts(const struct tick_cal *cal, u64 ticks)
{
	unsigned s = 0;
	u64 num, den;

	/* ticks << 32 / ratio in 64 bits: give up low bits of the ratio, rounding it down */
	while (s < TICK_FX_SHIFT && (ticks >> s) >> TICK_FX_SHIFT)
		s++;
	num = ticks << (TICK_FX_SHIFT - s);
	den = cal->ratio_fx >> s;
	if (!num)
		return 0;
	/*
	 * A ratio shifted to 0 was below 2^s while ticks is at least 2^(31+s):
	 * the count is 2^63 or more, and likely does not fit at all.
	 */
	if (!den)
		return UINT64_MAX;
	/* rounded up without num + den - 1, which wraps for a large ratio */
	return (num - 1) / den + 1;
}

bool tick_cal_from(struct tick_cal *cal, u64 dt, u64 dc, u64 slack)
{
	u64 err;

	if (!dc || !dt || dt >> TICK_FX_SHIFT)
		return false;
	cal->ratio_fx = (dt << TICK_FX_SHIFT) / dc;
	/* a count is only known to the whole count: one more count's worth of ticks */
	err = slack + (cal->ratio_fx >> TICK_FX_SHIFT) + 1;
	/* err >= dt would be a whole ratio or more, and err * PPB_PER_UNIT could wrap */
	cal->err_ppb = err >= dt ? PPB_PER_UNIT : err * PPB_PER_UNIT / dt;
	return true;
}

u64 tick_ppb_to_fx(u64 ppb)
{
	return (min(ppb, PPB_PER_UNIT) << TICK_FX_SHIFT) / PPB_PER_UNIT;
}
