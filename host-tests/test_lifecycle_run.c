// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_run_check.c, the checks of a run of migrations back to
 * back (events=migrate=N), on the host, with the real lib/report.c under it.
 * What: the record the sampling leaves for a run of three migrations (each
 * migration's stretch from its request to the next, the runner's facts of
 * each, every periodic timer's ticks and longest gap and every one-shot's
 * fires per migration) is set by hand and lc_check_run()'s PASS/FAIL lines
 * read back: a clean run; ticks lost over one migration beyond its stop,
 * and the same loss the host's measured waits explain; a tick late beyond
 * the stop and the waits; a one-shot that fired twice, never, before its
 * deadline or past the dwell.
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
 * (the answer comes after the deadline here).
 */
struct run_case {
	const char *what;
	u32 ticks;	   /* cntp's ticks, 0: 50 */
	u64 gap_ns;	   /* cntp's longest gap, 0: a period */
	u64 wait_ns;	   /* before_wait_ns of migration 3 (the dwell after 2) */
	u32 fires;	   /* cntv's, ~0u: 1 */
	s64 fired_ns;	   /* after the answer (negative: before the deadline), 0: as clean */
	const char *start; /* the line expected */
	const char *part;
};

#define KEEP_FIRES (~0u)

static const struct run_case cases[] = {
	{"clean", 0, 0, 0, KEEP_FIRES, 0,
	 "PASS: vCPU 1 cntp over 3 migrations back to back: ticks lost",
	 "(0 over; the worst, migration 1: 0 of 50 periods without a tick, allowed 1 + 1 periods "
	 "stopped + 0 periods"},
	{"lost 3", 47, 0, 0, KEEP_FIRES, 0,
	 "FAIL: vCPU 1 cntp over 3 migrations back to back: ticks lost",
	 "(1 over; the worst, migration 2: 3 of 50 periods without a tick, allowed 1 + 1 periods "
	 "stopped + 0 periods"},
	{"lost 3, 10 ms waited", 47, 0, 10 * MS, KEEP_FIRES, 0,
	 "PASS: vCPU 1 cntp over 3 migrations back to back: ticks lost",
	 "migration 2: 3 of 50 periods without a tick, allowed 1 + 1 periods stopped + 1 periods"},
	{"late 24 ms", 0, 24 * MS, 0, KEEP_FIRES, 0,
	 "FAIL: vCPU 1 cntp over 3 migrations back to back: no tick later",
	 "(1 over; the worst, migration 2: 24000 us after the tick before, allowed a period 10000 "
	 "us "
	 "+ stopped 3000 us + 0 us"},
	{"late 23 ms", 0, 23 * MS, 0, KEEP_FIRES, 0,
	 "PASS: vCPU 1 cntp over 3 migrations back to back: no tick later", "23000 us after"},
	{"late 24 ms, 1 ms waited", 0, 24 * MS, MS, KEEP_FIRES, 0,
	 "PASS: vCPU 1 cntp over 3 migrations back to back: no tick later", "24000 us after"},
	{"one-shot twice", 0, 0, 0, 2, 0,
	 "FAIL: vCPU 1 cntv one-shot armed with each of 3 migrations",
	 "(1 not; 0 of them still pending at the answer, across the stop; the first not, migration "
	 "2: fired 2 times"},
	{"one-shot never", 0, 0, 0, 0, 0,
	 "FAIL: vCPU 1 cntv one-shot armed with each of 3 migrations",
	 "the first not, migration 2: fired 0 times"},
	{"one-shot early", 0, 0, 0, KEEP_FIRES, -(s64)(ANSWER_NS - DEADLINE_NS) - (s64)MS,
	 "FAIL: vCPU 1 cntv one-shot armed with each of 3 migrations",
	 "migration 2: fired 1 times, -1000 us from the deadline"},
	{"one-shot 101 ms after the answer", 0, 0, 0, KEEP_FIRES, 101 * (s64)MS,
	 "FAIL: vCPU 1 cntv one-shot armed with each of 3 migrations",
	 "1 of them still pending at the answer, across the stop; the first not, migration 2: "
	 "fired "
	 "1 times, 301000 us from the deadline, 101000 us late"},
	{"one-shot 100 ms after the answer", 0, 0, 0, KEEP_FIRES, 100 * (s64)MS,
	 "PASS: vCPU 1 cntv one-shot armed with each of 3 migrations",
	 "1 of them still pending at the answer, across the stop; the latest, migration 2"},
};

static void run_case(const void *arg)
{
	const struct run_case *rc = arg;
	struct lc_timer *o = &lc.rec.cpu[1].t[SLOT_ONESHOT], *p = &lc.rec.cpu[1].t[SLOT_PERIODIC];

	clean_run();
	if (rc->ticks)
		p->run_ticks[2] = rc->ticks;
	if (rc->gap_ns)
		p->run_gap[2] = c(rc->gap_ns);
	lc.rec.run.done[3].before_wait_ns = rc->wait_ns;
	if (rc->fires != KEEP_FIRES)
		o->run_fires[2] = rc->fires;
	if (rc->fired_ns > 0)
		o->run_fired_at[2] = lc.rec.run.answered[2] + c((u64)rc->fired_ns);
	else if (rc->fired_ns < 0)
		o->run_fired_at[2] = lc.rec.run.answered[2] - c((u64)-rc->fired_ns);
	PRINTED(lc_check_run(J, &lc.rec));
}

static void test_run_table(void **state)
{
	char out[CAPTURE_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct run_case *rc = &cases[i];

		capture(run_case, rc, out, sizeof(out));
		printf("case: %s\n", rc->what);
		has_line_with(out, rc->start, &rc->part, 1);
	}
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

static const struct device_case {
	const char *what;
	s64 fired_ns;			/* after migration 2's answer */
	u64 stamp_wait_ns, vcpu_wait_ns;	/* in the dwell after it (migration 3's) */
	const char *start, *part;
} device_cases[] = {
	{"101 ms late, QEMU's threads waited 1 ms", 101 * (s64)MS, MS, 0,
	 "PASS: vCPU 1 hpet one-shot armed with each of 3 migrations",
	 "101000 us late, QEMU's threads waited 1000 us)"},
	{"102 ms late, QEMU's threads waited 1 ms", 102 * (s64)MS, MS, 0,
	 "FAIL: vCPU 1 hpet one-shot armed with each of 3 migrations",
	 "102000 us late, QEMU's threads waited 1000 us)"},
	{"101 ms late, a vCPU waited 1 ms", 101 * (s64)MS, 0, MS,
	 "FAIL: vCPU 1 hpet one-shot armed with each of 3 migrations",
	 "101000 us late, QEMU's threads waited 0 us)"},
};

static void device_case(const void *arg)
{
	const struct device_case *dc = arg;
	struct lc_timer *o = &lc.rec.cpu[1].t[SLOT_ONESHOT];

	clean_run();
	lc.rec.arch = &device_arch;
	lc.rec.run.done[3].stamp_wait_ns = dc->stamp_wait_ns;
	lc.rec.run.done[3].before_wait_ns = dc->vcpu_wait_ns;
	o->run_fired_at[2] = lc.rec.run.answered[2] + c((u64)dc->fired_ns);
	PRINTED(lc_check_run(J, &lc.rec));
}

static void test_device_slot_waits(void **state)
{
	char out[CAPTURE_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(device_cases) / sizeof(device_cases[0]); i++) {
		const struct device_case *dc = &device_cases[i];

		capture(device_case, dc, out, sizeof(out));
		printf("case: %s\n", dc->what);
		has_line_with(out, dc->start, &dc->part, 1);
	}
}

/* The host's stops per migration are RESULT lines, the worst migration's figures BOUND lines; a clean run fails nothing. */
static void test_clean_run_results(void **state)
{
	char out[CAPTURE_MAX];
	static const struct run_case clean = {"clean", 0, 0, 0, KEEP_FIRES, 0, NULL, NULL};

	(void)state;
	capture(run_case, &clean, out, sizeof(out));
	has_line(out, "RESULT: e1.migrate.host.m2_stopped 3.000 ms");
	has_line(out, "BOUND: e1.migrate.cntp.cpu0.run_lost_worst 0 ticks 0..2");
	has_line(out, "BOUND: e1.migrate.cntp.cpu0.run_gap_worst_us 10000 us 0..23000");
	has_line(out, "BOUND: e1.migrate.cntv.cpu1.run_oneshot_not_ok 0 count 0..0");
	has_line(out, "RESULT: e1.migrate.cntv.cpu1.run_oneshot_pending 0 count");
	lacks(out, "FAIL");
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
