// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_check.c, the lifecycle test's checks of one event, on
 * the host, with the real lib/report.c and lib/stats.c under it.
 * What: the state the sampling half (common/lifecycle/lifecycle_engine.c) leaves in `lc` -
 * every vCPU's largest clock steps per phase, its timers' ticks and stamps,
 * its stopped-flag sightings, the runner's answer - is set by hand for a
 * pause, a save or a migration, and the checks' PASS/FAIL/INFO/RESULT lines
 * are read back (console_capture.h): a clean event; a clock that steps
 * back, jumps beyond the stop, stands still through a stop it runs through
 * or runs through one it is frozen in; a one-shot that fires early, late or
 * never; a periodic timer that stops, slows, storms or drifts after the
 * event; a stopped flag missing, set early or set again.
 * Why: those checks are what tell a broken host from a good one, and a
 * guest run shows them only on a host that breaks them (or with a fault=
 * compiled into the sampling); here each bound is hit from both sides.
 * How: two vCPUs, a counter at 2 GHz (a tick is never a ns by accident),
 * two clocks (the counter, which runs through a stop, and a 1 GHz
 * "kvmclock" that is frozen), two timer slots ("cntv" one-shot, "cntp"
 * periodic); table-driven where cases differ only in data. The figures in
 * the expected lines follow from docs/lifecycle.md's bounds, worked out
 * next to each table. The arch hooks the sources call are played here.
 */
/* LIBSRC: common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/busy.c lib/period.c */
/* LIBSRC: lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define NCPUS		2
#include "fake_checks_arch.h"
#include "judged.h"
#define KVMCLOCK_HZ	NSEC_PER_SEC /* a clock that counts ns */
#define US		NSEC_PER_USEC /* the tables' shorthand */
#define MS		NSEC_PER_MSEC
/* The phases' lengths: the windows are LC_WINDOW_NS; the request to the answer, this. */
#define DURING_NS	(1200 * MS)
#define PHASE0		NSEC_PER_SEC /* the counter as the window before starts */
#define PAUSE_STOP_NS	(1000 * MS)   /* QEMU's STOP to RESUME for a pause or a save */
#define PAUSE_QEMU_NS	(4 * MS)      /* overhead_ns: QEMU's stop and cont work, a pause's only */
#define MIGRATE_STOP_NS (3 * MS)      /* a live migration's downtime */
#define MAX_LINES	6

/* --- the arch's hooks and the sampling half's state ------------------------------- */

struct lc_state lc;

/* The checks never read a clock: the sampling half did. */
static u64 never_read(void)
{
	fail_msg("a check read a clock");
	return 0;
}

enum { CLOCK_COUNTER, CLOCK_KVMCLOCK, NCLOCKS };
enum { SLOT_ONESHOT, SLOT_PERIODIC, NSLOTS };

static const struct lc_clock clocks[NCLOCKS] = {
	[CLOCK_COUNTER] = { .name = "counter", .read = never_read,
			    .during = { LC_RUNS, LC_RUNS, LC_RUNS } },
	[CLOCK_KVMCLOCK] = { .name = "kvmclock", .read = never_read, .hz = KVMCLOCK_HZ,
			     .during = { LC_FROZEN, LC_FROZEN, LC_FROZEN } },
};

#define FAKE_ARCH(kind)                                                                            \
	{                                                                                          \
		.name_of_slot = { "cntv", "cntp" }, .nslots = NSLOTS, .periodic_kind = (kind),     \
		.stopped_flag_name = "PVCLOCK_GUEST_STOPPED", .clocks = clocks,                    \
		.nclocks = NCLOCKS,                                                                \
	}
static const struct lc_arch reload_arch = FAKE_ARCH(LC_PERIODIC_RELOAD);
static const struct lc_arch rearmed_arch = FAKE_ARCH(LC_PERIODIC_REARMED);

static u64 ns_to_counter(u64 ns)
{
	return ns * (COUNTER_HZ / NSEC_PER_SEC);
}

/* In the clock's own ticks; every figure here is a whole number of ns. */
static u64 ns_to_clock(unsigned clock, u64 ns)
{
	return clock == CLOCK_KVMCLOCK ? ns : ns_to_counter(ns);
}

/*
 * Event 1 of the given kind, answered: the phases back to back (a window,
 * DURING_NS, a window), every timer idle, the stop as QEMU measured it.
 */
static void reset_event(enum lc_event kind, u64 stopped_ns)
{
	fresh_event(&reload_arch, NCPUS, COUNTER_HZ, kind);
	lc.rec.catchup_max = LC_CATCHUP_MAX;
	lc.rec.done.duration_ns = stopped_ns;
	if (kind == LC_PAUSE)
		lc.rec.done.overhead_ns = PAUSE_QEMU_NS;
	lc.rec.phase_start[LC_BEFORE] = PHASE0;
	lc.rec.phase_start[LC_DURING] = PHASE0 + ns_to_counter(LC_WINDOW_NS);
	lc.rec.phase_start[LC_AFTER] = lc.rec.phase_start[LC_DURING] + ns_to_counter(DURING_NS);
	lc.rec.phase_start[LC_FINISHED] = lc.rec.phase_start[LC_AFTER] + ns_to_counter(LC_WINDOW_NS);
	lc.phase = LC_FINISHED;
}

static void expect_lines(const char *out, const char *const *lines)
{
	for (size_t l = 0; l < MAX_LINES && lines[l]; l++)
		has_line(out, lines[l]);
}

/* --- clocks: lc_check_clock() ---------------------------------------------------------- */

/*
 * A pause of 1000 ms (QEMU's work around it 4 ms) after a baseline whose
 * largest step is 1 ms: a step over the event is allowed 1000 + 2 x 1 + 10
 * (the stamps) = 1012 ms, plus what a vCPU waited for a host CPU; a running
 * clock must step 1000 - 10 = 990 ms at least, a frozen one 2 x 1 + 10 + 50
 * + 4 = 66 ms at most. The worst vCPU has the steps given, the other half
 * of them.
 */
struct clock_case {
	const char *what;
	unsigned clock;
	enum lc_event kind;
	u64 stopped_ns, wait_ns;
	enum lc_fault fault;
	int cpu;		     /* the vCPU with the largest steps */
	u64 before_ns, during_ns, after_ns;
	u64 back, back_ns;	     /* on that vCPU: reads below the one before, by up to */
	const char *lines[MAX_LINES];
};

#define STEP_BOUND_PASS(clock, us, cpu, wait_us)                                                   \
	"PASS: " clock ": largest step over the event " us " us (vCPU " cpu ") <= stopped "        \
	"1000000 us + 2 x 1000 us (largest step before) + 10000 us + " wait_us " us a vCPU "       \
	"waited for a host CPU"
#define NEVER_BACK(clock)                                                                          \
	"PASS: " clock " never went backwards on any vCPU (worst vCPU 0: 0 times, by up to 0 ns)"
#define FROZEN_BOUND                                                                               \
	"<= 2 x 1000 us + 60000 us + 4000 us QEMU spent stopping and restarting the vCPUs + 0 us "    \
	"a vCPU waited for a host CPU"

static const struct clock_case clock_cases[] = {
	{
		"a clean pause: the counter runs through it",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 1001 * MS, 1 * MS,
		.lines = {
			"BOUND: e1.pause.counter.backwards 0 count 0..0",
			NEVER_BACK("counter"),
			"BOUND: e1.pause.counter.step 1001.000000 ms 0.000000..1012.000000",
			STEP_BOUND_PASS("counter", "1001000", "1", "0"),
			"BOUND: e1.pause.counter.step 1001.000000 ms 990.000000..inf",
			"PASS: counter ran while the guest was stopped: step 1001000 us >= stopped "
			"1000000 us - 10000 us",
		},
	},
	{
		"a clean pause: kvmclock is frozen through it",
		CLOCK_KVMCLOCK, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 30 * MS, 1 * MS,
		.lines = {
			NEVER_BACK("kvmclock"),
			STEP_BOUND_PASS("kvmclock", "30000", "1", "0"),
			"BOUND: e1.pause.kvmclock.step 30.000000 ms 0.000000..1012.000000",
			"BOUND: e1.pause.kvmclock.step 30.000000 ms 0.000000..66.000000",
			"PASS: kvmclock was frozen while the guest was stopped: step 30000 us " FROZEN_BOUND,
		},
	},
	{
		"a clock that steps back 20 ms (fault=back), in counter ticks",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 1001 * MS, 1 * MS,
		3, 20 * MS,
		.lines = {
			"BOUND: e1.pause.counter.backwards 3 count 0..0",
			"FAIL: counter never went backwards on any vCPU (worst vCPU 1: 3 times, by up "
			"to 20000000 ns)",
			STEP_BOUND_PASS("counter", "1001000", "1", "0"),
		},
	},
	{
		"a clock that jumps 3 s ahead (fault=jump)",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 0, 1 * MS, 4001 * MS, 1 * MS,
		.lines = {
			"FAIL: counter: largest step over the event 4001000 us (vCPU 0) <= stopped "
			"1000000 us + 2 x 1000 us (largest step before) + 10000 us + 0 us a vCPU "
			"waited for a host CPU",
			"BOUND: e1.pause.counter.step 4001.000000 ms 0.000000..1012.000000",
		},
	},
	{
		"a step of the whole bound",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 1012 * MS, 1 * MS,
		.lines = { STEP_BOUND_PASS("counter", "1012000", "1", "0") },
	},
	{
		"a step 1 us beyond the bound",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 1012 * MS + US, 1 * MS,
		.lines = {
			"FAIL: counter: largest step over the event 1012001 us (vCPU 1) <= stopped "
			"1000000 us + 2 x 1000 us (largest step before) + 10000 us + 0 us a vCPU "
			"waited for a host CPU",
		},
	},
	{
		"a vCPU the host kept from running for 200 ms",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 200 * MS, LC_FAULT_NONE, 1, 1 * MS, 1212 * MS, 1 * MS,
		.lines = { STEP_BOUND_PASS("counter", "1212000", "1", "200000") },
	},
	{
		"the step after the answer is the event's too",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 2 * MS, 1001 * MS,
		.lines = {
			STEP_BOUND_PASS("counter", "1001000", "1", "0"),
			"PASS: counter ran while the guest was stopped: step 1001000 us >= stopped "
			"1000000 us - 10000 us",
		},
	},
	{
		"the counter stood still through a stop it runs through",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 5 * MS, 1 * MS,
		.lines = {
			"FAIL: counter ran while the guest was stopped: step 5000 us >= stopped "
			"1000000 us - 10000 us",
		},
	},
	{
		"a running clock short of the stop by the stamps' slack",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 990 * MS, 1 * MS,
		.lines = {
			"PASS: counter ran while the guest was stopped: step 990000 us >= stopped "
			"1000000 us - 10000 us",
		},
	},
	{
		"kvmclock ran through a stop it is frozen in",
		CLOCK_KVMCLOCK, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 1001 * MS, 1 * MS,
		.lines = {
			STEP_BOUND_PASS("kvmclock", "1001000", "1", "0"),
			"FAIL: kvmclock was frozen while the guest was stopped: step 1001000 us " FROZEN_BOUND,
		},
	},
	{
		"a frozen clock that moved by the whole bound",
		CLOCK_KVMCLOCK, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 66 * MS, 1 * MS,
		.lines = {
			"PASS: kvmclock was frozen while the guest was stopped: step 66000 us " FROZEN_BOUND,
		},
	},
	{
		"fault=flip: the counter is expected frozen",
		CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_FLIP, 1, 1 * MS, 1001 * MS, 1 * MS,
		.lines = {
			"FAIL: counter was frozen while the guest was stopped: step 1001000 us " FROZEN_BOUND,
		},
	},
	{
		/* frozen: 2 x 1 + 10 + 50 ms, no overhead outside a pause; 3 ms < 2 x 62 ms */
		"a 3 ms migration downtime is too short to judge semantics by",
		CLOCK_COUNTER, LC_MIGRATE, MIGRATE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 4 * MS, 1 * MS,
		.lines = {
			"PASS: counter: largest step over the event 4000 us (vCPU 1) <= stopped 3000 us + "
			"2 x 1000 us (largest step before) + 10000 us + 0 us a vCPU waited for a host CPU",
			"BOUND: e1.migrate.counter.step 4.000000 ms 0.000000..15.000000",
			"INFO: counter: a stop of 3 ms is too short to tell a running clock from a frozen "
			"one (which may move by 62 ms)",
		},
	},
	{
		/* a frozen clock may move 62 ms: judging takes a stop twice that */
		"a 100 ms stop is more than a frozen clock moves, not twice it",
		CLOCK_COUNTER, LC_SAVE, 100 * MS, 0, LC_FAULT_NONE, 1, 1 * MS, 101 * MS, 1 * MS,
		.lines = {
			"INFO: counter: a stop of 100 ms is too short to tell a running clock from a "
			"frozen one (which may move by 62 ms)",
		},
	},
	{
		/* frozen: 2 x 1 + 10 + 50 ms = 62 ms without a pause's overhead */
		"a save and restore: kvmclock frozen, no pause overhead in its bound",
		CLOCK_KVMCLOCK, LC_SAVE, 1100 * MS, 0, LC_FAULT_NONE, 0, 1 * MS, 62 * MS, 1 * MS,
		.lines = {
			"BOUND: e1.save.kvmclock.step 62.000000 ms 0.000000..62.000000",
			"PASS: kvmclock was frozen while the guest was stopped: step 62000 us <= 2 x "
			"1000 us + 60000 us + 0 us QEMU spent stopping and restarting the vCPUs + 0 us "
			"a vCPU waited for a host CPU",
		},
	},
	{
		/* a busy host (TCG here): the vCPU ran 300 ms after the clock resumed */
		"a frozen clock read late by a vCPU the host kept from running",
		CLOCK_KVMCLOCK, LC_SAVE, 1100 * MS, 300 * MS, LC_FAULT_NONE, 0, 1 * MS, 362 * MS, 1 * MS,
		.lines = {
			"PASS: kvmclock was frozen while the guest was stopped: step 362000 us <= 2 x "
			"1000 us + 60000 us + 0 us QEMU spent stopping and restarting the vCPUs + 300000 us "
			"a vCPU waited for a host CPU",
		},
	},
	{
		"the same step with no wait measured is a clock that ran",
		CLOCK_KVMCLOCK, LC_SAVE, 1100 * MS, 0, LC_FAULT_NONE, 0, 1 * MS, 362 * MS, 1 * MS,
		.lines = {
			"FAIL: kvmclock was frozen while the guest was stopped: step 362000 us <= 2 x "
			"1000 us + 60000 us + 0 us QEMU spent stopping and restarting the vCPUs + 0 us "
			"a vCPU waited for a host CPU",
		},
	},
};

static void set_steps(int cpu, unsigned clock, u64 div, const struct clock_case *c)
{
	struct lc_cpu *v = &lc.rec.cpu[cpu];

	v->step[LC_BEFORE][clock] = ns_to_clock(clock, c->before_ns) / div;
	v->step[LC_DURING][clock] = ns_to_clock(clock, c->during_ns) / div;
	v->step[LC_AFTER][clock] = ns_to_clock(clock, c->after_ns) / div;
}

/* The event a clock case describes, into lc.rec. */
static void set_clock_case(const struct clock_case *c)
{
	reset_event(c->kind, c->stopped_ns);
	lc.rec.done.vcpu_wait_ns = c->wait_ns;
	lc.rec.fault = c->fault;
	set_steps(c->cpu, c->clock, 1, c);
	set_steps(!c->cpu, c->clock, 2, c);
	lc.rec.cpu[c->cpu].backwards[c->clock] = c->back;
	lc.rec.cpu[c->cpu].worst_back[c->clock] = ns_to_clock(c->clock, c->back_ns);
	lc.rec.done.kind = c->kind;
}

static void run_clock(const void *arg)
{
	const struct clock_case *c = arg;

	set_clock_case(c);
	PRINTED(lc_check_clock(J, &lc.rec, c->clock));
}

static void test_clock_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(clock_cases); i++) {
		print_message("case: %s\n", clock_cases[i].what);
		capture(run_clock, &clock_cases[i], out, sizeof(out));
		expect_lines(out, clock_cases[i].lines);
	}
}

/* The case named what, judged into a list of its own (no printing): what the host's tools read. */
static struct checks *judge_clock_case(const char *what)
{
	for (size_t i = 0; i < ARRAY_LEN(clock_cases); i++) {
		const struct clock_case *c = &clock_cases[i];

		if (strcmp(c->what, what))
			continue;
		set_clock_case(c);
		struct checks *l = test_checks();

		lc_check_clock(l, &lc.rec, c->clock);
		return l;
	}
	fail_msg("no clock case '%s'", what);
	return NULL;
}

/* Entry k of l: a bounded check of figure name, value (10^-6 ms), holding or not. */
static void expect_bounded(const struct checks *l, unsigned k, const char *name, s64 value,
			   s64 lo, s64 hi, bool holds)
{
	const struct check *c = &l->c[k];

	assert_true(k < l->n);
	assert_int_equal(c->kind, CHECK_BOUNDED);
	assert_string_equal(c->name, name);
	assert_int_equal(c->b.value, value);
	assert_int_equal(c->b.band[0].lo, lo);
	assert_int_equal(c->b.band[0].hi, hi);
	assert_int_equal(check_holds(c), holds);
}

/*
 * The same checks read as entries, not sentences: each figure, its band
 * and its outcome, as the replay tools and the known-defect table read
 * them.
 */
static void test_clock_entries(void **state)
{
	struct checks *l = judge_clock_case("a clean pause: the counter runs through it");

	assert_int_equal(l->n, 3);
	expect_bounded(l, 0, "e1.pause.counter.backwards", 0, 0, 0, true);
	expect_bounded(l, 1, "e1.pause.counter.step", 1001 * MS, 0, 1012 * MS, true);
	expect_bounded(l, 2, "e1.pause.counter.step", 1001 * MS, 990 * MS, BOUND_OPEN_HI, true);
	assert_true(checks_all_hold(l));
	l = judge_clock_case("a step 1 us beyond the bound");
	expect_bounded(l, 1, "e1.pause.counter.step", 1012 * MS + US, 0, 1012 * MS, false);
	assert_int_equal(checks_failed(l), 1);
	l = judge_clock_case("kvmclock ran through a stop it is frozen in");
	expect_bounded(l, 1, "e1.pause.kvmclock.step", 1001 * MS, 0, 1012 * MS, true);
	assert_int_equal(l->c[2].kind, CHECK_BOUNDED);
	assert_false(check_holds(&l->c[2]));
	assert_int_equal(checks_failed(l), 1);
}

/* A clean pause says four lines and no more: no INFO, nothing about another clock. */
static void test_clock_clean_whole(void **state)
{
	char out[CAPTURE_MAX];

	capture(run_clock, &clock_cases[0], out, sizeof(out));
	exactly(out, clock_cases[0].lines, 6);
}

/* --- one-shot timers: lc_check_timers() ------------------------------------------------ */

/*
 * Armed for 50 ms after the request, answered 1 s after that deadline: it
 * must fire at or after the deadline and by the answer plus a window
 * (500 ms), i.e. 0 to 1500000 us after its deadline.
 */
#define ANSWER_AFTER_DEADLINE_NS (1000 * MS)

struct oneshot_case {
	const char *what;
	bool fired;
	s64 late_us; /* after the deadline; negative: early */
	const char *lines[MAX_LINES];
	u64 after_wait_ns; /* a vCPU's wait for a host CPU after the answer, as the runner measured */
};

#define ONESHOT_LINE_WITHIN(verdict, by_us, within_ms)                                             \
	verdict ": vCPU 0 cntv one-shot armed before the event fired after its deadline, by " by_us \
		" us, and within " within_ms " ms of the answer"
#define ONESHOT_LINE(verdict, by_us) ONESHOT_LINE_WITHIN(verdict, by_us, "500")

static const struct oneshot_case oneshot_cases[] = {
	{ "2 ms after its deadline", true, 2000,
	  { ONESHOT_LINE("PASS", "2000"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 2.000000 ms 0.000000..1500.000000" } },
	{ "at its deadline", true, 0,
	  { ONESHOT_LINE("PASS", "0"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 0.000000 ms 0.000000..1500.000000" } },
	{ "3 ms early", true, -3000,
	  { ONESHOT_LINE("FAIL", "-3000"), "BOUND: e1.pause.cntv.cpu0.oneshot_late -3.000000 ms 0.000000..1500.000000" } },
	{ "a window after the answer", true, 1500000, { ONESHOT_LINE("PASS", "1500000"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 1500.000000 ms 0.000000..1500.000000" } },
	{ "1 us after that", true, 1500001, { ONESHOT_LINE("FAIL", "1500001"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 1500.001000 ms 0.000000..1500.000000" } },
	/* a vCPU the host kept from running 300 ms after the answer takes its interrupt that late */
	{ "a window and the 300 ms waited after the answer", true, 1800000,
	  { ONESHOT_LINE_WITHIN("PASS", "1800000", "800"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 1800.000000 ms 0.000000..1800.000000" },
	  300 * MS },
	{ "1 us after that", true, 1800001, { ONESHOT_LINE_WITHIN("FAIL", "1800001", "800"), "BOUND: e1.pause.cntv.cpu0.oneshot_late 1800.001000 ms 0.000000..1800.000000" },
	  300 * MS },
	{ "never (fault=rearm)", false, 0,
	  { "FAIL: vCPU 0 cntv one-shot armed before the event fired (not within 500 ms of the "
	    "answer)" } },
};

static u64 oneshot_deadline(void)
{
	return lc.rec.phase_start[LC_DURING] + ns_to_counter(LC_ONESHOT_NS);
}

static void run_oneshot(const void *arg)
{
	const struct oneshot_case *c = arg;
	struct lc_timer *t = &lc.rec.cpu[0].t[SLOT_ONESHOT];
	u64 deadline;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.done.after_wait_ns = c->after_wait_ns;
	deadline = oneshot_deadline();
	t->role = LC_ROLE_ONESHOT;
	t->deadline = deadline;
	if (c->fired)
		t->fired_at = c->late_us >= 0 ? deadline + ns_to_counter((u64)c->late_us * US)
					      : deadline - ns_to_counter((u64)-c->late_us * US);
	lc.rec.answer.answered = deadline + ns_to_counter(ANSWER_AFTER_DEADLINE_NS);
	PRINTED(lc_check_timers(J, &lc.rec));
}

static void test_oneshot_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(oneshot_cases); i++) {
		const struct oneshot_case *c = &oneshot_cases[i];

		print_message("case: %s\n", c->what);
		capture(run_oneshot, c, out, sizeof(out));
		expect_lines(out, c->lines);
		if (!c->fired)
			lacks(out, "oneshot_late");
	}
}

/* Every vCPU's one-shot is checked, each with its figure and bound. */
static void run_oneshot_both(const void *arg)
{
	u64 deadline;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	deadline = oneshot_deadline();
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		struct lc_timer *t = &lc.rec.cpu[cpu].t[SLOT_ONESHOT];

		t->role = LC_ROLE_ONESHOT;
		t->deadline = deadline;
		t->fired_at = deadline + ns_to_counter((u64)(cpu + 1) * MS);
	}
	lc.rec.answer.answered = deadline + ns_to_counter(ANSWER_AFTER_DEADLINE_NS);
	PRINTED(lc_check_timers(J, &lc.rec));
}

static void test_oneshot_every_cpu(void **state)
{
	char out[CAPTURE_MAX];

	capture(run_oneshot_both, NULL, out, sizeof(out));
	EXACTLY(out, "BOUND: e1.pause.cntv.cpu0.oneshot_late 1.000000 ms 0.000000..1500.000000",
		ONESHOT_LINE("PASS", "1000"),
		"BOUND: e1.pause.cntv.cpu1.oneshot_late 2.000000 ms 0.000000..1500.000000",
		"PASS: vCPU 1 cntv one-shot armed before the event fired after its deadline, by "
		"2000 us, and within 500 ms of the answer");
}

/* --- periodic timers: rate and catch-up ------------------------------------------------ */

/*
 * 100 Hz: 50 ticks in each 500 ms window is 100.0% of nominal; after the
 * event it must be within 10% of nominal or of the rate before. Catch-up
 * ticks allowed: 16, plus the baseline's rate of them over the 1700 ms
 * since (rounded up: one before is 3.4, so 4), plus on a re-armed schedule
 * one per period of the vCPU's largest counter step over the event.
 */
struct periodic_case {
	const char *what;
	const struct lc_arch *arch;
	u32 ticks[LC_NR_PHASES];
	u32 early[LC_NR_PHASES];
	u64 gap_ns; /* the vCPU's largest counter step over the event */
	const char *lines[MAX_LINES];
	/* a vCPU's wait for a host CPU the runner measured: window before, event, window after */
	u64 wait_ns[LC_NR_PHASES];
};

#define RATE_LINE_WAITED(verdict, after, before, wait_after, wait_before)                          \
	verdict ": vCPU 0 cntp periodic rate after the event " after "% of nominal, within 10% of "  \
		"nominal or of the rate before, " before "%, short by no more than the periods a "   \
		"vCPU waited for a host CPU (" wait_after "% of the window after, " wait_before       \
		"% of the one before)"
#define RATE_LINE(verdict, after, before) RATE_LINE_WAITED(verdict, after, before, "0.0", "0.0")
#define CATCHUP_LINE_WAITED(verdict, n, allowed, explained, waited)                                \
	verdict ": vCPU 0 cntp catch-up: " n " ticks closer than half a period after the event <= " \
		allowed " (bound 16 + " explained " the vCPU's own delays explain + " waited         \
		" periods it waited for a host CPU)"
#define CATCHUP_LINE(verdict, n, allowed, explained)                                               \
	CATCHUP_LINE_WAITED(verdict, n, allowed, explained, "0")

static const struct periodic_case periodic_cases[] = {
	{ "a clean pause", &reload_arch, { 50, 120, 50 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("PASS", "100.0", "100.0"), CATCHUP_LINE("PASS", "0", "16", "0"),
	    "BOUND: e1.pause.cntp.cpu0.catchup 0 ticks 0..16",
	    "RESULT: e1.pause.cntp.cpu0.ticks_during 120 ticks" } },
	{ "stopped after the event", &reload_arch, { 50, 3, 0 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("FAIL", "0.0", "100.0"),
	    "RESULT: e1.pause.cntp.cpu0.ticks_during 3 ticks" } },
	{ "half rate after the event (fault=rate)", &reload_arch, { 50, 120, 25 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("FAIL", "50.0", "100.0") } },
	{ "10% slow after the event: at the bound", &reload_arch, { 50, 120, 45 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("PASS", "90.0", "100.0"),
	    "BOUND: e1.pause.cntp.cpu0.rate_pct 90.0000 % 90.0000..110.0000 90.0000..110.0000" } },
	{ "12% slow after the event", &reload_arch, { 50, 120, 44 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("FAIL", "88.0", "100.0"),
	    "BOUND: e1.pause.cntp.cpu0.rate_pct 88.0000 % 90.0000..110.0000 90.0000..110.0000" } },
	{ "an overcommitted vCPU, as slow before as after", &reload_arch, { 40, 100, 37 },
	  { 0, 0, 0 }, 0, { RATE_LINE("PASS", "74.0", "80.0"),
	  "BOUND: e1.pause.cntp.cpu0.rate_pct 74.0000 % 90.0000..110.0000 72.0000..88.0000" } },
	{ "no tick before the event: no rate to hold to", &reload_arch, { 0, 0, 0 }, { 0, 0, 0 }, 0,
	  { "FAIL: vCPU 0 cntp periodic rate: no tick in the window before the event" } },
	{ "a storm after the event (fault=storm)", &reload_arch, { 50, 120, 150 }, { 0, 0, 100 }, 0,
	  { RATE_LINE("FAIL", "300.0", "100.0"), CATCHUP_LINE("FAIL", "100", "16", "0"),
	    "BOUND: e1.pause.cntp.cpu0.catchup 100 ticks 0..16" } },
	{ "catch-up the baseline explains, at the bound", &reload_arch, { 50, 120, 50 },
	  { 1, 10, 10 }, 0, { CATCHUP_LINE("PASS", "20", "20", "4") } },
	{ "one catch-up tick more", &reload_arch, { 50, 120, 50 }, { 1, 10, 11 }, 0,
	  { CATCHUP_LINE("FAIL", "21", "20", "4") } },
	{ "a re-armed schedule takes the periods of a 1 s gap at once", &rearmed_arch,
	  { 50, 220, 50 }, { 0, 100, 0 }, 1000 * MS, { CATCHUP_LINE("PASS", "100", "116", "100") } },
	{ "a reloading timer gets no such allowance", &reload_arch, { 50, 220, 50 },
	  { 0, 100, 0 }, 1000 * MS, { CATCHUP_LINE("FAIL", "100", "16", "0") } },
	/* a busy host (TCG): the periods a vCPU waited through are forgiven, never added */
	{ "20% slow after the event, 12% of the window waited for a host CPU", &reload_arch,
	  { 50, 120, 40 }, { 0, 0, 0 }, 0,
	  { RATE_LINE_WAITED("PASS", "80.0", "100.0", "12.0", "0.0"),
	    "BOUND: e1.pause.cntp.cpu0.rate_pct 80.0000 % 78.0000..110.0000 78.0000..110.0000" },
	  { 0, 0, 60 * MS } },
	{ "the same 20% with no wait measured", &reload_arch, { 50, 120, 40 }, { 0, 0, 0 }, 0,
	  { RATE_LINE("FAIL", "80.0", "100.0") } },
	{ "half rate (fault=rate) on a host that kept the vCPU waiting 20% of the window",
	  &reload_arch, { 50, 120, 25 }, { 0, 0, 0 }, 0,
	  { RATE_LINE_WAITED("FAIL", "50.0", "100.0", "20.0", "0.0") }, { 0, 0, 100 * MS } },
	{ "waiting does not excuse ticks beyond nominal", &reload_arch, { 50, 120, 58 },
	  { 0, 0, 0 }, 0, { RATE_LINE_WAITED("FAIL", "116.0", "100.0", "12.0", "0.0") },
	  { 0, 0, 60 * MS } },
	{ "a window more than 20% waited is not judged", &reload_arch, { 50, 120, 25 },
	  { 0, 0, 0 }, 0,
	  { "INFO: vCPU 0 cntp periodic rate not judged: a vCPU waited for a host CPU 0 ms over the "
	    "window before the event, 101 ms over the one after (more than 20% of one)" },
	  { 0, 0, 101 * MS } },
	{ "catch-up a vCPU's waits explain, at the bound", &reload_arch, { 50, 120, 50 },
	  { 0, 16, 20 }, 0, { CATCHUP_LINE_WAITED("PASS", "36", "36", "0", "20") },
	  { 0, 150 * MS, 50 * MS } },
	{ "one catch-up tick more than they explain", &reload_arch, { 50, 120, 50 },
	  { 0, 16, 21 }, 0, { CATCHUP_LINE_WAITED("FAIL", "37", "36", "0", "20") },
	  { 0, 150 * MS, 50 * MS } },
};

static void set_periodic(int cpu, const u32 *ticks, const u32 *early)
{
	struct lc_timer *t = &lc.rec.cpu[cpu].t[SLOT_PERIODIC];

	t->role = LC_ROLE_PERIODIC;
	t->period = ns_to_counter(LC_PERIOD_NS);
	memcpy(t->ticks, ticks, sizeof(t->ticks));
	memcpy(t->early, early, sizeof(t->early));
}

static void run_periodic(const void *arg)
{
	const struct periodic_case *c = arg;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.arch = c->arch;
	lc.rec.done.before_wait_ns = c->wait_ns[LC_BEFORE];
	lc.rec.done.vcpu_wait_ns = c->wait_ns[LC_DURING];
	lc.rec.done.after_wait_ns = c->wait_ns[LC_AFTER];
	set_periodic(0, c->ticks, c->early);
	lc.rec.cpu[0].step[LC_DURING][CLOCK_COUNTER] = ns_to_counter(c->gap_ns);
	lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
	PRINTED(lc_check_timers(J, &lc.rec));
}

static void test_periodic_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(periodic_cases); i++) {
		print_message("case: %s\n", periodic_cases[i].what);
		capture(run_periodic, &periodic_cases[i], out, sizeof(out));
		expect_lines(out, periodic_cases[i].lines);
		/* without steal time the period is not timed, and nothing says so per timer */
		lacks(out, "off the period before");
		lacks(out, "not timed");
	}
}

/*
 * x86: one timer per vCPU (the LAPIC's) and a device's on the boot vCPU
 * (the RTC's): each vCPU's own timer still gives its RESULT lines, the
 * device's role is its own.
 */
static const struct lc_arch device_arch = {
	.name_of_slot = { "lapic", "rtc-periodic" },
	.slot_use = { LC_SLOT_EVERY_CPU, LC_SLOT_BOOT_PERIODIC },
	.nslots = 2, .periodic_kind = LC_PERIODIC_RELOAD,
	.stopped_flag_name = "PVCLOCK_GUEST_STOPPED", .clocks = clocks, .nclocks = NCLOCKS,
};

static void run_device_slot(const void *arg)
{
	static const u32 ticks[LC_NR_PHASES] = { 50, 120, 50 }, early[LC_NR_PHASES] = { 0 };
	struct lc_timer *t;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.arch = &device_arch;
	for (int cpu = 0; cpu < 2; cpu++) {
		t = &lc.rec.cpu[cpu].t[0];
		t->role = LC_ROLE_PERIODIC;
		t->period = ns_to_counter(LC_PERIOD_NS);
		memcpy(t->ticks, ticks, sizeof(t->ticks));
		memcpy(t->early, early, sizeof(t->early));
	}
	/* the RTC's 64 Hz on the boot vCPU: 32 ticks in a half-second window */
	t = &lc.rec.cpu[0].t[1];
	t->role = LC_ROLE_PERIODIC;
	t->period = COUNTER_HZ / 64;
	t->ticks[LC_BEFORE] = 32;
	t->ticks[LC_AFTER] = 16;
	lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
	PRINTED(lc_check_timers(J, &lc.rec));
}

static void test_device_slot(void **state)
{
	char out[CAPTURE_MAX];
	static const char *const lines[] = {
		"BOUND: e1.pause.lapic.cpu0.catchup 0 ticks 0..16",
		"BOUND: e1.pause.lapic.cpu1.catchup 0 ticks 0..16",
		"FAIL: vCPU 0 rtc-periodic periodic rate after the event 50.0% of nominal, within 10% "
		"of nominal or of the rate before, 100.0%, short by no more than the periods a vCPU "
		"waited for a host CPU (0.0% of the window after, 0.0% of the one before)",
		"BOUND: e1.pause.rtc-periodic.cpu0.catchup 0 ticks 0..16",
		NULL,
	};

	capture(run_device_slot, NULL, out, sizeof(out));
	expect_lines(out, lines);
	lacks(out, "vCPU 1 rtc-periodic");
}

/* --- periodic timers: the period, timed by the ticks ------------------------------------ */

/*
 * Steal time followed: each window's ticks on an exact grid (so the marks'
 * spread is 0 and the bound 1 ppm), the period after the event a given
 * number of counter ticks off the 20000000 before (20 ticks: 1 ppm).
 */
#define PERIOD_TICKS	ns_to_counter(LC_PERIOD_NS)
#define GRID_TICKS	50

struct period_case {
	const char *what;
	unsigned n[2];	  /* ticks stamped before, after */
	s64 after_off;	  /* counter ticks added to the period after */
	u64 steal_ns[2];  /* steal time over each window */
	unsigned lost;	  /* a tick of the window after missing (its index; 0: none) */
	const char *line; /* the period's line */
	const char *result;
};

#define PERIOD_LINE(verdict, ppm)                                                                  \
	verdict ": vCPU 0 cntp period after the event " ppm " ppm off the period before, timed by "  \
		"the ticks (bound +-1 ppm: the marks' spread)"
#define NOT_TIMED(window, why)                                                                     \
	"INFO: vCPU 0 cntp period after the event not timed (the " window " window: " why ")"

static const struct period_case period_cases[] = {
	{ "the same period", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 }, 0, PERIOD_LINE("PASS", "0"),
	  "BOUND: e1.pause.cntp.cpu0.period_ppm 0 ppm -1..1" },
	{ "5% slow after (fault=rate5)", { GRID_TICKS, GRID_TICKS }, 1000000, { 0, 0 }, 0,
	  PERIOD_LINE("FAIL", "50000"), "BOUND: e1.pause.cntp.cpu0.period_ppm 50000 ppm -1..1" },
	{ "5% fast after", { GRID_TICKS, GRID_TICKS }, -1000000, { 0, 0 }, 0,
	  PERIOD_LINE("FAIL", "-50000"), "BOUND: e1.pause.cntp.cpu0.period_ppm -50000 ppm -1..1" },
	{ "1 ppm slow: at the bound", { GRID_TICKS, GRID_TICKS }, 20, { 0, 0 }, 0,
	  PERIOD_LINE("PASS", "1"), NULL },
	{ "1 ppm fast: at the bound", { GRID_TICKS, GRID_TICKS }, -20, { 0, 0 }, 0,
	  PERIOD_LINE("PASS", "-1"), NULL },
	{ "2 ppm slow", { GRID_TICKS, GRID_TICKS }, 40, { 0, 0 }, 0, PERIOD_LINE("FAIL", "2"), NULL },
	/* the least a window's ticks time a period by: 16 (LC_STAMPS_MIN, as a literal: pinned) */
	{ "15 ticks before: too few", { 15, GRID_TICKS }, 0, { 0, 0 }, 0,
	  NOT_TIMED("before", "too few ticks"), NULL },
	{ "16 ticks before: enough", { 16, GRID_TICKS }, 0, { 0, 0 }, 0, PERIOD_LINE("PASS", "0"),
	  NULL },
	{ "a busy host after: 30 ms of steal time in 490 ms", { GRID_TICKS, GRID_TICKS }, 0,
	  { 0, 30 * MS }, 0, NOT_TIMED("after", "a busy host, steal time over 5% of the window"),
	  NULL },
	{ "steal time just under 5%", { GRID_TICKS, GRID_TICKS }, 0, { 0, 24 * MS }, 0,
	  PERIOD_LINE("PASS", "0"), NULL },
	{ "a tick lost after", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 }, 20,
	  NOT_TIMED("after", "a tick lost or late by half a period"), NULL },
	{ "the window's last tick lost: one run short", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 },
	  GRID_TICKS - 1, NOT_TIMED("after", "a tick lost or late by half a period"), NULL },
};

/* Window w's ticks, from start, one a period apart; the tick at index lost skipped. */
static void stamp_window(struct lc_timer *t, unsigned w, u64 start, u64 period, unsigned n,
			 unsigned lost)
{
	unsigned k = 0;

	for (unsigned i = 0; k < n; i++)
		if (!lost || i != lost)
			t->stamps[w][k++] = start + i * period;
	t->nstamps[w] = n;
}

static void run_period(const void *arg)
{
	static const u32 ticks[LC_NR_PHASES] = { 50, 120, 50 }, early[LC_NR_PHASES];
	const struct period_case *c = arg;
	struct lc_timer *t = &lc.rec.cpu[0].t[SLOT_PERIODIC];

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.has_steal = true;
	set_periodic(0, ticks, early);
	stamp_window(t, 0, lc.rec.phase_start[LC_BEFORE], PERIOD_TICKS, c->n[0], 0);
	stamp_window(t, 1, lc.rec.phase_start[LC_AFTER], PERIOD_TICKS + c->after_off, c->n[1], c->lost);
	for (unsigned w = 0; w < 2; w++) {
		t->steal_first[w] = 7 * MS;
		t->steal_last[w] = 7 * MS + c->steal_ns[w];
	}
	lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
	PRINTED(lc_check_timers(J, &lc.rec));
}

static void test_period_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(period_cases); i++) {
		const struct period_case *c = &period_cases[i];

		print_message("case: %s\n", c->what);
		capture(run_period, c, out, sizeof(out));
		has_line(out, c->line);
		if (c->result)
			has_line(out, c->result);
		if (!strncmp(c->line, "INFO", 4))
			lacks(out, "period_ppm");
	}
}

/* --- the stopped flag: lc_check_stopped_flag() ------------------------------------------ */

/*
 * Each vCPU must find its flag set once from the request on, never before
 * it, and not again once it cleared it.
 */
struct flag_case {
	const char *what;
	u32 seen[NCPUS][LC_NR_PHASES];
	const char *lines[MAX_LINES];
};

#define FLAG_SET(verdict, cpu, after, before)                                                      \
	verdict ": vCPU " cpu ": the host set PVCLOCK_GUEST_STOPPED in this vCPU's own area for "    \
		"the event (found set " after " times after the request, " before " before it)"
#define FLAG_CLEAR(verdict, cpu, again)                                                            \
	verdict ": vCPU " cpu ": PVCLOCK_GUEST_STOPPED stayed clear once the guest cleared it (set " \
		"again " again " times by the end of the window after)"

static const struct flag_case flag_cases[] = {
	{ "set on each vCPU, one during the event, one after it",
	  { { 0, 1, 0 }, { 0, 0, 1 } },
	  { "RESULT: e1.pause.stopped_flag.vcpus_set 2 vcpus", FLAG_SET("PASS", "0", "1", "0"),
	    FLAG_CLEAR("PASS", "0", "0"), FLAG_SET("PASS", "1", "1", "0"),
	    FLAG_CLEAR("PASS", "1", "0") } },
	{ "missing on vCPU 1 (a VMM that never sets it, fault=stopped_flag)",
	  { { 0, 1, 0 }, { 0, 0, 0 } },
	  { "RESULT: e1.pause.stopped_flag.vcpus_set 1 vcpus", FLAG_SET("FAIL", "1", "0", "0"),
	    FLAG_CLEAR("PASS", "1", "0") } },
	{ "missing on every vCPU", { { 0, 0, 0 }, { 0, 0, 0 } },
	  { "RESULT: e1.pause.stopped_flag.vcpus_set 0 vcpus", FLAG_SET("FAIL", "0", "0", "0"),
	    FLAG_SET("FAIL", "1", "0", "0") } },
	{ "set before the request too", { { 1, 1, 0 }, { 0, 1, 0 } },
	  { FLAG_SET("FAIL", "0", "1", "1"), FLAG_SET("PASS", "1", "1", "0") } },
	{ "set again after the guest cleared it (fault=stopped_reset)",
	  { { 0, 1, 1 }, { 0, 1, 0 } },
	  { "RESULT: e1.pause.stopped_flag.vcpus_set 2 vcpus", FLAG_SET("PASS", "0", "2", "0"),
	    FLAG_CLEAR("FAIL", "0", "1"), FLAG_CLEAR("PASS", "1", "0") } },
};

static void run_flag(const void *arg)
{
	const struct flag_case *c = arg;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		memcpy(lc.rec.cpu[cpu].stopped_seen, c->seen[cpu], sizeof(c->seen[cpu]));
	PRINTED(lc_check_stopped_flag(J, &lc.rec));
}

static void test_flag_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(flag_cases); i++) {
		print_message("case: %s\n", flag_cases[i].what);
		capture(run_flag, &flag_cases[i], out, sizeof(out));
		expect_lines(out, flag_cases[i].lines);
	}
	/* the clean case whole: the RESULT first, then each vCPU's two checks in order */
	capture(run_flag, &flag_cases[0], out, sizeof(out));
	exactly(out, flag_cases[0].lines, 5);
}

/* --- the RESULT names --------------------------------------------------------------------- */

static void run_result_ms(const void *arg)
{
	reset_event(LC_MIGRATE, MIGRATE_STOP_NS);
	lc.rec.seq = 12;
	PRINTED(lc_result_ms(J, &lc.rec, "host", "stopped", 1234567));
	PRINTED(lc_result_ms(J, &lc.rec, "host", "total", 999));
}

/* eSEQ.KIND.WHAT.FIGURE, the figure in ms to the us (truncated). */
static void test_result_ms(void **state)
{
	char out[CAPTURE_MAX];

	capture(run_result_ms, NULL, out, sizeof(out));
	EXACTLY(out, "RESULT: e12.migrate.host.stopped 1.234 ms",
		"RESULT: e12.migrate.host.total 0.000 ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_table),
		cmocka_unit_test(test_clock_clean_whole),
		cmocka_unit_test(test_clock_entries),
		cmocka_unit_test(test_oneshot_table),
		cmocka_unit_test(test_oneshot_every_cpu),
		cmocka_unit_test(test_periodic_table),
		cmocka_unit_test(test_device_slot),
		cmocka_unit_test(test_period_table),
		cmocka_unit_test(test_flag_table),
		cmocka_unit_test(test_result_ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
