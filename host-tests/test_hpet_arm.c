// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/x86/hpet.h's arming decisions, checked on the host: whether the main
 * counter's low half has reached a 32-bit comparator (at it, or past it by
 * less than half a wrap), case by case around 0, the 32-bit wrap and the
 * half-wrap boundary, then for comparators armed 1 to HPET_ARM_MAX_COUNTS
 * ahead of counters all around the wrap; and the margin a missed arming
 * is made again with: it grows, stays within half a wrap, reaches it
 * within HPET_ARM_MAX_REARMS re-arms from 1 count, and once it has seen
 * how long an arming takes, one re-arm outlasts an arming as slow.
 * hpet_timer_arm_ahead() (lib/x86/hpet.c) is these two functions around
 * MMIO: a comparator write between two counter reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/x86/hpet.h"

#define ARRAY_LEN(a)  (sizeof(a) / sizeof((a)[0]))
#define RANDOM_ROUNDS 1000000
#define HALF_WRAP     0x80000000u

struct reached_case {
	u32 counter, cmp;
	bool reached;
	const char *what;
};

static const struct reached_case reached_cases[] = {
	{5, 5, true, "at the comparator"},
	{4, 5, false, "one count before it"},
	{6, 5, true, "one count past it"},
	{0, 0, true, "both at 0"},
	{0xffffffff, 0xffffffff, true, "both at the top"},
	{0xffffffff, 0, false, "one count before a comparator across the wrap"},
	{0xfffffff0, 0x10, false, "32 counts before it across the wrap"},
	{0, 0xffffffff, true, "one count past a comparator across the wrap"},
	{0x10, 0xfffffff0, true, "32 counts past it across the wrap"},
	{0x1000, 0x1000 + HPET_ARM_MAX_COUNTS, false,
	 "a comparator armed HPET_ARM_MAX_COUNTS ahead"},
	{0x1000 + HPET_ARM_MAX_COUNTS, 0x1000, true, "past it by HPET_ARM_MAX_COUNTS"},
	{0x1000 + HALF_WRAP, 0x1000, false, "half a wrap past reads as half a wrap ahead"},
	{0xfffff000, 0xfffff000 + HPET_ARM_MAX_COUNTS, false,
	 "HPET_ARM_MAX_COUNTS ahead, across the wrap"},
	{0xfffff000 + HPET_ARM_MAX_COUNTS, 0xfffff000, true,
	 "HPET_ARM_MAX_COUNTS past, across the wrap"},
};

static void test_reached_cases(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(reached_cases); i++) {
		const struct reached_case *c = &reached_cases[i];

		if (hpet_counter_reached(c->counter, c->cmp) != c->reached)
			fail_msg("counter %#x, comparator %#x (%s): reached %d, want %d",
				 c->counter, c->cmp, c->what, !c->reached, c->reached);
	}
}

/* Counters all around the wrap, comparators 1..HPET_ARM_MAX_COUNTS ahead: reached once there. */
static void test_reached_random(void **state)
{
	u64 seed = 0x6a09e667f3bcc909ULL;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		u32 from = (u32)next_random(&seed);
		u32 margin = 1 + (u32)(next_random(&seed) % HPET_ARM_MAX_COUNTS);
		u32 before = (u32)(next_random(&seed) % margin) + 1;
		u32 after = (u32)(next_random(&seed) % HALF_WRAP);
		u32 cmp = from + margin;

		assert_false(hpet_counter_reached(from, cmp));
		assert_false(hpet_counter_reached(cmp - before, cmp));
		assert_true(hpet_counter_reached(cmp, cmp));
		assert_true(hpet_counter_reached(cmp + after, cmp));
	}
}

struct margin_case {
	u32 margin, took, next;
	const char *what;
};

static const struct margin_case margin_cases[] = {
	{0, 0, 2, "nothing to go by: doubled from 1"},
	{1, 0, 2, "one count, the arming took none"},
	{1, 300, 600, "one count, the arming took 300: twice the arming"},
	{1000, 10, 2000, "a margin longer than the arming: doubled"},
	{1000, 1000, 2000, "a margin as long as the arming"},
	{0x3fffffff, 0, 0x7ffffffe, "just below half the reach"},
	{0x40000000, 0, HPET_ARM_MAX_COUNTS, "half the reach: at most HPET_ARM_MAX_COUNTS"},
	{HPET_ARM_MAX_COUNTS, 0, HPET_ARM_MAX_COUNTS, "at the reach: stays there"},
	{5, 0xffffffff, HPET_ARM_MAX_COUNTS, "an arming that took the whole wrap"},
	{0xffffffff, 0xffffffff, HPET_ARM_MAX_COUNTS, "both at the top: no overflow"},
};

static void test_next_margin_cases(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(margin_cases); i++) {
		const struct margin_case *c = &margin_cases[i];
		u32 next = hpet_arm_next_margin(c->margin, c->took);

		if (next != c->next)
			fail_msg("margin %#x, took %#x (%s): next %#x, want %#x", c->margin,
				 c->took, c->what, next, c->next);
	}
}

/* From 1 count with nothing to go by, the re-arms HPET_ARM_MAX_REARMS allows reach the furthest
 * arming. */
static void test_rearms_reach_the_furthest(void **state)
{
	u32 margin = 1;
	unsigned rearms = 0;

	while (margin < HPET_ARM_MAX_COUNTS) {
		u32 next = hpet_arm_next_margin(margin, 0);

		assert_true(next > margin);
		margin = next;
		rearms++;
	}
	assert_true(rearms <= HPET_ARM_MAX_REARMS);
}

/*
 * A write and read-back that took took counts (1 to a quarter wrap) found
 * a margin of at most took reached: the next margin is not reached at a
 * read-back as slow, wherever the counter is against the wrap.
 */
static void test_one_rearm_outlasts_a_slow_arming(void **state)
{
	u64 seed = 0xbb67ae8584caa73bULL;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		u32 took = 1 + (u32)((next_random(&seed) >> (next_random(&seed) % 64)) %
				     (HALF_WRAP / 2 - 1));
		u32 margin = 1 + (u32)(next_random(&seed) % took);
		u32 from = (u32)next_random(&seed);
		u32 next = hpet_arm_next_margin(margin, took);

		assert_true(hpet_counter_reached(from + took, from + margin));
		assert_false(hpet_counter_reached(from + took, from + next));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reached_cases),
		cmocka_unit_test(test_reached_random),
		cmocka_unit_test(test_next_margin_cases),
		cmocka_unit_test(test_rearms_reach_the_furthest),
		cmocka_unit_test(test_one_rearm_outlasts_a_slow_arming),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
