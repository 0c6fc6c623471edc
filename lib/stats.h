/* SPDX-License-Identifier: GPL-2.0-only */
/* Order statistics of samples (min, median, percentiles, mean, spread) and exact tick-to-time conversion. */
#ifndef VMTICK_STATS_H
#define VMTICK_STATS_H

#include "libc.h"

struct stats {
	u64 n;
	u64 min, max;
	/* the middle sample; for even n the mean of the middle two, rounded down */
	u64 median;
	u64 p99;
	/* rounded down, exact even when the samples' sum does not fit 64 bits */
	u64 mean;
	/*
	 * median absolute deviation, the median (as above) of |x - median|:
	 * spread that a few outliers do not inflate
	 */
	u64 mad;
};

/* Sorts samples in place (n may be 0: all fields 0). */
void stats_compute(u64 *samples, u64 n, struct stats *out);
/* The p-th percentile (0..100) of sorted samples, nearest-rank. */
u64 stats_percentile(const u64 *sorted, u64 n, unsigned p);
void sort_u64(u64 *v, u64 n);
/*
 * Events due on a period's grid that come on time or late, never early
 * (a device raised from a host thread that is sometimes delayed; one
 * raised while the one before was not yet taken is lost): t[0..n-1]
 * their times, in order, n >= 1. least_delayed() finds the least delayed:
 * of the longest run of events each less than 1.5 periods after the one
 * before (each the next period's; a lost event, or one late by half a
 * period or more, ends a run), the one earliest against the periods the
 * run counts. A late event never looks early that way, whatever its
 * delay; by their residuals modulo the period one late by 90% would look
 * 10% early.
 */
#define LEAST_DELAYED_SPREADS 2
struct least_delayed {
	unsigned k;   /* its index */
	unsigned run; /* the run's length */
	/*
	 * how much later than it the run's next least delayed came, and the
	 * one after that (0 where the run has no such event): a measured
	 * spread of the least delayed
	 */
	u64 spread[LEAST_DELAYED_SPREADS];
};
struct least_delayed least_delayed(const u64 *t, unsigned n, u64 period);
/* The longest run of t[0..n-1] as least_delayed() takes it: its first index, *len its length. */
unsigned longest_run(const u64 *t, unsigned n, u64 period, unsigned *len);
/*
 * The two marks a rate is timed between: the least delayed event of
 * t[0..n/4) and of t[n-n/4..n) (least_delayed), n >= 4. slack: how much
 * later the third least delayed of each mark's run came, both added (two
 * late ones can agree by chance; three seldom do); run: the shorter of the
 * marks' runs.
 */
struct quarter_marks {
	unsigned first, last; /* indices into t */
	unsigned run;
	u64 slack;
};
struct quarter_marks quarter_marks(const u64 *t, unsigned n, u64 period);

/*
 * ticks of a counter running at hz, in picoseconds: exact to the
 * picosecond for any hz up to 18 GHz and any tick count that fits 213 days
 * at 1 GHz. Use it to print ns with three decimals.
 */
u64 ticks_to_ps(u64 ticks, u64 hz);
u64 ticks_to_ns(u64 ticks, u64 hz);
/* ns to ticks, rounded up (a deadline is never early). */
u64 ns_to_ticks(u64 ns, u64 hz);

#endif
