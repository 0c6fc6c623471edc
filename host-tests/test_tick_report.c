// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick_report.c, the timer-tick engine's reports, on the host: a
 * run's figures are set by hand in tick_run and each report's lines read
 * back from stdout (lib/report.c writes there; console_capture.h reads it).
 * Checks that counts, rates, lateness, steal time, lost/late/early ticks
 * and a stopped source come out as the numbers say, in counter ticks at a
 * counter frequency other than 1 GHz (so a tick is never a ns by
 * accident), with their RESULT names and units; and that
 * tick_check_rates() hands the reference check the schedule's span and
 * the period's rounding (tick_ref_check() is played here, common/tick_ref.c
 * has its own test). The steal-time and lost-tick messages are checked by
 * their figures (fragments of the line), the RESULT lines whole: those are
 * what tools read.
 */
/* LIBSRC: common/tick_report.c lib/report.c lib/stats.c lib/fixed.c common/tick_math.c lib/printf.c */
/* LIBSRC: lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/tick_engine.h"
#include "../common/tick_ref.h"

#define HZ	2000000000ull /* counter ticks per second: 2 per ns */
#define LATE_N	200

/* --- what the rest of the engine provides ------------------------------------------ */

struct tick_run tick_run;
static u64 steal_now;
static u64 late[LATE_N];
static struct tick_ref_plan seen_plan;
static const struct tick_ref *seen_ref;

void cpu_relax(void)
{
}

/* Periodic: slot i is the (i+1)-th period after the anchor. */
u64 tick_slot(u64 i)
{
	return tick_run.anchor + (i + 1) * tick_run.period;
}

u64 steal_ns(void)
{
	return steal_now;
}

void tick_ref_check(const struct tick_ref *r, const struct tick_ref_plan *p)
{
	seen_ref = r;
	seen_plan = *p;
}

static const struct tick_source fake_src = { .name = "fake", .what = "Fake source" };
/* A source emulated by another host thread (the HPET): 8 % more allowed where the host is unseen. */
static const struct tick_source thread_src = {
	.name = "thread", .what = "Thread source", .unseen_host_lost_pct = 8
};
/* A run of 1000 slots at 1 kHz on the fake source, 990 ticks received, ended at its last slot. */
static void reset_run(const struct tick_source *src)
{
	memset(&tick_run, 0, sizeof(tick_run));
	tick_run.src = src;
	tick_run.expected = 1000;
	tick_run.received = 990;
	tick_run.anchor = 5000;
	tick_run.period = HZ / 1000;
	tick_run.end_at = tick_slot(tick_run.expected - 1);
	tick_run.late = late;
	steal_now = 0;
}

/* --- counts and rate ------------------------------------------------------------------ */

static void counts_run(const void *arg)
{
	/* 1.5 s of schedule, 3e9 ticks at 2 GHz; the first tick 2000 ticks (1 us) in */
	tick_report_counts(3000000000ull, 2000, HZ);
}

static void test_counts(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	tick_run.expected = 1500;
	tick_run.received = 1497;
	capture(counts_run, NULL, out, sizeof(out));
	EXACTLY(out, "INFO: 1497 of 1500 ticks in 1500 ms: 998.000 per second",
		"RESULT: timer_tick.fake.ticks_expected 1500 ticks",
		"RESULT: timer_tick.fake.ticks_received 1497 ticks",
		"RESULT: timer_tick.fake.ticks_per_s 998.000 Hz",
		"RESULT: timer_tick.fake.phase 1 us");
}

static void counts_zero_span(const void *arg)
{
	tick_report_counts(0, 0, HZ);
}

/* A span of no time counts as 1 ns rather than dividing by zero. */
static void test_counts_zero_span(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	tick_run.received = 1;
	capture(counts_zero_span, NULL, out, sizeof(out));
	assert_non_null(strstr(out, "INFO: 1 of 1000 ticks in 0 ms: 1000000000.000 per second\n"));
}

/* --- lateness ------------------------------------------------------------------------ */

static void lateness_run(const void *arg)
{
	tick_report_lateness(HZ);
}

static void test_lateness(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	tick_run.received = LATE_N;
	/* (i + 1) us late, shuffled: 2000 (i + 1) ticks, i taken in a stride through 0..199 */
	for (unsigned i = 0; i < LATE_N; i++)
		late[i] = 2000ull * ((i * 7) % LATE_N + 1);
	capture(lateness_run, NULL, out, sizeof(out));
	/* median: the mean of the 100th and 101st, 100.5 us; p99: the 198th (nearest rank) */
	EXACTLY(out, "INFO: lateness: min 1000 ns, median 100500 ns, p99 198000 ns, max 200000 ns",
		"RESULT: timer_tick.fake.late_min 1000 ns",
		"RESULT: timer_tick.fake.late_median 100500 ns",
		"RESULT: timer_tick.fake.late_p99 198000 ns",
		"RESULT: timer_tick.fake.late_max 200000 ns",
		/* log2 buckets: 1000 ns is in [512, 1024), 200000 ns in [131072, 262144) */
		"RESULT: timer_tick.fake.late_log2_ns.9 1 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.10 1 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.11 2 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.12 4 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.13 8 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.14 16 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.15 33 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.16 66 ticks",
		"RESULT: timer_tick.fake.late_log2_ns.17 69 ticks");
}

/* Bucket edges: 0 and 1 ns in bucket 0, 2 and 3 in 1, 2^40 - 1 in 39, 2^40 in 40. */
static void test_lateness_bucket_edges(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	tick_run.received = 6;
	/* counter ticks at 2 per ns */
	late[0] = 0;
	late[1] = 2;
	late[2] = 4;
	late[3] = 6;
	late[4] = 2 * ((1ull << 40) - 1);
	late[5] = 2 * (1ull << 40);
	capture(lateness_run, NULL, out, sizeof(out));
	has_line(out, "RESULT: timer_tick.fake.late_log2_ns.0 2 ticks");
	has_line(out, "RESULT: timer_tick.fake.late_log2_ns.1 2 ticks");
	has_line(out, "RESULT: timer_tick.fake.late_log2_ns.39 1 ticks");
	has_line(out, "RESULT: timer_tick.fake.late_log2_ns.40 1 ticks");
	lacks(out, "late_log2_ns.2 ");
}

/* --- the host's share ---------------------------------------------------------------- */

static void host_run(const void *arg)
{
	tick_report_host(HZ);
}

static void test_host(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	capture(host_run, NULL, out, sizeof(out));
	assert_string_equal(out, "");

	tick_run.has_steal = true;
	tick_run.steal_start = 2500000;
	tick_run.steal_lost = 3;
	steal_now = 7500000;
	capture(host_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "INFO: steal time over the run: 5000 us", "3");
	has_line(out, "RESULT: timer_tick.fake.steal 5000 us");
	has_line(out, "RESULT: timer_tick.fake.steal_lost 3 ticks");
	assert_null(strstr(out, "not counted for lost ticks"));

	tick_run.steal_carry = 4000; /* ticks: 2 us */
	capture(host_run, NULL, out, sizeof(out));
	has_line(out, "INFO: steal time beyond the time the ticks took, not counted for lost "
		      "ticks: 2 us");
	has_line(out, "RESULT: timer_tick.fake.steal 5000 us");
}

/* --- lost, late and early ---------------------------------------------------------------- */

static void checks_run(const void *arg)
{
	tick_report_checks(HZ, 1000);
}

#define UNSEEN_WHY "1, plus 19 a 19 ms delay the guest cannot see may coalesce, plus 0% for "

static void test_checks_lost(void **state)
{
	char out[CAPTURE_MAX];

	/* without steal time (TCG in real time): one unseen 19 ms delay's ticks allowed */
	reset_run(&fake_src);
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost: ", "10 of 1000, at most 20 allowed (" UNSEEN_WHY,
		      "no steal time here", "docs/timers.md, \"The host's share: steal time\")");
	tick_run.received = 979;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "FAIL: ticks lost: ", "21 of 1000, at most 20 allowed (");

	/* an emulation thread's share on top: 8 % of 1000 */
	reset_run(&thread_src);
	tick_run.received = 900;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost: ", "100 of 1000, at most 100 allowed (1, plus 19 ",
		      "plus 8% for an emulation thread's delays");
	tick_run.received = 899;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "FAIL: ticks lost: ", "101 of 1000, at most 100 allowed (");

	/* a clock that runs by instructions (-icount): the host costs none, one tick allowed */
	reset_run(&thread_src);
	tick_run.clock_by_instructions = true;
	tick_run.received = 998;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "FAIL: ticks lost: 2 of 1000, at most 1 allowed (the guest's clock runs by "
		      "its instructions: the host's delays cost none)");
	has_line(out, "RESULT: timer_tick.thread.lost_allowed 1 ticks");

	/* counted from time: slots passed beyond the schedule are owed too (its last tick lost) */
	reset_run(&fake_src);
	tick_run.clock_by_instructions = true;
	tick_run.received = 1000;
	tick_run.slots_passed = 1002;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "INFO: ticks counted from time: 1002 slot(s) of the schedule passed by the "
		      "run's end (by the counter), 1000 interrupt(s) counted");
	HAS_LINE_WITH(out, "FAIL: ticks lost: ", "2 of 1002, at most 1 allowed (");
	has_line(out, "RESULT: timer_tick.fake.slots_passed 1002 ticks");
	/* fewer slots passed than the schedule's (a guard ended the run): all of them owed */
	tick_run.slots_passed = 7;
	tick_run.received = 999;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost: ", "1 of 1000, at most 1 allowed (");
	/* more interrupts than slots: none lost (the early check speaks for them) */
	tick_run.received = 1000;
	tick_run.slots_passed = 990;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "RESULT: timer_tick.fake.lost 0 ticks");

	/* 30 lost, 4 explained by steal time: 26 left, 20 allowed */
	reset_run(&fake_src);
	tick_run.received = 970;
	tick_run.has_steal = true;
	tick_run.steal_lost = 4;
	tick_run.worst_unexplained = 6000000; /* ticks: 3 ms */
	tick_run.worst_unexplained_tick = 17;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "FAIL: ticks lost beyond what steal time explains: ", "30 of 1000 ",
		      " 4 explained, 26 unexplained (at most 20: " UNSEEN_WHY);
	has_line(out, "PASS: no tick late by more than 19 ms beyond steal time: 0 were, the worst "
		      "tick 17 by 3000 us");
	has_line(out, "PASS: no tick before its deadline: 0 early, the worst by 0 ns");
	has_line(out, "RESULT: timer_tick.fake.early 0 ticks");
	has_line(out, "RESULT: timer_tick.fake.lost 30 ticks");
	has_line(out, "RESULT: timer_tick.fake.lost_unexplained 26 ticks");
	has_line(out, "RESULT: timer_tick.fake.late_unexplained_max 3000000 ns");
	has_line(out, "RESULT: timer_tick.fake.late_unexplained_bound 19000000 ns");
	has_line(out, "RESULT: timer_tick.fake.lost_allowed 20 ticks");

	/* more steal time than lost ticks: all explained, the explained count capped */
	reset_run(&fake_src);
	tick_run.has_steal = true;
	tick_run.steal_lost = 25;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost beyond what steal time explains: ", "10 of 1000 ",
		      " 10 explained, 0 unexplained (at most 20: ");
	has_line(out, "RESULT: timer_tick.fake.lost_unexplained 0 ticks");

	/* as many unexplained as allowed: a pass */
	reset_run(&fake_src);
	tick_run.received = 970;
	tick_run.has_steal = true;
	tick_run.steal_lost = 10;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost beyond what steal time explains: ", "30 of 1000 ",
		      " 10 explained, 20 unexplained (at most 20: ");
}

/* The rate of the interrupts that came, over the run's real length (end_at - anchor). */
static void test_checks_arrival_rate(void **state)
{
	char out[CAPTURE_MAX];

	/* 990 in 1 s at 1000 Hz: 10 short, 20 lost + one period allowed; the period's rounding */
	reset_run(&fake_src);
	tick_run.plan.period_counts = 1000000; /* 1 ppm of rounding */
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "PASS: the interrupts that came ran at 990.000 Hz over the run's 1000 ms "
		      "against the programmed 1000 Hz: 10.000 tick(s) short (at most 21.002)");
	has_line(out, "RESULT: timer_tick.fake.ticks_per_s_arrived 990.000 Hz");
	/* by instructions: one lost and one period short at most */
	tick_run.clock_by_instructions = true;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "FAIL: the interrupts that came ran at 990.000 Hz over the run's 1000 ms "
		      "against the programmed 1000 Hz: 10.000 tick(s) short (at most 2.002)");
	/* every tick, in 0.99 s: a source 1 % fast (or a counter 1 % slow) is over */
	tick_run.received = 1000;
	tick_run.end_at = tick_run.anchor + HZ * 99 / 100;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "FAIL: the interrupts that came ran at 1010.101 Hz over the run's 990 ms "
		      "against the programmed 1000 Hz: 10.000 tick(s) over (at most 0.001)");
	/* one tick over is over: short allows lost ticks, over allows none */
	tick_run.end_at = tick_run.anchor + HZ * 999 / 1000;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "FAIL: the interrupts that came ran at 1001.001 Hz over the run's 999 ms "
		      "against the programmed 1000 Hz: 1.000 tick(s) over (at most 0.001)");
	/* lost ticks steal time explains may be short too: 30 lost, 15 explained, 20 allowed */
	tick_run.clock_by_instructions = false;
	tick_run.has_steal = true;
	tick_run.steal_lost = 15;
	tick_run.received = 970;
	tick_run.end_at = tick_run.anchor + HZ;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "PASS: the interrupts that came ran at 970.000 Hz over the run's 1000 ms "
		      "against the programmed 1000 Hz: 30.000 tick(s) short (at most 36.002)");
	tick_run.has_steal = false;
	tick_run.steal_lost = 0;
	tick_run.clock_by_instructions = true;
	tick_run.received = 1000;
	/* every tick in 1 s: exact */
	tick_run.end_at = tick_run.anchor + HZ;
	capture(checks_run, NULL, out, sizeof(out));
	has_line(out, "PASS: the interrupts that came ran at 1000.000 Hz over the run's 1000 ms "
		      "against the programmed 1000 Hz: 0.000 tick(s) short (at most 2.002)");
}

static void test_checks_late_and_early(void **state)
{
	char out[CAPTURE_MAX];

	reset_run(&fake_src);
	tick_run.has_steal = true;
	tick_run.received = tick_run.expected;
	tick_run.over_late = 2;
	tick_run.worst_unexplained = 50000000; /* 25 ms */
	tick_run.worst_unexplained_tick = 400;
	tick_run.early = 3;
	tick_run.worst_early = 1000; /* 500 ns */
	tick_run.plan.cal.err_ppb = 250;
	tick_run.ahead = 5;
	tick_run.stray = 2;
	capture(checks_run, NULL, out, sizeof(out));
	HAS_LINE_WITH(out, "PASS: ticks lost beyond what steal time explains: ", "0 of 1000 ",
		      " 0 explained, 0 unexplained (at most 20: ");
	has_line(out, "FAIL: no tick late by more than 19 ms beyond steal time: 2 were, the worst "
		      "tick 400 by 25000 us");
	has_line(out, "FAIL: no tick early beyond the calibration's error (250 ppb of the distance "
		      "it was scheduled over): 3 early, the worst by 500 ns");
	has_line(out, "INFO: 5 tick(s) before their slot in the calibrated schedule, within its "
		      "error");
	has_line(out, "INFO: 2 interrupt(s) outside the run, ignored");
	has_line(out, "RESULT: timer_tick.fake.early 3 ticks");
	has_line(out, "RESULT: timer_tick.fake.lost 0 ticks");
	has_line(out, "RESULT: timer_tick.fake.late_unexplained_max 25000000 ns");
}

/* --- a source that stopped ------------------------------------------------------------ */

static u64 stop_end;

static void stopped_run(const void *arg)
{
	tick_report_stopped(stop_end, HZ);
}

static void test_stopped(void **state)
{
	char out[CAPTURE_MAX];

	/* every tick came: nothing to say however long the wait */
	reset_run(&fake_src);
	tick_run.received = tick_run.expected;
	tick_run.last_at = tick_run.anchor + HZ;
	stop_end = tick_run.last_at + 10 * HZ;
	capture(stopped_run, NULL, out, sizeof(out));
	assert_string_equal(out, "");

	/* 100 ticks, the last 100 ms in, then 60 ms of nothing: past the 50 ms grace */
	reset_run(&fake_src);
	tick_run.received = 100;
	tick_run.interrupts = 101;
	tick_run.last_at = tick_run.anchor + HZ / 10;
	stop_end = tick_run.last_at + HZ * 60 / 1000;
	capture(stopped_run, NULL, out, sizeof(out));
	EXACTLY(out, "FAIL: the source stopped: the last tick seen was interrupt 101 of 1000, "
		     "100 ms into the run; none in the 60 ms after it");

	/* 49 ms of nothing: still within the grace */
	stop_end = tick_run.last_at + HZ * 49 / 1000;
	capture(stopped_run, NULL, out, sizeof(out));
	assert_string_equal(out, "");

	/* the grace ends at 50 ms: a counter tick short of it is within, 50 ms itself past it */
	stop_end = tick_run.last_at + HZ * 50 / 1000 - 1;
	capture(stopped_run, NULL, out, sizeof(out));
	assert_string_equal(out, "");
	stop_end++;
	capture(stopped_run, NULL, out, sizeof(out));
	EXACTLY(out, "FAIL: the source stopped: the last tick seen was interrupt 101 of 1000, "
		     "100 ms into the run; none in the 50 ms after it");

	/* none at all: counted from the anchor */
	tick_run.received = 0;
	stop_end = tick_run.anchor + HZ * 70 / 1000;
	capture(stopped_run, NULL, out, sizeof(out));
	EXACTLY(out, "FAIL: the source never ticked: no interrupt in the 70 ms of the run");
}

/* --- the plan and the rate check ------------------------------------------------------- */

static void plan_run(const void *arg)
{
	tick_report_plan(HZ, 1000);
}

static void test_plan(void **state)
{
	char out[CAPTURE_MAX];

	/* a source at 500 MHz: 4 counter ticks per count; 500000 counts = 2e6 ticks = 1 ms */
	reset_run(&fake_src);
	tick_run.plan.cal.ratio_fx = 4 * TICK_FX_ONE;
	tick_run.plan.cal.err_ppb = 5;
	tick_run.plan.period_counts = 500000;
	capture(plan_run, NULL, out, sizeof(out));
	EXACTLY(out, "INFO: source clock 500000000 Hz against the counter (+-5 ppb); period 500000 "
		     "counts = 1000000 ns: 1000.000 Hz for hz=1000");
}

static void test_check_rates(void **state)
{
	static const struct tick_ref ref;

	reset_run(&fake_src);
	tick_run.plan.cal.err_ppb = 5;
	tick_run.plan.period_counts = 500000;
	tick_check_rates(&ref, 1000, HZ);
	assert_ptr_equal(seen_ref, &ref);
	assert_string_equal(seen_plan.source, "fake");
	assert_int_equal(seen_plan.counter_hz, HZ);
	assert_int_equal(seen_plan.want_hz, 1000);
	assert_int_equal(seen_plan.slots, 1000);
	/* from the anchor to the last slot: 1000 periods (said in decimal, not cmocka's hex) */
	if (seen_plan.span != 1000 * tick_run.period)
		fail_msg("span %llu counter ticks, %llu periods of %llu, want 1000 periods",
			 (unsigned long long)seen_plan.span,
			 (unsigned long long)(seen_plan.span / tick_run.period),
			 (unsigned long long)tick_run.period);
	assert_int_equal(seen_plan.received, 990);
	/* a whole number of counts is up to one off: 1e9 / 500000 ppb, plus the calibration */
	assert_int_equal(seen_plan.slack_ppb, 2000 + 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_counts_zero_span),
		cmocka_unit_test(test_lateness),
		cmocka_unit_test(test_lateness_bucket_edges),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_checks_lost),
		cmocka_unit_test(test_checks_arrival_rate),
		cmocka_unit_test(test_checks_late_and_early),
		cmocka_unit_test(test_stopped),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_check_rates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
