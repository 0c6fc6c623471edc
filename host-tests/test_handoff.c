// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/handoff.c's brackets (the cpu-off-on engine's and the lifecycle
 * test's hand-offs between vCPUs), on the host.
 * What: a hand-off's reads bracket the peer's offset to the boot vCPU's
 * counter by the narrowest pair of boot reads around a peer read (ahead,
 * behind, equal counters); a read that went back is found, the first one,
 * whichever vCPU made it; two brackets of one offset meet (gap zero or
 * less) or stand apart by a gap, either way round; a count read between
 * two reads of another counter brackets their offset; BRACKET_NONE is
 * wider than any bracket.
 * Why: the cpu-off-on checks (a step of an offset over a cycle, a read that
 * went back) and the lifecycle test's clocks across vCPUs are these
 * brackets compared, and a guest run on a good host shows them only
 * passing. (handoff_run itself takes two vCPUs: the guest runs show it.)
 * How: hand-offs written out as reads; table-driven.
 */
/* LIBSRC: lib/handoff.c lib/wait.c lib/stats.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../lib/handoff.h"
#include "../lib/units.h"

#define ROUNDS 3

/* handoff_run and its waits take two vCPUs: never called here */
void cpu_relax(void)
{
}

u64 arch_counter(void)
{
	fail_msg("a bracket read the counter");
	return 0;
}

u64 arch_counter_hz(void)
{
	return NSEC_PER_SEC; /* a counter in ns */
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	fail_msg("a bracket ran a hand-off");
}

void on_cpu_wait(int cpu)
{
	fail_msg("a bracket waited for a vCPU");
}

struct handoff_case {
	const char *what;
	u64 boot[ROUNDS + 1], peer[ROUNDS];
	struct bracket want;
};

/*
 * Round r brackets peer - boot in [peer[r] - boot[r + 1], peer[r] - boot[r]]:
 * the narrowest round wins, the first of equally narrow ones.
 */
static const struct handoff_case handoffs[] = {
	{"one clock: round 1 is the narrowest (10 wide)",
	 {100, 120, 130, 150},
	 {110, 125, 140},
	 {-5, 5}},
	{"the narrowest round wins (round 1: 4 wide)",
	 {100, 120, 124, 150},
	 {110, 122, 140},
	 {-2, 2}},
	{"the peer's counter 1000 ahead", {100, 120, 130, 150}, {1110, 1125, 1140}, {995, 1005}},
	{"the peer's counter 1000 behind",
	 {2100, 2120, 2130, 2150},
	 {1110, 1125, 1140},
	 {-1005, -995}},
};

static void test_handoff_bracket(void **state)
{
	for (size_t i = 0; i < sizeof(handoffs) / sizeof(handoffs[0]); i++) {
		const struct handoff_case *c = &handoffs[i];
		struct bracket b = handoff_bracket(c->boot, c->peer, ROUNDS);

		if (b.lo != c->want.lo || b.hi != c->want.hi)
			fail_msg("%s: [%lld, %lld], want [%lld, %lld]", c->what, b.lo, b.hi,
				 c->want.lo, c->want.hi);
	}
}

struct back_case {
	const char *what;
	u64 boot[ROUNDS + 1], peer[ROUNDS];
	bool back;
	struct handoff_back want;
};

static const struct back_case backs[] = {
	{"in order", {100, 120, 130, 150}, {110, 125, 140}, false},
	{"equal reads are not back", {100, 110, 130, 140}, {100, 130, 140}, false},
	{"the peer behind the boot vCPU's read before it",
	 {100, 120, 130, 150},
	 {110, 119, 140},
	 true,
	 {1, true, 120, 119}},
	{"the boot vCPU behind the peer's read before it",
	 {100, 120, 130, 150},
	 {110, 131, 140},
	 true,
	 {1, false, 131, 130}},
	{"the first of two", {100, 120, 130, 150}, {99, 125, 160}, true, {0, true, 100, 99}},
	{"the last boot read", {100, 120, 130, 150}, {110, 125, 151}, true, {2, false, 151, 150}},
};

static void test_went_back(void **state)
{
	for (size_t i = 0; i < sizeof(backs) / sizeof(backs[0]); i++) {
		const struct back_case *c = &backs[i];
		struct handoff_back b = {0};
		bool got = handoff_went_back(c->boot, c->peer, ROUNDS, &b);

		if (got != c->back)
			fail_msg("%s: went back %d, want %d", c->what, got, c->back);
		if (got && (b.round != c->want.round || b.by_peer != c->want.by_peer ||
			    b.before != c->want.before || b.after != c->want.after))
			fail_msg("%s: round %u by %s, %llu then %llu; want round %u by %s, %llu "
				 "then %llu",
				 c->what, b.round, b.by_peer ? "peer" : "boot", b.before, b.after,
				 c->want.round, c->want.by_peer ? "peer" : "boot", c->want.before,
				 c->want.after);
	}
}

struct gap_case {
	struct bracket a, b;
	s64 want;
};

static const struct gap_case gaps[] = {
	{{0, 10}, {5, 15}, -5},	   /* overlapping */
	{{0, 10}, {10, 20}, 0},	   /* touching */
	{{0, 10}, {12, 20}, 2},	   /* b above a */
	{{12, 20}, {0, 10}, 2},	   /* a above b */
	{{-30, -20}, {0, 0}, 20},  /* a below zero */
	{{0, 100}, {40, 50}, -50}, /* b inside a */
};

static void test_gap(void **state)
{
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
		const struct gap_case *c = &gaps[i];
		s64 got = bracket_gap(c->a, c->b);

		if (got != c->want)
			fail_msg("gap of [%lld, %lld] and [%lld, %lld]: %lld, want %lld", c->a.lo,
				 c->a.hi, c->b.lo, c->b.hi, got, c->want);
	}
}

static void test_between_and_narrower(void **state)
{
	struct bracket b = bracket_between(1000, 400, 1010), best = BRACKET_NONE;

	assert_int_equal(b.lo, 600);
	assert_int_equal(b.hi, 610);
	assert_int_equal(bracket_width(b), 10);
	/* a count ahead of the counter: a negative offset */
	b = bracket_between(100, 400, 110);
	assert_int_equal(b.lo, -300);
	assert_int_equal(b.hi, -290);
	best = bracket_narrower(best, b);
	assert_int_equal(best.lo, -300);
	/* as wide: the first stays */
	best = bracket_narrower(best, (struct bracket){5, 15});
	if (best.lo != -300)
		fail_msg("two brackets 10 wide: the first, [-300, -290], should stay; got [%lld, %lld]",
			 best.lo, best.hi);
	best = bracket_narrower(best, (struct bracket){5, 14});
	assert_int_equal(best.lo, 5);
	assert_int_equal(bracket_width(BRACKET_NONE), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handoff_bracket),
		cmocka_unit_test(test_went_back),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_between_and_narrower),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
