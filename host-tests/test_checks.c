// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/checks.c and its printer, report_checks() in lib/report.c: a
 * judgment's list keeps each entry's kind, figure, bands and sentence in
 * order; an entry it has no room for is counted, fails the list and is
 * printed as a FAIL, never lost; the printer writes each entry as the
 * line report() and its kin would.
 */
/* LIBSRC: lib/checks.c lib/report.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../lib/checks.h"
#include "../lib/report.h"
#include "console_capture.h"

void cpu_relax(void)
{
}

#define ENTRIES 8
static struct check store[ENTRIES];
static char text[ENTRIES * CHECK_TEXT_MAX];
static struct checks list;

static void fill(void)
{
	checks_init(&list, store, ENTRIES, text, sizeof(text));
	checks_result(&list, "x.figure", "ms", "%d.%03d", 1, 5);
	checks_info(&list, "context %d", 7);
	checks_count(&list, "x.lost", "ticks", 3, 0, 2, "lost %d, at most %d", 3, 2);
	checks_bounded(&list,
		       &(struct bounded){.name = "x.off",
					 .unit = "ticks",
					 .scale = 3,
					 .value = -1500,
					 .nbands = 2,
					 .band = {{-2000, -1000}, {0, BOUND_OPEN_HI}}},
		       "off by %s", "-1.500");
	checks_plain(&list, true, "it came");
	checks_skip(&list, "not judged: %s", "why");
}

static void test_entries(void **state)
{
	fill();
	assert_int_equal(list.n, 6);
	assert_int_equal(list.c[0].kind, CHECK_RESULT);
	assert_string_equal(list.c[0].text, "1.005");
	assert_int_equal(list.c[2].kind, CHECK_BOUNDED);
	assert_false(check_holds(&list.c[2]));
	assert_true(check_holds(&list.c[3])); /* in its first band */
	assert_true(check_holds(&list.c[5])); /* a skip is no failure */
	assert_int_equal(checks_failed(&list), 1);
	assert_false(checks_all_hold(&list));
	assert_ptr_equal(checks_find(&list, "x.lost"), &list.c[2]);
	assert_string_equal(checks_find(&list, "x.lost")->b.name, "x.lost");
	assert_null(checks_find(&list, "x.missing"));
	/* a list that holds */
	list.c[2].b.band[0].hi = 3;
	assert_true(checks_all_hold(&list));
}

static void print_list(const void *arg)
{
	report_checks(arg);
}

static void test_printed(void **state)
{
	static char out[CAPTURE_MAX];

	fill();
	capture(print_list, &list, out, sizeof(out));
	EXACTLY(out, "RESULT: x.figure 1.005 ms", "INFO: context 7", "BOUND: x.lost 3 ticks 0..2",
		"FAIL: lost 3, at most 2", "BOUND: x.off -1.500 ticks -2.000..-1.000 0.000..inf",
		"PASS: off by -1.500", "PASS: it came", "SKIP: not judged: why");
}

/* An entry with no room left is counted and fails the list, and the printer says so. */
static void test_full(void **state)
{
	static char out[CAPTURE_MAX];
	static struct check two[2];
	static char small[64];

	checks_init(&list, two, 2, small, sizeof(small));
	checks_plain(&list, true, "one");
	checks_plain(&list, true, "two");
	checks_plain(&list, true, "three");
	assert_int_equal(list.n, 2);
	assert_int_equal(list.dropped, 1);
	assert_false(checks_all_hold(&list));
	capture(print_list, &list, out, sizeof(out));
	EXACTLY(out, "PASS: one", "PASS: two",
		"FAIL: the judgment's list had no room for 1 more entries (2 entries, 64 bytes of "
		"text): its checks were not all kept");
	/* out of text: a sentence that does not fit whole is dropped, not cut */
	checks_init(&list, store, ENTRIES, small, sizeof(small));
	checks_plain(&list, true, "%s",
		     "a sentence well over sixty-four bytes long, which the store cannot hold");
	assert_int_equal(list.n, 0);
	assert_int_equal(list.dropped, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_printed),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
