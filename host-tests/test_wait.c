// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/wait.c's waits on a condition (wait_cond_ticks, poll_cond_ticks,
 * wait_cond), on a turn (wait_reached) and with work (work_until), on
 * the host.
 * What: a condition that holds at once ends the wait before any spin or
 * clock read; one
 * that comes true later ends it then, with true; one that never does
 * ends it once the ticks have passed, with false, even where the counter
 * wraps through zero meanwhile; WAIT_FOREVER waits for the condition
 * alone; poll_cond_ticks asks its condition no more often than every
 * poll_ns; wait_cond spins until its condition holds and never reads
 * the clock; wait_reached returns once the counter reaches its target;
 * work_until reads the clock once a round, hands that read to its step,
 * never steps at or past its deadline, spins nothing between steps, and
 * with WAIT_FOREVER runs through a wrap of the counter.
 * Why: every wait loop of the tree (drivers, engines, tests) is one of
 * these, so a wrong deadline or a missed last answer would be wrong
 * everywhere at once.
 * How: the arch's counter is played here: every read returns the clock
 * and moves it on by STEP ticks (1 GHz, so a tick is a ns); cpu_relax()
 * counts itself and moves a turn counter; the condition answers from a
 * script of how many asks it takes.
 */
/* LIBSRC: lib/wait.c lib/stats.c lib/div64.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/units.h"
#include "../lib/wait.h"

#define STEP  10ull
#define NEVER 0u

/* --- the arch's hooks ---------------------------------------------------------------- */

static unsigned relaxes;
static unsigned long turn;

void cpu_relax(void)
{
	relaxes++;
	turn++;
}

/* --- the condition: true from its true_at-th ask on (NEVER: never) ------------------- */

struct cond_script {
	unsigned true_at, asks;
};

static bool scripted(void *arg)
{
	struct cond_script *c = arg;

	c->asks++;
	return c->true_at != NEVER && c->asks >= c->true_at;
}

static void reset(u64 clock)
{
	fake_counter = clock;
	fake_counter_step = STEP;
	relaxes = 0;
	turn = 0;
}

struct wait_case {
	const char *what;
	u64 clock; /* the counter at the call */
	u64 ticks;
	unsigned true_at;
	bool want;
	unsigned want_asks, want_relaxes;
};

/*
 * Each round asks, reads the clock (STEP later than the read before) and
 * spins; the first read is the start, so 100 ticks are 10 asks.
 */
static const struct wait_case cases[] = {
	{"true at once", 0, 100, 1, true, 1, 0},
	{"true at the third ask", 0, 100, 3, true, 3, 2},
	{"never true: 100 ticks are 10 asks", 0, 100, NEVER, false, 10, 9},
	{"true at the last ask before the deadline", 0, 100, 10, true, 10, 9},
	{"true one ask too late", 0, 100, 11, false, 10, 9},
	{"the counter wraps through zero meanwhile", ~0ull - 30, 100, NEVER, false, 10, 9},
	{"no ticks: asked once", 0, 0, NEVER, false, 1, 0},
	{"WAIT_FOREVER: only the condition ends it", ~0ull - 30, WAIT_FOREVER, 500, true, 500, 499},
};

static void test_wait_cond_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct wait_case *c = &cases[i];
		struct cond_script s = {.true_at = c->true_at};
		bool got;

		reset(c->clock);
		got = wait_cond_ticks(scripted, &s, c->ticks);
		if (got != c->want || s.asks != c->want_asks || relaxes != c->want_relaxes)
			fail_msg("%s: returned %d after %u asks and %u spins, want %d after %u and "
				 "%u",
				 c->what, got, s.asks, relaxes, c->want, c->want_asks,
				 c->want_relaxes);
		if (c->true_at == 1 && fake_counter != c->clock)
			fail_msg("%s: the clock was read (%llu ticks on), want no read", c->what,
				 (unsigned long long)(fake_counter - c->clock));
	}
}

/* Polled every 100 ns over 1000: a spin of at least 100 ns between two asks, so at most 10 asks. */
static void test_poll_spacing(void **state)
{
	struct cond_script s = {.true_at = NEVER};
	u64 before;
	bool got;

	reset(0);
	got = poll_cond_ticks(scripted, &s, 1000, 100);
	assert_false(got);
	if (s.asks < 2 || s.asks > 1000 / 100)
		fail_msg("polled %u times over 1000 ns every 100 ns: want 2 to 10", s.asks);
	before = fake_counter;
	assert_true(before >= 1000);
	reset(0);
	s = (struct cond_script){.true_at = 2};
	assert_true(poll_cond_ticks(scripted, &s, 1000, 100));
	assert_int_equal(s.asks, 2);
	/* between the two asks: the start, the deadline look, then a spin of 100 ns */
	if (fake_counter < 100)
		fail_msg("the second ask came %llu ns after the first, want at least 100",
			 (unsigned long long)fake_counter);
}

/* No deadline and no clock: asked until true, a spin between two asks, the counter never read. */
static void test_wait_cond(void **state)
{
	struct cond_script s = {.true_at = 1};

	reset(0);
	wait_cond(scripted, &s);
	assert_int_equal(s.asks, 1);
	assert_int_equal(relaxes, 0);
	reset(0);
	s = (struct cond_script){.true_at = 700};
	wait_cond(scripted, &s);
	if (s.asks != 700 || relaxes != 699 || fake_counter != 0)
		fail_msg("true at the 700th ask: returned after %u asks, %u spins, the clock at "
			 "%llu; want 700, 699 and the clock never read (0)",
			 s.asks, relaxes, (unsigned long long)fake_counter);
}

static void test_wait_reached(void **state)
{
	reset(0);
	wait_reached(&turn, 3);
	assert_int_equal(relaxes, 3);
	reset(0);
	turn = 5;
	wait_reached(&turn, 5);
	assert_int_equal(relaxes, 0);
}

/* --- work_until: a step that is true from its true_at-th round on, and records its nows --- */

struct step_script {
	unsigned true_at, steps;
	u64 first_now, last_now;
	bool now_wrong; /* a now that was not the round's own read */
};

static bool scripted_step(void *arg, u64 now)
{
	struct step_script *s = arg;

	/* the counter moved STEP past now when the round read it, and nothing read it since */
	if (fake_counter != now + STEP)
		s->now_wrong = true;
	if (!s->steps++)
		s->first_now = now;
	s->last_now = now;
	return s->true_at != NEVER && s->steps >= s->true_at;
}

struct work_case {
	const char *what;
	u64 clock;  /* the counter at the call */
	u64 until;  /* the deadline, absolute */
	unsigned true_at;
	bool want;
	unsigned want_steps;
};

/* A round reads the clock (STEP later than the read before), then steps: until 100 is 10 rounds. */
static const struct work_case work_cases[] = {
	{"true at once", 0, 100, 1, true, 1},
	{"true at the third round", 0, 100, 3, true, 3},
	{"never true: until 100 is 10 steps", 0, 100, NEVER, false, 10},
	{"true at the last round before the deadline", 0, 100, 10, true, 10},
	{"true one round too late", 0, 100, 11, false, 10},
	{"the deadline already passed: no step", 200, 100, 1, false, 0},
	{"the deadline is the first read: no step", 100, 100, 1, false, 0},
	{"WAIT_FOREVER through a wrap of the counter", ~0ull - 30, WAIT_FOREVER, 500, true, 500},
};

static void test_work_until_table(void **state)
{
	for (size_t i = 0; i < sizeof(work_cases) / sizeof(work_cases[0]); i++) {
		const struct work_case *c = &work_cases[i];
		struct step_script s = {.true_at = c->true_at};
		bool got;

		reset(c->clock);
		got = work_until(scripted_step, &s, c->until);
		if (got != c->want || s.steps != c->want_steps || relaxes)
			fail_msg("%s: returned %d after %u steps and %u spins, want %d after %u "
				 "and none",
				 c->what, got, s.steps, relaxes, c->want, c->want_steps);
		if (s.now_wrong)
			fail_msg("%s: a step was handed a now other than its round's read", c->what);
		if (s.steps && (s.first_now != c->clock ||
				s.last_now != c->clock + (u64)(s.steps - 1) * STEP))
			fail_msg("%s: steps saw now %llu to %llu, want %llu to %llu (one read a "
				 "round)",
				 c->what, (unsigned long long)s.first_now,
				 (unsigned long long)s.last_now, (unsigned long long)c->clock,
				 (unsigned long long)(c->clock + (u64)(s.steps - 1) * STEP));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_cond_table),
		cmocka_unit_test(test_poll_spacing),
		cmocka_unit_test(test_wait_cond),
		cmocka_unit_test(test_wait_reached),
		cmocka_unit_test(test_work_until_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
