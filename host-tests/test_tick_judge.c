// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick/tick_judge.c and common/tick/tick_record.c on the host: the judgment
 * of a run from its record alone. Literal records (1 kHz at a 2 GHz
 * counter, so a tick is never a ns by accident) for each way a lost tick
 * is explained or not, a one-shot's backlog, the record's text round
 * trip; and recorded real runs (host-tests/data/tick-records/, KVM
 * and TCG in real time, idle and beside busy loops, with and without a
 * fault), each judged again here and held to the verdict it must have.
 */
/* LIBSRC: common/tick/tick_judge.c common/tick/tick_record.c common/tick/tick_math.c lib/stats.c lib/printf.c */
/* LIBSRC: common/tick/tick_checks.c common/tick/tick_figure.c */
/* LIBSRC: lib/checks.c lib/report.c lib/fixed.c */
/* LIBSRC: lib/period.c lib/busy.c */
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
#include "../common/tick/tick_judge.h"
#include "../common/tick/tick_record.h"
#include "tick_fixture.h"
#include "tick_work_host.h"
#include "judged.h"

/* lib/report.c's lock spins with it; one thread here never waits */
void cpu_relax(void)
{
}

static u64 at[N], steal[N], late[N], own[N], lost[N], early[N], scratch[N];
static struct tick_work work = {late, own, lost, early, scratch, 0, 0};
static struct host_part parts[NPARTS];

/* the clean run (host-tests/tick_fixture.h) over this test's arrays */
static struct tick_record clean_run(void)
{
	return tick_clean_run(at, parts);
}

/* Drop tick j: its expiry never delivered, the next one on time. */
static void drop(struct tick_record *r, u64 j)
{
	memmove(&at[j], &at[j + 1], (r->n - j - 1) * sizeof(u64));
	r->n--;
}

/* The last judgment's list (tick_checks) and its record: what HOLDS() reads. */
static struct checks *judged;
static const struct tick_record *judged_rec;

/* Judge r, and make its checks as the guest does (tick_checks): outcomes come from the list. */
static void judge(const struct tick_record *r, struct tick_verdict *v)
{
	tick_judge(r, v, &work);
	judged = test_checks();
	judged_rec = r;
	tick_checks(judged, r, v);
}

/*
 * Whether the last judgment's check of figure NAME held. Not judged is
 * holding (as the guest's verdict) only where the list says why, in a
 * SKIP: a figure neither checked nor skipped (a misspelt name, a check the
 * judgment stopped making) fails the test instead of passing it.
 */
static bool holds(const char *name)
{
	char full[CHECK_NAME_MAX];
	const struct check *c;

	snprintf(full, sizeof(full), "timer_tick.%s.%s", judged_rec->source, name);
	c = checks_find(judged, full);
	if (c && c->kind == CHECK_BOUNDED)
		return check_holds(c);
	for (unsigned i = 0; i < judged->n; i++)
		if (judged->c[i].kind == CHECK_SKIP)
			return true;
	fail_msg("no check of %s in the judgment, and no SKIP saying why", full);
	return false;
}

#define HOLDS(name) holds(name)

/* A figure of the verdict against what the case worked out, said by name when it is not. */
static void expect(const char *what, u64 got, u64 want)
{
	if (got != want)
		fail_msg("%s: %llu, want %llu", what, (unsigned long long)got,
			 (unsigned long long)want);
}

static void test_clean(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	judge(&r, &v);
	assert_int_equal(v.lost, 0);
	assert_true(HOLDS("lost_unexplained") && HOLDS("late_unexplained_max") && HOLDS("early") &&
		    HOLDS("count_off"));
	assert_int_equal(late[5], PERIOD / 50);
	assert_int_equal(v.allowed, TICK_UNEXPLAINED_LOST_MAX);
}

/* Two interrupts never delivered: nothing explains them, one is allowed. */
static void test_never_delivered(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	drop(&r, 500);
	judge(&r, &v);
	assert_int_equal(v.lost, 2);
	assert_int_equal(v.unexplained, 2);
	assert_false(HOLDS("lost_unexplained"));
	assert_false(HOLDS("count_off"));
}

/*
 * Under -icount every tick comes the same time after its slot; a gap a
 * fault left closes a few counter ticks later (rounding): no late
 * delivery, the two lost ticks stay unexplained.
 */
static void test_rounding_is_no_delay(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	/* the -icount run's calibration error, 15 ppm: 60 counter ticks over a 2 ms gap */
	r.cal.err_ppb = 15000;
	drop(&r, 100);
	drop(&r, 500);
	at[100] += 4;
	at[499] += 4;
	judge(&r, &v);
	assert_int_equal(v.lost_late, 0);
	assert_int_equal(v.unexplained, 2);
	assert_false(HOLDS("lost_unexplained"));
}

/* By hand (no host evidence) the same lost ticks are not judged, in the rate either. */
static void test_by_hand(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	drop(&r, 500);
	r.host = (struct tick_host){.why_none = "by hand"};
	judge(&r, &v);
	assert_false(v.host);
	assert_int_equal(v.unexplained, 2);
	assert_true(HOLDS("lost_unexplained") && HOLDS("count_off"));
}

/*
 * A tick 25 ms late (beyond the 19 ms bound): with the host's evidence
 * that it did nothing, a FAIL; by hand, where a host delay the guest
 * cannot see looks the same, not judged.
 */
static void test_late_by_hand(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	for (u64 j = 300; j < N; j++)
		at[j] += 25 * PERIOD;
	r.end_at = at[N - 1];
	judge(&r, &v);
	assert_int_equal(v.over_late, 1);
	assert_false(HOLDS("late_unexplained_max"));
	r.host = (struct tick_host){.why_none = "by hand"};
	judge(&r, &v);
	assert_int_equal(v.over_late, 1);
	assert_true(HOLDS("late_unexplained_max"));
}

/* A calibration too loose to tell a tick's slot by the end: lost ticks not judged. */
static void test_schedule_unsure(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	drop(&r, 500);
	r.cal.err_ppb = 600000; /* 600 us over the 1 s run, more than half a period */
	judge(&r, &v);
	assert_true(v.schedule_unsure);
	assert_true(HOLDS("lost_unexplained"));
	r.cal.err_ppb = 400000;
	judge(&r, &v);
	assert_false(v.schedule_unsure);
	assert_false(HOLDS("lost_unexplained"));
}

/* The same gaps with the host's evidence of a 2 ms wait over each: explained, not lost. */
static void test_host_explains(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	drop(&r, 500);
	/* 100 parts of 10 ms; ticks 100 and 500 fall in parts 10 and 50 */
	parts[10].other_us = 2000;
	parts[50].vcpu_us = 1500;
	judge(&r, &v);
	assert_int_equal(v.lost, 2);
	assert_int_equal(v.lost_host, 2);
	assert_int_equal(v.unexplained, 0);
	assert_true(HOLDS("lost_unexplained") && HOLDS("count_off"));
	/* the evidence elsewhere explains nothing here */
	parts[10].other_us = 0;
	parts[20].other_us = 2000;
	judge(&r, &v);
	assert_int_equal(v.unexplained, 1);
}

/*
 * The stretches asked about: the gaps steal time does not explain. The
 * host's answer over a gap alone is what counts where there is one: a busy
 * part around a gap the host left alone explains nothing.
 */
static void test_windows(void **state)
{
	struct tick_record r = clean_run();
	struct tick_window w[4];
	struct tick_verdict v;

	drop(&r, 100);
	drop(&r, 500);
	assert_int_equal(tick_judge_asks(&r, w, 4, &work),
			 2); /* the run ends at its last tick: no tail */
	assert_int_equal(w[0].a, at[99]);
	assert_int_equal(w[0].b, at[100]);
	assert_int_equal(w[1].b, at[500]);
	memset(parts, 0, sizeof(parts));
	parts[10].vcpu_us = 4000; /* busy around the first gap */
	parts[50].vcpu_us = 4000;
	w[0].ev.vcpu_us = 50;	 /* but not over it */
	w[1].ev.other_us = 1500; /* the second: the main loop held 1.5 ms */
	r.host = (struct tick_host){
		.from = 0, .to = N * PERIOD, .nparts = 100, .part = parts, .nwin = 2, .win = w};
	judge(&r, &v);
	assert_int_equal(v.lost_host, 1);
	assert_int_equal(v.unexplained, 1);
	/*
	 * a record with fewer windows than asked (past TICK_HOST_WINDOWS_MAX):
	 * the gap not asked about is explained by its part's waits, as every
	 * stretch without a window is; by nothing where its part was quiet
	 */
	r.host.nwin = 1;
	judge(&r, &v);
	assert_int_equal(v.lost_host, 1);
	assert_int_equal(v.unexplained, 1);
	parts[50].vcpu_us = 0;
	judge(&r, &v);
	assert_int_equal(v.unexplained, 2);
}

/*
 * An HPET tick passes two threads: QEMU's main loop fires the timer, a
 * vCPU takes the interrupt. Over a gap of three lost ticks the main loop
 * waited 1.5 ms and the vCPU 1.5 ms: one after the other they held it
 * 3 ms, which the evidence's totals cannot tell from the two at once, so
 * the gap's delay is their sum (lib/host_evidence.h) and all three are
 * explained. Their larger alone (1.5 ms) explained one.
 */
static void test_waits_in_series(void **state)
{
	struct tick_record r = clean_run();
	struct tick_window w[2];
	struct tick_verdict v;

	for (int k = 0; k < 3; k++)
		drop(&r, 300);
	assert_int_equal(tick_judge_asks(&r, w, 2, &work), 1);
	w[0].ev = (struct host_part){.vcpu_us = 1500, .other_us = 1500};
	parts[30] = w[0].ev; /* the part's measured waits, which the gap draws on */
	r.host.nwin = 1;
	r.host.win = w;
	judge(&r, &v);
	expect("lost", v.lost, 3);
	expect("lost ticks a main loop's 1.5 ms then a vCPU's 1.5 ms explain", v.lost_host, 3);
	expect("unexplained", v.unexplained, 0);
}

/*
 * KVM's steal time is the vCPU thread's wait, the same wait the host's
 * evidence counts as the vCPU's: over a gap of four lost ticks 2 ms
 * stolen and a window whose vCPU waited 2 ms are one 2 ms delay, two
 * ticks (counted twice, it explained all four). With the main loop's
 * 2 ms after it, the delay is 4 ms: all four.
 */
static void test_steal_is_the_vcpu_wait(void **state)
{
	struct tick_record r = clean_run();
	struct tick_window w[2];
	struct tick_verdict v;

	for (int k = 0; k < 4; k++)
		drop(&r, 300);
	memset(steal, 0, sizeof(steal));
	for (u64 j = 300; j < r.n; j++)
		steal[j] = 2000000;
	r.steal_ns = steal;
	r.steal_end_ns = 2000000;
	assert_int_equal(tick_judge_asks(&r, w, 2, &work), 1);
	w[0].ev = (struct host_part){.vcpu_us = 2000};
	parts[30] = (struct host_part){.vcpu_us = 2000, .other_us = 2000};
	r.host.nwin = 1;
	r.host.win = w;
	judge(&r, &v);
	expect("lost", v.lost, 4);
	expect("lost ticks 2 ms of steal time explains", v.lost_steal, 2);
	expect("lost ticks the same 2 ms, the vCPU's wait, explains again", v.lost_host, 0);
	expect("unexplained", v.unexplained, 2);
	assert_false(HOLDS("lost_unexplained"));
	w[0].ev.other_us = 2000;
	judge(&r, &v);
	expect("lost ticks 2 ms of steal time explains", v.lost_steal, 2);
	expect("lost ticks the main loop's 2 ms after it explains", v.lost_host, 2);
	assert_true(HOLDS("lost_unexplained"));
	/* the agent saw no vCPU wait: the guest's steal is that wait all the same, the main loop's
	 * adds */
	w[0].ev = (struct host_part){.other_us = 2000};
	judge(&r, &v);
	expect("lost ticks the main loop's 2 ms after 2 ms of steal the agent missed explains",
	       v.lost_host, 2);
	assert_true(HOLDS("lost_unexplained"));
}

/*
 * Early ticks at their edges (err_ppb 0: one counter tick of tolerance):
 * a tick one counter tick before its slot is on time, two before is early;
 * the worst is the most early, not the last.
 */
static void test_early_edges(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	at[9] = 10 * PERIOD - 1;
	at[19] = 20 * PERIOD - 7;
	at[29] = 30 * PERIOD - 2;
	judge(&r, &v);
	expect("early ticks", v.early, 2);
	expect("the worst early, counter ticks", v.worst_early, 7);
}

/*
 * A one-shot's earliness is weighed by the calibration's error over the
 * distance it was armed for, not over the whole run: 1000 counter ticks
 * early at tick 500, with 100 ppm of error (about 200 ticks over its 1 ms,
 * 100000 over the run's 500 ms), is early.
 */
static void test_oneshot_early_from_arming(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	r.kind = TICK_REC_ONESHOT;
	r.cal.err_ppb = 100000;
	at[500] = 501 * PERIOD - 1000;
	judge(&r, &v);
	expect("early ticks", v.early, 1);
}

/* Every tick 400 us after its slot: the run's normal latency. */
static struct tick_record slow_run(void)
{
	struct tick_record r = clean_run();

	for (u64 j = 0; j < N; j++)
		at[j] = (j + 1) * PERIOD + 2 * PERIOD / 5;
	r.end_at = at[N - 1];
	return r;
}

/*
 * Ten gaps closed late (a late delivery, 300 us past the normal 400) and
 * two that closed on time: of G gaps closed late, G * L / (P - L) are
 * expected to have closed within the normal latency by chance (6.7, so 7
 * plus twice its root, 13): the two are within it.
 */
static void test_chance_allowance(void **state)
{
	struct tick_record r = slow_run();
	struct tick_verdict v;

	drop(&r, 800);
	drop(&r, 700);
	for (u64 k = 10; k-- > 0;) {
		drop(&r, 100 + 50 * k);
		at[100 + 50 * k] += 3 * PERIOD / 10;
	}
	judge(&r, &v);
	expect("gaps closed late", v.gaps_late, 10);
	expect("lost ticks a late delivery explains", v.lost_late, 10);
	expect("unexplained", v.unexplained, 2);
	expect("allowed by chance", v.chance, 13);
	assert_true(HOLDS("lost_unexplained"));
}

/*
 * 1.7 ms of steal time over a gap of two lost ticks explains both: the
 * expiries during it and during the handling of the tick before (the
 * normal latency, 400 us) come as one interrupt.
 */
static void test_steal_with_normal_latency(void **state)
{
	struct tick_record r = slow_run();
	struct tick_verdict v;

	drop(&r, 300);
	drop(&r, 300);
	memset(steal, 0, sizeof(steal));
	for (u64 j = 300; j < r.n; j++)
		steal[j] = 1700000;
	r.steal_ns = steal;
	r.steal_end_ns = 1700000;
	judge(&r, &v);
	expect("lost", v.lost, 2);
	expect("lost ticks 1.7 ms of steal explains", v.lost_steal, 2);
}

/*
 * With no calibration error a gap's closing tick 2 counter ticks later
 * than the normal latency is a late delivery (the tolerance is 1); on the
 * latency itself it is not.
 */
static void test_late_delivery_edge(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	at[100] += 2;
	judge(&r, &v);
	expect("lost ticks a late delivery explains", v.lost_late, 1);
	at[100] -= 2;
	judge(&r, &v);
	expect("lost ticks a late delivery explains", v.lost_late, 0);
}

/*
 * A fifth of the ticks close a gap, each 300 us past the normal 400: the
 * normal latency is the other ticks' (more than half of them), so every
 * gap is a late delivery. Taken over all ticks, a fifth late, its 90th
 * percentile would be 700 us and no gap closed late.
 */
static void test_normal_latency_of_on_time_ticks(void **state)
{
	struct tick_record r = slow_run();
	struct tick_verdict v;

	for (u64 k = 200; k-- > 0;) {
		drop(&r, 100 + 4 * k);
		at[100 + 4 * k] += 3 * PERIOD / 10;
	}
	judge(&r, &v);
	expect("normal latency, counter ticks", v.normal_late, 2 * PERIOD / 5);
	expect("lost ticks a late delivery explains", v.lost_late, 200);
}

/* A part the host took exactly half of is judged; a hair more is not. */
static void test_swamped_edge(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	parts[40] = (struct host_part){.vcpu_us = 5000}; /* of a 10 ms part */
	judge(&r, &v);
	expect("parts swamped", v.parts_swamped, 0);
	parts[40].vcpu_us = 5001;
	judge(&r, &v);
	expect("parts swamped", v.parts_swamped, 1);
}

/*
 * A tick 25 ms late, 10 ms of it steal time around it: 15 ms beyond the
 * evidence, within the 19 ms bound.
 */
static void test_late_less_steal(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	for (u64 j = 300; j < N; j++)
		at[j] += 25 * PERIOD;
	r.end_at = at[N - 1];
	memset(steal, 0, sizeof(steal));
	for (u64 j = 300; j < N; j++)
		steal[j] = 10000000;
	r.steal_ns = steal;
	r.steal_end_ns = 10000000;
	judge(&r, &v);
	expect("ticks late beyond the evidence", v.over_late, 0);
	assert_true(HOLDS("late_unexplained_max"));
}

/*
 * The same waits explain one lost period once. The agent answers each
 * window with a thread's run_delay growth between its samples around it,
 * so every gap between the same two samples gets the same figure: ten gaps
 * around parts 10 and 11, each window answered 1.5 ms, the parts' measured
 * waits 1.5 ms in all, explain one lost tick, not ten; waits of 20 ms in
 * part 10 explain its five, in both parts all ten.
 */
static void test_waits_explain_once(void **state)
{
	struct tick_record r = clean_run();
	struct tick_window w[16];
	struct tick_verdict v;
	u64 n;

	for (u64 k = 0; k < 10; k++)
		drop(&r, 100 + k); /* ticks 100, 102, ... 118 of the slots: one every other */
	n = tick_judge_asks(&r, w, 16, &work);
	assert_int_equal(n, 10);
	for (u64 k = 0; k < n; k++)
		w[k].ev.other_us = 1500;
	memset(parts, 0, sizeof(parts));
	parts[10].other_us = 1500;
	parts[11].other_us = 0;
	r.host = (struct tick_host){
		.from = 0, .to = N * PERIOD, .nparts = 100, .part = parts, .nwin = n, .win = w};
	judge(&r, &v);
	assert_int_equal(v.lost, 10);
	assert_int_equal(v.lost_host, 1);
	assert_int_equal(v.unexplained, 9);
	assert_false(HOLDS("lost_unexplained"));
	/* the gaps reach into part 11 (slots 110-119) */
	parts[10].other_us = 20000;
	judge(&r, &v);
	assert_int_equal(v.lost_host, 5);
	parts[11].other_us = 20000;
	judge(&r, &v);
	assert_int_equal(v.lost_host, 10);
	assert_int_equal(v.unexplained, 0);
	assert_true(HOLDS("lost_unexplained"));
}

/*
 * Every other tick never delivered, every tick that came 20 us after its
 * slot: no tick closed no gap, so the normal latency is the ticks' own
 * lateness against their last slot (20 us), and gaps closed 20 us late
 * were delivered on time: 499 lost, none explained (before, the normal
 * latency was 0 and every gap "closed late").
 */
static void test_every_other_lost(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	for (u64 k = 0; k < N / 2; k++)
		drop(&r, 1 + k); /* slots 1, 3, 5, ... 999 */
	r.end_at = at[r.n - 1];
	judge(&r, &v);
	assert_int_equal(v.normal_late, PERIOD / 50);
	assert_int_equal(v.lost_late, 0);
	assert_true(v.unexplained >= N / 2 - 2);
	assert_false(HOLDS("lost_unexplained"));
	assert_false(HOLDS("count_off"));
}

/*
 * A gap in a part the host took over half of is not judged when no finer
 * evidence explains it; a run more than half of whose parts the host
 * swamped is a SKIP, half of them is judged.
 */
static void test_swamped(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 100);
	parts[10].vcpu_us = 6000; /* 6 ms of a 10 ms part */
	judge(&r, &v);
	assert_int_equal(v.parts_swamped, 1);
	assert_false(v.too_little_judged);
	assert_int_equal(v.lost_host, 1); /* coarse parts: the whole part's wait */
	for (unsigned p = 0; p < 50; p++)
		parts[p].other_us = 9000;
	judge(&r, &v);
	assert_int_equal(v.parts_swamped, 50);
	assert_false(v.too_little_judged);
	parts[50].other_us = 9000;
	judge(&r, &v);
	assert_int_equal(v.parts_swamped, 51);
	assert_true(v.too_little_judged);
}

/* Steal time over the gap explains it. */
static void test_steal_explains(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	drop(&r, 300);
	drop(&r, 300);
	memset(steal, 0, sizeof(steal));
	for (u64 j = 300; j < r.n; j++)
		steal[j] =
			2000000; /* 2 ms stolen in the gap: two expiries coalesced into the third */
	r.steal_ns = steal;
	r.steal_end_ns = 2000000;
	judge(&r, &v);
	assert_int_equal(v.lost, 2);
	assert_int_equal(v.lost_steal, 2);
	assert_true(HOLDS("lost_unexplained"));
}

/* A gap closed late (delivered 600 us after its slot) is a held delivery; the chance allowance
 * grows. */
static void test_late_delivery(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;

	for (u64 k = 0; k < 4; k++) {
		drop(&r, 100 + 100 * k);
		at[100 + 100 * k] += PERIOD * 6 / 10;
	}
	judge(&r, &v);
	assert_int_equal(v.lost, 4);
	assert_int_equal(v.lost_late, 4);
	assert_int_equal(v.gaps_late, 4);
	assert_int_equal(v.unexplained, 0);
	/* normal latency 20 us of 1000: 4 * 20 / 980 rounds up to 1, + 2 * 1 */
	assert_int_equal(v.chance, 3);
	assert_true(HOLDS("lost_unexplained"));
}

/* A one-shot 80 ms behind from tick 900, catching up a tick every pace: still behind at the end. */
static struct tick_record behind_oneshot(u64 pace)
{
	struct tick_record r = clean_run();
	u64 t = 900 * PERIOD + 80 * PERIOD; /* an 80 ms delay before tick 900 */

	r.kind = TICK_REC_ONESHOT;
	r.n = 960;
	for (u64 j = 900; j < r.n; j++, t += pace)
		at[j] = t;
	r.end_at = N * PERIOD + 50 * PERIOD;
	return r;
}

static void test_oneshot_catching_up(void **state)
{
	struct tick_record r = behind_oneshot(PERIOD * 3 / 10);
	struct tick_verdict v;

	judge(&r, &v);
	assert_true(v.ended_catching_up);
	assert_int_equal(v.catchup_us, 300);
	assert_true(HOLDS("count_off"));
	assert_true(HOLDS("lost_unexplained"));
	/* a source slower than its period is not catching up: it fell behind on its own */
	r = behind_oneshot(PERIOD * 12 / 10);
	r.n = 920;
	judge(&r, &v);
	assert_false(v.ended_catching_up);
	assert_false(HOLDS("count_off"));
}

/*
 * A one-shot whose every tenth interrupt went uncounted (fault=drop10): the
 * run ends at its last interrupt, on schedule, its recorded ticks a period
 * apart and ever further behind their index. Not a catch-up: 100 lost.
 */
static void test_oneshot_uncounted(void **state)
{
	struct tick_record r = clean_run();
	struct tick_verdict v;
	u64 n = 0;

	r.kind = TICK_REC_ONESHOT;
	for (u64 j = 0; j < N; j++)
		if (j % 10 != 9)
			at[n++] = (j + 1) * PERIOD + PERIOD / 50 - (j % 3) * PERIOD / 100;
	r.n = n;
	r.end_at = at[n - 1];
	judge(&r, &v);
	assert_false(v.ended_catching_up);
	assert_int_equal(v.lost, 100);
	assert_true(v.unexplained >= 99);
	assert_false(HOLDS("lost_unexplained"));
	assert_false(HOLDS("count_off"));
}

/* ---- the record as text ---- */

static struct tick_record printed;

static void print_it(const void *arg)
{
	tick_record_print(&printed);
}

static void test_round_trip(void **state)
{
	static char out[1 << 20];
	struct tick_record_text t;
	struct tick_verdict a, b;
	const char *bad;

	printed = clean_run();
	drop(&printed, 10);
	memset(parts, 0, sizeof(parts));
	parts[3] = (struct host_part){1, 2, 3};
	printed.host = (struct tick_host){
		.from = (u64)-5000, .to = N * PERIOD, .stamp_us = 7, .nparts = 100, .part = parts};
	printed.anchor = 0x1234567890abcdefull;
	for (u64 j = 0; j < printed.n; j++)
		own[j] = j % 7 ? 3 * j + 1 : 0;
	printed.open = own;
	capture(print_it, NULL, out, sizeof(out));
	bad = tick_record_parse(out, &t);
	assert_null(bad);
	assert_int_equal(t.rec.anchor, printed.anchor);
	assert_non_null(t.rec.open);
	assert_memory_equal(t.rec.open, printed.open, printed.n * sizeof(u64));
	assert_int_equal(t.rec.n, printed.n);
	assert_memory_equal(t.rec.at, printed.at, printed.n * sizeof(u64));
	assert_int_equal((s64)t.rec.host.from, -5000);
	assert_int_equal(t.rec.host.part[3].steal_us, 3);
	judge(&printed, &a);
	judge(&t.rec, &b);
	assert_int_equal(a.unexplained, b.unexplained);
	tick_record_free(&t);
	/* cut short: said so */
	*strstr(out, TICK_RECORD_PREFIX "end") = '\0';
	assert_string_equal(tick_record_parse(out, &t),
			    "a record without its end line (cut short?)");
	tick_record_free(&t);
	/* a cut op line is refused */
	capture(print_it, NULL, out, sizeof(out));
	*strstr(out, TICK_RECORD_PREFIX "op") = 'X';
	assert_string_equal(tick_record_parse(out, &t), "fewer op entries than n=");
	tick_record_free(&t);
	printed.open = NULL;
	/* a record from before the anchor was kept reads as anchor 0; a bad one is refused */
	capture(print_it, NULL, out, sizeof(out));
	*strstr(out, " anchor=") = '\n';
	memmove(strchr(out, '\n') + 1, strstr(strchr(out, '\n') + 1, "\n") + 1,
		strlen(strstr(strchr(out, '\n') + 1, "\n") + 1) + 1);
	assert_null(tick_record_parse(out, &t));
	assert_int_equal(t.rec.anchor, 0);
	tick_record_free(&t);
	capture(print_it, NULL, out, sizeof(out));
	memcpy(strstr(out, " anchor=") + 8, "x", 1);
	assert_string_equal(tick_record_parse(out, &t), "a header's anchor= malformed");
	tick_record_free(&t);
}

/* ---- recorded real runs ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A recorded run and the verdict of its lost-tick and rate checks (true: pass). */
struct fixture {
	const char *file;
	bool pass;
};

/* A recorded run's path (a static buffer). */
static const char *fixture_path(const char *file)
{
	static char path[256];
	char *dir = strdup(__FILE__), *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/data/tick-records/%s", slash ? dir : ".", file);
	free(dir);
	return path;
}

static void judge_fixture(const struct fixture *fx)
{
	char path[256];
	struct tick_record_text t;
	struct tick_verdict v;
	char *log;
	const char *bad;
	struct tick_work fw;

	snprintf(path, sizeof(path), "%s", fixture_path(fx->file));
	log = slurp(path);
	bad = tick_record_parse(log, &t);
	if (bad)
		fail_msg("%s: %s", fx->file, bad);
	fw = tick_work_host(t.rec.n);
	tick_judge(&t.rec, &v, &fw);
	judged = test_checks();
	judged_rec = &t.rec;
	tick_checks(judged, &t.rec, &v);
	if ((HOLDS("lost_unexplained") && HOLDS("count_off")) != fx->pass)
		fail_msg(
			"%s: judged %s, recorded as %s (lost %llu, unexplained %llu, allowed %llu; "
			"rate off %llu/1000, bound %llu/1000)",
			fx->file, fx->pass ? "FAIL" : "PASS", fx->pass ? "PASS" : "FAIL",
			(unsigned long long)v.lost, (unsigned long long)v.unexplained,
			(unsigned long long)v.allowed, (unsigned long long)v.off_milli,
			(unsigned long long)v.bound_milli);
	tick_work_host_free(&fw);
	tick_record_free(&t);
	free(log);
}

#include "data/tick-records/index.h"

static void test_recorded(void **state)
{
	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		judge_fixture(&recorded[i]);
}

/* The oracle: every rung judged, from the rarest, the first caught (as the resolution was). */
static u64 walk_every_rung(const struct tick_record *r, struct tick_work *w)
{
	static const u64 ladder[] = {TICK_RESOLUTION_LADDER};
	u64 *at = calloc(r->n + 1, sizeof(u64)), *st = calloc(r->n + 1, sizeof(u64)), found = 0;

	/* a one-shot's lost tick stops it: a check of its own, no resolution */
	for (size_t i = 0; r->kind == TICK_REC_PERIODIC && i < ARRAY_SIZE(ladder) && !found; i++) {
		struct tick_record s = *r;
		struct tick_verdict v;

		if (ladder[i] > r->n)
			continue;
		s.n = 0;
		for (u64 j = 0; j < r->n; j++) {
			if ((j + 1) % ladder[i] == 0)
				continue;
			at[s.n] = r->at[j];
			st[s.n++] = r->steal_ns ? r->steal_ns[j] : 0;
		}
		s.at = at;
		s.steal_ns = r->steal_ns ? st : NULL;
		tick_judge(&s, &v, w);
		if (tick_lost_fails(&s, &v))
			found = ladder[i];
	}
	free(at);
	free(st);
	return found;
}

/*
 * tick_resolution bisects the ladder (a handful of judgments where a walk
 * took eleven): on every recorded run it must give what the walk gives.
 */
static void test_resolution_recorded(void **state)
{
	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++) {
		char *log = slurp(fixture_path(recorded[i].file));
		struct tick_record_text t;
		struct tick_work w;
		u64 want, got;

		if (tick_record_parse(log, &t))
			fail_msg("%s: no record", recorded[i].file);
		w = tick_work_host(t.rec.n);
		want = walk_every_rung(&t.rec, &w);
		got = tick_resolution(&t.rec, &w);
		if (got != want)
			fail_msg("%s: resolution 1 in %llu, every rung judged gives 1 in %llu",
				 recorded[i].file, (unsigned long long)got,
				 (unsigned long long)want);
		tick_work_host_free(&w);
		tick_record_free(&t);
		free(log);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_resolution_recorded),
		cmocka_unit_test(test_early_edges),
		cmocka_unit_test(test_oneshot_early_from_arming),
		cmocka_unit_test(test_swamped_edge),
		cmocka_unit_test(test_chance_allowance),
		cmocka_unit_test(test_steal_with_normal_latency),
		cmocka_unit_test(test_late_delivery_edge),
		cmocka_unit_test(test_normal_latency_of_on_time_ticks),
		cmocka_unit_test(test_late_less_steal),
		cmocka_unit_test(test_never_delivered),
		cmocka_unit_test(test_rounding_is_no_delay),
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_late_by_hand),
		cmocka_unit_test(test_schedule_unsure),
		cmocka_unit_test(test_host_explains),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_waits_explain_once),
		cmocka_unit_test(test_waits_in_series),
		cmocka_unit_test(test_steal_is_the_vcpu_wait),
		cmocka_unit_test(test_every_other_lost),
		cmocka_unit_test(test_swamped),
		cmocka_unit_test(test_steal_explains),
		cmocka_unit_test(test_late_delivery),
		cmocka_unit_test(test_oneshot_catching_up),
		cmocka_unit_test(test_oneshot_uncounted),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
