// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/tod.c on the host: the one rule of the time of day at start-up
 * (lib/tod.h), at each end of its band. A table of readings, each just
 * inside or just outside an end, for a clock of 1 s resolution whose figure
 * is in ms (the RTC) or in s (the PL031) and one of 1 ns with 1 ms of
 * rounding (kvmclock), with a host time with a fraction and without, with
 * and without time elapsed (the drift): each must print exactly its BOUND
 * line and its PASS or FAIL line, and tod_holds() must agree.
 */
/* LIBSRC: lib/tod.c lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../lib/tod.h"
#include "../lib/units.h"

/* --- the platform hook report.c calls --------------------------------------- */

void cpu_relax(void)
{
}

/* --- the clocks and the host's times ---------------------------------------- */

static const struct tod_clock rtc = { .name = "the RTC", .figure = "rtc.tod_offset_ms",
				      .unit = TOD_UNIT_MS, .resolution_ns = NSEC_PER_SEC };
static const struct tod_clock pl031 = { .name = "PL031", .figure = "pl031.tod_offset_s",
					.unit = TOD_UNIT_S, .resolution_ns = NSEC_PER_SEC };
static const struct tod_clock kvmclock = { .name = "kvmclock",
					   .figure = "kvmclock.wallclock.startup_delay_ms",
					   .unit = TOD_UNIT_MS, .resolution_ns = 1,
					   .rounding_ns = NSEC_PER_MSEC };

/* H with a fraction (date +%s.%N) and without (date +%s) */
#define HOST_FRACTION_NS 1700000000250000000ull
#define HOST_WHOLE_NS	 1700000000000000000ull
#define FRAC		 TOD_HOST_FRACTION
#define WHOLE		 TOD_HOST_WHOLE_SECONDS
#define S		 NSEC_PER_SEC
#define MS		 NSEC_PER_MSEC

struct tod_case {
	const struct tod_clock *clock;
	enum tod_host_time host_time;
	u64 elapsed_ns, threshold_ns;
	s64 offset_ns;		/* R - H - E: the reading is H + E + this */
	bool pass;
	const char *bound, *check;	/* the two lines, exactly */
};

static const struct tod_case cases[] = {
	/* 0-3: 1 s resolution, ms figure, a fraction, nothing elapsed: [-1 s, threshold] */
	{ &rtc, FRAC, 0, 4 * S, -(s64)S, true,
	  "BOUND: rtc.tod_offset_ms -1000.000000 ms -1000.000000..4000.000000",
	  "PASS: the RTC reads the host's time of day + 0 ns elapsed -1000.000000 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +4000.000000 ms "
	  "(threshold 4 s, drift 0 ns)" },
	{ &rtc, FRAC, 0, 4 * S, -(s64)S - 1, false,
	  "BOUND: rtc.tod_offset_ms -1000.000001 ms -1000.000000..4000.000000",
	  "FAIL: the RTC reads the host's time of day + 0 ns elapsed -1000.000001 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +4000.000000 ms "
	  "(threshold 4 s, drift 0 ns)" },
	{ &rtc, FRAC, 0, 4 * S, 4 * S, true,
	  "BOUND: rtc.tod_offset_ms 4000.000000 ms -1000.000000..4000.000000",
	  "PASS: the RTC reads the host's time of day + 0 ns elapsed +4000.000000 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +4000.000000 ms "
	  "(threshold 4 s, drift 0 ns)" },
	{ &rtc, FRAC, 0, 4 * S, 4 * S + 1, false,
	  "BOUND: rtc.tod_offset_ms 4000.000001 ms -1000.000000..4000.000000",
	  "FAIL: the RTC reads the host's time of day + 0 ns elapsed +4000.000001 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +4000.000000 ms "
	  "(threshold 4 s, drift 0 ns)" },
	/* 4-7: the same without a fraction: 1 s more above, the same below */
	{ &rtc, WHOLE, 0, 4 * S, 5 * S, true,
	  "BOUND: rtc.tod_offset_ms 5000.000000 ms -1000.000000..5000.000000",
	  "PASS: the RTC reads the host's time of day + 0 ns elapsed +5000.000000 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +5000.000000 ms "
	  "(threshold 4 s, +1 s: a whole-second host time, drift 0 ns)" },
	{ &rtc, WHOLE, 0, 4 * S, 5 * S + 1, false,
	  "BOUND: rtc.tod_offset_ms 5000.000001 ms -1000.000000..5000.000000",
	  "FAIL: the RTC reads the host's time of day + 0 ns elapsed +5000.000001 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +5000.000000 ms "
	  "(threshold 4 s, +1 s: a whole-second host time, drift 0 ns)" },
	{ &rtc, WHOLE, 0, 4 * S, -(s64)S, true,
	  "BOUND: rtc.tod_offset_ms -1000.000000 ms -1000.000000..5000.000000",
	  "PASS: the RTC reads the host's time of day + 0 ns elapsed -1000.000000 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +5000.000000 ms "
	  "(threshold 4 s, +1 s: a whole-second host time, drift 0 ns)" },
	{ &rtc, WHOLE, 0, 4 * S, -(s64)S - 1, false,
	  "BOUND: rtc.tod_offset_ms -1000.000001 ms -1000.000000..5000.000000",
	  "FAIL: the RTC reads the host's time of day + 0 ns elapsed -1000.000001 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to +5000.000000 ms "
	  "(threshold 4 s, +1 s: a whole-second host time, drift 0 ns)" },
	/* 8-11: 2 s elapsed: 1000 ppm of it, 2 ms, on each end */
	{ &rtc, FRAC, 2 * S, 4 * S, -1002 * (s64)MS, true,
	  "BOUND: rtc.tod_offset_ms -1002.000000 ms -1002.000000..4002.000000",
	  "PASS: the RTC reads the host's time of day + 2 s elapsed -1002.000000 ms, allowed "
	  "-1002.000000 ms (resolution 1 s, rounding 0 ns, drift 2.000 ms) to +4002.000000 ms "
	  "(threshold 4 s, drift 2.000 ms)" },
	{ &rtc, FRAC, 2 * S, 4 * S, -1002 * (s64)MS - 1, false,
	  "BOUND: rtc.tod_offset_ms -1002.000001 ms -1002.000000..4002.000000",
	  "FAIL: the RTC reads the host's time of day + 2 s elapsed -1002.000001 ms, allowed "
	  "-1002.000000 ms (resolution 1 s, rounding 0 ns, drift 2.000 ms) to +4002.000000 ms "
	  "(threshold 4 s, drift 2.000 ms)" },
	{ &rtc, FRAC, 2 * S, 4 * S, 4002 * MS, true,
	  "BOUND: rtc.tod_offset_ms 4002.000000 ms -1002.000000..4002.000000",
	  "PASS: the RTC reads the host's time of day + 2 s elapsed +4002.000000 ms, allowed "
	  "-1002.000000 ms (resolution 1 s, rounding 0 ns, drift 2.000 ms) to +4002.000000 ms "
	  "(threshold 4 s, drift 2.000 ms)" },
	{ &rtc, FRAC, 2 * S, 4 * S, 4002 * MS + 1, false,
	  "BOUND: rtc.tod_offset_ms 4002.000001 ms -1002.000000..4002.000000",
	  "FAIL: the RTC reads the host's time of day + 2 s elapsed +4002.000001 ms, allowed "
	  "-1002.000000 ms (resolution 1 s, rounding 0 ns, drift 2.000 ms) to +4002.000000 ms "
	  "(threshold 4 s, drift 2.000 ms)" },
	/* 12-15: 1 s resolution, figure in s: a fraction below, whole seconds above */
	{ &pl031, FRAC, 0, 5 * S, -(s64)S, true,
	  "BOUND: pl031.tod_offset_s -1.000000000 s -1.000000000..5.000000000",
	  "PASS: PL031 reads the host's time of day + 0 ns elapsed -1.000000000 s, allowed "
	  "-1.000000000 s (resolution 1 s, rounding 0 ns, drift 0 ns) to +5.000000000 s "
	  "(threshold 5 s, drift 0 ns)" },
	{ &pl031, FRAC, 0, 5 * S, -(s64)S - 1, false,
	  "BOUND: pl031.tod_offset_s -1.000000001 s -1.000000000..5.000000000",
	  "FAIL: PL031 reads the host's time of day + 0 ns elapsed -1.000000001 s, allowed "
	  "-1.000000000 s (resolution 1 s, rounding 0 ns, drift 0 ns) to +5.000000000 s "
	  "(threshold 5 s, drift 0 ns)" },
	{ &pl031, WHOLE, 0, 5 * S, 6 * S, true,
	  "BOUND: pl031.tod_offset_s 6.000000000 s -1.000000000..6.000000000",
	  "PASS: PL031 reads the host's time of day + 0 ns elapsed +6.000000000 s, allowed "
	  "-1.000000000 s (resolution 1 s, rounding 0 ns, drift 0 ns) to +6.000000000 s "
	  "(threshold 5 s, +1 s: a whole-second host time, drift 0 ns)" },
	{ &pl031, WHOLE, 0, 5 * S, 6 * S + 1, false,
	  "BOUND: pl031.tod_offset_s 6.000000001 s -1.000000000..6.000000000",
	  "FAIL: PL031 reads the host's time of day + 0 ns elapsed +6.000000001 s, allowed "
	  "-1.000000000 s (resolution 1 s, rounding 0 ns, drift 0 ns) to +6.000000000 s "
	  "(threshold 5 s, +1 s: a whole-second host time, drift 0 ns)" },
	/* 16-21: 1 ns resolution and 1 ms rounding (kvmclock), nothing elapsed */
	{ &kvmclock, FRAC, 0, 500 * MS, -1000001, true,
	  "BOUND: kvmclock.wallclock.startup_delay_ms -1.000001 ms -1.000001..500.000000",
	  "PASS: kvmclock reads the host's time of day + 0 ns elapsed -1.000001 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +500.000000 ms "
	  "(threshold 500.000 ms, drift 0 ns)" },
	{ &kvmclock, FRAC, 0, 500 * MS, -1000002, false,
	  "BOUND: kvmclock.wallclock.startup_delay_ms -1.000002 ms -1.000001..500.000000",
	  "FAIL: kvmclock reads the host's time of day + 0 ns elapsed -1.000002 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +500.000000 ms "
	  "(threshold 500.000 ms, drift 0 ns)" },
	{ &kvmclock, FRAC, 0, 500 * MS, 500 * MS, true,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 500.000000 ms -1.000001..500.000000",
	  "PASS: kvmclock reads the host's time of day + 0 ns elapsed +500.000000 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +500.000000 ms "
	  "(threshold 500.000 ms, drift 0 ns)" },
	{ &kvmclock, FRAC, 0, 500 * MS, 500 * MS + 1, false,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 500.000001 ms -1.000001..500.000000",
	  "FAIL: kvmclock reads the host's time of day + 0 ns elapsed +500.000001 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +500.000000 ms "
	  "(threshold 500.000 ms, drift 0 ns)" },
	{ &kvmclock, WHOLE, 0, 500 * MS, 1500 * MS, true,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 1500.000000 ms -1.000001..1500.000000",
	  "PASS: kvmclock reads the host's time of day + 0 ns elapsed +1500.000000 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +1500.000000 ms "
	  "(threshold 500.000 ms, +1 s: a whole-second host time, drift 0 ns)" },
	{ &kvmclock, WHOLE, 0, 500 * MS, 1500 * MS + 1, false,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 1500.000001 ms -1.000001..1500.000000",
	  "FAIL: kvmclock reads the host's time of day + 0 ns elapsed +1500.000001 ms, allowed "
	  "-1.000001 ms (resolution 1 ns, rounding 1.000 ms, drift 0 ns) to +1500.000000 ms "
	  "(threshold 500.000 ms, +1 s: a whole-second host time, drift 0 ns)" },
	/* 22-25: 1234567 ns elapsed: its 1000 ppm, 1234.567 ns, rounded up to 1235 ns */
	{ &kvmclock, FRAC, 1234567, 500 * MS, -1001236, true,
	  "BOUND: kvmclock.wallclock.startup_delay_ms -1.001236 ms -1.001236..500.001235",
	  "PASS: kvmclock reads the host's time of day + 1.234 ms elapsed -1.001236 ms, allowed "
	  "-1.001236 ms (resolution 1 ns, rounding 1.000 ms, drift 1.235 us) to +500.001235 ms "
	  "(threshold 500.000 ms, drift 1.235 us)" },
	{ &kvmclock, FRAC, 1234567, 500 * MS, -1001237, false,
	  "BOUND: kvmclock.wallclock.startup_delay_ms -1.001237 ms -1.001236..500.001235",
	  "FAIL: kvmclock reads the host's time of day + 1.234 ms elapsed -1.001237 ms, allowed "
	  "-1.001236 ms (resolution 1 ns, rounding 1.000 ms, drift 1.235 us) to +500.001235 ms "
	  "(threshold 500.000 ms, drift 1.235 us)" },
	{ &kvmclock, FRAC, 1234567, 500 * MS, 500001235, true,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 500.001235 ms -1.001236..500.001235",
	  "PASS: kvmclock reads the host's time of day + 1.234 ms elapsed +500.001235 ms, allowed "
	  "-1.001236 ms (resolution 1 ns, rounding 1.000 ms, drift 1.235 us) to +500.001235 ms "
	  "(threshold 500.000 ms, drift 1.235 us)" },
	{ &kvmclock, FRAC, 1234567, 500 * MS, 500001236, false,
	  "BOUND: kvmclock.wallclock.startup_delay_ms 500.001236 ms -1.001236..500.001235",
	  "FAIL: kvmclock reads the host's time of day + 1.234 ms elapsed +500.001236 ms, allowed "
	  "-1.001236 ms (resolution 1 ns, rounding 1.000 ms, drift 1.235 us) to +500.001235 ms "
	  "(threshold 500.000 ms, drift 1.235 us)" },
	/* 26: a threshold beyond s64's ns: an open upper end */
	{ &rtc, FRAC, 0, UINT64_MAX, 0, true,
	  "BOUND: rtc.tod_offset_ms 0.000000 ms -1000.000000..inf",
	  "PASS: the RTC reads the host's time of day + 0 ns elapsed +0.000000 ms, allowed "
	  "-1000.000000 ms (resolution 1 s, rounding 0 ns, drift 0 ns) to inf ms "
	  "(threshold 18446744073.709 s, drift 0 ns)" },
};

/* The reading a case stands for. */
static struct tod_reading reading_of(const struct tod_case *c)
{
	u64 host = c->host_time == FRAC ? HOST_FRACTION_NS : HOST_WHOLE_NS;

	return (struct tod_reading){ .clock_ns = host + c->elapsed_ns + (u64)c->offset_ns,
				     .host_ns = host, .host_time = c->host_time,
				     .elapsed_ns = c->elapsed_ns, .threshold_ns = c->threshold_ns };
}

static bool checked;

static void check_case(const void *arg)
{
	const struct tod_case *c = arg;
	struct tod_reading r = reading_of(c);

	checked = tod_check(c->clock, &r);
}

static void test_band_edges(void **state)
{
	char out[CAPTURE_MAX];
	unsigned failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tod_case *c = &cases[i];
		struct tod_reading r = reading_of(c);
		const char *want[] = { c->bound, c->check };
		char expect[CAPTURE_MAX];

		capture(check_case, c, out, sizeof(out));
		snprintf(expect, sizeof(expect), "%s\n%s\n", want[0], want[1]);
		if (strcmp(out, expect) || checked != c->pass || tod_holds(c->clock, &r) != c->pass ||
		    tod_offset_ns(&r) != c->offset_ns) {
			print_error("case %zu: got:\n%swant:\n%s(returned %d, holds %d, want %d)\n", i,
				    out, expect, checked, tod_holds(c->clock, &r), c->pass);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
