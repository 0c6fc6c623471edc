// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/report.c on the host: what report_kfail() prints and counts. A
 * failing check whose defect's host kind was declared known is a KFAIL
 * line and leaves the exit code EXIT_PASS; the same check on any other
 * host, or beside a real failure, still fails the test. Each case runs
 * in a child process (report.c keeps its counters for the whole run,
 * child_capture.h) with its output captured through a pipe, and the parent
 * checks the lines and the exit code.
 */
/* LIBSRC: lib/report.c lib/fixed.c lib/printf.c lib/string.c */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_is_kfail),
		cmocka_unit_test(test_other_host_fails),
		cmocka_unit_test(test_kind_matching),
		cmocka_unit_test(test_never_hides_a_failure),
		cmocka_unit_test(test_pass_on_defective_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
