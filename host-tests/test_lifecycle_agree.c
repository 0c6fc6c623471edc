// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/handoff.c's brackets and common/lifecycle_agree.c's check of every
 * vCPU's clocks against the boot vCPU's across an event, on the host.
 * What: hand-offs written out by hand (the boot vCPU's reads and the
 * peer's between them) give the narrowest bracket of the peer's offset
 * and the first read out of order; lc_check_agree() then passes an offset
 * that stayed within both brackets and fails one that moved beyond them.
 * Why: the lifecycle test's cross-vCPU check and the cpu-off-on engine
 * read one vCPU's clock against another's this way; a host that restores
 * the vCPUs' clocks apart is what it exists to catch, and no good host
 * shows it.
 * How: a 2 GHz counter; two vCPUs; offsets in counter ticks; the check's
 * PASS/FAIL/RESULT lines read back (console_capture.h).
 */
/* LIBSRC: common/lifecycle_agree.c common/lifecycle_proto.c lib/handoff.c lib/report.c */
/* LIBSRC: lib/fixed.c lib/printf.c lib/string.c lib/stats.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle_state.h"

#define NCPUS 2

struct lc_state lc;

void cpu_relax(void)
{
}

int cpu_count(void)
{
	return NCPUS;
}

u64 arch_counter_hz(void)
{
	return 2000000000ull;
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	fail_msg("a check ran a hand-off");
}

void on_cpu_wait(int cpu)
{
	fail_msg("a check waited for a vCPU");
}

static u64 never_read(void)
{
	fail_msg("a check read a clock");
	return 0;
}

static const struct lc_clock clocks[] = {
	{ .name = "TSC", .read = never_read, .during = { LC_RUNS, LC_RUNS, LC_RUNS } },
};
static const struct lc_arch arch = { .clocks = clocks, .nclocks = 1 };

/* Boot reads at 0, 100, 200, ...; the peer's read r at 100 r + at[r] (its own clock's offset in). */
static void fill(struct handoff *ho, const s64 *at)
{
	for (u32 r = 0; r <= HANDOFF_ROUNDS; r++)
		ho->boot[r] = 1000000 + 100 * r;
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++)
		ho->peer[r] = (u64)((s64)ho->boot[r] + at[r]);
}

static void test_offset(void **state)
{
	static struct handoff ho;
	s64 at[HANDOFF_ROUNDS];

	/* the peer 40 ticks after each boot read, its clock 500 ahead: offsets 440..540 */
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++)
		at[r] = 540;
	fill(&ho, at);
	assert_int_equal(handoff_offset(&ho).lo, 440);
	assert_int_equal(handoff_offset(&ho).hi, 540);
	/* a clock that far ahead reads above the boot vCPU's next read: out of order from round 0 */
	assert_int_equal(handoff_first_back(&ho), 2 * 0 + 2);
	/* a peer read in order everywhere, one round's bracket narrowed to 10 ticks */
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++)
		at[r] = 50;
	fill(&ho, at);
	ho.boot[6] = ho.boot[5] + 60;
	assert_int_equal(handoff_first_back(&ho), 0);
	assert_int_equal(handoff_offset(&ho).lo, -10);
	assert_int_equal(handoff_offset(&ho).hi, 50);
	/* a peer read below the boot read before it */
	at[2] = -1;
	fill(&ho, at);
	assert_int_equal(handoff_first_back(&ho), 2 * 2 + 1);
	/* brackets 0..10 and 12..20 miss by 2; 0..10 and 5..20 overlap by 5 */
	assert_int_equal(bracket_gap((struct bracket){ 0, 10 }, (struct bracket){ 12, 20 }), 2);
	assert_int_equal(bracket_gap((struct bracket){ 12, 20 }, (struct bracket){ 0, 10 }), 2);
	assert_int_equal(bracket_gap((struct bracket){ 0, 10 }, (struct bracket){ 5, 20 }), -5);
}

struct agree_case {
	const char *what;
	struct bracket before, after;
	const char *line;
};

static const struct agree_case agree_cases[] = {
	{ "the offset stayed: brackets overlap", { -200, 200 }, { -100, 300 },
	  "PASS: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "-100..100 ns before, -50..150 ns after (moved 50 ns; bound: the brackets overlap, to 1 "
	  "tick)" },
	{ "brackets that touch within the grain", { 0, 100 }, { 101, 300 },
	  "PASS: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "0..50 ns before, 50..150 ns after (moved 75 ns; bound: the brackets overlap, to 1 tick)" },
	{ "an offset restored 1 ms apart", { -200, 200 }, { 1999800, 2000200 },
	  "FAIL: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "-100..100 ns before, 999900..1000100 ns after (moved 1000000 ns; bound: the brackets "
	  "overlap, to 1 tick)" },
	{ "two ticks apart: beyond the grain", { 0, 100 }, { 102, 300 },
	  "FAIL: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "0..50 ns before, 51..150 ns after (moved 75 ns; bound: the brackets overlap, to 1 "
	  "tick)" },
};

static void play(const void *arg)
{
	const struct agree_case *c = arg;

	memset(&lc, 0, sizeof(lc));
	lc.arch = &arch;
	lc.seq = 1;
	lc.done = (struct lc_done){ .kind = LC_PAUSE, .seq = 1 };
	lc.cpu[1].agree[0][0] = c->before;
	lc.cpu[1].agree[1][0] = c->after;
	lc_check_agree();
}

static void test_agree(void **state)
{
	static char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(agree_cases) / sizeof(agree_cases[0]); i++) {
		printf("case: %s\n", agree_cases[i].what);
		capture(play, &agree_cases[i], out, sizeof(out));
		has_line(out, agree_cases[i].line);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
