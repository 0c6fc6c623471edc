// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/period.c on the host: a periodic source's period from its tick
 * stamps, as rtc_test's periodic rate and the lifecycle test's period
 * across an event take it, its count against the count due (the tick
 * engine's and the lifecycle windows' rates), and whether the host left the stretch quiet.
 * What: marks and their span on literal ticks; one run or not; the period
 * of the longest run (and none from a run too short, as a rate select one
 * step slow leaves); the rate's error against nominal at a rate whose
 * period is no whole number of ns; the change of period across an event
 * with its bound; the busy-host rule by each witness; a count against the
 * count due, each side's bound its own; the periods a delay explains. Why: both tests
 * judge a timer's rate by these; a miscounted period or a busy host taken
 * for a quiet one is a false verdict. How: table cases with figures worked
 * out by hand in their comments.
 */
/* LIBSRC: lib/period.c lib/stats.c lib/busy.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../lib/period.h"
#include "../lib/units.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* a period of 1000: first quarter 10, 1000, 2020 (least delayed 1000); last 9005, 10001, 11003 */
static const u64 twelve[12] = {10,   1000, 2020, 3000, 4000,  5000,
			       6000, 7000, 8000, 9005, 10001, 11003};

static void test_marks(void **state)
{
	struct period_marks m = period_marks(twelve, 12, 1000);

	assert_int_equal(m.first, 1);
	assert_int_equal(m.last, 10);
	assert_int_equal(m.span, 9001);
	/* the third least delayed of each: 20 after 1000, 4 after 10001 */
	assert_int_equal(m.slack, 24);
	assert_int_equal(m.run, 3);
}

static void test_one_run(void **state)
{
	static const u64 lost[6] = {0, 1000, 2000, 4000, 5000, 6000};
	static const u64 late[6] = {0, 1000, 2600, 3000, 4000, 5000};

	assert_null(period_one_run(twelve, 12, 1000));
	assert_string_equal(period_one_run(lost, 6, 1000), "a tick lost or late by half a period");
	/* 2600 is 1600 after 1000: late by over half a period, it ends a run */
	assert_non_null(period_one_run(late, 6, 1000));
	/* the last tick lost: a run of all but one is not one run */
	assert_non_null(period_one_run(lost, 4, 1000));
}

/*
 * Ticks every 500 on a nominal 1000 (a rate select one step fast) are one
 * run; every 2000 (one step slow) no run at all. A lost tick splits them:
 * the longer part is timed.
 */
static void test_longest_run(void **state)
{
	u64 t[40];
	struct period_of_run r;

	for (unsigned k = 0; k < 40; k++)
		t[k] = k * 500;
	r = period_of_longest_run(t, 40, 1000, 16, 0);
	/*
	 * against the nominal 1000 each tick looks 500 earlier than the one
	 * before: the marks are each quarter's last (9 and 39), the third
	 * least delayed 1000 after each: (2000 / 30) + 1
	 */
	assert_int_equal(r.period, 500);
	assert_int_equal(r.per_period, 67);
	assert_int_equal(r.first, 9);
	assert_int_equal(r.last, 39);
	/* the stamps' slack adds to the marks' spread: (2000 + 40) / 30 + 1 */
	r = period_of_longest_run(t, 40, 1000, 16, 40);
	assert_int_equal(r.per_period, 69);
	for (unsigned k = 0; k < 40; k++)
		t[k] = k * 2000;
	r = period_of_longest_run(t, 40, 1000, 16, 0);
	assert_int_equal(r.period, 0);
	/* 10 ticks, a lost one, 30 ticks: the 30 are timed, and none when 31 are wanted */
	for (unsigned k = 0; k < 40; k++)
		t[k] = (k + (k >= 10)) * 1000;
	r = period_of_longest_run(t, 40, 1000, 16, 0);
	assert_int_equal(r.period, 1000);
	/* the marks of the 30 (indices 10 to 39), in t: the first of each of its quarters */
	assert_int_equal(r.first, 10);
	assert_int_equal(r.last, 10 + 30 - 30 / 4);
	r = period_of_longest_run(t, 40, 1000, 31, 0);
	assert_int_equal(r.period, 0);
}

/* 8192 Hz: 122070.3125 ns a period, no whole number: 8192 periods are 1 s to the ns */
static void test_err(void **state)
{
	static const struct {
		u64 periods, hz, span;
		s64 want_ppb;
	} cases[] = {
		{8192, 8192, NSEC_PER_SEC, 0},
		{256, 256, NSEC_PER_SEC + NSEC_PER_SEC / 200, -4975124},
		{512, 256, NSEC_PER_SEC, NSEC_PER_SEC},
		{100, 64, 1562500000, 0},
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		assert_int_equal(period_err_ppb(cases[i].periods, cases[i].hz, cases[i].span),
				 cases[i].want_ppb);
}

/*
 * Before: 100 periods in 1,000,000 (slack 50: 50 ppm); after: 100 in
 * 1,000,100 (slack 20: 20 ppm): 100 ppm longer, bound 50 + 20 + 1.
 */
static void test_change(void **state)
{
	struct period_marks b = {.span = 1000000, .slack = 50}, a = {.span = 1000100, .slack = 20};
	struct period_change c = period_change(&b, 100, &a, 100);

	assert_int_equal(c.err_ppm, 100);
	assert_int_equal(c.bound_ppm, 71);
	/* 200 periods after in twice the span: the same period */
	a.span = 2000000;
	c = period_change(&b, 100, &a, 200);
	assert_int_equal(c.err_ppm, 0);
	/* a slack that is not a whole ppm rounds up: 1 over 1,000,000 is 1 ppm */
	b.slack = 1;
	a.slack = 0;
	assert_int_equal(period_change(&b, 100, &a, 200).bound_ppm, 2);
}

/* QUIET_HOST_PCT is 5: 50 of 1000 is quiet, 51 is not, by each witness; the runner's wait too */
/*
 * A count against the count due: short by up to short_allowed, over by up
 * to over_allowed, each bound taken on its own side; exactly due is short
 * by 0. As the lifecycle's windows use it (per mille of nominal, times a
 * thousand): 900 of 1000 with a 10% tolerance (100000) and 20 waited
 * (20000) is short 100000 of 120000 allowed; 1101 is over 101000 of 100000.
 */
static void test_count(void **state)
{
	static const struct {
		u64 got, want, short_allowed, over_allowed;
		bool is_short;
		u64 off, bound;
		bool ok;
	} cases[] = {
		{ 1000, 1000, 0, 0, true, 0, 0, true },
		{ 997, 1000, 3, 0, true, 3, 3, true },
		{ 996, 1000, 3, 9, true, 4, 3, false },
		{ 1009, 1000, 9, 9, false, 9, 9, true },
		{ 1010, 1000, 50, 9, false, 10, 9, false },
		{ 900000, 1000000, 120000, 100000, true, 100000, 120000, true },
		{ 1101000, 1000000, 120000, 100000, false, 101000, 100000, false },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct period_count c = period_count(cases[i].got, cases[i].want,
						     cases[i].short_allowed, cases[i].over_allowed);

		assert_int_equal(c.is_short, cases[i].is_short);
		assert_int_equal(c.off, cases[i].off);
		assert_int_equal(c.bound, cases[i].bound);
		assert_int_equal(c.ok, cases[i].ok);
		/* the band, both ends whatever the side: what a BOUND line prints */
		assert_int_equal(c.short_allowed, cases[i].short_allowed);
		assert_int_equal(c.over_allowed, cases[i].over_allowed);
	}
}

/*
 * The periods a delay explains, floor((delay + uncertainty) / period), at
 * a period of 1000 with each caller's uncertainty and its edges: the tick
 * judgment's normal latency (20), rtc_test's half period (500), the
 * lifecycle's phase (999: a stop one tick long can cover a slot, one a
 * whole period long no more than one), none (0). No delay explains
 * nothing even where the uncertainty is a period or more (a one-shot's
 * normal latency of 1889 us at 1 kHz); a delay near u64's end does not
 * wrap.
 */
static void test_periods_explained(void **state)
{
	static const struct {
		u64 delay, period, uncertainty, want;
	} cases[] = {
		/* the tick judgment: its normal latency */
		{979, 1000, 20, 0},
		{980, 1000, 20, 1},
		{1979, 1000, 20, 1},
		{1980, 1000, 20, 2},
		/* rtc_test: half a period */
		{499, 1000, 500, 0},
		{500, 1000, 500, 1},
		{1499, 1000, 500, 1},
		{1500, 1000, 500, 2},
		/* the lifecycle: a period less a tick */
		{0, 1000, 999, 0},
		{1, 1000, 999, 1},
		{1000, 1000, 999, 1},
		{1001, 1000, 999, 2},
		/* none */
		{999, 1000, 0, 0},
		{1000, 1000, 0, 1},
		/* an uncertainty over a period; no period; a delay near u64's end */
		{0, 1000, 1889, 0},
		{1, 1000, 1889, 1},
		{112, 1000, 1889, 2},
		{5000, 0, 20, 0},
		{UINT64_MAX, 1000, 999, UINT64_MAX / 1000 + 1},
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		u64 got = periods_explained(cases[i].delay, cases[i].period, cases[i].uncertainty);

		if (got != cases[i].want)
			fail_msg("case %zu: a delay of %llu explains %llu periods of %llu with an "
				 "uncertainty of %llu, want %llu",
				 i, (unsigned long long)cases[i].delay, (unsigned long long)got,
				 (unsigned long long)cases[i].period,
				 (unsigned long long)cases[i].uncertainty,
				 (unsigned long long)cases[i].want);
	}
}

static void test_busy(void **state)
{
	static const struct {
		struct period_host h;
		const char *want;
	} cases[] = {
		{{PERIOD_BY_STEAL, 1000, 50, 0, 0}, NULL},
		{{PERIOD_BY_STEAL, 1000, 51, 0, 0},
		 "a busy host, steal time over 5% of the window"},
		{{PERIOD_BY_HOST, 1000, 50, 0, 0}, NULL},
		{{PERIOD_BY_HOST, 1000, 51, 0, 0},
		 "a busy host by its evidence, QEMU's threads held back over 5% of the window"},
		{{PERIOD_BY_NOTHING, 1000, 0, 0, 0}, "no steal time here to tell a busy host by"},
		{{PERIOD_BY_STEAL, 1000, 0, 51, 1000},
		 "a busy host, a vCPU waited over 5% of the window for a host CPU"},
		{{PERIOD_BY_STEAL, 1000, 0, 50, 1000}, NULL},
		/* the steal's reason first, as the lifecycle check said it */
		{{PERIOD_BY_STEAL, 1000, 51, 51, 1000},
		 "a busy host, steal time over 5% of the window"},
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const char *got = period_busy(&cases[i].h);

		print_message("case %zu\n", i);
		if (cases[i].want)
			assert_string_equal(got, cases[i].want);
		else
			assert_null(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks),	    cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_longest_run), cmocka_unit_test(test_err),
		cmocka_unit_test(test_change),	    cmocka_unit_test(test_busy),
		cmocka_unit_test(test_count),	    cmocka_unit_test(test_periods_explained),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
