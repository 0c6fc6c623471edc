// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_run_check.c, the checks of a run of migrations back to
 * back (events=migrate=N), on the host, with the real lib/report.c under it.
 * What: the record the sampling leaves for a run of three migrations (each
 * migration's stretch from its request to the next, the runner's facts of
 * each, every periodic timer's ticks and longest gap and every one-shot's
 * fires per migration) is set by hand and lc_check_run()'s entries read
 * back (lc_entries.h: each figure, its band, its outcome, and every
 * number its sentence carries, the worst migration's among them): a
 * clean run; ticks lost over one migration beyond its stop, and the same
 * loss the host's measured waits explain; a tick late beyond the stop and
 * the waits; a one-shot that fired twice, never, before its deadline or
 * past the dwell.
 * Why: each migration is judged on its own stop and the host's waits
 * around it; a run summed into one event would hide one bad migration
 * among nine good ones, and a wait taken from the wrong migration would
 * excuse a loss the host did not cause.
 * How: two vCPUs, a counter at 2 GHz, a one-shot slot "cntv" and a
 * periodic "cntp" at 10 ms; three stretches of 500 ms (50 periods), each
 * migration stopped 3 ms; the one-shots due 100 ms after each request and
 * answered 300 ms after it. Bounds worked out next to the table.
 */
/* LIBSRC: common/lifecycle/lifecycle_run_check.c common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/period.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/busy.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"

#define NCPUS	    2
#include "fake_checks_arch.h"
#include "judged.h"
#include "lc_entries.h"
#define MS	    NSEC_PER_MSEC
#define RUN	    3
#define STRETCH_NS  (500 * MS)
#define PERIOD_NS   (10 * MS)
#define STOP_NS	    (3 * MS)
#define DEADLINE_NS (100 * MS) /* after each request */
#define ANSWER_NS   (300 * MS) /* after each request */
#define FIRED_NS    (1 * MS)   /* a one-shot's interrupt after its deadline */
#define START	    NSEC_PER_SEC

struct lc_state lc;

enum { SLOT_ONESHOT, SLOT_PERIODIC, NSLOTS };

static const struct lc_arch arch = {
	.name_of_slot = {"cntv", "cntp"},
	.nslots = NSLOTS,
	.periodic_kind = LC_PERIODIC_REARMED,
};

static u64 c(u64 ns)
{
	return ns * (COUNTER_HZ / NSEC_PER_SEC);
}

/* A clean run: every period ticked, every gap a period, every one-shot once, 1 ms late. */
static void clean_run(void)
{
	fresh_event(&arch, NCPUS, COUNTER_HZ, LC_MIGRATE);
	lc.rec.run.n = RUN;
	for (unsigned k = 1; k <= RUN; k++) {
		u64 req = c(START + (k - 1) * STRETCH_NS);

		lc.rec.run.req_at[k] = req;
		lc.rec.run.deadlines[k] = req + c(DEADLINE_NS);
		lc.rec.run.answered[k] = req + c(ANSWER_NS);
		lc.rec.run.done[k] = (struct lc_done){
			.kind = LC_MIGRATE, .seq = 1, .run = k, .duration_ns = STOP_NS};
	}
	lc.rec.phase_start[LC_AFTER] = c(START + RUN * STRETCH_NS);
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		struct lc_timer *o = &lc.rec.cpu[cpu].t[SLOT_ONESHOT],
				*p = &lc.rec.cpu[cpu].t[SLOT_PERIODIC];

		o->role = LC_ROLE_ONESHOT;
		p->role = LC_ROLE_PERIODIC;
		p->period = c(PERIOD_NS);
		for (unsigned k = 1; k <= RUN; k++) {
			o->run_fires[k] = 1;
			o->run_fired_at[k] = lc.rec.run.deadlines[k] + c(FIRED_NS);
			p->run_ticks[k] = STRETCH_NS / PERIOD_NS;
			p->run_gap[k] = c(PERIOD_NS);
		}
	}
}

/*
 * Each row changes vCPU 1's migration 2 (the waits: the runner's facts of
 * migrations 2 and 3). Bounds for migration 2: lost at most 1 + 1 period
 * stopped (3 ms rounds up) + the periods waited (before_wait of 2 and 3,
 * vcpu_wait of 2); a gap at most 10 + 3 + the waits + 10 ms; a one-shot
 * once, at or after its deadline, within 100 ms + the waits of the answer
 * (the answer comes after the deadline here). Each check's figure is the
 * worst migration's (the one-shots': how many were not so), with the
 * one-shots still pending at the answer as a RESULT.
 */
struct run_case {
	const char *what;
	u32 ticks;	   /* cntp's ticks, 0: 50 */
	u64 gap_ns;	   /* cntp's longest gap, 0: a period */
	u64 wait_ns;	   /* before_wait_ns of migration 3 (the dwell after 2) */
	u32 fires;	   /* cntv's, ~0u: 1 */
	s64 fired_ns;	   /* after the answer (negative: before the deadline), 0: as clean */
	struct want want[2];
};

/*
 * The numbers each check's sentence carries, every one (a number named k
 * times is there k times): vCPU 1 over 3 migrations, then the migrations
 * over their bound, the worst migration (the one-shots': the first not
 * so, or the latest) and its figures.
 */
#define KEEP_FIRES (~0u)
/* `lost` of 50 periods without a tick in the worst migration, allowed 1 + 1 stopped + `waited` */
#define LOST(verdict, lost, allowed, over, worst, waited)                                  \
	{ { verdict, FIGURE("e1.migrate.cntp.cpu1.run_lost_worst", "ticks", lost, 0, allowed), \
	    .mentions = { "1", "3", #over, #worst, #lost, "50", "1", "1", #waited } } }
/* `us` after the tick before, allowed a period 10000 us + stopped 3000 + `waited` + 10000 us */
#define LATE(verdict, us, allowed_us, over, worst, waited)                                   \
	{ { verdict, FIGURE("e1.migrate.cntp.cpu1.run_gap_worst_us", "us", us, 0, allowed_us), \
	    .mentions = { "1", "3", #over, #worst, #us, "10000", "3000", #waited, "10000" } } }
/*
 * `bad` of them not so within 100 ms (the dwell) and the waits, `pending`
 * at the answer; migration 2 fired `fires` times, `from` us from its
 * deadline, `late` us late, `waited` us the host's waits
 */
#define ONESHOT(slot, verdict, bad, pending, fires, from, late, waited)                          \
	{ verdict, FIGURE("e1.migrate." slot ".cpu1.run_oneshot_not_ok", "count", bad, 0, 0),     \
	  .mentions = { "1", "3", "100", #bad, #pending, "2", #fires, #from, #late, #waited } }, \
	{ RESULT_IS("e1.migrate." slot ".cpu1.run_oneshot_pending", "count", #pending) }
#define CNTV(verdict, bad, pending, fires, from, late) \
	{ ONESHOT("cntv", verdict, bad, pending, fires, from, late, 0) }

static const struct run_case cases[] = {
	{"clean", 0, 0, 0, KEEP_FIRES, 0, LOST(WANT_PASS, 0, 2, 0, 1, 0)},
	{"lost 3", 47, 0, 0, KEEP_FIRES, 0, LOST(WANT_FAIL, 3, 2, 1, 2, 0)},
	{"lost 3, 10 ms waited", 47, 0, 10 * MS, KEEP_FIRES, 0, LOST(WANT_PASS, 3, 3, 0, 2, 1)},
	{"late 24 ms", 0, 24 * MS, 0, KEEP_FIRES, 0, LATE(WANT_FAIL, 24000, 23000, 1, 2, 0)},
	{"late 23 ms", 0, 23 * MS, 0, KEEP_FIRES, 0, LATE(WANT_PASS, 23000, 23000, 0, 2, 0)},
	{"late 24 ms, 1 ms waited", 0, 24 * MS, MS, KEEP_FIRES, 0,
	 LATE(WANT_PASS, 24000, 24000, 0, 2, 1000)},
	{"one-shot twice", 0, 0, 0, 2, 0, CNTV(WANT_FAIL, 1, 0, 2, 1000, 0)},
	{"one-shot never", 0, 0, 0, 0, 0, CNTV(WANT_FAIL, 1, 0, 0, 1000, 0)},
	{"one-shot early", 0, 0, 0, KEEP_FIRES, -(s64)(ANSWER_NS - DEADLINE_NS) - (s64)MS,
	 CNTV(WANT_FAIL, 1, 0, 1, -1000, 0)},
	{"one-shot 101 ms after the answer", 0, 0, 0, KEEP_FIRES, 101 * (s64)MS,
	 CNTV(WANT_FAIL, 1, 1, 1, 301000, 101000)},
	{"one-shot 100 ms after the answer", 0, 0, 0, KEEP_FIRES, 100 * (s64)MS,
	 CNTV(WANT_PASS, 0, 1, 1, 300000, 100000)},
};

/* vCPU 1's one-shot of migration 2 fired fired_ns after the answer (negative: before it). */
static void fire_oneshot(s64 fired_ns)
{
	struct lc_timer *o = &lc.rec.cpu[1].t[SLOT_ONESHOT];

	if (fired_ns > 0)
		o->run_fired_at[2] = lc.rec.run.answered[2] + c((u64)fired_ns);
	else if (fired_ns < 0)
		o->run_fired_at[2] = lc.rec.run.answered[2] - c((u64)-fired_ns);
}

static struct checks *judge_run(const struct run_case *rc)
{
	struct lc_timer *o = &lc.rec.cpu[1].t[SLOT_ONESHOT], *p = &lc.rec.cpu[1].t[SLOT_PERIODIC];
	struct checks *l = test_checks();

	clean_run();
	if (rc->ticks)
		p->run_ticks[2] = rc->ticks;
	if (rc->gap_ns)
		p->run_gap[2] = c(rc->gap_ns);
	lc.rec.run.done[3].before_wait_ns = rc->wait_ns;
	if (rc->fires != KEEP_FIRES)
		o->run_fires[2] = rc->fires;
	fire_oneshot(rc->fired_ns);
	lc_check_run(l, &lc.rec);
	return l;
}

static void test_run_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		LC_EXPECT(cases[i].what, judge_run(&cases[i]), cases[i].want);
}

/*
 * A device of the machine (slot_use LC_SLOT_BOOT_*: the RTC, an HPET
 * comparator) is raised from QEMU's main loop: its allowance is any of
 * QEMU's threads' waits around the migration (the stamp waits), not a
 * vCPU's. The one-shot of migration 2, 101 ms after the answer: 1 ms of
 * stamp waits in the dwell after covers it, 1 ms more does not, and a
 * vCPU's 1 ms alone does not either.
 */
static const struct lc_arch device_arch = {
	.name_of_slot = {"hpet", "cntp"},
	.slot_use = {LC_SLOT_BOOT_ONESHOT, LC_SLOT_EVERY_CPU},
	.nslots = NSLOTS,
	.periodic_kind = LC_PERIODIC_REARMED,
};

/* pending at the answer, fired once, `from` us from the deadline: `late` us late, QEMU's threads
 * waited `waited` us */
#define HPET(verdict, bad, from, late, waited) \
	{ ONESHOT("hpet", verdict, bad, 1, 1, from, late, waited) }

static const struct device_case {
	const char *what;
	s64 fired_ns;			/* after migration 2's answer */
	u64 stamp_wait_ns, vcpu_wait_ns;	/* in the dwell after it (migration 3's) */
	struct want want[2];
} device_cases[] = {
	{"101 ms late, QEMU's threads waited 1 ms", 101 * (s64)MS, MS, 0,
	 HPET(WANT_PASS, 0, 301000, 101000, 1000)},
	{"102 ms late, QEMU's threads waited 1 ms", 102 * (s64)MS, MS, 0,
	 HPET(WANT_FAIL, 1, 302000, 102000, 1000)},
	{"101 ms late, a vCPU waited 1 ms", 101 * (s64)MS, 0, MS,
	 HPET(WANT_FAIL, 1, 301000, 101000, 0)},
};

static void test_device_slot_waits(void **state)
{
	for (size_t i = 0; i < sizeof(device_cases) / sizeof(device_cases[0]); i++) {
		const struct device_case *dc = &device_cases[i];
		struct checks *l = test_checks();

		clean_run();
		lc.rec.arch = &device_arch;
		lc.rec.run.done[3].stamp_wait_ns = dc->stamp_wait_ns;
		lc.rec.run.done[3].before_wait_ns = dc->vcpu_wait_ns;
		fire_oneshot(dc->fired_ns);
		lc_check_run(l, &lc.rec);
		LC_EXPECT(dc->what, l, dc->want);
	}
}

/*
 * The host's stops per migration are RESULT figures, the worst migration's
 * figures bounded checks; a clean run fails nothing.
 */
static void test_clean_run_results(void **state)
{
	static const struct run_case clean = {"clean", 0, 0, 0, KEEP_FIRES, 0, {{WANT_END}}};
	static const struct want want[] = {
		{RESULT_IS("e1.migrate.host.m2_stopped", "ms", "3.000")},
		{WANT_PASS, FIGURE("e1.migrate.cntp.cpu0.run_lost_worst", "ticks", 0, 0, 2)},
		{WANT_PASS, FIGURE("e1.migrate.cntp.cpu0.run_gap_worst_us", "us", 10000, 0, 23000)},
		{WANT_PASS, FIGURE("e1.migrate.cntv.cpu1.run_oneshot_not_ok", "count", 0, 0, 0)},
		{RESULT_IS("e1.migrate.cntv.cpu1.run_oneshot_pending", "count", "0")},
	};
	struct checks *l = judge_run(&clean);

	LC_EXPECT("a clean run", l, want);
	assert_int_equal(checks_failed(l), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_table),
		cmocka_unit_test(test_device_slot_waits),
		cmocka_unit_test(test_clean_run_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
