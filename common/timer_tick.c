/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch-neutral timer-tick engine: arguments, schedule, lateness, statistics, reports. */
#include "timer_tick.h"
#include "alloc.h"
#include "arch.h"
#include "argv.h"
#include "irq.h"
#include "report.h"
#include "stats.h"
#include "tick_engine.h"
#include "tick_ref.h"
#include "wait.h"

#define TICK_HZ_MAX	 10000
#define TICK_SECONDS_MAX 600
/* 16 MiB of lateness samples at most */
#define TICK_MAX_SAMPLES (1u << 21)
/* Test-only faults (fault=NAME): what hold20 and hold50 hold, after how many ticks stop100 stops.
 */
#define TICK_FAULT_HOLD20_MS  20
#define TICK_FAULT_HOLD50_MS  50
#define TICK_FAULT_STOP_AFTER 100
#define TICK_FAULT_DROP_EVERY 10
/* fault=miss: one expiry in this many muted, unless miss_every= says otherwise (2 %) */
#define TICK_FAULT_MISS_EVERY	  50
#define TICK_FAULT_MISS_EVERY_MIN 2
#define TICK_FAULT_MISS_EVERY_MAX 1000000
/* freq1 and freq5: the counter's frequency taken this many thousandths of itself */
#define TICK_FAULT_FREQ1_PERMILLE 1010
#define TICK_FAULT_FREQ5_PERMILLE 1050
/* Best bracket of this many reads at each end of a calibration. */
#define CAL_TRIES 16
/*
 * The calibration lasts a tenth of the run, at least 200 ms: the schedule
 * of a periodic source then drifts from the source by at most ten bracket
 * widths (a few tens of microseconds here) by the end of any run.
 */
#define CAL_WINDOW_MIN_MS 200
#define CAL_RUN_SHARE	  10

static const char *const tick_fault_names[] = {
	[FAULT_NONE] = "none",	   [FAULT_DROP10] = "drop10", [FAULT_HOLD20] = "hold20",
	[FAULT_HOLD50] = "hold50", [FAULT_FREQ1] = "freq1",   [FAULT_FREQ5] = "freq5",
	[FAULT_STOP100] = "stop100", [FAULT_MISS] = "miss",
};

struct tick_run tick_run;

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
	u64 window = tick_run.cal_window;
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

u64 tick_slot(u64 i)
{
	return tick_run.anchor +
	       tick_counts_to_ticks(&tick_run.plan.cal, (i + 1) * tick_run.plan.period_counts);
}

/*
 * How early a tick due at due may look without having been early: the
 * calibration's error over the distance it was scheduled across (the
 * whole run for a periodic source, one period for a re-armed one).
 */
static u64 early_tolerance(u64 due)
{
	u64 ref = tick_run.src->kind == TICK_PERIODIC ? tick_run.anchor : tick_run.armed_at;

	return mul_u64_u64_shr32(due - ref, tick_run.err_fx) + 1;
}

/* Lateness of a tick at now due at due: 0 when it was ahead within the calibration's error. */
static u64 lateness(u64 now, u64 due)
{
	if (now >= due)
		return now - due;
	tick_run.ahead++;
	return 0;
}

/*
 * Early: the i-th interrupt before slot i (beyond the calibration error),
 * i.e. more interrupts than expiries so far. Lost or late ticks only make
 * this comparison later, bursts of re-injected ones never make it early.
 */
static bool early(u64 i, u64 now)
{
	u64 due = tick_slot(i);

	if (now >= due || due - now <= early_tolerance(due))
		return false;
	tick_run.early++;
	tick_run.worst_early = max(tick_run.worst_early, due - now);
	return true;
}

/* Periodic: count the slots the counter has passed by now (within the calibration's error). */
static void pass_slots(u64 now)
{
	while (now + early_tolerance(tick_slot(tick_run.next_slot)) >=
	       tick_slot(tick_run.next_slot))
		tick_run.next_slot++;
}

/*
 * A periodic source's tick is late against the latest slot it has passed:
 * an interrupt cannot say which expiry it is for, so one more than a period
 * late reads as a lost (coalesced) tick, or as part of a burst.
 */
static u64 periodic_lateness(u64 now)
{
	return tick_run.next_slot ? lateness(now, tick_slot(tick_run.next_slot - 1)) : 0;
}

/* Steal time published since the previous call, in counter ticks (0 without steal time). */
static u64 steal_since_last(void)
{
	u64 st, stolen;

	if (!tick_run.has_steal)
		return 0;
	st = steal_ns();
	stolen = ns_to_ticks(st - tick_run.steal_prev, tick_run.counter_hz);
	tick_run.steal_prev = st;
	return stolen;
}

/*
 * Lost ticks the host explains: a delay of d coalesces at most d / period
 * expiries of a periodic source into the one delivered. The vCPU cannot
 * have waited longer than the time between two ticks; KVM publishes steal
 * time at its next entry, so under load some comes an interval late (and
 * kvm-pvm's once added up to 3.3 s in a 2 s run): what does not fit an
 * interval is carried to the next, never counted beyond the time passed.
 */
static void account_lost(u64 now, u64 stolen)
{
	u64 since = now - tick_run.prev_at, avail = stolen + tick_run.steal_carry;
	u64 used = min(avail, since);

	tick_run.prev_at = now;
	tick_run.steal_carry = avail - used;
	tick_run.steal_lost += used / tick_run.period;
}

/*
 * Take what the host explains off the pending tick's own lateness: the
 * steal time published from the tick before it up to the tick after it
 * (or the run's end), which covers its wait even when KVM published it
 * one entry late. Judged then against the bound.
 */
static void judge_pending(u64 stolen_after)
{
	u64 late = tick_run.pend_late, stolen = tick_run.pend_stolen + stolen_after;
	u64 unexplained = late > stolen ? late - stolen : 0;

	if (!tick_run.pend_valid)
		return;
	tick_run.pend_valid = false;
	if (unexplained > tick_run.worst_unexplained) {
		tick_run.worst_unexplained = unexplained;
		tick_run.worst_unexplained_tick = tick_run.pend_tick;
	}
	if (unexplained > tick_run.counter_hz * TICK_UNEXPLAINED_LATE_MS / MSEC_PER_SEC)
		tick_run.over_late++;
}

static void account_host(u64 i, u64 now, u64 own_late)
{
	u64 stolen = steal_since_last();

	account_lost(now, stolen);
	judge_pending(stolen);
	tick_run.pend_valid = true;
	tick_run.pend_tick = i;
	tick_run.pend_late = own_late;
	tick_run.pend_stolen = stolen;
}

/* At the run's end: the last tick, with the steal time published since. */
static void tick_account_end(void)
{
	judge_pending(steal_since_last());
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
	if (tick_run.src->kind == TICK_PERIODIC)
		return now > first_due ? now - first_due : 0;
	if (tick_run.armed_at <= tick_slot(i))
		return late;
	return now > tick_run.armed_at ? now - tick_run.armed_at : 0;
}

/* first_due: periodic, the first slot not passed at the previous interrupt */
static void record(u64 i, u64 now, u64 first_due)
{
	u64 late;

	if (early(i, now))
		late = 0;
	else if (tick_run.src->kind == TICK_PERIODIC)
		late = periodic_lateness(now);
	else
		late = lateness(now, tick_slot(i));
	tick_run.late[tick_run.received] = late;
	account_host(i, now, own_lateness(i, now, late, first_due));
}

static bool rearm_now(u64 i)
{
	return tick_run.src->kind == TICK_ONESHOT &&
	       !(tick_run.fault == FAULT_STOP100 && i + 1 == TICK_FAULT_STOP_AFTER);
}

/*
 * fault=miss: the source muted from now until its next expiry is half a
 * period past, so that expiry's interrupt never reaches the CPU (no
 * handler runs for it), the source ticking on at its phase: a lost
 * interrupt as a device or an interrupt controller loses one.
 */
static void miss_next_expiry(void)
{
	u64 gone = tick_slot(tick_run.next_slot) + tick_run.period / 2;

	tick_run.src->mute(true);
	spin_until(gone);
	tick_run.src->mute(false);
	tick_run.missed++;
}

/* The run is over: the schedule's last slot passed, every tick it owes came, or the grace ran out. */
static bool run_over(u64 i, u64 now)
{
	tick_run.slots_passed = tick_run.src->kind == TICK_PERIODIC ? tick_run.next_slot : i + 1;
	return tick_run.slots_passed >= tick_run.expected ||
	       tick_run.received >= tick_run.expected || now >= tick_run.stop_at;
}

void tick_interrupt(void)
{
	u64 now, first_due, i = tick_run.interrupts;

	if (!tick_run.running || tick_run.done) {
		tick_run.stray++;
		return;
	}
	/* fault=hold20, hold50: the interrupt kept waiting, as a guest or emulation bug would */
	if (tick_run.fault == FAULT_HOLD20 && i == tick_run.expected / 2)
		spin_ns(TICK_FAULT_HOLD20_MS * NSEC_PER_MSEC);
	if (tick_run.fault == FAULT_HOLD50 && i == tick_run.expected / 2)
		spin_ns(TICK_FAULT_HOLD50_MS * NSEC_PER_MSEC);
	now = arch_counter();
	tick_run.interrupts = i + 1;
	first_due = tick_slot(tick_run.next_slot);
	if (tick_run.src->kind == TICK_PERIODIC)
		pass_slots(now);
	if (!(tick_run.fault == FAULT_DROP10 &&
	      i % TICK_FAULT_DROP_EVERY == TICK_FAULT_DROP_EVERY - 1)) {
		record(i, now, first_due);
		tick_run.received++;
		tick_run.last_at = now;
	}
	if (run_over(i, now)) {
		tick_run.done = true;
		return;
	}
	/* slots miss_every - 1, 2 * miss_every - 1, ...: one expiry in miss_every */
	if (tick_run.fault == FAULT_MISS && (tick_run.next_slot + 1) % tick_run.miss_every == 0)
		miss_next_expiry();
	if (rearm_now(i)) {
		tick_run.armed_at = now;
		tick_run.src->arm_at(tick_slot(i + 1), now);
	}
}

u64 tick_counter_hz(void)
{
	return tick_run.counter_hz;
}

/*
 * Arm the timer that ends a run whose source stopped: the wake-up timer
 * when the source is another one, else the arch's second timer.
 */
static void arm_guard(u64 when)
{
	if (tick_run.src->wake_use == TICK_OWN_TIMER)
		tick_run.guard = tick_run.arch->wake_at(when) ? GUARD_WAKE : GUARD_NONE;
	else
		tick_run.guard = tick_run.arch->guard_at(when) ? GUARD_OTHER : GUARD_NONE;
}

static void cancel_guard(void)
{
	if (tick_run.guard == GUARD_WAKE)
		tick_run.arch->wake_cancel();
	else if (tick_run.guard == GUARD_OTHER)
		tick_run.arch->guard_cancel();
}

void tick_wake(void)
{
	/* the guard is armed before the start, from an estimate: hold it to the real end */
	if (tick_run.running && arch_counter() < tick_run.stop_at) {
		arm_guard(tick_run.stop_at);
		return;
	}
	tick_run.woke_at = arch_counter();
	tick_run.done = true;
}

static void wait_done(void)
{
	while (!tick_run.done)
		tick_run.arch->wait();
}

static void run_ticks(const struct tick_source *src, u64 want_hz, u64 seconds, u64 hz)
{
	const char *why = src->setup(want_hz, &tick_run.plan);
	struct tick_ref ref;
	u64 end, span;

	if (why) {
		report(false, "set-up: %s", why);
		return;
	}
	tick_run.err_fx = tick_ppb_to_fx(tick_run.plan.cal.err_ppb);
	tick_run.expected = want_hz * seconds;
	tick_run.late = calloc(tick_run.expected, sizeof(*tick_run.late));
	tick_run.period =
		max(tick_counts_to_ticks(&tick_run.plan.cal, tick_run.plan.period_counts), 1ull);
	tick_report_plan(hz, want_hz);
	/* the device under test may be a reference too (the HPET): not that one */
	tick_ref_begin(&ref, src->refclock ? src->refclock : src->name, hz);
	/* an interrupt latched while its pin was masked lands here, not in the run */
	tick_run.arch->flush();
	report_info("phase start");
	if (tick_run.has_steal)
		tick_run.steal_start = tick_run.steal_prev = steal_ns();
	tick_run.prev_at = arch_counter();
	/*
	 * A source that stops ticking altogether still ends the run, as a
	 * FAIL: the guard is armed before the start (setting it up can take
	 * tens of milliseconds of device exits, which would make the first
	 * tick late), then armed again, cheaply, for the end of a schedule
	 * starting now; tick_wake() holds it to the real end.
	 */
	span = tick_counts_to_ticks(&tick_run.plan.cal,
				    tick_run.expected * tick_run.plan.period_counts) +
	       hz * TICK_GRACE_MS / MSEC_PER_SEC;
	arm_guard(arch_counter() + span);
	if (tick_run.guard != GUARD_NONE)
		arm_guard(arch_counter() + span);
	tick_run.running = true;
	tick_run.anchor = src->start();
	tick_run.stop_at = tick_slot(tick_run.expected - 1) + hz * TICK_GRACE_MS / MSEC_PER_SEC;
	if (src->kind == TICK_ONESHOT) {
		tick_run.armed_at = tick_run.anchor;
		src->arm_at(tick_slot(0), tick_run.anchor);
	}
	wait_done();
	end = tick_run.end_at = arch_counter();
	tick_run.running = false;
	src->stop();
	cancel_guard();
	tick_account_end();
	if (tick_run.guard == GUARD_NONE)
		report_info("no second timer to end the run had %s stopped: the runner's timeout "
			    "would have",
			    src->what);
	report_info("phase end");
	tick_ref_end(&ref, hz);
	tick_report_counts(tick_slot(tick_run.expected - 1) - tick_run.anchor,
			   end - tick_run.anchor, hz);
	tick_report_lateness(hz);
	tick_report_host(hz);
	tick_report_stopped(end, hz);
	tick_report_checks(hz, want_hz);
	tick_check_rates(&ref, want_hz, hz);
}

/* Interrupts an idle run may take: the wake-up, and a spurious one or two. */
#define TICK_IDLE_MAX_INTERRUPTS 3

/* No timer: one wake-up at the end, so the guest sleeps the whole time. */
static void run_idle(u64 seconds, u64 hz)
{
	u64 end, interrupts = 0;

	report_info("phase start");
	tick_run.anchor = arch_counter();
	end = tick_run.anchor + seconds * hz;
	if (!tick_run.arch->wake_at(end)) {
		report_info("phase end");
		report_skip("no timer to end the idle run with");
		return;
	}
	while (!tick_run.done) {
		tick_run.arch->wait();
		interrupts++;
	}
	report_info("phase end");
	tick_report_counts(end - tick_run.anchor, tick_run.woke_at - tick_run.anchor, hz);
	report(tick_run.woke_at >= end, "woke once %llu s had passed, not before (%llu ns late)",
	       seconds, tick_run.woke_at >= end ? ticks_to_ns(tick_run.woke_at - end, hz) : 0);
	/*
	 * A baseline that takes interrupts is no baseline: a timer the
	 * firmware left running (the PIT at 18.2 Hz) would show up here.
	 */
	report(interrupts <= TICK_IDLE_MAX_INTERRUPTS,
	       "the guest stayed idle: %llu interrupt(s), the wake-up included (at most %d)",
	       interrupts, TICK_IDLE_MAX_INTERRUPTS);
	tick_result("wake_late", "ns",
		    tick_run.woke_at >= end ? ticks_to_ns(tick_run.woke_at - end, hz) : 0);
}

static const struct tick_source tick_source_none = {
	.name = "none",
	.what = "no timer (the idle baseline)",
	.kind = TICK_NONE,
	.wake_use = TICK_SHARES_WAKE_TIMER,
};

#define TICK_SOURCES_MAX 8

static const char *fault_name(void)
{
	return tick_fault_names[tick_run.fault];
}

struct tick_args {
	const char *sources[TICK_SOURCES_MAX + 1]; /* srcs' names, then "none" */
	unsigned source, fault;
	u64 hz, seconds, miss_every;
};

/* The source a run ticks with: one of srcs, or tick_source_none after them. */
static const struct tick_source *parse_args(int argc, char **argv,
					    const struct tick_source *const *srcs, size_t n,
					    struct tick_args *a)
{
	const struct arg args[] = {
		{ .key = "source", .kind = ARG_KIND_ONE_OF, .to.index = &a->source,
		  .names = a->sources, .nnames = n + 1, .required = true,
		  .help = "the tick source" },
		ARG_UINT("hz", &a->hz, 1, TICK_HZ_MAX, "1000", "ticks per second"),
		ARG_UINT("seconds", &a->seconds, 1, TICK_SECONDS_MAX, "10", "how long to tick"),
		ARG_ONE_OF("fault", &a->fault, tick_fault_names, "none",
			   "test-only: the check to make fail"),
		ARG_UINT("miss_every", &a->miss_every, 0, TICK_FAULT_MISS_EVERY_MAX, "0",
			 "fault=miss: one expiry in this many never delivered (0: 50)"),
	};
	const struct arg_table table = ARG_TABLE(args);

	if (n > TICK_SOURCES_MAX)
		report_abort("%zu tick sources: at most %d", n, TICK_SOURCES_MAX);
	for (size_t i = 0; i < n; i++)
		a->sources[i] = srcs[i]->name;
	a->sources[n] = tick_source_none.name;
	args_parse_or_abort(&table, argc, argv);
	tick_run.fault = (enum tick_fault)a->fault;
	if (a->miss_every && tick_run.fault != FAULT_MISS)
		report_abort("miss_every=%llu: it sets fault=miss's interval, and fault=%s was given",
			     a->miss_every, tick_fault_names[tick_run.fault]);
	if (a->miss_every && a->miss_every < TICK_FAULT_MISS_EVERY_MIN)
		report_abort("miss_every=%llu would mute every expiry: at least %d", a->miss_every,
			     TICK_FAULT_MISS_EVERY_MIN);
	tick_run.miss_every = a->miss_every ? a->miss_every : TICK_FAULT_MISS_EVERY;
	return a->source < n ? srcs[a->source] : &tick_source_none;
}

/* The counter's frequency and how it was found, with fault=freq5 applied. */
static u64 counter_hz(const char **how)
{
	u64 hz = tick_run.arch->counter_hz(how);

	u64 permille = tick_run.fault == FAULT_FREQ1   ? TICK_FAULT_FREQ1_PERMILLE
		       : tick_run.fault == FAULT_FREQ5 ? TICK_FAULT_FREQ5_PERMILLE
						       : 0;

	if (!permille)
		return hz;
	report_info("fault=%s: the counter's frequency taken as %llu/1000 of %llu Hz", fault_name(),
		    permille, hz);
	return hz * permille / 1000;
}

/*
 * Whether the guest's clock advances by its own instructions (QEMU's
 * -icount with sleep=off, the TCG entries' setting): a fixed loop then
 * lasts the same number of counter ticks, to the tick, every time, which
 * in real time it never does at these rates (thousands of ticks, jitter of
 * tens). The host's delays then move no expiry against the guest's time,
 * and no tick is lost to them.
 */
#define INSN_CLOCK_TRIES 8
#define INSN_CLOCK_LOOPS 20000

static bool clock_by_instructions(u64 *ticks)
{
	for (unsigned t = 0; t < INSN_CLOCK_TRIES; t++) {
		u64 start = arch_counter(), took;

		for (volatile unsigned n = 0; n < INSN_CLOCK_LOOPS; n++)
			;
		took = arch_counter() - start;
		if (t && took != *ticks)
			return false;
		*ticks = took;
	}
	return true;
}

static void start_host_accounting(void)
{
	u64 loop = 0;
	const char *why;

	tick_run.clock_by_instructions = clock_by_instructions(&loop);
	if (tick_run.clock_by_instructions)
		report_info("the guest's clock runs by its instructions (a fixed loop lasted %llu "
			    "counter ticks %d times out of %d): the host's delays cost no tick",
			    loop, INSN_CLOCK_TRIES, INSN_CLOCK_TRIES);
	why = steal_init();

	tick_run.has_steal = !why;
	if (why)
		report_info("lateness and lost ticks judged without steal time: %s", why);
	else
		report_info("steal time (KVM) read at every tick: lateness and lost ticks it "
			    "explains are the host's");
}

int tick_main(int argc, char **argv, const struct tick_arch *arch, const struct tick_source *const *srcs,
	      size_t n)
{
	struct tick_args a;
	const struct tick_source *src = parse_args(argc, argv, srcs, n, &a);
	u64 want_hz = a.hz, seconds = a.seconds, hz;
	const char *why, *how;

	if (want_hz * seconds > TICK_MAX_SAMPLES)
		report_abort("hz * seconds = %llu ticks: more than the %u this kernel keeps",
			     want_hz * seconds, TICK_MAX_SAMPLES);
	report_prefix_push(src->name);
	tick_run.arch = arch;
	tick_run.src = src;
	hz = arch_counter_hz();
	if (!hz)
		report_abort("the counter's frequency is unknown");
	/* sized from the rough figure; the arch measures a better one */
	tick_run.cal_window = max(hz * CAL_WINDOW_MIN_MS / MSEC_PER_SEC, hz * seconds / CAL_RUN_SHARE);
	tick_run.arch->init();
	irq_disable();
	hz = tick_run.counter_hz = counter_hz(&how);
	why = src->probe ? src->probe() : NULL;
	if (why) {
		report_skip("%s: %s", src->what, why);
		return report_summary();
	}
	report_info("%s: %llu Hz for %llu s", src->what, want_hz, seconds);
	report_info("counter at %llu Hz (%s)", hz, how);
	if (tick_run.fault == FAULT_STOP100 && src->kind != TICK_ONESHOT)
		report_abort("fault=stop100 needs a one-shot source; %s is not one", src->name);
	if (tick_run.fault == FAULT_MISS && !src->mute)
		report_abort("fault=miss needs a periodic source; %s is not one (a re-armed "
			     "one-shot that misses an interrupt stops ticking: fault=stop100)",
			     src->name);
	if (tick_run.fault == FAULT_MISS)
		report_info("fault=miss: one expiry in %llu never delivered (%s muted over it)",
			    tick_run.miss_every, src->name);
	if (tick_run.fault)
		report_info("fault=%s injected on purpose: this run should FAIL", fault_name());
	if (src->kind == TICK_NONE) {
		run_idle(seconds, hz);
	} else {
		start_host_accounting();
		run_ticks(src, want_hz, seconds, hz);
	}
	return report_summary();
}
