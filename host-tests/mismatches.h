/* SPDX-License-Identifier: GPL-2.0-only */
/* A test of many comparisons against glibc: mismatches counted as they come, the test failed once at its end. */
/*
 * What: failures counts the comparisons that failed (each caller prints
 * its first few); assert_clean() ends a test. Why: printf's and strtol's
 * tests run thousands of comparisons, and one failure message per test
 * with the first mismatches printed reads better than the first alone.
 * How: header-only, included once by a test, after <cmocka.h>.
 */
#ifndef VMTICK_MISMATCHES_H
#define VMTICK_MISMATCHES_H

static int failures;

/* Ends a test: fails it if any comparison did, and starts the next one clean. */
static void assert_clean(void)
{
	int n = failures;

	failures = 0;
	if (n)
		fail_msg("%d mismatches", n);
}

#endif
