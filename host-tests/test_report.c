// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/report.c on the host: what report_kfail() and report_bounded() print
 * and count. A
 * failing check whose defect's host kind was declared known is a KFAIL
 * line and leaves the exit code EXIT_PASS; the same check on any other
 * host, or beside a real failure, still fails the test. Each case runs
 * in a child process (report.c keeps its counters for the whole run,
 * child_capture.h) with its output captured through a pipe, and the parent
 * checks the lines and the exit code.
 */
/* LIBSRC: lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "child_capture.h"
#include "host_shim.h"
#include "../lib/report.h"

/* --- the platform hooks report.c calls ------------------------------------ */

void cpu_relax(void)
{
}

/* A case: what it declares and reports; the child exits with report_summary(). */
typedef void (*scenario_fn)(void);

static void call_scenario(const void *arg)
{
	(*(const scenario_fn *)arg)();
}

static void run_case(scenario_fn fn, struct child_outcome *o)
{
	child_run(call_scenario, &fn, o);
}

/* --- the cases -------------------------------------------------------------- */

static void known_kfail(void)
{
	report_known_defects("kvm-pvm");
	report(true, "one");
	report_kfail(false, "kvm-pvm/tsc-adjust", "two %d", 2);
}

static void test_known_is_kfail(void **state)
{
	struct child_outcome o;

	run_case(known_kfail, &o);
	has_line(o.out, "PASS: one");
	has_line(o.out, "KFAIL: two 2 (known defect of this host: kvm-pvm/tsc-adjust)");
	has_line(o.out, "SUMMARY: 2 tests, 0 unexpected failures, 0 skipped, 1 known failures");
	assert_int_equal(o.code, EXIT_PASS);
}

static void unknown_host(void)
{
	report_known_defects("none");
	report_kfail(false, "kvm-pvm/tsc-adjust", "two");
}

static void test_other_host_fails(void **state)
{
	struct child_outcome o;

	run_case(unknown_host, &o);
	has_line(o.out, "FAIL: two");
	has_line(o.out, "SUMMARY: 1 tests, 1 unexpected failures, 0 skipped");
	lacks(o.out, "KFAIL");
	assert_int_equal(o.code, EXIT_FAIL);
}

static void nothing_declared(void)
{
	report_kfail(false, "kvm-pvm/tsc-adjust", "two");
}

/* A kind is matched whole: "kvm" is not "kvm-pvm", and a list is searched through. */
static void prefix_kind(void)
{
	report_known_defects("kvm");
	report_kfail(false, "kvm-pvm/x", "prefix");
}

static void listed_kind(void)
{
	report_known_defects("other,kvm-pvm");
	report_kfail(false, "kvm-pvm/x", "listed");
}

static void test_kind_matching(void **state)
{
	struct child_outcome o;

	run_case(nothing_declared, &o);
	has_line(o.out, "FAIL: two");
	assert_int_equal(o.code, EXIT_FAIL);
	run_case(prefix_kind, &o);
	has_line(o.out, "FAIL: prefix");
	assert_int_equal(o.code, EXIT_FAIL);
	run_case(listed_kind, &o);
	has_line(o.out, "KFAIL: listed (known defect of this host: kvm-pvm/x)");
	assert_int_equal(o.code, EXIT_PASS);
}

static void kfail_beside_fail(void)
{
	report_known_defects("kvm-pvm");
	report_kfail(false, "kvm-pvm/x", "known");
	report(false, "different");
}

static void test_never_hides_a_failure(void **state)
{
	struct child_outcome o;

	run_case(kfail_beside_fail, &o);
	has_line(o.out, "KFAIL: known (known defect of this host: kvm-pvm/x)");
	has_line(o.out, "FAIL: different");
	has_line(o.out, "SUMMARY: 2 tests, 1 unexpected failures, 0 skipped, 1 known failures");
	assert_int_equal(o.code, EXIT_FAIL);
}

static void known_but_passes(void)
{
	report_known_defects("kvm-pvm");
	report_prefix_push("p");
	report_kfail(true, "kvm-pvm/x", "fine");
	report_prefix_pop();
}

static void test_pass_on_defective_host(void **state)
{
	struct child_outcome o;

	run_case(known_but_passes, &o);
	has_line(o.out, "PASS: p: fine");
	has_line(o.out, "INFO: p: the known defect kvm-pvm/x did not show here");
	has_line(o.out, "SUMMARY: 1 tests, 0 unexpected failures, 0 skipped");
	assert_int_equal(o.code, EXIT_PASS);
}

/* --- report_bounded: the figure, its bands, the outcome by the bands alone --------------- */

/* A table of bounded checks: each row's BOUND line and verdict, in one child. */
struct bounded_case {
	struct bounded b;
	const char *line; /* the BOUND line */
	bool pass;
};

static const struct bounded_case bounded_cases[] = {
	{ { "a.inside", "ms", 3, 1500, 1, { { 0, 2000 } } }, "BOUND: a.inside 1.500 ms 0.000..2.000", true },
	{ { "a.at_hi", "ms", 3, 2000, 1, { { 0, 2000 } } }, "BOUND: a.at_hi 2.000 ms 0.000..2.000", true },
	{ { "a.at_lo", "us", 0, -7, 1, { { -7, 7 } } }, "BOUND: a.at_lo -7 us -7..7", true },
	{ { "a.over", "ms", 3, 2001, 1, { { 0, 2000 } } }, "BOUND: a.over 2.001 ms 0.000..2.000", false },
	{ { "a.under", "us", 0, -8, 1, { { -7, 7 } } }, "BOUND: a.under -8 us -7..7", false },
	{ { "b.open_lo", "ticks", 0, -561, 1, { { BOUND_OPEN_LO, 1 } } },
	  "BOUND: b.open_lo -561 ticks -inf..1", true },
	{ { "b.open_hi", "ms", 6, 989999999, 1, { { 990000000, BOUND_OPEN_HI } } },
	  "BOUND: b.open_hi 989.999999 ms 990.000000..inf", false },
	{ { "c.second_band", "%", 4, 741000, 2, { { 900000, 1100000 }, { 720000, 880000 } } },
	  "BOUND: c.second_band 74.1000 % 90.0000..110.0000 72.0000..88.0000", true },
	{ { "c.neither", "%", 4, 890000, 2, { { 900000, 1100000 }, { 720000, 880000 } } },
	  "BOUND: c.neither 89.0000 % 90.0000..110.0000 72.0000..88.0000", false },
};

static void bounded_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bounded_cases); i++)
		report_bounded(&bounded_cases[i].b, "check %zu", i);
}

static void test_bounded_table(void **state)
{
	struct child_outcome o;
	char want[160];
	unsigned fails = 0;

	run_case(bounded_table, &o);
	for (size_t i = 0; i < ARRAY_SIZE(bounded_cases); i++) {
		const struct bounded_case *c = &bounded_cases[i];

		/* the BOUND line, and its check's line right after it */
		snprintf(want, sizeof(want), "%s\n%s: check %zu\n", c->line, c->pass ? "PASS" : "FAIL", i);
		if (!strstr(o.out, want))
			fail_msg("case %zu: no\n%sin:\n%s", i, want, o.out);
		assert_int_equal(bounded_holds(&c->b), c->pass);
		fails += !c->pass;
	}
	snprintf(want, sizeof(want), "SUMMARY: %zu tests, %u unexpected failures, 0 skipped",
		 ARRAY_SIZE(bounded_cases), fails);
	has_line(o.out, want);
	assert_int_equal(o.code, EXIT_FAIL);
}

/* The prefix goes on the check's line, never on the BOUND line (a figure's name is its own). */
static void bounded_prefixed(void)
{
	report_prefix_push("tod");
	report_bounded(&(struct bounded){ "rtc.tod_offset_ms", "ms", 0, 704, 1, { { -41, 4958 } } },
		       "the RTC's time of day");
	report_prefix_pop();
}

static void test_bounded_prefix(void **state)
{
	struct child_outcome o;

	run_case(bounded_prefixed, &o);
	has_line(o.out, "BOUND: rtc.tod_offset_ms 704 ms -41..4958");
	has_line(o.out, "PASS: tod: the RTC's time of day");
	has_line(o.out, "SUMMARY: 1 tests, 0 unexpected failures, 0 skipped");
	assert_int_equal(o.code, EXIT_PASS);
}

/* A count in one band of integers: warps within 0..0, a detector's within 1..inf. */
static void bounded_counts(void)
{
	report_bounded_count("tsc.rdtsc.warps", "count", 0, 0, 0, "never backwards (%d warps)", 0);
	report_bounded_count("hpet.warps", "count", 730, 0, 0, "never backwards (%d warps)", 730);
	report_bounded_count("kvmclock.skew.raw.warps", "count", 50, 1, BOUND_OPEN_HI, "detected");
}

static void test_bounded_count(void **state)
{
	struct child_outcome o;

	run_case(bounded_counts, &o);
	has_line(o.out, "BOUND: tsc.rdtsc.warps 0 count 0..0");
	has_line(o.out, "PASS: never backwards (0 warps)");
	has_line(o.out, "BOUND: hpet.warps 730 count 0..0");
	has_line(o.out, "FAIL: never backwards (730 warps)");
	has_line(o.out, "BOUND: kvmclock.skew.raw.warps 50 count 1..inf");
	has_line(o.out, "PASS: detected");
	has_line(o.out, "SUMMARY: 3 tests, 1 unexpected failures, 0 skipped");
	assert_int_equal(o.code, EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_is_kfail),
		cmocka_unit_test(test_bounded_count),
		cmocka_unit_test(test_other_host_fails),
		cmocka_unit_test(test_kind_matching),
		cmocka_unit_test(test_never_hides_a_failure),
		cmocka_unit_test(test_pass_on_defective_host),
		cmocka_unit_test(test_bounded_table),
		cmocka_unit_test(test_bounded_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
