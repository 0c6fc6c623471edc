// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/stats.c on the host: the order statistics every benchmark and timer
 * test reports, and the tick-to-time conversions behind their ns figures.
 * sort_u64 is checked against qsort, stats_percentile against the
 * definition of the nearest rank, and stats_compute against a plain
 * reference (a sorted copy, a 128-bit sum, the deviations sorted in a second
 * buffer) on pseudo-random samples of every size and spread, values near
 * UINT64_MAX included: a mean whose sum does not fit 64 bits must still be
 * the mean, and the MAD of an even count averages its two middle deviations
 * as the median does. The conversions must be exact (rounded down; ns to
 * ticks rounded up) against unsigned __int128 wherever the result fits,
 * for counters from 24 MHz to 18 GHz.
 */
/* LIBSRC: lib/stats.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/stats.h"
#include "../lib/fixed.h"
#include "../lib/units.h"

#define ARRAY_LEN(a)   (sizeof(a) / sizeof((a)[0]))
#define STATS_ROUNDS   300
#define STATS_MAX_N    2500
#define CONVERT_ROUNDS 300000
#define HZ_MIN	       24000000ull
#define HZ_MAX	       18000000000ull

typedef unsigned __int128 u128;

/* A random value of random bit length, so small values are as common as huge ones. */
static u64 random_any(u64 *s)
{
	return next_random(s) >> (next_random(s) & 63);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* --- references: the definitions, written the obvious way ------------------ */

static u64 ref_median(const u64 *sorted, u64 n)
{
	if (n % 2)
		return sorted[n / 2];
	return (u64)(((u128)sorted[n / 2 - 1] + sorted[n / 2]) / 2);
}

/* Nearest rank: the smallest rank r (1-based) with r >= p% of n. */
static u64 ref_percentile(const u64 *sorted, u64 n, unsigned p)
{
	u64 r = 1;

	while (r < n && (u128)r * 100 < (u128)p * n)
		r++;
	return sorted[r - 1];
}

static void ref_stats(const u64 *samples, u64 n, struct stats *st)
{
	u64 *sorted = malloc(n * sizeof(*sorted)), *dev = malloc(n * sizeof(*dev));
	u128 sum = 0;

	assert_non_null(sorted);
	assert_non_null(dev);
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	st->n = n;
	st->min = sorted[0];
	st->max = sorted[n - 1];
	st->median = ref_median(sorted, n);
	st->p99 = ref_percentile(sorted, n, 99);
	for (u64 i = 0; i < n; i++)
		sum += sorted[i];
	st->mean = (u64)(sum / n);
	for (u64 i = 0; i < n; i++)
		dev[i] = sorted[i] > st->median ? sorted[i] - st->median : st->median - sorted[i];
	qsort(dev, n, sizeof(*dev), cmp_u64);
	st->mad = ref_median(dev, n);
	free(sorted);
	free(dev);
}

static void check_stats(const u64 *samples, u64 n)
{
	u64 *work = malloc(n * sizeof(*work) + 1);
	struct stats got, want;

	assert_non_null(work);
	memcpy(work, samples, n * sizeof(*work));
	stats_compute(work, n, &got);
	ref_stats(samples, n, &want);
	assert_int_equal(got.n, want.n);
	assert_int_equal(got.min, want.min);
	assert_int_equal(got.max, want.max);
	assert_int_equal(got.median, want.median);
	assert_int_equal(got.p99, want.p99);
	assert_int_equal(got.mean, want.mean);
	assert_int_equal(got.mad, want.mad);
	/* stats_compute sorts in place: the caller may rely on it */
	for (u64 i = 1; i < n; i++)
		assert_true(work[i - 1] <= work[i]);
	free(work);
}

/* --- sort_u64 ---------------------------------------------------------------- */

enum shape { SHAPE_RANDOM, SHAPE_SORTED, SHAPE_REVERSED, SHAPE_EQUAL, SHAPE_FEW, SHAPE_COUNT };

static void fill(u64 *v, u64 n, enum shape shape, u64 *seed)
{
	for (u64 i = 0; i < n; i++) {
		switch (shape) {
		case SHAPE_RANDOM:
			v[i] = random_any(seed);
			break;
		case SHAPE_SORTED:
			v[i] = i * 3;
			break;
		case SHAPE_REVERSED:
			v[i] = UINT64_MAX - i;
			break;
		case SHAPE_EQUAL:
			v[i] = 42;
			break;
		default:
			v[i] = next_random(seed) % 3 ? UINT64_MAX : 0;
			break;
		}
	}
}

static void test_sort(void **state)
{
	/* around each gap of the shell sort, and beyond the largest */
	static const u64 sizes[] = {0, 1, 2, 3, 4, 5, 9, 10, 11, 57, 100, 301, 1750, 1751, 4000};
	u64 seed = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		for (int shape = 0; shape < SHAPE_COUNT; shape++) {
			u64 n = sizes[i], *v = malloc(n * sizeof(*v) + 1),
			    *want = malloc(n * sizeof(*want) + 1);

			fill(v, n, shape, &seed);
			memcpy(want, v, n * sizeof(*v));
			qsort(want, n, sizeof(*want), cmp_u64);
			sort_u64(v, n);
			assert_memory_equal(v, want, n * sizeof(*v));
			free(v);
			free(want);
		}
	}
}

/* --- least_delayed ------------------------------------------------------------ */

/*
 * Table cases on a period of 1000: times of events due every 1000 that
 * came on time or late; want the least delayed and the spread after it.
 */
static void test_least_delayed(void **state)
{
	static const struct {
		const char *what;
		u64 t[8];
		unsigned n;
		unsigned want;
		u64 spread, spread2;
		unsigned run;
	} cases[] = {
		{"one event", {500}, 1, 0, 0, 0, 1},
		{"the first on time, then later", {100, 1110, 2105, 3300}, 4, 0, 5, 10, 4},
		{"the first late by 30", {130, 1100, 2105, 3102}, 4, 1, 2, 5, 4},
		/* by residuals modulo 1000 the third (2900) would look 100 early */
		{"one late by 90% ends a run", {0, 1003, 2900, 3001, 4002}, 5, 3, 1, 899, 3},
		/* 2230 -> 4205: a step of two periods, a lost event, starts a run */
		{"the longer run after a lost", {200, 1250, 2230, 4205, 5201, 6203, 7202}, 7, 4, 1, 2, 4},
		{"all on time", {0, 1000, 2000, 3000}, 4, 0, 0, 0, 4},
		{"two events", {0, 1010}, 2, 0, 10, 0, 2},
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct least_delayed got = least_delayed(cases[i].t, cases[i].n, 1000);

		print_message("%s\n", cases[i].what);
		assert_int_equal(got.k, cases[i].want);
		assert_int_equal(got.spread[0], cases[i].spread);
		assert_int_equal(got.spread[1], cases[i].spread2);
		assert_int_equal(got.run, cases[i].run);
	}
}

/* The marks of a window of 12 on a period of 1000: the least delayed of each quarter of 3. */
static void test_quarter_marks(void **state)
{
	/* first quarter: 10, 1000, 2020 (residuals 0, -10, +10); last: 9005, 10001, 11003 */
	static const u64 t[12] = {10,	1000, 2020, 3000, 4000,	 5000,
				  6000, 7000, 8000, 9005, 10001, 11003};
	struct quarter_marks m = quarter_marks(t, 12, 1000);

	assert_int_equal(m.first, 1);
	assert_int_equal(m.last, 10);
	/* the third least delayed: 20 after 1000, 4 after 10001 */
	assert_int_equal(m.slack, 24);
	assert_int_equal(m.run, 3);
}

/* --- stats_percentile ---------------------------------------------------------- */

static void test_percentile(void **state)
{
	static const u64 ten[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
	static const struct {
		u64 n;
		unsigned p;
		u64 want;
	} cases[] = {
		{0, 50, 0},   {1, 0, 10},   {1, 100, 10}, {10, 0, 10},	 {10, 1, 10},
		{10, 10, 10}, {10, 11, 20}, {10, 50, 50}, {10, 99, 100}, {10, 100, 100},
		{4, 50, 20},  {4, 51, 30},  {4, 75, 30},  {4, 76, 40},	 {10, 250, 100},
	};
	u64 *v = malloc(1000 * sizeof(*v));

	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		assert_int_equal(stats_percentile(ten, cases[i].n, cases[i].p), cases[i].want);
	/* every rank of every size up to a thousand samples */
	for (u64 i = 0; i < 1000; i++)
		v[i] = i + 1;
	for (u64 n = 1; n <= 1000; n++)
		for (unsigned p = 0; p <= 100; p++)
			assert_int_equal(stats_percentile(v, n, p), ref_percentile(v, n, p));
	free(v);
}

/* --- stats_compute ------------------------------------------------------------- */

static void test_compute_empty(void **state)
{
	struct stats st;
	u64 dummy = 7;

	memset(&st, 0xa5, sizeof(st));
	stats_compute(&dummy, 0, &st);
	assert_int_equal(st.n, 0);
	assert_int_equal(st.min | st.max | st.median | st.p99 | st.mean | st.mad, 0);
	assert_int_equal(dummy, 7);
}

/* Samples whose statistics are known by hand; unsorted on purpose. */
static const struct {
	u64 n;
	u64 v[6];
	u64 min, max, median, p99, mean, mad;
} known_cases[] = {
	{1, {5}, 5, 5, 5, 5, 5, 0},
	{2, {9, 4}, 4, 9, 6, 9, 6, 2},
	{3, {3, 1, 2}, 1, 3, 2, 3, 2, 1},
	/* deviations 5 1 1 15: the MAD is (1 + 5) / 2, not the lower middle 1 */
	{4, {20, 6, 0, 4}, 0, 20, 5, 20, 7, 3},
	{5, {1, 2, 3, 4, 1000}, 1, 1000, 3, 1000, 202, 1},
	/* the median of two values near UINT64_MAX, whose sum does not fit */
	{2,
	 {UINT64_MAX, UINT64_MAX - 1},
	 UINT64_MAX - 1,
	 UINT64_MAX,
	 UINT64_MAX - 1,
	 UINT64_MAX,
	 UINT64_MAX - 1,
	 0},
	{2,
	 {UINT64_MAX, UINT64_MAX},
	 UINT64_MAX,
	 UINT64_MAX,
	 UINT64_MAX,
	 UINT64_MAX,
	 UINT64_MAX,
	 0},
	{2,
	 {UINT64_MAX, 0},
	 0,
	 UINT64_MAX,
	 UINT64_MAX / 2,
	 UINT64_MAX,
	 UINT64_MAX / 2,
	 UINT64_MAX / 2},
	{4,
	 {UINT64_MAX, UINT64_MAX - 2, 1, 3},
	 1,
	 UINT64_MAX,
	 UINT64_MAX / 2 + 1,
	 UINT64_MAX,
	 UINT64_MAX / 2 + 1,
	 UINT64_MAX / 2 - 1},
	/* a sum of 2^65 - 4: the mean is still the mean, below the maximum */
	{3,
	 {UINT64_MAX - 2, UINT64_MAX - 1, UINT64_MAX},
	 UINT64_MAX - 2,
	 UINT64_MAX,
	 UINT64_MAX - 1,
	 UINT64_MAX,
	 UINT64_MAX - 1,
	 1},
};

static void test_compute_known(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(known_cases); i++) {
		u64 v[6];
		struct stats st;

		memcpy(v, known_cases[i].v, sizeof(v));
		stats_compute(v, known_cases[i].n, &st);
		assert_int_equal(st.n, known_cases[i].n);
		assert_int_equal(st.min, known_cases[i].min);
		assert_int_equal(st.max, known_cases[i].max);
		assert_int_equal(st.median, known_cases[i].median);
		assert_int_equal(st.p99, known_cases[i].p99);
		assert_int_equal(st.mean, known_cases[i].mean);
		assert_int_equal(st.mad, known_cases[i].mad);
		check_stats(known_cases[i].v, known_cases[i].n);
	}
}

/* Where the samples come from: each spread stresses a different part. */
enum spread { SPREAD_ANY, SPREAD_NARROW, SPREAD_TOP, SPREAD_OUTLIERS, SPREAD_TIES, SPREAD_COUNT };

static u64 sample(enum spread spread, u64 *seed)
{
	u64 r = next_random(seed);

	switch (spread) {
	case SPREAD_ANY:
		return random_any(seed);
	case SPREAD_NARROW: /* like latencies: around 1000, a few ticks apart */
		return 1000 + r % 64;
	case SPREAD_TOP: /* the sum overflows many times over */
		return UINT64_MAX - r % 1000000;
	case SPREAD_OUTLIERS:
		return r % 100 ? 500 + r % 10 : r;
	default: /* many equal deviations on both sides of the median */
		return 100 + (r % 5) * 10;
	}
}

static void test_compute_random(void **state)
{
	u64 seed = 0x2545f4914f6cdd1dULL, *v = malloc(STATS_MAX_N * sizeof(*v));

	for (int round = 0; round < STATS_ROUNDS; round++) {
		enum spread spread = round % SPREAD_COUNT;
		/* small sizes often (odd and even alike), a few large ones */
		u64 n = round % 4 ? 1 + next_random(&seed) % 40
				  : 1 + next_random(&seed) % STATS_MAX_N;

		for (u64 i = 0; i < n; i++)
			v[i] = sample(spread, &seed);
		check_stats(v, n);
	}
	free(v);
}

/* --- tick conversions ------------------------------------------------------------ */

/* Exact unless the result needs more than 64 bits: then there is nothing to compare with. */
static void check_convert(u64 ticks, u64 hz)
{
	u128 ps = (u128)ticks * PSEC_PER_SEC / hz, ns = (u128)ticks * NSEC_PER_SEC / hz;
	u128 back = ((u128)ticks * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;

	if (!(ps >> 64))
		assert_int_equal(ticks_to_ps(ticks, hz), (u64)ps);
	if (!(ns >> 64))
		assert_int_equal(ticks_to_ns(ticks, hz), (u64)ns);
	/* here ticks stands for ns */
	if (!(back >> 64)) {
		u64 t = ns_to_ticks(ticks, hz);

		assert_int_equal(t, (u64)back);
		/* rounded up: the ticks last at least the ns asked for */
		if (!(((u128)t * NSEC_PER_SEC / hz) >> 64))
			assert_true(ticks_to_ns(t, hz) >= ticks);
	}
}

static const u64 hz_edges[] = {
	HZ_MIN,	    19200000,	25000000,   62500000,	100000000,  1000000000,
	1193182,    2596126000, 3000000000, 4294967295, 4294967296, 10000000007ull,
	HZ_MAX - 1, HZ_MAX,	1,	    3,
};

static void test_convert_edges(void **state)
{
	for (size_t h = 0; h < ARRAY_LEN(hz_edges); h++) {
		u64 hz = hz_edges[h];
		const u64 ticks[] = {
			0,
			1,
			2,
			hz - 1,
			hz,
			hz + 1,
			2 * hz - 1,
			1000 * hz,
			1000 * hz - 1,
			UINT32_MAX,
			1ull << 32,
			1ull << 53,
			UINT64_MAX,
			UINT64_MAX - 1,
			UINT64_MAX / hz * hz,
			NSEC_PER_SEC,
			NSEC_PER_SEC - 1,
			PSEC_PER_SEC,
			PSEC_PER_SEC + 1,
		};

		for (size_t t = 0; t < ARRAY_LEN(ticks); t++)
			check_convert(ticks[t], hz);
	}
}

static void test_convert_random(void **state)
{
	u64 seed = 0xda942042e4dd58b5ULL;

	for (int i = 0; i < CONVERT_ROUNDS; i++) {
		u64 hz = HZ_MIN + next_random(&seed) % (HZ_MAX - HZ_MIN + 1);

		check_convert(random_any(&seed), hz);
	}
}

/* What the header promises in words: 213 days at 1 GHz in ps, 18 GHz with every remainder. */
static void test_convert_range(void **state)
{
	u64 days213 = 213ull * 86400 * NSEC_PER_SEC;

	assert_int_equal(ticks_to_ps(days213, NSEC_PER_SEC), days213 * 1000);
	assert_int_equal(ticks_to_ps(days213 + 999999999, NSEC_PER_SEC), (days213 + 999999999) * 1000);
	assert_int_equal(ticks_to_ps(HZ_MAX - 1, HZ_MAX),
			 (u64)((u128)(HZ_MAX - 1) * PSEC_PER_SEC / HZ_MAX));
	assert_int_equal(ticks_to_ns(HZ_MAX - 1, HZ_MAX), 999999999);
	assert_int_equal(ns_to_ticks(NSEC_PER_SEC - 1, HZ_MAX), HZ_MAX - 18);
	assert_int_equal(ns_to_ticks(1, HZ_MIN), 1);
	assert_int_equal(ticks_to_ns(1, HZ_MIN), 41);
	assert_int_equal(ticks_to_ps(1, HZ_MIN), 41666);
	assert_int_equal(ticks_to_ps(3, HZ_MIN), 125000);
	/* a counter of unknown frequency gives 0, not a division fault */
	assert_int_equal(ticks_to_ps(12345, 0), 0);
	assert_int_equal(ticks_to_ns(12345, 0), 0);
	assert_int_equal(ns_to_ticks(12345, 0), 0);
}

/* --- fmt_milli ------------------------------------------------------------------- */

static void test_fmt_milli(void **state)
{
	static const struct {
		u64 v;
		const char *want;
	} cases[] = {
		{0, "0.000"},	       {1, "0.001"},
		{10, "0.010"},	       {999, "0.999"},
		{1000, "1.000"},       {12345, "12.345"},
		{1000000, "1000.000"}, {UINT64_MAX, "18446744073709551.615"},
	};
	char buf[24];

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		memset(buf, 'x', sizeof(buf));
		assert_ptr_equal(fmt_milli(buf, sizeof(buf), cases[i].v), buf);
		assert_string_equal(buf, cases[i].want);
	}
	/* a short buffer is cut, and still terminated */
	memset(buf, 'x', sizeof(buf));
	assert_string_equal(fmt_milli(buf, 5, 12345), "12.3");
	assert_int_equal(buf[5], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort),	      cmocka_unit_test(test_least_delayed),
		cmocka_unit_test(test_quarter_marks),
		cmocka_unit_test(test_percentile),    cmocka_unit_test(test_compute_empty),
		cmocka_unit_test(test_compute_known), cmocka_unit_test(test_compute_random),
		cmocka_unit_test(test_convert_edges), cmocka_unit_test(test_convert_random),
		cmocka_unit_test(test_convert_range), cmocka_unit_test(test_fmt_milli),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
