/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's fixed-point arithmetic: pure, so the host unit tests build it too. */
#ifndef VMTICK_TICK_MATH_H
#define VMTICK_TICK_MATH_H

#include "libc.h"
#include "mul64.h" /* mul_u64_u64_shr32(), the 32.32 factor applied to a count */

/* ratio_fx is 32.32 fixed point: TICK_FX_ONE means one counter tick per source count. */
#define TICK_FX_SHIFT 32
#define TICK_FX_ONE   (1ull << TICK_FX_SHIFT)

/* Counter ticks per source count, 32.32 fixed point, and how far it may be off. */
struct tick_cal {
	u64 ratio_fx;
	/* half-width of the measurement's uncertainty, parts per billion of the ratio */
	u64 err_ppb;
};

/*
 * Counter ticks for counts source counts, rounded down: a slot computed
 * with it is never later than the source's expiry, so rounding cannot make
 * a tick look early. Modulo 2^64 (counts * ratio_fx must stay below 2^96).
 */
u64 tick_counts_to_ticks(const struct tick_cal *cal, u64 counts);

/*
 * Source counts lasting at least ticks counter ticks (rounded up), so a
 * timer programmed with them never fires early. Exact (the least such
 * count) for ticks below 2^32; above, ratio_fx loses as many low bits as
 * ticks has above 32, which can only make the count larger. UINT64_MAX
 * when no count fits (ratio_fx 0, or the count needs 64 bits or more).
 */
u64 tick_ticks_to_counts(const struct tick_cal *cal, u64 ticks);

/*
 * The calibration from its measurement: dt counter ticks for dc source
 * counts, each end read with up to slack/2 counter ticks of uncertainty
 * (slack is the two half-widths summed). ratio_fx = dt / dc, rounded down;
 * the error is slack plus one count, over dt, at most a whole ratio
 * (PPB_PER_UNIT). Returns false, leaving cal alone, unless 0 < dt < 2^32 and dc > 0.
 */
bool tick_cal_from(struct tick_cal *cal, u64 dt, u64 dc, u64 slack);

/* err_ppb as a 0.32 fraction (rounded down), for mul_u64_u64_shr32(). */
u64 tick_ppb_to_fx(u64 ppb);

#endif
