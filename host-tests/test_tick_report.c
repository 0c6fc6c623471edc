// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick/tick_checks.c on the host: the tick judgment's checks as the guest
 * prints them. What: the lost-tick and late-tick checks are bounded checks
 * (lib/report.h report_bounded): a BOUND line with the figure and its band,
 * then the PASS/FAIL line, the outcome the band's (the rate's count a band
 * whose ends differ: short by the losses explained or allowed, over by
 * rounding and calibration alone); where a check is not
 * judged (no host's evidence) a SKIP and the figure as a RESULT alone.
 * Why: the report and results-to-json read these figures and bands from the
 * BOUND lines only, never from the sentences. How: a literal record (1 kHz
 * at a 2 GHz counter, as host-tests/test_tick_judge.c builds them) judged
 * by tick_judge, then tick_checks with its output captured; and a
 * source that stopped, inside and past the grace (tick_check_stopped).
 */
/* LIBSRC: common/tick/tick_checks.c common/tick/tick_figure.c common/tick/tick_judge.c */
/* LIBSRC: common/tick/tick_record.c common/tick/tick_math.c */
/* LIBSRC: lib/period.c lib/busy.c lib/report.c lib/checks.c lib/fixed.c lib/stats.c lib/printf.c */
/* LIBSRC: lib/string.c lib/strto.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/tick/tick_engine.h"
#include "../common/tick/tick_judge.h"
#include "../common/tick/tick_record.h"
#include "tick_fixture.h"
#include "../lib/report.h"
#include "judged.h"

#define MS     (HZ / 1000)
/* late beyond the 20 us every tick has by exactly the 19 ms bound */
#define LATE_AT_BOUND (19 * MS - PERIOD / 50)

static u64 at[N], late[N], own[N], lost[N], early[N], scratch[N], sim_at[N], sim_steal[N];
static struct tick_work work = { late, own, lost, early, scratch, 0, 0, sim_at, sim_steal };
static struct host_part parts[NPARTS];

void cpu_relax(void)
{
}

/* the clean run (host-tests/tick_fixture.h) over this test's arrays */
static struct tick_record clean_run(void)
{
	return tick_clean_run(at, parts);
}

/* A case: what is done to the clean run, and lines its checks must print. */
struct report_case {
	const char *what;
	unsigned drop;	    /* ticks never delivered, spread over the run */
	u64 late_ticks;	    /* from tick 300 on, every tick this many counter ticks (0.5 ns) later */
	bool by_hand;	    /* no host's evidence */
	u64 needs_one_in;   /* resolution= the entry declares (0: none) */
	const char *lines[6];
	const char *absent; /* a line start that must not appear */
	u64 early_ticks;    /* tick 500 this many counter ticks before its slot (0: none) */
	u64 period_plus;    /* counter ticks the record's period is longer: the source runs fast */
};

static const struct report_case cases[] = {
	{ "one tick 1 us before its deadline: early", 0, 0, false, 0,
	  { "BOUND: timer_tick.fake.early 1 ticks 0..0",
	    "FAIL: no tick before its deadline: 1 early, the worst by 1000 ns" },
	  NULL, 40000 + 2000 },
	{ "clean: every tick 20 us late", 0, 0, false, 0,
	  { "BOUND: timer_tick.fake.early 0 ticks 0..0",
	    "BOUND: timer_tick.fake.lost_unexplained 0 ticks 0..1",
	    /* 1 in 1000 takes out the last tick only (the run's end allows it); 1 in 500 two */
	    "PASS: ticks lost that nothing explains: 0 of 1000, at most 1 (1 for the run's end, 0 "
	    "for late gaps by chance); resolution: it would have caught 1 in 500",
	    "RESULT: timer_tick.fake.catches_one_in 500 ticks",
	    "BOUND: timer_tick.fake.late_unexplained_max 20000 ns 0..19000000" } },
	{ "clean: the count against the schedule's, its band short and over", 0, 0, false, 0,
	  { "BOUND: timer_tick.fake.count_off -0.020 ticks -2.001..0.001",
	    "PASS: the interrupts that came ran at 999.980 Hz over the run's 1000 ms against the "
	    "schedule's 1000.000 Hz (hz=1000 by the counter): 0.020 tick(s) short (at most 2.001)" } },
	{ "50 ppm fast: over by more than rounding and calibration allow", 0, 0, false, 0,
	  { "BOUND: timer_tick.fake.count_off 0.030 ticks -2.001..0.001",
	    "FAIL: the interrupts that came ran at 999.980 Hz over the run's 1000 ms against the "
	    "schedule's 999.950 Hz (hz=1000 by the counter): 0.030 tick(s) over (at most 0.001)" },
	  NULL, 0, 100 },
	{ "one never delivered: within the one allowed", 1, 0, false, 0,
	  { "BOUND: timer_tick.fake.lost_unexplained 1 ticks 0..1" } },
	{ "two never delivered: beyond it", 2, 0, false, 0,
	  { "BOUND: timer_tick.fake.lost_unexplained 2 ticks 0..1",
	    "FAIL: ticks lost that nothing explains: 2 of 1000, at most 1",
	    "BOUND: timer_tick.fake.count_off -2.020 ticks -2.001..0.001",
	    "FAIL: the interrupts that came ran at 997.980 Hz over the run's 1000 ms against the "
	    "schedule's 1000.000 Hz (hz=1000 by the counter): 2.020 tick(s) short (at most 2.001)" } },
	{ "late 19 ms with the 20 us: at the bound", 0, LATE_AT_BOUND, false, 0,
	  { "BOUND: timer_tick.fake.late_unexplained_max 19000000 ns 0..19000000",
	    "PASS: no tick late by more than 19 ms beyond the evidence (steal time, the host's): 0 "
	    "were" } },
	{ "2 ns more: beyond", 0, LATE_AT_BOUND + 4, false, 0,
	  { "BOUND: timer_tick.fake.late_unexplained_max 19000002 ns 0..19000000",
	    "FAIL: no tick late by more than 19 ms beyond the evidence" } },
	{ "late 25 ms by hand: not judged, the figure alone", 0, 25 * MS, true, 0,
	  { "RESULT: timer_tick.fake.late_unexplained_max 25020000 ns",
	    "SKIP: no tick late by more than 19 ms beyond the evidence (steal time): 1 were" },
	  "BOUND: timer_tick.fake.late_unexplained_max" },
	{ "clean, the entry needs 1 in 1000: more than this run can tell", 0, 0, false, 1000,
	  { "SKIP: ticks lost that nothing explains: 0 of 1000, at most 1, not judged: with this "
	    "run's noise the check would have caught 1 in 500 never-delivered interrupts, the entry "
	    "needs 1 in 1000 (resolution=)" },
	  "BOUND: timer_tick.fake.lost_unexplained" },
	{ "clean, the entry needs 1 in 500: what it has", 0, 0, false, 500,
	  { "PASS: ticks lost that nothing explains: 0 of 1000" } },
	{ "two lost by hand: not judged, the figure alone", 2, 0, true, 0,
	  { "RESULT: timer_tick.fake.lost_unexplained 2 ticks",
	    "SKIP: ticks lost that nothing explains: 2 of 1000, not judged" },
	  "BOUND: timer_tick.fake.lost_unexplained" },
};

static const struct report_case *current;

static void run_case(const void *arg)
{
	const struct report_case *c = arg;
	struct tick_record r = clean_run();
	struct tick_verdict v;

	for (unsigned k = 0; k < c->drop; k++) {
		u64 j = (k + 1) * N / (c->drop + 1);

		memmove(&at[j], &at[j + 1], (r.n - j - 1) * sizeof(u64));
		r.n--;
	}
	for (u64 j = 300; c->late_ticks && j < r.n; j++)
		at[j] += c->late_ticks;
	at[500] -= c->early_ticks;
	r.end_at = at[r.n - 1];
	r.period_counts += c->period_plus;
	if (c->by_hand)
		r.host = (struct tick_host){ .why_none = "by hand" };
	tick_judge(&r, &v, &work);
	tick_take_resolution(&r, &v, &work, c->needs_one_in);
	PRINTED(tick_checks(J, &r, &v));
}

static void test_cases(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		current = &cases[i];
		print_message("case: %s\n", current->what);
		capture(run_case, current, out, sizeof(out));
		for (size_t l = 0; l < ARRAY_SIZE(current->lines) && current->lines[l]; l++)
			has_line_with(out, current->lines[l], NULL, 0);
		if (current->absent)
			lacks(out, current->absent);
	}
}

/*
 * A source that stopped: its last tick 500 ms into the run, the run's end
 * 49 ms after it is within the 50 ms grace (TICK_GRACE_MS, a literal here:
 * pinned), 50 ms after it is a source that stopped.
 */
static void run_stopped(const void *arg)
{
	struct tick_record r = clean_run();

	r.n = 500;
	r.end_at = at[r.n - 1] + *(const u64 *)arg * MS;
	PRINTED(tick_check_stopped(J, &r, r.n));
}

static void test_stopped_after_the_grace(void **state)
{
	char out[CAPTURE_MAX];
	static const u64 within = 49, at_grace = 50;

	capture(run_stopped, &within, out, sizeof(out));
	lacks(out, "FAIL");
	capture(run_stopped, &at_grace, out, sizeof(out));
	has_line(out, "FAIL: the source stopped: the last tick seen was interrupt 500 of 1000, 500 ms "
		      "into the run; none in the 50 ms after it");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_stopped_after_the_grace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
