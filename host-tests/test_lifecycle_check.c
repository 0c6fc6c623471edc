// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_check.c, the lifecycle test's checks of one event, on
 * the host, with the real lib/report.c and lib/stats.c under it.
 * What: the state the sampling half (common/lifecycle/lifecycle_engine.c) leaves in `lc` -
 * every vCPU's largest clock steps per phase, its timers' ticks and stamps,
 * its stopped-flag sightings, the runner's answer - is set by hand for a
 * pause, a save or a migration, and the checks' entries are read back
 * (lc_entries.h: each figure, its bands, its outcome, and the numbers
 * only a sentence carries, as numbers; never its words, which may be
 * reworded): a clean event; a clock that steps back, jumps beyond the
 * stop, stands still through a stop it runs through or runs through one
 * it is frozen in; a one-shot that fires early, late or never; a
 * periodic timer that stops, slows, storms or drifts after the event; a
 * stopped flag missing, set early or set again.
 * Why: those checks are what tell a broken host from a good one, and a
 * guest run shows them only on a host that breaks them (or with a fault=
 * compiled into the sampling); here each bound is hit from both sides.
 * How: two vCPUs, a counter at 2 GHz (a tick is never a ns by accident),
 * two clocks (the counter, which runs through a stop, and a 1 GHz
 * "kvmclock" that is frozen), two timer slots ("cntv" one-shot, "cntp"
 * periodic); table-driven where cases differ only in data. The figures and
 * bands each case wants follow from docs/lifecycle.md's bounds, worked out
 * next to each table (a figure in ms is held in ns, a rate in 10^-4 %).
 * One test prints a judged list, to see it printed as the guest prints it.
 * The arch hooks the sources call are played here.
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
#include "lc_entries.h"
#define KVMCLOCK_HZ	NSEC_PER_SEC /* a clock that counts ns */
#define US		NSEC_PER_USEC /* the tables' shorthand */
#define MS		NSEC_PER_MSEC
/* The phases' lengths: the windows are LC_WINDOW_NS; the request to the answer, this. */
#define DURING_NS	(1200 * MS)
#define PHASE0		NSEC_PER_SEC /* the counter as the window before starts */
#define PAUSE_STOP_NS	(1000 * MS)   /* QEMU's STOP to RESUME for a pause or a save */
#define PAUSE_QEMU_NS	(4 * MS)      /* overhead_ns: QEMU's stop and cont work, a pause's only */
#define MIGRATE_STOP_NS (3 * MS)      /* a live migration's downtime */
#define MAX_WANTS	6

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

/* --- clocks: lc_check_clock() ---------------------------------------------------------- */

/*
 * A pause of 1000 ms (QEMU's work around it 4 ms) after a baseline whose
 * largest step is 1 ms: a step over the event is allowed 1000 + 2 x 1 + 10
 * (the stamps) = 1012 ms, plus what a vCPU waited for a host CPU; a running
 * clock must step 1000 - 10 = 990 ms at least, a frozen one 2 x 1 + 10 + 50
 * + 4 = 66 ms at most. The worst vCPU has the steps given, the other half
 * of them. Each clock has two checks of figure "step": the bound over the
 * event first (nth 0), then whether it ran or stood still (nth 1).
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
	struct want want[MAX_WANTS];
	u64 after_wait_ns; /* a vCPU's wait for a host CPU in the window after, as the runner measured */
};

/* its sentence: the worst vCPU, its times back and by how many ns at most */
#define BACKWARDS(verdict, clock, times, cpu, by_ns)                                   \
	{ verdict, FIGURE("e1.pause." clock ".backwards", "count", times, 0, 0),       \
	  .mentions = { #cpu, #times, #by_ns } }
/* its sentence: the vCPU of the largest step, and the us a vCPU waited (either may be 0) */
#define STEP(verdict, event, clock, ns, hi_ns, cpu, wait_us)                \
	{ verdict, FIGURE("e1." event "." clock ".step", "ms", ns, 0, hi_ns), \
	  .mentions = { #cpu, #wait_us } }
/* the counter over the pause on vCPU 1, no wait: its step bound 1012 ms */
#define COUNTER_STEP(verdict, ns) STEP(verdict, "pause", "counter", ns, 1012 * MS, 1, 0)
#define RAN(verdict, ns) \
	{ verdict, FIGURE("e1.pause.counter.step", "ms", ns, 990 * MS, BOUND_OPEN_HI), .nth = 1 }
#define FROZEN(verdict, event, clock, ns, hi_ns) \
	{ verdict, FIGURE("e1." event "." clock ".step", "ms", ns, 0, hi_ns), .nth = 1 }
/* a stop too short to tell running from frozen: said in an INFO (the stop, what a frozen clock
 * may move, in ms), not judged */
#define NOT_JUDGED(event, clock, stop_ms, frozen_ms)    \
	{ WANT_INFO, .mentions = { #stop_ms, #frozen_ms } }, \
	{ WANT_ABSENT, .name = "e1." event "." clock ".step", .nth = 1 }
/* a 1000 ms pause, no fault, no vCPU waiting; 1 ms steps before, these over the event and after */
#define PAUSED(clock, cpu, during_ns, after_ns) \
	clock, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_NONE, cpu, 1 * MS, during_ns, after_ns
#define SAVED(wait_ns, during_ns) \
	CLOCK_KVMCLOCK, LC_SAVE, 1100 * MS, wait_ns, LC_FAULT_NONE, 0, 1 * MS, during_ns, 1 * MS

static const struct clock_case clock_cases[] = {
	{ "a clean pause: the counter runs through it", PAUSED(CLOCK_COUNTER, 1, 1001 * MS, 1 * MS),
	  .want = { BACKWARDS(WANT_PASS, "counter", 0, 0, 0), COUNTER_STEP(WANT_PASS, 1001 * MS),
		    RAN(WANT_PASS, 1001 * MS) } },
	{ "a clean pause: kvmclock is frozen through it",
	  PAUSED(CLOCK_KVMCLOCK, 1, 30 * MS, 1 * MS),
	  .want = { BACKWARDS(WANT_PASS, "kvmclock", 0, 0, 0),
		    STEP(WANT_PASS, "pause", "kvmclock", 30 * MS, 1012 * MS, 1, 0),
		    FROZEN(WANT_PASS, "pause", "kvmclock", 30 * MS, 66 * MS) } },
	{ "a clock that steps back 20 ms (fault=back), in counter ticks",
	  PAUSED(CLOCK_COUNTER, 1, 1001 * MS, 1 * MS), 3, 20 * MS,
	  .want = { BACKWARDS(WANT_FAIL, "counter", 3, 1, 20000000),
		    COUNTER_STEP(WANT_PASS, 1001 * MS) } },
	{ "a clock that jumps 3 s ahead (fault=jump)", PAUSED(CLOCK_COUNTER, 0, 4001 * MS, 1 * MS),
	  .want = { STEP(WANT_FAIL, "pause", "counter", 4001 * MS, 1012 * MS, 0, 0) } },
	{ "a step of the whole bound", PAUSED(CLOCK_COUNTER, 1, 1012 * MS, 1 * MS),
	  .want = { COUNTER_STEP(WANT_PASS, 1012 * MS) } },
	{ "a step 1 us beyond the bound", PAUSED(CLOCK_COUNTER, 1, 1012 * MS + US, 1 * MS),
	  .want = { COUNTER_STEP(WANT_FAIL, 1012 * MS + US) } },
	{ "a vCPU the host kept from running for 200 ms",
	  CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 200 * MS, LC_FAULT_NONE, 1, 1 * MS, 1212 * MS,
	  1 * MS,
	  .want = { STEP(WANT_PASS, "pause", "counter", 1212 * MS, 1212 * MS, 1, 200000) } },
	{ "the step after the answer is the event's too",
	  PAUSED(CLOCK_COUNTER, 1, 2 * MS, 1001 * MS),
	  .want = { COUNTER_STEP(WANT_PASS, 1001 * MS), RAN(WANT_PASS, 1001 * MS) } },
	{ "the counter stood still through a stop it runs through",
	  PAUSED(CLOCK_COUNTER, 1, 5 * MS, 1 * MS), .want = { RAN(WANT_FAIL, 5 * MS) } },
	{ "a running clock short of the stop by the stamps' slack",
	  PAUSED(CLOCK_COUNTER, 1, 990 * MS, 1 * MS), .want = { RAN(WANT_PASS, 990 * MS) } },
	{ "kvmclock ran through a stop it is frozen in",
	  PAUSED(CLOCK_KVMCLOCK, 1, 1001 * MS, 1 * MS),
	  .want = { STEP(WANT_PASS, "pause", "kvmclock", 1001 * MS, 1012 * MS, 1, 0),
		    FROZEN(WANT_FAIL, "pause", "kvmclock", 1001 * MS, 66 * MS) } },
	{ "a frozen clock that moved by the whole bound",
	  PAUSED(CLOCK_KVMCLOCK, 1, 66 * MS, 1 * MS),
	  .want = { FROZEN(WANT_PASS, "pause", "kvmclock", 66 * MS, 66 * MS) } },
	{ "fault=flip: the counter is expected frozen",
	  CLOCK_COUNTER, LC_PAUSE, PAUSE_STOP_NS, 0, LC_FAULT_FLIP, 1, 1 * MS, 1001 * MS, 1 * MS,
	  .want = { FROZEN(WANT_FAIL, "pause", "counter", 1001 * MS, 66 * MS) } },
	/* frozen: 2 x 1 + 10 + 50 ms, no overhead outside a pause; 3 ms < 2 x 62 ms */
	{ "a 3 ms migration downtime is too short to judge semantics by",
	  CLOCK_COUNTER, LC_MIGRATE, MIGRATE_STOP_NS, 0, LC_FAULT_NONE, 1, 1 * MS, 4 * MS, 1 * MS,
	  .want = { STEP(WANT_PASS, "migrate", "counter", 4 * MS, 15 * MS, 1, 0),
		    NOT_JUDGED("migrate", "counter", 3, 62) } },
	/* a frozen clock may move 62 ms: judging takes a stop twice that */
	{ "a 100 ms stop is more than a frozen clock moves, not twice it",
	  CLOCK_COUNTER, LC_SAVE, 100 * MS, 0, LC_FAULT_NONE, 1, 1 * MS, 101 * MS, 1 * MS,
	  .want = { NOT_JUDGED("save", "counter", 100, 62) } },
	/* frozen: 2 x 1 + 10 + 50 ms = 62 ms without a pause's overhead */
	{ "a save and restore: kvmclock frozen, no pause overhead in its bound", SAVED(0, 62 * MS),
	  .want = { FROZEN(WANT_PASS, "save", "kvmclock", 62 * MS, 62 * MS) } },
	/* a busy host (TCG here): the vCPU ran 300 ms after the clock resumed */
	{ "a frozen clock read late by a vCPU the host kept from running",
	  SAVED(300 * MS, 362 * MS),
	  .want = { FROZEN(WANT_PASS, "save", "kvmclock", 362 * MS, 362 * MS) } },
	{ "the same step with no wait measured is a clock that ran", SAVED(0, 362 * MS),
	  .want = { FROZEN(WANT_FAIL, "save", "kvmclock", 362 * MS, 62 * MS) } },
	/* TCG, QEMU 10, a quiet host: the boot vCPU kept 100 ms from running after the answer */
	{ "a frozen clock's step in the window after, where a vCPU waited",
	  PAUSED(CLOCK_KVMCLOCK, 0, 3 * MS, 103 * MS), .after_wait_ns = 100 * MS,
	  .want = { STEP(WANT_PASS, "pause", "kvmclock", 103 * MS, 1112 * MS, 0, 100000),
		    FROZEN(WANT_PASS, "pause", "kvmclock", 103 * MS, 166 * MS) } },
	{ "the same step with the wait measured during the event only",
	  CLOCK_KVMCLOCK, LC_PAUSE, PAUSE_STOP_NS, 3 * MS, LC_FAULT_NONE, 0, 1 * MS, 3 * MS, 103 * MS,
	  .want = { FROZEN(WANT_FAIL, "pause", "kvmclock", 103 * MS, 69 * MS) } },
	{ "a clock that ran through the stop, its step in the window after, a vCPU waited there",
	  PAUSED(CLOCK_KVMCLOCK, 1, 3 * MS, 1001 * MS), .after_wait_ns = 100 * MS,
	  .want = { FROZEN(WANT_FAIL, "pause", "kvmclock", 1001 * MS, 166 * MS) } },
};

static void set_steps(int cpu, unsigned clock, u64 div, const struct clock_case *c)
{
	struct lc_cpu *v = &lc.rec.cpu[cpu];

	v->step[LC_BEFORE][clock] = ns_to_clock(clock, c->before_ns) / div;
	v->step[LC_DURING][clock] = ns_to_clock(clock, c->during_ns) / div;
	v->step[LC_AFTER][clock] = ns_to_clock(clock, c->after_ns) / div;
}

/* The event a clock case describes, judged into a list of its own. */
static struct checks *judge_clock(const struct clock_case *c)
{
	struct checks *l = test_checks();

	reset_event(c->kind, c->stopped_ns);
	lc.rec.done.vcpu_wait_ns = c->wait_ns;
	lc.rec.done.after_wait_ns = c->after_wait_ns;
	lc.rec.fault = c->fault;
	set_steps(c->cpu, c->clock, 1, c);
	set_steps(!c->cpu, c->clock, 2, c);
	lc.rec.cpu[c->cpu].backwards[c->clock] = c->back;
	lc.rec.cpu[c->cpu].worst_back[c->clock] = ns_to_clock(c->clock, c->back_ns);
	lc.rec.done.kind = c->kind;
	lc_check_clock(l, &lc.rec, c->clock);
	return l;
}

static void test_clock_table(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(clock_cases); i++)
		LC_EXPECT(clock_cases[i].what, judge_clock(&clock_cases[i]), clock_cases[i].want);
}

/* The case named what (a failure names a case that is not there). */
static const struct clock_case *clock_case(const char *what)
{
	for (size_t i = 0; i < ARRAY_LEN(clock_cases); i++)
		if (!strcmp(clock_cases[i].what, what))
			return &clock_cases[i];
	fail_msg("no clock case '%s'", what);
	return NULL;
}

/*
 * A clean pause makes its three checks and nothing else (no INFO, nothing
 * about another clock), in order; a case that fails one check passes the
 * others.
 */
static void test_clock_entries(void **state)
{
	static const char *const one_failed[] = {
		"a step 1 us beyond the bound",
		"kvmclock ran through a stop it is frozen in",
	};

	LC_EXPECT_EXACTLY(clock_cases[0].what, judge_clock(&clock_cases[0]), clock_cases[0].want);
	for (size_t i = 0; i < ARRAY_LEN(one_failed); i++)
		assert_int_equal(checks_failed(judge_clock(clock_case(one_failed[i]))), 1);
}

static void print_list(const void *arg)
{
	report_checks(arg);
}

/*
 * The printer's test: a judged list printed by report_checks() as the guest
 * prints it, each bounded check's BOUND line (its figure and band, in the
 * figure's unit and scale) before its verdict and sentence.
 */
static void test_clock_clean_printed(void **state)
{
	struct checks *l = judge_clock(&clock_cases[0]);
	char out[CAPTURE_MAX], want[CAPTURE_MAX];

	assert_int_equal(l->n, 3);
	snprintf(want, sizeof(want),
		 "BOUND: e1.pause.counter.backwards 0 count 0..0\nPASS: %s\n"
		 "BOUND: e1.pause.counter.step 1001.000000 ms 0.000000..1012.000000\nPASS: %s\n"
		 "BOUND: e1.pause.counter.step 1001.000000 ms 990.000000..inf\nPASS: %s\n",
		 l->c[0].text, l->c[1].text, l->c[2].text);
	capture(print_list, l, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("printed:\n%swant:\n%s", out, want);
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
	struct want want[MAX_WANTS];
	u64 after_wait_ns; /* a vCPU's wait for a host CPU after the answer, as the runner measured */
};

#define LATE(verdict, cpu, ns, hi_ns) \
	{ verdict, FIGURE("e1.pause.cntv.cpu" #cpu ".oneshot_late", "ms", ns, 0, hi_ns) }

static const struct oneshot_case oneshot_cases[] = {
	{ "2 ms after its deadline", true, 2000, { LATE(WANT_PASS, 0, 2 * MS, 1500 * MS) } },
	{ "at its deadline", true, 0, { LATE(WANT_PASS, 0, 0, 1500 * MS) } },
	{ "3 ms early", true, -3000, { LATE(WANT_FAIL, 0, -3 * (s64)MS, 1500 * MS) } },
	{ "a window after the answer", true, 1500000,
	  { LATE(WANT_PASS, 0, 1500 * MS, 1500 * MS) } },
	{ "1 us after that", true, 1500001, { LATE(WANT_FAIL, 0, 1500 * MS + US, 1500 * MS) } },
	/* a vCPU the host kept from running 300 ms after the answer takes its interrupt that late */
	{ "a window and the 300 ms waited after the answer", true, 1800000,
	  { LATE(WANT_PASS, 0, 1800 * MS, 1800 * MS) }, 300 * MS },
	{ "1 us after that", true, 1800001, { LATE(WANT_FAIL, 0, 1800 * MS + US, 1800 * MS) },
	  300 * MS },
	{ "never (fault=rearm)", false, 0,
	  /* its sentence: vCPU 0, not within 500 ms (a window) of the answer */
	  { { WANT_FAIL, FIGURE("e1.pause.cntv.cpu0.oneshot_fired", "count", 0, 1, 1),
	      .mentions = { "0", "500" } },
	    { WANT_ABSENT, .name = "e1.pause.cntv.cpu0.oneshot_late" } } },
};

static u64 oneshot_deadline(void)
{
	return lc.rec.phase_start[LC_DURING] + ns_to_counter(LC_ONESHOT_NS);
}

/* vCPU cpu's one-shot, armed for the deadline, fired at fired_at (0: never). */
static void arm_oneshot(int cpu, u64 fired_at)
{
	struct lc_timer *t = &lc.rec.cpu[cpu].t[SLOT_ONESHOT];

	t->role = LC_ROLE_ONESHOT;
	t->deadline = oneshot_deadline();
	t->fired_at = fired_at;
	lc.rec.answer.answered = t->deadline + ns_to_counter(ANSWER_AFTER_DEADLINE_NS);
}

static void test_oneshot_table(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(oneshot_cases); i++) {
		const struct oneshot_case *c = &oneshot_cases[i];
		struct checks *l = test_checks();
		u64 deadline;

		reset_event(LC_PAUSE, PAUSE_STOP_NS);
		lc.rec.done.after_wait_ns = c->after_wait_ns;
		deadline = oneshot_deadline();
		arm_oneshot(0, !c->fired	    ? 0
			       : c->late_us >= 0 ? deadline + ns_to_counter((u64)c->late_us * US)
						 : deadline - ns_to_counter((u64)-c->late_us * US));
		lc_check_timers(l, &lc.rec);
		LC_EXPECT(c->what, l, c->want);
	}
}

/* Every vCPU's one-shot is checked, each with its figure and bound, and nothing else. */
static void test_oneshot_every_cpu(void **state)
{
	static const struct want want[] = {
		LATE(WANT_PASS, 0, 1 * MS, 1500 * MS),
		LATE(WANT_PASS, 1, 2 * MS, 1500 * MS),
	};
	struct checks *l = test_checks();

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		arm_oneshot(cpu, oneshot_deadline() + ns_to_counter((u64)(cpu + 1) * MS));
	lc_check_timers(l, &lc.rec);
	LC_EXPECT_EXACTLY("every vCPU's one-shot", l, want);
}

/* --- periodic timers: rate and catch-up ------------------------------------------------ */

/*
 * 100 Hz: 50 ticks in each 500 ms window is 100.0% of nominal; after the
 * event it must be within 10% of nominal or of the rate before (two
 * bands), short by no more than the part of the window after a vCPU
 * waited for a host CPU. Catch-up ticks allowed: 16, plus the baseline's
 * rate of them over the 1700 ms since (rounded up: one before is 3.4, so
 * 4), plus on a re-armed schedule one per period of the vCPU's largest
 * counter step over the event, plus the periods a vCPU waited through.
 */
struct periodic_case {
	const char *what;
	const struct lc_arch *arch;
	u32 ticks[LC_NR_PHASES];
	u32 early[LC_NR_PHASES];
	u64 gap_ns; /* the vCPU's largest counter step over the event */
	struct want want[MAX_WANTS];
	/* a vCPU's wait for a host CPU the runner measured: window before, event, window after */
	u64 wait_ns[LC_NR_PHASES];
};

/* A rate in per mille of nominal, as the figure holds it (10^-4 %). */
#define PPT(ppt) ((s64)(ppt) * 1000)
#define RATE_NAME "e1.pause.cntp.cpu0.rate_pct"
/* after the event, ppt of nominal; the rate before nominal: both bands lo_ppt..110% */
#define RATE(verdict, ppt, lo_ppt)                                                        \
	{ verdict,                                                                        \
	  FIGURE2(RATE_NAME, "%", PPT(ppt), PPT(lo_ppt), PPT(1100), PPT(lo_ppt), PPT(1100)) }
#define CATCHUP(verdict, n, allowed) \
	{ verdict, FIGURE("e1.pause.cntp.cpu0.catchup", "ticks", n, 0, allowed) }
#define TICKS_DURING(n) { RESULT_IS("e1.pause.cntp.cpu0.ticks_during", "ticks", n) }
#define NO_RATE { WANT_ABSENT, .name = RATE_NAME }

static const struct periodic_case periodic_cases[] = {
	{ "a clean pause", &reload_arch, { 50, 120, 50 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_PASS, 1000, 900), CATCHUP(WANT_PASS, 0, 16), TICKS_DURING("120") } },
	{ "stopped after the event", &reload_arch, { 50, 3, 0 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_FAIL, 0, 900), TICKS_DURING("3") } },
	{ "half rate after the event (fault=rate)", &reload_arch, { 50, 120, 25 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_FAIL, 500, 900) } },
	{ "10% slow after the event: at the bound", &reload_arch, { 50, 120, 45 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_PASS, 900, 900) } },
	{ "12% slow after the event", &reload_arch, { 50, 120, 44 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_FAIL, 880, 900) } },
	/* 80% before: its band 72..88% */
	{ "an overcommitted vCPU, as slow before as after", &reload_arch, { 40, 100, 37 },
	  { 0, 0, 0 }, 0,
	  { { WANT_PASS,
	      FIGURE2(RATE_NAME, "%", PPT(740), PPT(900), PPT(1100), PPT(720), PPT(880)) } } },
	{ "no tick before the event: no rate to hold to", &reload_arch, { 0, 0, 0 }, { 0, 0, 0 }, 0,
	  { { WANT_FAIL }, NO_RATE } },
	{ "a storm after the event (fault=storm)", &reload_arch, { 50, 120, 150 }, { 0, 0, 100 }, 0,
	  { RATE(WANT_FAIL, 3000, 900), CATCHUP(WANT_FAIL, 100, 16) } },
	{ "catch-up the baseline explains, at the bound", &reload_arch, { 50, 120, 50 },
	  { 1, 10, 10 }, 0, { CATCHUP(WANT_PASS, 20, 20) } },
	{ "one catch-up tick more", &reload_arch, { 50, 120, 50 }, { 1, 10, 11 }, 0,
	  { CATCHUP(WANT_FAIL, 21, 20) } },
	{ "a re-armed schedule takes the periods of a 1 s gap at once", &rearmed_arch,
	  { 50, 220, 50 }, { 0, 100, 0 }, 1000 * MS, { CATCHUP(WANT_PASS, 100, 116) } },
	{ "a reloading timer gets no such allowance", &reload_arch, { 50, 220, 50 },
	  { 0, 100, 0 }, 1000 * MS, { CATCHUP(WANT_FAIL, 100, 16) } },
	/* a busy host (TCG): the periods a vCPU waited through are forgiven, never added */
	{ "20% slow after the event, 12% of the window waited for a host CPU", &reload_arch,
	  { 50, 120, 40 }, { 0, 0, 0 }, 0, { RATE(WANT_PASS, 800, 780) }, { 0, 0, 60 * MS } },
	{ "the same 20% with no wait measured", &reload_arch, { 50, 120, 40 }, { 0, 0, 0 }, 0,
	  { RATE(WANT_FAIL, 800, 900) } },
	{ "half rate (fault=rate) on a host that kept the vCPU waiting 20% of the window",
	  &reload_arch, { 50, 120, 25 }, { 0, 0, 0 }, 0, { RATE(WANT_FAIL, 500, 700) },
	  { 0, 0, 100 * MS } },
	{ "waiting does not excuse ticks beyond nominal", &reload_arch, { 50, 120, 58 },
	  { 0, 0, 0 }, 0, { RATE(WANT_FAIL, 1160, 780) }, { 0, 0, 60 * MS } },
	{ "a window more than 20% waited is not judged", &reload_arch, { 50, 120, 25 },
	  { 0, 0, 0 }, 0,
	  /* its sentence: vCPU 0, 0 ms waited before, 101 ms after, more than 20% */
	  { { WANT_INFO, .mentions = { "0", "0", "101", "20" } }, NO_RATE }, { 0, 0, 101 * MS } },
	{ "catch-up a vCPU's waits explain, at the bound", &reload_arch, { 50, 120, 50 },
	  { 0, 16, 20 }, 0, { CATCHUP(WANT_PASS, 36, 36) }, { 0, 150 * MS, 50 * MS } },
	{ "one catch-up tick more than they explain", &reload_arch, { 50, 120, 50 },
	  { 0, 16, 21 }, 0, { CATCHUP(WANT_FAIL, 37, 36) }, { 0, 150 * MS, 50 * MS } },
};

/* vCPU cpu's timer in slot, periodic at LC_PERIOD_NS, these ticks and early ticks per phase. */
static struct lc_timer *set_periodic(int cpu, unsigned slot, const u32 *ticks, const u32 *early)
{
	struct lc_timer *t = &lc.rec.cpu[cpu].t[slot];

	t->role = LC_ROLE_PERIODIC;
	t->period = ns_to_counter(LC_PERIOD_NS);
	memcpy(t->ticks, ticks, sizeof(t->ticks));
	memcpy(t->early, early, sizeof(t->early));
	return t;
}

static struct checks *judge_periodic(const struct periodic_case *c)
{
	struct checks *l = test_checks();

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.arch = c->arch;
	lc.rec.done.before_wait_ns = c->wait_ns[LC_BEFORE];
	lc.rec.done.vcpu_wait_ns = c->wait_ns[LC_DURING];
	lc.rec.done.after_wait_ns = c->wait_ns[LC_AFTER];
	set_periodic(0, SLOT_PERIODIC, c->ticks, c->early);
	lc.rec.cpu[0].step[LC_DURING][CLOCK_COUNTER] = ns_to_counter(c->gap_ns);
	lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
	lc_check_timers(l, &lc.rec);
	return l;
}

static void test_periodic_table(void **state)
{
	/* without steal time the period is not timed, and nothing says so per timer (no INFO) */
	static const struct want untimed = { WANT_ABSENT, .name = "e1.pause.cntp.cpu0.period_ppm" };

	for (size_t i = 0; i < ARRAY_LEN(periodic_cases); i++) {
		const struct periodic_case *c = &periodic_cases[i];
		struct checks *l = judge_periodic(c);

		LC_EXPECT(c->what, l, c->want);
		expect_one(c->what, l, &untimed);
	}
}

/*
 * x86: one timer per vCPU (the LAPIC's) and a device's on the boot vCPU
 * (the RTC's): each vCPU's own timer is checked, the device's on the boot
 * vCPU alone. The RTC's 64 Hz ticks 32 times in the half-second window
 * before, 16 after: half its rate.
 */
static const struct lc_arch device_arch = {
	.name_of_slot = { "lapic", "rtc-periodic" },
	.slot_use = { LC_SLOT_EVERY_CPU, LC_SLOT_BOOT_PERIODIC },
	.nslots = 2, .periodic_kind = LC_PERIODIC_RELOAD,
	.stopped_flag_name = "PVCLOCK_GUEST_STOPPED", .clocks = clocks, .nclocks = NCLOCKS,
};

static void test_device_slot(void **state)
{
	static const u32 ticks[LC_NR_PHASES] = { 50, 120, 50 }, early[LC_NR_PHASES] = { 0 };
	static const struct want want[] = {
		{ WANT_PASS, FIGURE("e1.pause.lapic.cpu0.catchup", "ticks", 0, 0, 16) },
		{ WANT_PASS, FIGURE("e1.pause.lapic.cpu1.catchup", "ticks", 0, 0, 16) },
		{ WANT_FAIL, FIGURE2("e1.pause.rtc-periodic.cpu0.rate_pct", "%", PPT(500), PPT(900),
				     PPT(1100), PPT(900), PPT(1100)) },
		{ WANT_PASS, FIGURE("e1.pause.rtc-periodic.cpu0.catchup", "ticks", 0, 0, 16) },
		{ WANT_ABSENT, .name = "e1.pause.rtc-periodic.cpu1.rate_pct" },
		{ WANT_ABSENT, .name = "e1.pause.rtc-periodic.cpu1.catchup" },
	};
	struct checks *l = test_checks();
	struct lc_timer *t;

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	lc.rec.arch = &device_arch;
	for (int cpu = 0; cpu < NCPUS; cpu++)
		set_periodic(cpu, 0, ticks, early);
	t = &lc.rec.cpu[0].t[1];
	t->role = LC_ROLE_PERIODIC;
	t->period = COUNTER_HZ / 64;
	t->ticks[LC_BEFORE] = 32;
	t->ticks[LC_AFTER] = 16;
	lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
	lc_check_timers(l, &lc.rec);
	LC_EXPECT("a device's timer on the boot vCPU", l, want);
}

/* --- periodic timers: the period, timed by the ticks ------------------------------------ */

/*
 * Steal time followed: each window's ticks on an exact grid (so the marks'
 * spread is 0 and the bound 1 ppm), the period after the event a given
 * number of counter ticks off the 20000000 before (20 ticks: 1 ppm). A
 * window that cannot be timed is said in an INFO, and the period not
 * checked.
 */
#define PERIOD_TICKS	ns_to_counter(LC_PERIOD_NS)
#define GRID_TICKS	50
#define PERIOD_NAME	"e1.pause.cntp.cpu0.period_ppm"

struct period_case {
	const char *what;
	unsigned n[2];	  /* ticks stamped before, after */
	s64 after_off;	  /* counter ticks added to the period after */
	u64 steal_ns[2];  /* steal time over each window */
	unsigned lost;	  /* a tick of the window after missing (its index; 0: none) */
	struct want want[2];
};

#define PERIOD(verdict, ppm) { { verdict, FIGURE(PERIOD_NAME, "ppm", ppm, -1, 1) } }
/* said in an INFO that mentions these numbers and no other; the period not checked */
#define NOT_TIMED(...)                                                           \
	{ { WANT_INFO, .mentions = { __VA_ARGS__ }, .mentions_only = true }, \
	  { WANT_ABSENT, .name = PERIOD_NAME } }
/*
 * Why, told by the numbers: a busy host's steal time over 5% of the window
 * mentions 5 beside the vCPU's 0; too few ticks and a tick lost mention
 * the vCPU alone (no count, no index), so no number tells those two apart.
 */
#define TOO_FEW	  NOT_TIMED("0")
#define BUSY	  NOT_TIMED("0", "5")
#define TICK_LOST NOT_TIMED("0")

static const struct period_case period_cases[] = {
	{ "the same period", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 }, 0, PERIOD(WANT_PASS, 0) },
	{ "5% slow after (fault=rate5)", { GRID_TICKS, GRID_TICKS }, 1000000, { 0, 0 }, 0,
	  PERIOD(WANT_FAIL, 50000) },
	{ "5% fast after", { GRID_TICKS, GRID_TICKS }, -1000000, { 0, 0 }, 0,
	  PERIOD(WANT_FAIL, -50000) },
	{ "1 ppm slow: at the bound", { GRID_TICKS, GRID_TICKS }, 20, { 0, 0 }, 0,
	  PERIOD(WANT_PASS, 1) },
	{ "1 ppm fast: at the bound", { GRID_TICKS, GRID_TICKS }, -20, { 0, 0 }, 0,
	  PERIOD(WANT_PASS, -1) },
	{ "2 ppm slow", { GRID_TICKS, GRID_TICKS }, 40, { 0, 0 }, 0, PERIOD(WANT_FAIL, 2) },
	/* the least a window's ticks time a period by: 16 (LC_STAMPS_MIN, as a literal: pinned) */
	{ "15 ticks before: too few", { 15, GRID_TICKS }, 0, { 0, 0 }, 0, TOO_FEW },
	{ "16 ticks before: enough", { 16, GRID_TICKS }, 0, { 0, 0 }, 0, PERIOD(WANT_PASS, 0) },
	{ "a busy host after: 30 ms of steal time in 490 ms", { GRID_TICKS, GRID_TICKS }, 0,
	  { 0, 30 * MS }, 0, BUSY },
	{ "steal time just under 5%", { GRID_TICKS, GRID_TICKS }, 0, { 0, 24 * MS }, 0,
	  PERIOD(WANT_PASS, 0) },
	{ "a tick lost after", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 }, 20, TICK_LOST },
	{ "the window's last tick lost: one run short", { GRID_TICKS, GRID_TICKS }, 0, { 0, 0 },
	  GRID_TICKS - 1, TICK_LOST },
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

static void test_period_table(void **state)
{
	static const u32 ticks[LC_NR_PHASES] = { 50, 120, 50 }, early[LC_NR_PHASES];

	for (size_t i = 0; i < ARRAY_LEN(period_cases); i++) {
		const struct period_case *c = &period_cases[i];
		struct checks *l = test_checks();
		struct lc_timer *t;

		reset_event(LC_PAUSE, PAUSE_STOP_NS);
		lc.rec.has_steal = true;
		t = set_periodic(0, SLOT_PERIODIC, ticks, early);
		stamp_window(t, 0, lc.rec.phase_start[LC_BEFORE], PERIOD_TICKS, c->n[0], 0);
		stamp_window(t, 1, lc.rec.phase_start[LC_AFTER], PERIOD_TICKS + c->after_off,
			     c->n[1], c->lost);
		for (unsigned w = 0; w < 2; w++) {
			t->steal_first[w] = 7 * MS;
			t->steal_last[w] = 7 * MS + c->steal_ns[w];
		}
		lc.rec.answer.answered = lc.rec.phase_start[LC_AFTER];
		lc_check_timers(l, &lc.rec);
		LC_EXPECT(c->what, l, c->want);
	}
}

/* --- the stopped flag: lc_check_stopped_flag() ------------------------------------------ */

/*
 * Each vCPU must find its flag set once from the request on, never before
 * it, and not again once it cleared it: two plain checks per vCPU, in
 * order (set for the event, then stayed clear), after the RESULT of how
 * many vCPUs found it set.
 */
struct flag_case {
	const char *what;
	u32 seen[NCPUS][LC_NR_PHASES];
	struct want want[MAX_WANTS];
};

#define VCPUS_SET(n)		{ RESULT_IS("e1.pause.stopped_flag.vcpus_set", "vcpus", n) }
/* its sentence: the vCPU, the times it found the flag set after the request and before it */
#define FLAG_SET(verdict, cpu, after, before) \
	{ verdict, .nth = 2 * (cpu), .mentions = { #cpu, #after, #before } }
/* its sentence: the vCPU, the times the flag was set again */
#define FLAG_CLEAR(verdict, cpu, again) \
	{ verdict, .nth = 2 * (cpu) + 1, .mentions = { #cpu, #again } }

static const struct flag_case flag_cases[] = {
	{ "set on each vCPU, one during the event, one after it",
	  { { 0, 1, 0 }, { 0, 0, 1 } },
	  { VCPUS_SET("2"), FLAG_SET(WANT_PASS, 0, 1, 0), FLAG_CLEAR(WANT_PASS, 0, 0),
	    FLAG_SET(WANT_PASS, 1, 1, 0), FLAG_CLEAR(WANT_PASS, 1, 0) } },
	{ "missing on vCPU 1 (a VMM that never sets it, fault=stopped_flag)",
	  { { 0, 1, 0 }, { 0, 0, 0 } },
	  { VCPUS_SET("1"), FLAG_SET(WANT_FAIL, 1, 0, 0), FLAG_CLEAR(WANT_PASS, 1, 0) } },
	{ "missing on every vCPU", { { 0, 0, 0 }, { 0, 0, 0 } },
	  { VCPUS_SET("0"), FLAG_SET(WANT_FAIL, 0, 0, 0), FLAG_SET(WANT_FAIL, 1, 0, 0) } },
	{ "set before the request too", { { 1, 1, 0 }, { 0, 1, 0 } },
	  { FLAG_SET(WANT_FAIL, 0, 1, 1), FLAG_SET(WANT_PASS, 1, 1, 0) } },
	{ "set again after the guest cleared it (fault=stopped_reset)",
	  { { 0, 1, 1 }, { 0, 1, 0 } },
	  { VCPUS_SET("2"), FLAG_SET(WANT_PASS, 0, 2, 0), FLAG_CLEAR(WANT_FAIL, 0, 1),
	    FLAG_CLEAR(WANT_PASS, 1, 0) } },
};

static struct checks *judge_flag(const struct flag_case *c)
{
	struct checks *l = test_checks();

	reset_event(LC_PAUSE, PAUSE_STOP_NS);
	for (int cpu = 0; cpu < NCPUS; cpu++)
		memcpy(lc.rec.cpu[cpu].stopped_seen, c->seen[cpu], sizeof(c->seen[cpu]));
	lc_check_stopped_flag(l, &lc.rec);
	return l;
}

static void test_flag_table(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(flag_cases); i++)
		LC_EXPECT(flag_cases[i].what, judge_flag(&flag_cases[i]), flag_cases[i].want);
	/* the clean case whole: the RESULT first, then each vCPU's two checks in order */
	LC_EXPECT_EXACTLY(flag_cases[0].what, judge_flag(&flag_cases[0]), flag_cases[0].want);
}

/* --- the RESULT names --------------------------------------------------------------------- */

/* eSEQ.KIND.WHAT.FIGURE, the figure in ms to the us (truncated). */
static void test_result_ms(void **state)
{
	static const struct want want[] = {
		{ RESULT_IS("e12.migrate.host.stopped", "ms", "1.234") },
		{ RESULT_IS("e12.migrate.host.total", "ms", "0.000") },
	};
	struct checks *l = test_checks();

	reset_event(LC_MIGRATE, MIGRATE_STOP_NS);
	lc.rec.seq = 12;
	lc_result_ms(l, &lc.rec, "host", "stopped", 1234567);
	lc_result_ms(l, &lc.rec, "host", "total", 999);
	LC_EXPECT_EXACTLY("RESULT names", l, want);
}

/* --- a want's mentions: whole numbers of a sentence (lc_entries.h) ----------------------- */

/*
 * How many times a sentence mentions a number: never inside a longer one
 * or a word, its sign its own, a '+' no part of it; NULL: every number.
 */
static void test_mentions_whole_numbers(void **state)
{
	static const struct {
		const char *sentence, *number;
		unsigned times;
	} cases[] = {
		{ "it read 15000.0001 ms", "5000.000", 0 },
		{ "it read 5000.0001 ms", "5000.000", 0 },
		{ "(5000.000 ms as asked)", "5000.000", 1 },
		{ "moved -5000.000 ms", "5000.000", 0 },
		{ "moved -4200.000 ms", "-4200.000", 1 },
		{ "moved 4200.000 ms", "-4200.000", 0 },
		{ "went on +900.000 ms", "900.000", 1 },
		{ "went on 900.000 ms", "+900.000", 1 },
		{ "at most +-50 ms", "50", 1 },
		{ "vCPU 0 on cpu0 of x86, e1.pause", "0", 1 },
		{ "x86", "86", 0 },
		{ "ranges 10-5 and 0..1500.", "5", 1 },
		{ "ranges 10-5 and 0..1500.", "1500", 1 },
		{ "found set 0 times, 0 before, 10 after", "0", 2 },
		{ "vCPU 1: 3 times, by up to 20000000 ns (1 + 2.5%)", NULL, 5 },
		{ "no number here", NULL, 0 },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		if (numbers_in(cases[i].sentence, cases[i].number) != cases[i].times)
			fail_msg("'%s' mentions %s %u times, want %u", cases[i].sentence,
				 cases[i].number ? cases[i].number : "a number",
				 numbers_in(cases[i].sentence, cases[i].number), cases[i].times);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_table),
		cmocka_unit_test(test_clock_entries),
		cmocka_unit_test(test_clock_clean_printed),
		cmocka_unit_test(test_oneshot_table),
		cmocka_unit_test(test_oneshot_every_cpu),
		cmocka_unit_test(test_periodic_table),
		cmocka_unit_test(test_device_slot),
		cmocka_unit_test(test_period_table),
		cmocka_unit_test(test_flag_table),
		cmocka_unit_test(test_result_ms),
		cmocka_unit_test(test_mentions_whole_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
