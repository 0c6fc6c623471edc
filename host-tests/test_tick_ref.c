// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick/tick_ref.c, the timer-tick engine's check of the counter's
 * frequency and the schedule's rate against a reference clock, with the
 * real lib/refclock.c, lib/report.c and lib/fixed.c under it and fake
 * clocks in place of the arch's. Checks:
 * - tick_ref_check() from marks set by hand, so that every figure is
 *   known: the PASS/FAIL lines (ppm, bounds, the window, ticks per second
 *   in the reference's time) and the RESULT lines, -500 ppb printed as
 *   "-0.500" among them (issue #24: it was "0.500"); the plan's own error
 *   (a span longer than slots periods, a rate that does not divide the
 *   slots) taken off the schedule's error;
 * - tick_ref_begin(): the first reference the machine has other than the
 *   device under test, none at all, one that never moves, each with its
 *   SKIP reason; and a whole begin, end and check on a simulated timeline.
 * Output is read back from stdout, where lib/report.c writes its lines
 * (host-tests/console_capture.h).
 */
/* LIBSRC: common/tick/tick_ref.c common/tick/tick_figure.c lib/refclock.c lib/wait.c lib/report.c lib/checks.c lib/stats.c lib/fixed.c */
/* LIBSRC: lib/period.c lib/busy.c */
/* LIBSRC: lib/printf.c lib/string.c common/tick/tick_judge.c common/tick/tick_checks.c */
/* LIBSRC: common/tick/tick_math.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/tick/tick_ref.h"
#include "judged.h"

#define COUNTER_HZ  NSEC_PER_SEC /* the counter ticks in ns: a tick off is a ppb off */
#define FAST_REF_HZ HZ_PER_MHZ
#define REF_TOLERANCE_PPB 2000

/* --- the arch's hooks, played by a simulated timeline ---------------------------- */

static struct {
	u64 now;      /* the counter */
	u64 step;     /* counter ticks each read of it takes */
	u64 ref_div;  /* counter ticks per count of the fast reference */
	u64 reads;    /* of any reference */
	bool stuck;   /* the reference's count never changes */
} sim;

void cpu_relax(void)
{
}

u64 arch_counter(void)
{
	sim.now += sim.step;
	return sim.now;
}

/* Linked with refclock_measure(), which the reference check never calls. */
u64 arch_counter_hz(void)
{
	fail_msg("arch_counter_hz was called");
	return 0;
}

static const char *present(void)
{
	return NULL;
}

static const char *absent(void)
{
	return "not on this machine";
}

static u64 fast_hz(void)
{
	return FAST_REF_HZ;
}

static u64 fast_read(void)
{
	sim.reads++;
	return sim.stuck ? 7 : sim.now / sim.ref_div;
}

static const struct refclock absent_ref = {
	.name = "gone", .what = "Absent reference", .probe = absent, .hz = fast_hz,
	.read = fast_read, .tolerance_ppb = REF_TOLERANCE_PPB,
};
static const struct refclock dut_ref = {
	.name = "dut", .what = "Device under test", .probe = present, .hz = fast_hz,
	.read = fast_read, .tolerance_ppb = REF_TOLERANCE_PPB,
};
static const struct refclock fast_ref = {
	.name = "fast", .what = "Fast reference", .probe = present, .hz = fast_hz,
	.read = fast_read, .tolerance_ppb = REF_TOLERANCE_PPB,
};

static const struct refclock *const full_table[] = { &absent_ref, &dut_ref, &fast_ref };
static const struct refclock *const *table = full_table;
static size_t table_len = 3;

const struct refclock *const *refclock_table(size_t *n)
{
	*n = table_len;
	return table;
}

/* --- tick_ref_check() from marks set by hand ---------------------------------------- */

/*
 * The reference counts FAST_REF_HZ (one second) between marks whose
 * brackets have no width: the counter's error is exactly its ticks over
 * the second minus COUNTER_HZ, in ppb, and the bound is the one ppb of
 * rounding plus the reference's tolerance.
 */
struct check_case {
	const char *what;
	u64 counter_ticks; /* over the reference's second */
	struct tick_ref_plan plan;
	const char *lines[8];
};

#define PLAN(hz, n, span_ticks, got, slack)                                                \
	{                                                                                  \
		.source = "fake", .counter_hz = COUNTER_HZ, .want_hz = (hz), .slots = (n), \
		.span = (span_ticks), .received = (got), .slack_ppb = (slack)              \
	}

static const struct check_case check_cases[] = {
	{
		"500 ppb slow: a value in (-1, 0) ppm keeps its sign",
		COUNTER_HZ - 500,
		PLAN(1000, 1000, COUNTER_HZ, 1000, 0),
		{
			"PASS: the counter runs at the 1000000000 Hz used, against the Fast "
			"reference over 1000 ms: +0 ppm (bound +-2 ppm)",
			"PASS: the schedule runs at hz=1000 against the Fast reference: +0 ppm "
			"(bound +-2 ppm); 1000.000 ticks per second in its time",
			"BOUND: timer_tick.fake.counter_err -0.500 ppm -2.001..2.001",
			"BOUND: timer_tick.fake.schedule_err -0.500 ppm -2.001..2.001",
			"RESULT: timer_tick.fake.ticks_per_s_ref 1000.000 Hz",
		},
	},
	{
		"1500 ppb fast: no plus sign in BOUND lines",
		COUNTER_HZ + 1500,
		PLAN(1000, 1000, COUNTER_HZ, 1000, 0),
		{
			"PASS: the counter runs at the 1000000000 Hz used, against the Fast "
			"reference over 1000 ms: +1 ppm (bound +-2 ppm)",
			"PASS: the schedule runs at hz=1000 against the Fast reference: +1 ppm "
			"(bound +-2 ppm); 1000.002 ticks per second in its time",
			"BOUND: timer_tick.fake.counter_err 1.500 ppm -2.001..2.001",
			"BOUND: timer_tick.fake.schedule_err 1.500 ppm -2.001..2.001",
		},
	},
	{
		"a span 2000 ticks long: the plan's 2000 ppb come off the schedule",
		COUNTER_HZ - 500,
		PLAN(1000, 1000, COUNTER_HZ + 2000, 1000, 100),
		{
			"PASS: the counter runs at the 1000000000 Hz used, against the Fast "
			"reference over 1000 ms: +0 ppm (bound +-2 ppm)",
			"FAIL: the schedule runs at hz=1000 against the Fast reference: -2 ppm "
			"(bound +-2 ppm); 999.998 ticks per second in its time",
			"BOUND: timer_tick.fake.counter_err -0.500 ppm -2.001..2.001",
			"BOUND: timer_tick.fake.schedule_err -2.500 ppm -2.101..2.101",
			"RESULT: timer_tick.fake.ticks_per_s_ref 999.998 Hz",
		},
	},
	{
		"the slack widens the schedule's bound only",
		COUNTER_HZ - 500,
		PLAN(1000, 1000, COUNTER_HZ + 2000, 1000, 600),
		{
			"PASS: the schedule runs at hz=1000 against the Fast reference: -2 ppm "
			"(bound +-2 ppm); 999.998 ticks per second in its time",
			"BOUND: timer_tick.fake.counter_err -0.500 ppm -2.001..2.001",
			"BOUND: timer_tick.fake.schedule_err -2.500 ppm -2.601..2.601",
		},
	},
	{
		"3 Hz for 10 slots: the ideal span is 3333333333 ticks, not 3 s",
		COUNTER_HZ - 500,
		PLAN(3, 10, 3333333333ull, 10, 0),
		{
			"PASS: the schedule runs at hz=3 against the Fast reference: +0 ppm (bound "
			"+-2 ppm); 2.999 ticks per second in its time",
			"BOUND: timer_tick.fake.schedule_err -0.500 ppm -2.001..2.001",
		},
	},
	{
		"1 % slow: both checks fail",
		COUNTER_HZ - 10000000,
		PLAN(1000, 1000, COUNTER_HZ, 1000, 0),
		{
			"FAIL: the counter runs at the 1000000000 Hz used, against the Fast "
			"reference over 1000 ms: -10000 ppm (bound +-2 ppm)",
			"FAIL: the schedule runs at hz=1000 against the Fast reference: -10000 ppm "
			"(bound +-2 ppm); 990.000 ticks per second in its time",
			"BOUND: timer_tick.fake.counter_err -10000.000 ppm -2.001..2.001",
			"BOUND: timer_tick.fake.schedule_err -10000.000 ppm -2.001..2.001",
			"RESULT: timer_tick.fake.ticks_per_s_ref 990.000 Hz",
		},
	},
};

static void run_check(const void *arg)
{
	const struct check_case *c = arg;
	struct tick_ref r = {
		.ref = &fast_ref,
		.m0 = { .count = 0, .lo = 0, .hi = 0 },
		.m1 = { .count = FAST_REF_HZ, .lo = c->counter_ticks, .hi = c->counter_ticks },
	};

	PRINTED(tick_ref_check(J, &r, &c->plan));
}

static void test_check_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
		const struct check_case *c = &check_cases[i];

		capture(run_check, c, out, sizeof(out));
		print_message("case: %s\n", c->what);
		for (size_t l = 0; l < 8 && c->lines[l]; l++)
			has_line(out, c->lines[l]);
	}
}

static void run_no_rate(const void *arg)
{
	struct tick_ref r = {
		.ref = &fast_ref,
		.m0 = { .count = 5, .lo = 10, .hi = 20 },
		.m1 = { .count = 5, .lo = 30, .hi = 40 },
	};

	PRINTED(tick_ref_check(J, &r, arg));
}

/* Marks with no count between them give no rate: one FAIL line, no figures. */
static void test_check_no_rate(void **state)
{
	static const struct tick_ref_plan plan = PLAN(1000, 1000, COUNTER_HZ, 1000, 0);
	char out[CAPTURE_MAX];

	capture(run_no_rate, &plan, out, sizeof(out));
	has_line(out, "FAIL: the Fast reference gave no rate: counts 5 to 5");
	lacks(out, "RESULT:");
	lacks(out, "PASS:");
}

/* --- tick_ref_begin() and tick_ref_end() ------------------------------------------- */

struct begin_case {
	const char *what;
	const struct refclock *const *table;
	size_t n;
	const char *avoid;
	bool stuck;
	const struct refclock *want_ref;
	const char *want_lines[3];
};

static const struct refclock *const only_fast[] = { &fast_ref };
static const struct refclock *const absent_and_fast[] = { &absent_ref, &fast_ref };

static const struct begin_case begin_cases[] = {
	{
		"the first present reference that is not the device under test",
		full_table, 3, "dut", false, &fast_ref,
		{ "INFO: reference clock: Fast reference (marks before and after the run)" },
	},
	{
		"the device under test is never its own reference",
		absent_and_fast, 2, "fast", false, NULL,
		{ "SKIP: counter frequency and tick rate not checked: the machine has none of the "
		  "arch's reference clocks" },
	},
	{
		"the avoided name alone is left out",
		full_table, 3, "fast", false, &dut_ref,
		{ "INFO: reference clock: Device under test (marks before and after the run)" },
	},
	{
		"a reference that never moves",
		only_fast, 1, "dut", true, &fast_ref,
		{ "INFO: reference clock: Fast reference (marks before and after the run)",
		  "SKIP: counter frequency and tick rate not checked: the Fast reference did not "
		  "move in 2 s" },
	},
};

static struct tick_ref begun;

static void run_begin(const void *arg)
{
	const struct begin_case *c = arg;
	static const struct tick_ref_plan plan = PLAN(1000, 1000, COUNTER_HZ, 1000, 0);

	table = c->table;
	table_len = c->n;
	sim = (__typeof__(sim)){ .now = 1000, .step = 1000, .ref_div = 1000, .stuck = c->stuck };
	tick_ref_begin(&begun, c->avoid, COUNTER_HZ);
	sim.now += COUNTER_HZ;
	tick_ref_end(&begun, COUNTER_HZ);
	if (!c->want_ref || c->stuck)
		PRINTED(tick_ref_check(J, &begun, &plan));
}

static void test_begin_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(begin_cases) / sizeof(begin_cases[0]); i++) {
		const struct begin_case *c = &begin_cases[i];

		print_message("case: %s\n", c->what);
		capture(run_begin, c, out, sizeof(out));
		assert_ptr_equal(begun.ref, c->want_ref);
		for (size_t l = 0; l < 3 && c->want_lines[l]; l++)
			has_line(out, c->want_lines[l]);
		if (!c->want_ref)
			lacks(out, "INFO: reference clock");
		if (c->want_ref && !c->stuck)
			assert_null(begun.why);
	}
	table = full_table;
	table_len = 3;
}

/*
 * A fast reference (1 MHz and up) is marked five times per end and a slow
 * one once: a count of the reads says which. Each mark of this timeline
 * takes two reads (the count moves on the first one after the start).
 */
static void test_begin_tries(void **state)
{
	char out[CAPTURE_MAX];

	capture(run_begin, &begin_cases[0], out, sizeof(out));
	assert_int_equal(sim.reads, 2 * 5 * 2);
}

/* begin, a second of the counter, end, check: the marks tick_ref_end() took are the ones used. */
static void run_whole(const void *arg)
{
	static const struct tick_ref_plan plan = PLAN(1000, 1000, COUNTER_HZ, 1000, 0);

	run_begin(&begin_cases[0]);
	PRINTED(tick_ref_check(J, &begun, &plan));
}

static void test_whole_run(void **state)
{
	char out[CAPTURE_MAX];

	capture(run_whole, NULL, out, sizeof(out));
	assert_true(begun.m0.hi < COUNTER_HZ && begun.m1.lo > COUNTER_HZ);
	has_line(out, "PASS: the counter runs at the 1000000000 Hz used, against the Fast "
		      "reference over 1000 ms: +0 ppm (bound +-4 ppm)");
	has_line(out, "BOUND: timer_tick.fake.counter_err 0.000 ppm -4.001..4.001");
	has_line(out, "RESULT: timer_tick.fake.ticks_per_s_ref 1000.000 Hz");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_check_no_rate),
		cmocka_unit_test(test_begin_table),
		cmocka_unit_test(test_begin_tries),
		cmocka_unit_test(test_whole_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
