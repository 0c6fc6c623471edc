// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_agree.c's check of every vCPU's clocks against the boot
 * vCPU's across an event, on the host (lib/handoff.c's brackets are
 * test_handoff.c's).
 * What: lc_check_agree() passes an offset whose brackets before and after
 * the event overlap, to a tick, and fails one that moved beyond them.
 * Why: the lifecycle test's cross-vCPU check and the cpu-off-on engine
 * read one vCPU's clock against another's this way; a host that restores
 * the vCPUs' clocks apart is what it exists to catch, and no good host
 * shows it.
 * How: a 2 GHz counter; two vCPUs; offsets in counter ticks; the check's
 * PASS/FAIL/RESULT lines read back (console_capture.h).
 */
/* LIBSRC: common/lifecycle/lifecycle_agree.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/handoff.c lib/report.c lib/checks.c */
/* LIBSRC: lib/fixed.c lib/printf.c lib/string.c lib/stats.c lib/wait.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"

#define NCPUS 2
#include "fake_checks_arch.h"
#include "fake_checks_never.h"
#include "judged.h"

struct lc_state lc;

static u64 never_read(void)
{
	fail_msg("a check read a clock");
	return 0;
}

static const struct lc_clock clocks[] = {
	{ .name = "TSC", .read = never_read, .during = { LC_RUNS, LC_RUNS, LC_RUNS } },
};
static const struct lc_arch arch = { .clocks = clocks, .nclocks = 1 };

struct agree_case {
	const char *what;
	struct bracket before, after;
	s64 gap; /* the figure: the brackets' gap in ticks (negative: they overlap), bound ..1 */
	const char *line;
};

static const struct agree_case agree_cases[] = {
	{ "the offset stayed: brackets overlap", { -200, 200 }, { -100, 300 }, -300,
	  "PASS: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "-100..100 ns before, -50..150 ns after (moved 50 ns; bound: the brackets overlap, to 1 "
	  "tick)" },
	{ "brackets that touch within the grain", { 0, 100 }, { 101, 300 }, 1,
	  "PASS: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "0..50 ns before, 50..150 ns after (moved 75 ns; bound: the brackets overlap, to 1 tick)" },
	{ "an offset restored 1 ms apart", { -200, 200 }, { 1999800, 2000200 }, 1999600,
	  "FAIL: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "-100..100 ns before, 999900..1000100 ns after (moved 1000000 ns; bound: the brackets "
	  "overlap, to 1 tick)" },
	{ "two ticks apart: beyond the grain", { 0, 100 }, { 102, 300 }, 2,
	  "FAIL: vCPU 1's TSC against vCPU 0's kept its offset over the event: "
	  "0..50 ns before, 51..150 ns after (moved 75 ns; bound: the brackets overlap, to 1 "
	  "tick)" },
};

static void play(const void *arg)
{
	const struct agree_case *c = arg;

	fresh_event(&arch, NCPUS, COUNTER_HZ, LC_PAUSE);
	lc.rec.cpu[1].agree[0][0] = c->before;
	lc.rec.cpu[1].agree[1][0] = c->after;
	PRINTED(lc_check_agree(J, &lc.rec));
}

/* Each case's check as the tools read it: the figure, its band and its outcome, no sentence. */
static void test_agree_entries(void **state)
{
	for (size_t i = 0; i < sizeof(agree_cases) / sizeof(agree_cases[0]); i++) {
		const struct agree_case *c = &agree_cases[i];
		struct checks *l = test_checks();
		const struct check *e;

		fresh_event(&arch, NCPUS, COUNTER_HZ, LC_PAUSE);
		lc.rec.cpu[1].agree[0][0] = c->before;
		lc.rec.cpu[1].agree[1][0] = c->after;
		lc_check_agree(l, &lc.rec);
		e = checks_find(l, "e1.pause.TSC.offset_gap.cpu1");
		assert_non_null(e);
		assert_int_equal(e->kind, CHECK_BOUNDED);
		assert_int_equal(e->b.value, c->gap);
		assert_int_equal(e->b.band[0].lo, BOUND_OPEN_LO);
		assert_int_equal(e->b.band[0].hi, LC_AGREE_GRAIN_TICKS);
		/* the case's words say PASS or FAIL; the entry's bands decide */
		assert_int_equal(check_holds(e), !strncmp(c->line, "PASS", 4));
	}
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
		cmocka_unit_test(test_agree),
		cmocka_unit_test(test_agree_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
