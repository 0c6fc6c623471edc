/* SPDX-License-Identifier: GPL-2.0-only */
/* Sample statistics and tick conversions shared by the benchmarks and the timer tests. */
#include "stats.h"
#include "units.h"

/* Shell sort: no recursion, no allocation, fine for the few thousand samples a test keeps. */
void sort_u64(u64 *v, u64 n)
{
	static const u64 gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };

	for (unsigned g = 0; g < ARRAY_SIZE(gaps); g++) {
		u64 gap = gaps[g];

		for (u64 i = gap; i < n; i++) {
			u64 x = v[i], j = i;

			for (; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
	}
}

/* A step this much longer than a period ends a run: an event lost, or one late by half a period. */
#define RUN_STEP_NUM 3
#define RUN_STEP_DEN 2

/* Where the run of events from `from` ends (one past its last). */
static unsigned run_end(const u64 *t, unsigned n, unsigned from, u64 period)
{
	unsigned k = from + 1;

	while (k < n && (t[k] - t[k - 1]) * RUN_STEP_DEN < period * RUN_STEP_NUM)
		k++;
	return k;
}

/* The least delayed event of t[from..end), and how much later the next least ones came. */
static struct least_delayed run_least(const u64 *t, unsigned from, unsigned end, u64 period)
{
	struct least_delayed out = {.k = from, .run = end - from};
	/* the LEAST_DELAYED_SPREADS + 1 smallest residuals so far, ascending */
	s64 least[LEAST_DELAYED_SPREADS + 1];

	for (unsigned i = 0; i <= LEAST_DELAYED_SPREADS; i++)
		least[i] = INT64_MAX;
	for (unsigned k = from; k < end; k++) {
		/* how much later than the run's first it came, against the periods counted */
		s64 r = (s64)(t[k] - t[from]) - (s64)((k - from) * period);
		unsigned i = LEAST_DELAYED_SPREADS + 1;

		while (i > 0 && r < least[i - 1]) {
			if (i <= LEAST_DELAYED_SPREADS)
				least[i] = least[i - 1];
			i--;
		}
		if (i <= LEAST_DELAYED_SPREADS)
			least[i] = r;
		if (!i)
			out.k = k;
	}
	for (unsigned i = 0; i < LEAST_DELAYED_SPREADS; i++)
		out.spread[i] = least[i + 1] == INT64_MAX ? 0 : (u64)(least[i + 1] - least[0]);
	return out;
}

unsigned longest_run(const u64 *t, unsigned n, u64 period, unsigned *len)
{
	unsigned best = 0;

	*len = 0;
	for (unsigned from = 0, end; from < n; from = end) {
		end = run_end(t, n, from, period);
		if (end - from > *len) {
			*len = end - from;
			best = from;
		}
	}
	return best;
}

struct least_delayed least_delayed(const u64 *t, unsigned n, u64 period)
{
	unsigned len, from = longest_run(t, n, period, &len);

	return run_least(t, from, from + len, period);
}

struct quarter_marks quarter_marks(const u64 *t, unsigned n, u64 period)
{
	unsigned q = n / 4;
	struct least_delayed a = least_delayed(t, q, period);
	struct least_delayed z = least_delayed(t + n - q, q, period);

	return (struct quarter_marks){
		.first = a.k,
		.last = n - q + z.k,
		.run = min(a.run, z.run),
		.slack = a.spread[1] + z.spread[1],
	};
}

u64 stats_percentile(const u64 *sorted, u64 n, unsigned p)
{
	u64 rank;

	if (!n)
		return 0;
	/* nearest rank: ceil(p/100 * n), 1-based */
	rank = (p * n + 99) / 100;
	if (rank == 0)
		rank = 1;
	return sorted[min(rank, n) - 1];
}

/* floor((a + b) / 2) without the sum, which may not fit */
static u64 midpoint(u64 a, u64 b)
{
	return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
}

/*
 * (hi * 2^64 + lo) / d for hi < d, which makes the quotient fit: one bit at a
 * time, since i386 has no 128-bit type and the guests no __udivti3.
 */
static u64 div128_u64(u64 hi, u64 lo, u64 d)
{
	u64 q = 0;

	for (unsigned i = 0; i < 64; i++) {
		u64 carry = hi >> 63;

		hi = hi << 1 | lo >> 63;
		lo <<= 1;
		q <<= 1;
		if (carry || hi >= d) {
			hi -= d;
			q |= 1;
		}
	}
	return q;
}

/* The mean of n values always fits, even when their sum does not: keep the sum in two halves. */
static u64 mean_of(const u64 *s, u64 n)
{
	u64 sum_hi = 0, sum = 0;

	for (u64 i = 0; i < n; i++) {
		u64 before = sum;

		sum += s[i];
		sum_hi += sum < before;
	}
	return sum_hi ? div128_u64(sum_hi, sum, n) : sum / n;
}

/* The first index whose sample is not below v (n when none), in sorted s. */
static u64 lower_bound(const u64 *s, u64 n, u64 v)
{
	u64 lo = 0, hi = n;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Median of |x - median| over sorted samples: below the median the
 * deviations grow leftwards, from it upwards rightwards, so walking outward
 * from the median, the nearer side first (as a merge does), visits them in
 * increasing order. The middle one is the MAD; for even n the lower and
 * upper middle are averaged as for the median. Half the samples are read
 * once: guest code is slow enough under emulation (docs/host-quirks.md)
 * that a pass per bit over all of them cost a 2000-tick timer run 0.8 s.
 */
static u64 mad_of(const u64 *s, u64 n, u64 median)
{
	u64 right = lower_bound(s, n, median), left = right, prev = 0, d = 0;

	for (u64 taken = 0; taken <= n / 2; taken++) {
		prev = d;
		if (right < n && (!left || s[right] - median <= median - s[left - 1]))
			d = s[right++] - median;
		else
			d = median - s[--left];
	}
	return n % 2 ? d : midpoint(prev, d);
}

void stats_compute(u64 *s, u64 n, struct stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	sort_u64(s, n);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : midpoint(s[n / 2 - 1], s[n / 2]);
	out->p99 = stats_percentile(s, n, 99);
	out->mean = mean_of(s, n);
	out->mad = mad_of(s, n, out->median);
}

u64 ticks_to_ps(u64 ticks, u64 hz)
{
	if (!hz)
		return 0;
	/* whole seconds and the remainder separately, so nothing overflows */
	return ticks / hz * PSEC_PER_SEC + (ticks % hz) * PSEC_PER_MSEC / hz * MSEC_PER_SEC +
	       (ticks % hz) * PSEC_PER_MSEC % hz * MSEC_PER_SEC / hz;
}

u64 ticks_to_ns(u64 ticks, u64 hz)
{
	if (!hz)
		return 0;
	return ticks / hz * NSEC_PER_SEC + (ticks % hz) * NSEC_PER_SEC / hz;
}

u64 ns_to_ticks(u64 ns, u64 hz)
{
	return ns / NSEC_PER_SEC * hz +
	       ((ns % NSEC_PER_SEC) * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}
