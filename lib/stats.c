/* SPDX-License-Identifier: GPL-2.0-only */
/* Sample statistics and tick conversions shared by the benchmarks and the timer tests. */
#include "stats.h"

#define NS_PER_S 1000000000ull
#define PS_PER_S 1000000000000ull

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

static u64 deviation(u64 x, u64 median)
{
	return x > median ? x - median : median - x;
}

/* How many samples lie within d of the median. */
static u64 count_within(const u64 *s, u64 n, u64 median, u64 d)
{
	u64 within = 0;

	for (u64 i = 0; i < n; i++)
		within += deviation(s[i], median) <= d;
	return within;
}

/*
 * Median of |x - median|, without a second buffer: bisect for the smallest
 * deviation that half the samples lie within (the middle one, or the lower
 * middle for even n); for even n the upper middle is that one again or the
 * next larger deviation, and the two are averaged as for the median.
 */
static u64 mad_of(const u64 *s, u64 n, u64 median, u64 widest)
{
	u64 lo = 0, hi = widest, upper = UINT64_MAX;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (count_within(s, n, median, mid) * 2 >= n)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (n % 2)
		return lo;
	if (count_within(s, n, median, lo) > n / 2)
		return lo;
	for (u64 i = 0; i < n; i++) {
		u64 d = deviation(s[i], median);

		if (d > lo)
			upper = min(upper, d);
	}
	return midpoint(lo, upper);
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
	out->mad = mad_of(s, n, out->median, max(out->median - out->min, out->max - out->median));
}

u64 ticks_to_ps(u64 ticks, u64 hz)
{
	if (!hz)
		return 0;
	/* whole seconds and the remainder separately, so nothing overflows */
	return ticks / hz * PS_PER_S + (ticks % hz) * (PS_PER_S / 1000) / hz * 1000 +
	       (ticks % hz) * (PS_PER_S / 1000) % hz * 1000 / hz;
}

u64 ticks_to_ns(u64 ticks, u64 hz)
{
	if (!hz)
		return 0;
	return ticks / hz * NS_PER_S + (ticks % hz) * NS_PER_S / hz;
}

u64 ns_to_ticks(u64 ns, u64 hz)
{
	return ns / NS_PER_S * hz + ((ns % NS_PER_S) * hz + NS_PER_S - 1) / NS_PER_S;
}

const char *fmt_milli(char *buf, size_t size, u64 thousandths)
{
	snprintf(buf, size, "%llu.%03llu", thousandths / 1000, thousandths % 1000);
	return buf;
}
