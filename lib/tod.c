/* SPDX-License-Identifier: GPL-2.0-only */
/* The time of day at start-up against the host's: the one rule of lib/tod.h, its band and its bounded check. */
#include "tod.h"
#include "fixed.h"
#include "report.h"
#include "units.h"

#define DURATION_BUF_SIZE (FIXED_BUF_SIZE + 4)

/* The figure's unit: its name and how many decimals of it make a ns. */
static const struct {
	const char *name;
	unsigned scale;
} units[] = {
	[TOD_UNIT_MS] = { "ms", 6 },
	[TOD_UNIT_S] = { "s", 9 },
};

/* a + b, at most UINT64_MAX */
static u64 add_sat(u64 a, u64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ppm of ns, rounded up: an allowance */
static u64 ppm_of(u64 ns, u64 ppm)
{
	return ns / PPM_PER_UNIT * ppm + (ns % PPM_PER_UNIT * ppm + PPM_PER_UNIT - 1) / PPM_PER_UNIT;
}

s64 tod_offset_ns(const struct tod_reading *r)
{
	return (s64)(r->clock_ns - r->host_ns - r->elapsed_ns);
}

struct tod_band tod_band(const struct tod_clock *c, const struct tod_reading *r)
{
	u64 drift = ppm_of(r->elapsed_ns, TOD_COUNTER_PPM);
	u64 behind = add_sat(add_sat(c->resolution_ns, c->rounding_ns), drift);
	u64 ahead = add_sat(r->threshold_ns, drift);

	if (r->host_time == TOD_HOST_WHOLE_SECONDS)
		ahead = add_sat(ahead, NSEC_PER_SEC);
	return (struct tod_band){
		.lo = behind > (u64)INT64_MAX ? BOUND_OPEN_LO : -(s64)behind,
		.hi = ahead >= (u64)INT64_MAX ? BOUND_OPEN_HI : (s64)ahead,
		.drift_ns = drift,
	};
}

bool tod_holds(const struct tod_clock *c, const struct tod_reading *r)
{
	struct tod_band b = tod_band(c, r);
	s64 offset = tod_offset_ns(r);

	return offset >= b.lo && offset <= b.hi;
}

/* "1 s", "1.234 s", "1.234 ms", "1.234 us", "17 ns": a duration in its largest unit. */
static const char *fmt_duration(char *buf, size_t size, u64 ns)
{
	char n[FIXED_BUF_SIZE];

	if (ns && ns % NSEC_PER_SEC == 0)
		snprintf(buf, size, "%llu s", ns / NSEC_PER_SEC);
	else if (ns >= NSEC_PER_SEC)
		snprintf(buf, size, "%s s", fmt_ufixed(n, sizeof(n), ns, 9, 3));
	else if (ns >= NSEC_PER_MSEC)
		snprintf(buf, size, "%s ms", fmt_ufixed(n, sizeof(n), ns, 6, 3));
	else if (ns >= NSEC_PER_USEC)
		snprintf(buf, size, "%s us", fmt_ufixed(n, sizeof(n), ns, 3, 3));
	else
		snprintf(buf, size, "%llu ns", ns);
	return buf;
}

bool tod_check(const struct tod_clock *c, const struct tod_reading *r)
{
	struct tod_band b = tod_band(c, r);
	unsigned scale = units[c->unit].scale;
	const char *unit = units[c->unit].name;
	char off[FIXED_BUF_SIZE], lo[FIXED_BUF_SIZE], hi[FIXED_BUF_SIZE];
	char el[DURATION_BUF_SIZE], res[DURATION_BUF_SIZE], rnd[DURATION_BUF_SIZE];
	char thr[DURATION_BUF_SIZE], dr[DURATION_BUF_SIZE];

	fmt_duration(dr, sizeof(dr), b.drift_ns);
	return report_bounded(
		&(struct bounded){ .name = c->figure, .unit = unit, .scale = scale,
				   .value = tod_offset_ns(r), .nbands = 1,
				   .band = { { b.lo, b.hi } } },
		"%s reads the host's time of day + %s elapsed %s %s, allowed %s %s (resolution %s, "
		"rounding %s, drift %s) to %s %s (threshold %s%s, drift %s)",
		c->name, fmt_duration(el, sizeof(el), r->elapsed_ns),
		bound_text(off, sizeof(off), tod_offset_ns(r), scale, FIXED_SIGN_PLUS), unit,
		bound_text(lo, sizeof(lo), b.lo, scale, FIXED_SIGN_PLUS), unit,
		fmt_duration(res, sizeof(res), c->resolution_ns),
		fmt_duration(rnd, sizeof(rnd), c->rounding_ns),
		dr, bound_text(hi, sizeof(hi), b.hi, scale, FIXED_SIGN_PLUS), unit,
		fmt_duration(thr, sizeof(thr), r->threshold_ns),
		r->host_time == TOD_HOST_WHOLE_SECONDS ? ", +1 s: a whole-second host time" : "", dr);
}
