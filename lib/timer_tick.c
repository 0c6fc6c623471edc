/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch-neutral timer-tick engine: arguments, schedule, lateness, statistics, reports. */
#include "timer_tick.h"
#include "alloc.h"
#include "arch.h"
#include "argv.h"
#include "report.h"
#include "stats.h"
#include "tick_ref.h"

/*
 * Lost ticks the host's scheduling does not explain. Periodic sources
 * coalesce expiries their vCPU was not running for (QEMU's HPET and the
 * LAPIC timer skip missed periods); steal time says how long that was,
 * and every period it covers may cost one tick (see account_host()). What
 * is left must be none but the odd one: the tick in flight when the run
 * ends.
 */
#define TICK_UNEXPLAINED_LOST_MAX 1
/*
 * Lateness the host's scheduling does not explain, per tick. A tick's
 * lateness is the handler's own time (tens of microseconds under this
 * nested KVM) plus the emulation's latency plus whatever time the vCPU
 * was runnable but not run (steal time, subtracted). The worst left over
 * was about 2 ms on an idle host and 8.3 ms beside two busy loops (the
 * host is itself a guest: its own vCPUs' stolen time is nobody's steal
 * time here; docs/timers.md). A tick delayed by the guest or the emulation
 * for 20 ms must fail, on an idle host or a busy one.
 */
#define TICK_UNEXPLAINED_LATE_MS 15
#define TICK_HZ_MAX	    10000
#define TICK_SECONDS_MAX    600
/* 16 MiB of lateness samples at most */
#define TICK_MAX_SAMPLES (1u << 21)
/*
 * A tick that has not come this long after its slot is counted lost: the
 * run ends then, even for a periodic source that still owes ticks.
 */
#define TICK_GRACE_MS 50
/* Test-only faults (fault=NAME): what hold50 holds, after how many ticks stop100 stops. */
#define TICK_FAULT_HOLD_MS     50
#define TICK_FAULT_STOP_AFTER  100
#define TICK_FAULT_DROP_EVERY  10
#define TICK_FAULT_FREQ_PCT    105
/* Best bracket of this many reads at each end of a calibration. */
#define CAL_TRIES 16
/*
 * The calibration lasts a tenth of the run, at least 200 ms: the schedule
 * of a periodic source then drifts from the source by at most ten bracket
 * widths (a few tens of microseconds here) by the end of any run.
 */
#define CAL_WINDOW_MIN_MS 200
#define CAL_RUN_SHARE	  10
#define NS_PER_S	  1000000000ull
#define MS_PER_S	  1000ull

/*
 * Faults the checks exist to catch, injected on purpose so that anyone can
 * watch each check fail (docs/timers.md). Never in unittests.cfg's defaults.
 */
enum tick_fault {
	FAULT_NONE,
	FAULT_DROP10,  /* one interrupt in ten not counted */
	FAULT_HOLD50,  /* the interrupt halfway through held 50 ms */
	FAULT_FREQ5,   /* the counter's frequency taken 5 % high */
	FAULT_STOP100, /* a one-shot source not re-armed after 100 ticks */
};

static const struct {
	const char *name;
	enum tick_fault fault;
} tick_faults[] = {
	{"drop10", FAULT_DROP10},
	{"hold50", FAULT_HOLD50},
	{"freq5", FAULT_FREQ5},
	{"stop100", FAULT_STOP100},
};

static struct {
	const struct tick_source *src;
	enum tick_fault fault;
	struct tick_plan plan;
	u64 err_fx; /* plan.cal.err_ppb as a 0.32 fraction */
	u64 *late;  /* counter ticks, one per received tick */
	u64 expected;
	volatile u64 received;
	u64 interrupts; /* taken during the run, counted or not (drop10) */
	u64 last_at;	/* counter value of the last tick counted */
	u64 period;	/* counter ticks, for the host accounting */
	/* host accounting (steal time), see account_host() */
	bool has_steal;
	u64 steal_start, steal_prev, steal_lost;
	u64 worst_unexplained, worst_unexplained_tick, over_late;
	u64 anchor;   /* counter value the schedule starts from */
	u64 armed_at; /* one-shot: when the pending slot was armed */
	u64 stop_at;
	u64 cal_window; /* counter ticks */
	u64 counter_hz;
	u64 next_slot; /* periodic: the first slot not yet passed */
	u64 early, worst_early, ahead, stray;
	volatile u64 woke_at;
	enum { GUARD_NONE, GUARD_WAKE, GUARD_OTHER } guard;
	volatile bool running, done;
} run;

struct cal_sample {
	u64 before, after, count;
};

/* The read whose counter bracket was narrowest: its count was taken inside [before, after]. */
static void cal_sample(u64 (*read)(void), struct cal_sample *best)
{
	for (unsigned i = 0; i < CAL_TRIES; i++) {
		u64 a = arch_counter(), c = read(), b = arch_counter();

		if (i == 0 || b - a < best->after - best->before) {
			best->before = a;
			best->after = b;
			best->count = c;
		}
	}
}

/*
 * ratio = counter ticks between the two brackets' midpoints over the
 * counts between them. Each count was read somewhere in its bracket (half
 * its width either way) and a count is only known to the whole count: the
 * uncertainty is the half-widths plus one count, over the interval.
 */
bool tick_calibrate(u64 (*read)(void), struct tick_cal *cal)
{
	u64 window = run.cal_window;
	struct cal_sample s1, s2;
	u64 mid1, mid2, dt, dc, slack;

	cal_sample(read, &s1);
	while (arch_counter() - s1.after < window)
		read();
	cal_sample(read, &s2);
	mid1 = s1.before + (s1.after - s1.before) / 2;
	mid2 = s2.before + (s2.after - s2.before) / 2;
	dt = mid2 - mid1;
	dc = s2.count - s1.count;
	slack = (s1.after - s1.before) / 2 + (s2.after - s2.before) / 2;
	return tick_cal_from(cal, dt, dc, slack);
}

static u64 slot(u64 i)
{
	return run.anchor + tick_counts_to_ticks(&run.plan.cal, (i + 1) * run.plan.period_counts);
}

/*
 * How early a tick due at due may look without having been early: the
 * calibration's error over the distance it was scheduled across (the
 * whole run for a periodic source, one period for a re-armed one).
 */
static u64 early_tolerance(u64 due)
{
	u64 ref = run.src->kind == TICK_PERIODIC ? run.anchor : run.armed_at;

	return mul_u64_u64_shr32(due - ref, run.err_fx) + 1;
}

/* Lateness of a tick at now due at due: 0 when it was ahead within the calibration's error. */
static u64 lateness(u64 now, u64 due)
{
	if (now >= due)
		return now - due;
	run.ahead++;
	return 0;
}

/*
 * Early: the i-th interrupt before slot i (beyond the calibration error),
 * i.e. more interrupts than expiries so far. Lost or late ticks only make
 * this comparison later, bursts of re-injected ones never make it early.
 */
static bool early(u64 i, u64 now)
{
	u64 due = slot(i);

	if (now >= due || due - now <= early_tolerance(due))
		return false;
	run.early++;
	run.worst_early = max(run.worst_early, due - now);
	return true;
}

/*
 * A periodic source's tick is late against the latest slot it has passed:
 * an interrupt cannot say which expiry it is for, so one more than a period
 * late reads as a lost (coalesced) tick, or as part of a burst.
 */
static u64 periodic_lateness(u64 now)
{
	while (now + early_tolerance(slot(run.next_slot)) >= slot(run.next_slot))
		run.next_slot++;
	return run.next_slot ? lateness(now, slot(run.next_slot - 1)) : 0;
}

/*
 * Take what the host explains off a tick's lateness: the steal time since
 * the previous tick (the vCPU was runnable, the host ran something else).
 * Steal covering n periods may also have cost a periodic source n ticks:
 * that many lost ticks are the host's.
 */
static u64 account_host(u64 late)
{
	u64 st, stolen;

	if (!run.has_steal)
		return late;
	st = tick_arch_steal_ns();
	stolen = ns_to_ticks(st - run.steal_prev, run.counter_hz);
	run.steal_prev = st;
	/* a delay of d coalesces at most d / period expiries into the one delivered */
	run.steal_lost += stolen / run.period;
	return late > stolen ? late - stolen : 0;
}

/*
 * The part of a tick's lateness that is its own, from the moment it could
 * first have come. A one-shot armed after its slot had passed (its
 * predecessor was late) could not fire before it was armed. A periodic
 * source owes an interrupt at the first slot after the previous one: an
 * interrupt held for many periods is that late, even though the lateness
 * against its latest slot (what the statistics report) stays below one
 * period and the expiries in between count as lost.
 */
static u64 own_lateness(u64 i, u64 now, u64 late, u64 first_due)
{
	if (run.src->kind == TICK_PERIODIC)
		return now > first_due ? now - first_due : 0;
	if (run.armed_at <= slot(i))
		return late;
	return now > run.armed_at ? now - run.armed_at : 0;
}

static void record(u64 i, u64 now)
{
	/* periodic: the first slot not passed at the previous interrupt */
	u64 late, unexplained, first_due = slot(run.next_slot);

	if (early(i, now))
		late = 0;
	else if (run.src->kind == TICK_PERIODIC)
		late = periodic_lateness(now);
	else
		late = lateness(now, slot(i));
	run.late[run.received] = late;
	unexplained = account_host(own_lateness(i, now, late, first_due));
	if (unexplained > run.worst_unexplained) {
		run.worst_unexplained = unexplained;
		run.worst_unexplained_tick = i;
	}
	if (unexplained > run.counter_hz * TICK_UNEXPLAINED_LATE_MS / MS_PER_S)
		run.over_late++;
}

/* fault=hold50: the interrupt kept waiting, as a guest or emulation bug would. */
static void hold(u64 ms)
{
	u64 until = arch_counter() + run.counter_hz * ms / MS_PER_S;

	while (arch_counter() < until)
		;
}

static bool rearm_now(u64 i)
{
	return run.src->kind == TICK_ONESHOT &&
	       !(run.fault == FAULT_STOP100 && i + 1 == TICK_FAULT_STOP_AFTER);
}

void tick_interrupt(void)
{
	u64 now, i = run.interrupts;

	if (!run.running || run.done) {
		run.stray++;
		return;
	}
	if (run.fault == FAULT_HOLD50 && i == run.expected / 2)
		hold(TICK_FAULT_HOLD_MS);
	now = arch_counter();
	run.interrupts = i + 1;
	if (!(run.fault == FAULT_DROP10 && i % TICK_FAULT_DROP_EVERY == TICK_FAULT_DROP_EVERY - 1)) {
		record(i, now);
		run.received++;
		run.last_at = now;
	}
	if (i + 1 == run.expected || now >= run.stop_at) {
		run.done = true;
		return;
	}
	if (rearm_now(i)) {
		run.armed_at = now;
		run.src->arm_at(slot(i + 1), now);
	}
}

u64 tick_counter_hz(void)
{
	return run.counter_hz;
}

/*
 * Arm the timer that ends a run whose source stopped: the wake-up timer
 * when the source is another one, else the arch's second timer.
 */
static void arm_guard(u64 when)
{
	if (run.src->wake_use == TICK_OWN_TIMER)
		run.guard = tick_arch_wake_at(when) ? GUARD_WAKE : GUARD_NONE;
	else
		run.guard = tick_arch_guard_at(when) ? GUARD_OTHER : GUARD_NONE;
}

static void cancel_guard(void)
{
	if (run.guard == GUARD_WAKE)
		tick_arch_wake_cancel();
	else if (run.guard == GUARD_OTHER)
		tick_arch_guard_cancel();
}

void tick_wake(void)
{
	/* the guard is armed before the start, from an estimate: hold it to the real end */
	if (run.running && arch_counter() < run.stop_at) {
		arm_guard(run.stop_at);
		return;
	}
	run.woke_at = arch_counter();
	run.done = true;
}

static void wait_done(void)
{
	while (!run.done)
		tick_arch_wait();
}

/* RESULT: timer_tick.SOURCE.NAME value unit */
static void result(const char *name, const char *unit, u64 value)
{
	char full[96];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", run.src->name, name);
	report_result(full, unit, "%llu", (unsigned long long)value);
}

static void result_milli(const char *name, const char *unit, u64 thousandths)
{
	char full[96], buf[24];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", run.src->name, name);
	report_result(full, unit, "%s", fmt_milli(buf, sizeof(buf), thousandths));
}

static void report_lateness(u64 hz)
{
	struct stats st;
	u64 min_ns, med_ns, p99_ns, max_ns;

	stats_compute(run.late, run.received, &st);
	min_ns = ticks_to_ns(st.min, hz);
	med_ns = ticks_to_ns(st.median, hz);
	p99_ns = ticks_to_ns(st.p99, hz);
	max_ns = ticks_to_ns(st.max, hz);
	report_info("lateness: min %llu ns, median %llu ns, p99 %llu ns, max %llu ns",
		    (unsigned long long)min_ns, (unsigned long long)med_ns,
		    (unsigned long long)p99_ns, (unsigned long long)max_ns);
	result("late_min", "ns", min_ns);
	result("late_median", "ns", med_ns);
	result("late_p99", "ns", p99_ns);
	result("late_max", "ns", max_ns);
}

/* Counts, and the rate over the schedule's span (not the wait for lost ticks at the end). */
static void report_counts(u64 span, u64 phase, u64 hz)
{
	u64 span_ns = max(ticks_to_ns(span, hz), 1ull),
	    rate = run.received * MS_PER_S * NS_PER_S / span_ns;
	char buf[24];

	report_info("%llu of %llu ticks in %llu ms: %s per second",
		    (unsigned long long)run.received, (unsigned long long)run.expected,
		    (unsigned long long)(span_ns / 1000000), fmt_milli(buf, sizeof(buf), rate));
	result("ticks_expected", "ticks", run.expected);
	result("ticks_received", "ticks", run.received);
	result_milli("ticks_per_s", "Hz", rate);
	result("phase", "us", ticks_to_ns(phase, hz) / 1000);
}

/* What the host's scheduling explains: steal time over the run, and the ticks it may have cost. */
static void report_host(u64 hz)
{
	u64 steal;

	if (!run.has_steal)
		return;
	steal = tick_arch_steal_ns() - run.steal_start;
	report_info("steal time over the run: %llu us, explaining up to %llu lost tick(s)",
		    (unsigned long long)(steal / 1000), (unsigned long long)run.steal_lost);
	result("steal", "us", steal / 1000);
	result("steal_lost", "ticks", run.steal_lost);
}

static void report_checks(u64 hz)
{
	u64 lost = run.expected - run.received,
	    unexplained = lost > run.steal_lost ? lost - run.steal_lost : 0,
	    allowed = TICK_UNEXPLAINED_LOST_MAX + run.expected * run.src->unseen_host_lost_pct / 100;

	report(unexplained <= allowed,
	       "ticks lost beyond what steal time explains: %llu of %llu lost, %llu explained, "
	       "%llu unexplained (at most %llu%s)",
	       (unsigned long long)lost, (unsigned long long)run.expected,
	       (unsigned long long)min(lost, run.steal_lost), (unsigned long long)unexplained,
	       (unsigned long long)allowed,
	       run.src->unseen_host_lost_pct ? ", the emulation thread's share included" : "");
	report(!run.over_late,
	       "no tick late by more than %u ms beyond steal time: %llu were, the worst tick %llu "
	       "by %llu us",
	       TICK_UNEXPLAINED_LATE_MS, (unsigned long long)run.over_late,
	       (unsigned long long)run.worst_unexplained_tick,
	       (unsigned long long)(ticks_to_ns(run.worst_unexplained, hz) / 1000));
	if (run.plan.cal.err_ppb)
		report(!run.early,
		       "no tick early beyond the calibration's error (%llu ppb of the distance it "
		       "was scheduled over): "
		       "%llu early, the worst by %llu ns",
		       (unsigned long long)run.plan.cal.err_ppb, (unsigned long long)run.early,
		       (unsigned long long)ticks_to_ns(run.worst_early, hz));
	else
		report(!run.early, "no tick before its deadline: %llu early, the worst by %llu ns",
		       (unsigned long long)run.early,
		       (unsigned long long)ticks_to_ns(run.worst_early, hz));
	if (run.ahead)
		report_info("%llu tick(s) before their slot in the calibrated schedule, within its "
			    "error",
			    (unsigned long long)run.ahead);
	if (run.stray)
		report_info("%llu interrupt(s) outside the run, ignored",
			    (unsigned long long)run.stray);
	result("early", "ticks", run.early);
	result("lost", "ticks", lost);
	result("lost_unexplained", "ticks", unexplained);
	result("late_unexplained_max", "ns", ticks_to_ns(run.worst_unexplained, hz));
}

/*
 * A source that stopped ends the run by the guard (or its own wake-up):
 * that is a failure of its own, with the last tick seen, not a lost-tick
 * count among others.
 */
static void report_stopped(u64 end, u64 hz)
{
	u64 since = end - (run.received ? run.last_at : run.anchor);

	if (run.received == run.expected || since < hz * TICK_GRACE_MS / MS_PER_S)
		return;
	if (run.received)
		report(false,
		       "the source stopped: the last tick seen was interrupt %llu of %llu, %llu ms "
		       "into the run; none in the %llu ms after it",
		       (unsigned long long)run.interrupts, (unsigned long long)run.expected,
		       (unsigned long long)(ticks_to_ns(run.last_at - run.anchor, hz) / 1000000),
		       (unsigned long long)(ticks_to_ns(since, hz) / 1000000));
	else
		report(false, "the source never ticked: no interrupt in the %llu ms of the run",
		       (unsigned long long)(ticks_to_ns(since, hz) / 1000000));
}

/* The source's clock as measured, against its period: what the schedule is built from. */
static void report_plan(u64 hz, u64 want_hz)
{
	const struct tick_plan *p = &run.plan;
	u64 period = tick_counts_to_ticks(&p->cal, p->period_counts);
	char rate[24];

	fmt_milli(rate, sizeof(rate), hz * MS_PER_S / max(period, 1ull));
	report_info("source clock %llu Hz against the counter (+-%llu ppb); period %llu counts = "
		    "%llu ns: %s Hz for hz=%llu",
		    (unsigned long long)tick_ticks_to_counts(&p->cal, hz),
		    (unsigned long long)p->cal.err_ppb, (unsigned long long)p->period_counts,
		    (unsigned long long)ticks_to_ns(period, hz), rate, (unsigned long long)want_hz);
}

/* The counter's frequency and the schedule's rate against the reference clock. */
static void check_rates(const struct tick_ref *ref, u64 want_hz, u64 hz)
{
	struct tick_ref_plan p = {
		.source = run.src->name,
		.counter_hz = hz,
		.want_hz = want_hz,
		.slots = run.expected,
		.span = slot(run.expected - 1) - run.anchor,
		.received = run.received,
		/* the period is a whole number of counts: up to one off, plus the calibration */
		.slack_ppb = NS_PER_S / max(run.plan.period_counts, 1ull) + run.plan.cal.err_ppb,
	};

	tick_ref_check(ref, &p);
}

static void run_ticks(const struct tick_source *src, u64 want_hz, u64 seconds, u64 hz)
{
	const char *why = src->setup(want_hz, &run.plan);
	struct tick_ref ref;
	u64 end, span;

	if (why) {
		report(false, "set-up: %s", why);
		return;
	}
	run.err_fx = tick_ppb_to_fx(run.plan.cal.err_ppb);
	run.expected = want_hz * seconds;
	run.late = calloc(run.expected, sizeof(*run.late));
	run.period = max(tick_counts_to_ticks(&run.plan.cal, run.plan.period_counts), 1ull);
	report_plan(hz, want_hz);
	/* the device under test may be a reference too (the HPET): not that one */
	tick_ref_begin(&ref, src->name, hz);
	/* an interrupt latched while its pin was masked lands here, not in the run */
	tick_arch_flush();
	report_info("phase start");
	if (run.has_steal)
		run.steal_start = run.steal_prev = tick_arch_steal_ns();
	/*
	 * A source that stops ticking altogether still ends the run, as a
	 * FAIL: the guard is armed before the start (setting it up can take
	 * tens of milliseconds of device exits, which would make the first
	 * tick late), then armed again, cheaply, for the end of a schedule
	 * starting now; tick_wake() holds it to the real end.
	 */
	span = tick_counts_to_ticks(&run.plan.cal, run.expected * run.plan.period_counts) +
	       hz * TICK_GRACE_MS / MS_PER_S;
	arm_guard(arch_counter() + span);
	if (run.guard != GUARD_NONE)
		arm_guard(arch_counter() + span);
	run.running = true;
	run.anchor = src->start();
	run.stop_at = slot(run.expected - 1) + hz * TICK_GRACE_MS / MS_PER_S;
	if (src->kind == TICK_ONESHOT) {
		run.armed_at = run.anchor;
		src->arm_at(slot(0), run.anchor);
	}
	wait_done();
	end = arch_counter();
	run.running = false;
	src->stop();
	cancel_guard();
	if (run.guard == GUARD_NONE)
		report_info("no second timer to end the run had %s stopped: the runner's timeout "
			    "would have",
			    src->what);
	report_info("phase end");
	tick_ref_end(&ref, hz);
	report_counts(slot(run.expected - 1) - run.anchor, end - run.anchor, hz);
	report_lateness(hz);
	report_host(hz);
	report_stopped(end, hz);
	report_checks(hz);
	check_rates(&ref, want_hz, hz);
}

/* Interrupts an idle run may take: the wake-up, and a spurious one or two. */
#define TICK_IDLE_MAX_INTERRUPTS 3

/* No timer: one wake-up at the end, so the guest sleeps the whole time. */
static void run_idle(u64 seconds, u64 hz)
{
	u64 end, interrupts = 0;

	report_info("phase start");
	run.anchor = arch_counter();
	end = run.anchor + seconds * hz;
	if (!tick_arch_wake_at(end)) {
		report_info("phase end");
		report_skip("no timer to end the idle run with");
		return;
	}
	while (!run.done) {
		tick_arch_wait();
		interrupts++;
	}
	report_info("phase end");
	report_counts(end - run.anchor, run.woke_at - run.anchor, hz);
	report(run.woke_at >= end, "woke once %llu s had passed, not before (%llu ns late)",
	       (unsigned long long)seconds,
	       (unsigned long long)(run.woke_at >= end ? ticks_to_ns(run.woke_at - end, hz) : 0));
	/*
	 * A baseline that takes interrupts is no baseline: a timer the
	 * firmware left running (the PIT at 18.2 Hz) would show up here.
	 */
	report(interrupts <= TICK_IDLE_MAX_INTERRUPTS,
	       "the guest stayed idle: %llu interrupt(s), the wake-up included (at most %d)",
	       (unsigned long long)interrupts, TICK_IDLE_MAX_INTERRUPTS);
	result("wake_late", "ns", run.woke_at >= end ? ticks_to_ns(run.woke_at - end, hz) : 0);
}

static const struct tick_source tick_source_none = {
	.name = "none",
	.what = "no timer (the idle baseline)",
	.kind = TICK_NONE,
	.wake_use = TICK_SHARES_WAKE_TIMER,
};

static const struct tick_source *find_source(const char *name,
					     const struct tick_source *const *srcs, size_t n)
{
	if (!strcmp(name, tick_source_none.name))
		return &tick_source_none;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, srcs[i]->name))
			return srcs[i];
	return NULL;
}

static void __noreturn abort_sources(const char *problem, const struct tick_source *const *srcs,
				     size_t n)
{
	char names[256];
	size_t len = 0;

	names[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(names); i++)
		len += snprintf(names + len, sizeof(names) - len, "%s ", srcs[i]->name);
	report_abort("%s: the sources are %snone", problem, names);
}

static u64 number_arg(const char *key, const char *text, u64 lo, u64 hi)
{
	u64 v;

	if (parse_u64(key, text, &v) || v < lo || v > hi)
		report_abort("%s=%s: want a number from %llu to %llu", key, text,
			     (unsigned long long)lo, (unsigned long long)hi);
	return v;
}

static const char *fault_name(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(tick_faults); i++)
		if (tick_faults[i].fault == run.fault)
			return tick_faults[i].name;
	return "none";
}

static enum tick_fault fault_arg(const char *text)
{
	for (size_t i = 0; i < ARRAY_SIZE(tick_faults); i++)
		if (!strcmp(text, tick_faults[i].name))
			return tick_faults[i].fault;
	report_abort("fault=%s is unknown: the faults are drop10 hold50 freq5 stop100", text);
}

/* The counter's frequency and how it was found, with fault=freq5 applied. */
static u64 counter_hz(const char **how)
{
	u64 hz = tick_arch_counter_hz(how);

	if (run.fault != FAULT_FREQ5)
		return hz;
	report_info("fault=freq5: the counter's frequency taken %u%% of %llu Hz",
		    TICK_FAULT_FREQ_PCT, (unsigned long long)hz);
	return hz * TICK_FAULT_FREQ_PCT / 100;
}

static void start_host_accounting(void)
{
	const char *why = tick_arch_steal_init();

	run.has_steal = !why;
	if (why)
		report_info("lateness and lost ticks judged without steal time: %s", why);
	else
		report_info("steal time (KVM) read at every tick: lateness and lost ticks it "
			    "explains are the host's");
}

int tick_main(int argc, char **argv, const struct tick_source *const *srcs, size_t n)
{
	const struct tick_source *src = NULL;
	u64 want_hz = 1000, seconds = 10, hz;
	const char *v, *why, *how;

	for (int i = 1; i < argc; i++) {
		if ((v = arg_value(argv[i], "source"))) {
			src = find_source(v, srcs, n);
			if (!src) {
				char why[96];

				snprintf(why, sizeof(why), "source=%s is unknown", v);
				abort_sources(why, srcs, n);
			}
		} else if ((v = arg_value(argv[i], "hz"))) {
			want_hz = number_arg("hz", v, 1, TICK_HZ_MAX);
		} else if ((v = arg_value(argv[i], "seconds"))) {
			seconds = number_arg("seconds", v, 1, TICK_SECONDS_MAX);
		} else if ((v = arg_value(argv[i], "fault"))) {
			run.fault = fault_arg(v);
		} else {
			report_abort("unknown argument '%s': source=NAME hz=N seconds=N [fault=F]",
				     argv[i]);
		}
	}
	if (!src)
		abort_sources("source= is missing", srcs, n);
	if (want_hz * seconds > TICK_MAX_SAMPLES)
		report_abort("hz * seconds = %llu ticks: more than the %u this kernel keeps",
			     (unsigned long long)(want_hz * seconds), TICK_MAX_SAMPLES);
	report_prefix_push(src->name);
	run.src = src;
	hz = arch_counter_hz();
	if (!hz)
		report_abort("the counter's frequency is unknown");
	/* sized from the rough figure; the arch measures a better one */
	run.cal_window = max(hz * CAL_WINDOW_MIN_MS / MS_PER_S, hz * seconds / CAL_RUN_SHARE);
	tick_arch_init();
	tick_arch_irqs_off();
	hz = run.counter_hz = counter_hz(&how);
	why = src->probe ? src->probe() : NULL;
	if (why) {
		report_skip("%s: %s", src->what, why);
		return report_summary();
	}
	report_info("%s: %llu Hz for %llu s", src->what, (unsigned long long)want_hz,
		    (unsigned long long)seconds);
	report_info("counter at %llu Hz (%s)", (unsigned long long)hz, how);
	if (run.fault == FAULT_STOP100 && src->kind != TICK_ONESHOT)
		report_abort("fault=stop100 needs a one-shot source; %s is not one", src->name);
	if (run.fault)
		report_info("fault=%s injected on purpose: this run should FAIL", fault_name());
	if (src->kind == TICK_NONE) {
		run_idle(seconds, hz);
	} else {
		start_host_accounting();
		run_ticks(src, want_hz, seconds, hz);
	}
	return report_summary();
}
