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

void stats_compute(u64 *s, u64 n, struct stats *out)
{
	u64 sum_hi = 0, sum = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	sort_u64(s, n);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2 + (s[n / 2 - 1] % 2 + s[n / 2] % 2) / 2;
	out->p99 = stats_percentile(s, n, 99);
	/* mean as quotient of a 128-bit sum kept in two halves */
	for (u64 i = 0; i < n; i++) {
		u64 before = sum;

		sum += s[i];
		sum_hi += sum < before;
	}
	out->mean = sum_hi ? UINT64_MAX : sum / n;
	{
		/* MAD: median of |x - median|, computed without a second buffer by bisection */
		u64 lo = 0, hi = max(out->median - out->min, out->max - out->median);

		while (lo < hi) {
			u64 mid = lo + (hi - lo) / 2, within = 0;

			for (u64 i = 0; i < n; i++) {
				u64 d = s[i] > out->median ? s[i] - out->median : out->median - s[i];

				within += d <= mid;
			}
			if (within * 2 >= n)
				hi = mid;
			else
				lo = mid + 1;
		}
		out->mad = lo;
	}
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
	snprintf(buf, size, "%llu.%03llu", (unsigned long long)(thousandths / 1000),
		 (unsigned long long)(thousandths % 1000));
	return buf;
}
