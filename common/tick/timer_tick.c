/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch-neutral timer-tick engine: calibration, the schedule, the interrupts, the run and its judgment (arguments: timer_tick_args.c; the host's evidence: tick_host.c). */
#include "timer_tick.h"
#include "alloc.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "stats.h"
#include "tick_engine.h"
#include "tick_figure.h"
#include "tick_ref.h"
#include "tick_record.h"
#include "units.h"
#include "wait.h"
#include "host_evidence.h"

/* 16 MiB of lateness samples at most */
#define TICK_MAX_SAMPLES (1u << 21)
/* Test-only faults (fault=NAME): what hold20 and hold50 hold, after how many ticks stop100 stops.
 */
#define TICK_FAULT_HOLD20_MS  20
#define TICK_FAULT_HOLD50_MS  50
#define TICK_FAULT_STOP_AFTER 100
#define TICK_FAULT_DROP_EVERY 10
#define TICK_FAULT_EARLY_EVERY 10
/* slow_arm=: one arming in this many held a period longer (tick_slow_arm()) */
#define TICK_SLOW_ARM_EVERY 8
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

struct source_read {
	u64 (*read)(void);
};

static bool read_source(void *arg, u64 now)
{
	((struct source_read *)arg)->read();
	return false;
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
	/* the source read again and again through the window */
	work_until(read_source, &(struct source_read){read}, s1.after + window);
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

/* How early a periodic tick due at due may look: the calibration's error over the run so far. */
static u64 early_tolerance(u64 due)
{
	return mul_u64_u64_shr32(due - tick_run.anchor, tick_run.err_fx) + 1;
}

/* Periodic: count the slots the counter has passed by now (within the calibration's error). */
static void pass_slots(u64 now)
{
	while (now + early_tolerance(tick_slot(tick_run.next_slot)) >=
	       tick_slot(tick_run.next_slot))
		tick_run.next_slot++;
}

/* The record of a tick: when it came, and the steal time so far (common/tick/tick_judge.c judges them). */
static void record(u64 now)
{
	tick_run.at[tick_run.received] = now;
	if (tick_run.has_steal)
		tick_run.steal[tick_run.received] = steal_ns() - tick_run.steal_start;
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
	u64 span = max(tick_run.src->mute_span, 1u),
	    gone = tick_slot(tick_run.next_slot + span - 1) + tick_run.period / 2;

	tick_run.src->mute(true);
	spin_until(gone);
	tick_run.src->mute(false);
	tick_run.missed++;
}

/* The run is over: the schedule's last slot passed, every tick it owes came, or the grace ran out. */
static bool run_over(u64 i, u64 now)
{
	u64 passed = tick_run.src->kind == TICK_PERIODIC ? tick_run.next_slot : i + 1;

	return passed >= tick_run.expected ||
	       tick_run.received >= tick_run.expected || now >= tick_run.stop_at;
}

/*
 * slow_arm=N: every comparator write held N us before it lands, time in
 * which QEMU fires what earlier writes armed (as its main loop does beside
 * a slow vCPU under kvm-pvm), and one arming in TICK_SLOW_ARM_EVERY a
 * period more, so that it is found passed and made again, its tick comes
 * late and the ticks after it catch up, armed for slots already passed.
 */
void tick_slow_arm(void)
{
	u64 ns = tick_run.slow_arm_ns;

	if (ns && tick_run.armings % TICK_SLOW_ARM_EVERY == 0)
		ns += ticks_to_ns(tick_run.period, tick_run.counter_hz);
	if (ns)
		spin_ns(ns);
}

/*
 * A one-shot armed for the counter value when; slow_arm= counts the
 * armings. fault=early10: one in ten followed at once by the tick's
 * vector, an interrupt long before the comparator, as a timer that fires
 * early: the handler runs for it.
 */
static void arm(u64 when, u64 now)
{
	tick_run.armings++;
	tick_run.src->arm_at(when, now);
	if (tick_run.fault == FAULT_EARLY10 && tick_run.armings % TICK_FAULT_EARLY_EVERY == 0)
		tick_run.arch->raise();
}

void tick_interrupt(void)
{
	u64 now, i = tick_run.interrupts;

	if (!tick_run.running || tick_run.done) {
		tick_run.stray++;
		return;
	}
	if (tick_run.src->stale && tick_run.src->stale()) {
		tick_run.stale++;
		return;
	}
	/* fault=hold20, hold50: the interrupt kept waiting, as a guest or emulation bug would */
	if (tick_run.fault == FAULT_HOLD20 && i == tick_run.expected / 2)
		spin_ns(TICK_FAULT_HOLD20_MS * NSEC_PER_MSEC);
	if (tick_run.fault == FAULT_HOLD50 && i == tick_run.expected / 2)
		spin_ns(TICK_FAULT_HOLD50_MS * NSEC_PER_MSEC);
	now = arch_counter();
	tick_run.interrupts = i + 1;
	if (tick_run.src->kind == TICK_PERIODIC)
		pass_slots(now);
	if (!(tick_run.fault == FAULT_DROP10 &&
	      i % TICK_FAULT_DROP_EVERY == TICK_FAULT_DROP_EVERY - 1)) {
		record(now);
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
	if (rearm_now(i))
		arm(tick_slot(i + 1), now);
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

/* The run's end, else a sleep until the next interrupt, counted in *(u64 *)woken. */
static bool done_else_wait(void *woken)
{
	u64 n = tick_run.received;

	if (tick_run.done)
		return true;
	/* interrupts come in again here: where the last tick's handling ended (scripts/tick-trace)
	 */
	if (tick_run.open && n && !tick_run.open[n - 1])
		tick_run.open[n - 1] = arch_counter();
	tick_run.arch->wait();
	++*(u64 *)woken;
	return false;
}

static void wait_done(void)
{
	u64 woken = 0;

	wait_cond(done_else_wait, &woken);
}

/* The record of the run that ended: times after the anchor. */
static void make_record(struct tick_record *r, u64 want_hz)
{
	for (u64 j = 0; j < tick_run.received; j++) {
		u64 open = tick_run.open[j];

		tick_run.open[j] = open > tick_run.at[j] ? open - tick_run.at[j] : 0;
		tick_run.at[j] -= tick_run.anchor;
	}
	*r = (struct tick_record){
		.source = tick_run.src->name,
		.kind = tick_run.src->kind == TICK_PERIODIC ? TICK_REC_PERIODIC : TICK_REC_ONESHOT,
		.counter_hz = tick_run.counter_hz,
		.want_hz = want_hz,
		.expected = tick_run.expected,
		.period_counts = tick_run.plan.period_counts,
		.cal = tick_run.plan.cal,
		.end_at = tick_run.end_at - tick_run.anchor,
		.n = tick_run.received,
		.at = tick_run.at,
		.steal_ns = tick_run.has_steal ? tick_run.steal : NULL,
		.steal_end_ns = tick_run.has_steal ? steal_ns() - tick_run.steal_start : 0,
		.anchor = tick_run.anchor,
		.open = tick_run.open,
	};
}

/*
 * A source that stops ticking altogether still ends the run, as a FAIL:
 * the guard is armed before the start (setting it up can take tens of
 * milliseconds of device exits, which would make the first tick late),
 * then armed again, cheaply, for the end of a schedule starting now;
 * tick_wake() holds it to the real end.
 */
static void tick_until_done(const struct tick_source *src, u64 counter_hz)
{
	u64 span = tick_counts_to_ticks(&tick_run.plan.cal,
					tick_run.expected * tick_run.plan.period_counts) +
		   counter_hz * TICK_GRACE_MS / MSEC_PER_SEC;

	arm_guard(arch_counter() + span);
	if (tick_run.guard != GUARD_NONE)
		arm_guard(arch_counter() + span);
	tick_run.running = true;
	tick_run.anchor = src->start();
	tick_run.stop_at =
		tick_slot(tick_run.expected - 1) + counter_hz * TICK_GRACE_MS / MSEC_PER_SEC;
	if (src->kind == TICK_ONESHOT)
		arm(tick_slot(0), tick_run.anchor);
	wait_done();
	tick_run.end_at = arch_counter();
	tick_run.running = false;
	src->stop();
	cancel_guard();
}

/* The engine's list for a run's judgment (tick_judge.h), emptied. */
static struct checks *fresh_checks(void)
{
	static struct check entries[TICK_CHECKS_MAX];
	static char text[TICK_CHECKS_TEXT_KB * 1024];
	static struct checks list;

	checks_init(&list, entries, TICK_CHECKS_MAX, text, sizeof(text));
	return &list;
}

/* The source's clock and period, printed before the host is asked (it takes a while). */
static void report_plan(const struct tick_record *r)
{
	struct checks *out = fresh_checks();

	tick_note_plan(out, r);
	report_checks(out);
}

static void judge_and_report(const struct tick_record *r, const struct tick_ref *ref,
			     u64 counter_hz)
{
	struct tick_work *w = tick_work(r->n);
	struct checks *out = fresh_checks();
	struct tick_verdict v;
	unsigned judged;
	bool failed;

	tick_judge(r, &v, w);
	tick_note_counts(out, r->source, r->expected, r->n, tick_rec_slot(r, r->expected - 1),
			 r->end_at, counter_hz);
	tick_note_lateness(out, r, w->late);
	/* after the lateness: the resolution's runs reuse the judgment's work arrays */
	tick_take_resolution(r, &v, w, tick_run.needs_one_in);
	tick_note_host(out, r, &v);
	tick_check_stopped(out, r, tick_run.interrupts);
	if (tick_run.missed)
		checks_info(out, "fault=miss muted %llu expiries", tick_run.missed);
	if (tick_run.stray)
		checks_info(out, "%llu interrupt(s) outside the run, ignored", tick_run.stray);
	if (tick_run.src->stale)
		checks_info(out,
			    "%llu interrupt(s) were abandoned armings', pending when the arming in "
			    "force was made and come before its comparator: not ticks",
			    tick_run.stale);
	judged = out->n;
	tick_checks(out, r, &v);
	/* the checks its record replays (scripts/tick-judge), not the reference's rates */
	failed = checks_failed_from(out, judged) || out->dropped;
	tick_check_rates(out, r, ref);
	/* thousands of numbers through the serial port: seconds under a slow KVM, so on demand */
	if (record_wanted(tick_run.record, failed))
		tick_record_print(r);
	report_checks(out);
}

static void run_ticks(const struct tick_source *src, u64 want_hz, u64 seconds, u64 counter_hz)
{
	const char *why = src->setup(want_hz, &tick_run.plan);
	struct tick_record r;
	struct tick_ref ref;
	struct host_span span;

	if (why) {
		struct checks *out = fresh_checks();

		checks_plain(out, false, "set-up: %s", why);
		report_checks(out);
		return;
	}
	tick_run.err_fx = tick_ppb_to_fx(tick_run.plan.cal.err_ppb);
	tick_run.expected = want_hz * seconds;
	tick_run.at = calloc(tick_run.expected, sizeof(*tick_run.at));
	tick_run.steal = calloc(tick_run.expected, sizeof(*tick_run.steal));
	tick_run.open = calloc(tick_run.expected, sizeof(*tick_run.open));
	tick_run.period =
		max(tick_counts_to_ticks(&tick_run.plan.cal, tick_run.plan.period_counts), 1ull);
	/* the device under test may be a reference too (the HPET): not that one */
	tick_ref_begin(&ref, src->refclock ? src->refclock : src->name, counter_hz);
	host_span_begin(&span, arch_counter, tick_run.counter_hz);
	/* an interrupt latched while its pin was masked lands here, not in the run */
	tick_run.arch->flush();
	report_info("phase start");
	if (tick_run.has_steal)
		tick_run.steal_start = steal_ns();
	tick_until_done(src, counter_hz);
	report_info("phase end");
	host_span_end(&span);
	if (tick_run.guard == GUARD_NONE)
		report_info("no second timer to end the run had %s stopped: the runner's timeout "
			    "would have",
			    src->what);
	tick_ref_end(&ref, counter_hz);
	make_record(&r, want_hz);
	report_plan(&r);
	tick_ask_host(&r, &span);
	judge_and_report(&r, &ref, counter_hz);
}

/* Interrupts an idle run may take: the wake-up, and a spurious one or two. */
#define TICK_IDLE_MAX_INTERRUPTS 3

/* No timer: one wake-up at the end, so the guest sleeps the whole time. */
static void run_idle(u64 seconds, u64 counter_hz)
{
	struct checks *out;
	u64 end, interrupts = 0;

	report_info("phase start");
	tick_run.anchor = arch_counter();
	end = tick_run.anchor + seconds * counter_hz;
	if (!tick_run.arch->wake_at(end)) {
		report_info("phase end");
		report_skip("no timer to end the idle run with");
		return;
	}
	wait_cond(done_else_wait, &interrupts);
	report_info("phase end");
	out = fresh_checks();
	tick_note_counts(out, "none", 0, 0, end - tick_run.anchor,
			 tick_run.woke_at - tick_run.anchor, counter_hz);
	checks_plain(out, tick_run.woke_at >= end,
		     "woke once %llu s had passed, not before (%llu ns late)", seconds,
		     tick_run.woke_at >= end ? ticks_to_ns(tick_run.woke_at - end, counter_hz) : 0);
	/*
	 * A baseline that takes interrupts is no baseline: a timer the
	 * firmware left running (the PIT at 18.2 Hz) would show up here.
	 */
	checks_plain(out, interrupts <= TICK_IDLE_MAX_INTERRUPTS,
		     "the guest stayed idle: %llu interrupt(s), the wake-up included (at most %d)",
		     interrupts, TICK_IDLE_MAX_INTERRUPTS);
	tick_result(out, "none", "wake_late", "ns",
		    tick_run.woke_at >= end ? ticks_to_ns(tick_run.woke_at - end, counter_hz) : 0);
	report_checks(out);
}

const struct tick_source tick_source_none = {
	.name = "none",
	.what = "no timer (the idle baseline)",
	.kind = TICK_NONE,
	.wake_use = TICK_SHARES_WAKE_TIMER,
};

/* The counter's frequency and how it was found, with fault=freq5 applied. */
static u64 measured_counter_hz(const char **how)
{
	u64 counter_hz = tick_run.arch->counter_hz(how);

	u64 permille = tick_run.fault == FAULT_FREQ1   ? TICK_FAULT_FREQ1_PERMILLE
		       : tick_run.fault == FAULT_FREQ5 ? TICK_FAULT_FREQ5_PERMILLE
						       : 0;

	if (!permille)
		return counter_hz;
	report_info("fault=%s: the counter's frequency taken as %llu/1000 of %llu Hz",
		    tick_fault_name(), permille, counter_hz);
	return counter_hz * permille / MILLI_PER_UNIT;
}

static void start_host_accounting(void)
{
	const char *why = steal_init();

	tick_run.has_steal = !why;
	if (why)
		report_info("lateness and lost ticks judged without steal time: %s", why);
	else
		report_info("steal time (KVM) read at every tick: lateness and lost ticks it "
			    "explains are the host's");
}

/* The test-only options against the source they act on: an option it cannot take is bad input. */
static void check_test_options(const struct tick_source *src, const struct tick_arch *arch)
{
	if (tick_run.fault == FAULT_STOP100 && src->kind != TICK_ONESHOT)
		report_abort("fault=stop100 needs a one-shot source; %s is not one", src->name);
	if (tick_run.fault == FAULT_MISS && !src->mute)
		report_abort("fault=miss needs a periodic source; %s is not one (a re-armed "
			     "one-shot that misses an interrupt stops ticking: fault=stop100)",
			     src->name);
	if (tick_run.fault == FAULT_MISS)
		report_info("fault=miss: one expiry in %llu never delivered (%s muted over %u "
			    "expir%s)",
			    tick_run.miss_every, src->name, max(src->mute_span, 1u),
			    src->mute_span > 1 ? "ies: one stays pending under KVM" : "y");
	if (tick_run.fault == FAULT_EARLY10 && (src->kind != TICK_ONESHOT || !arch->raise))
		report_abort("fault=early10 needs a one-shot source on an arch that can raise its "
			     "vector; %s is %s",
			     src->name,
			     src->kind != TICK_ONESHOT ? "not one-shot"
						       : "on an arch without raise()");
	if (tick_run.slow_arm_ns && !src->stale)
		report_abort("slow_arm=%llu: %s does not read its arming back (only a source that "
			     "re-arms a passed arming takes it: hpet-routed-oneshot)",
			     tick_run.slow_arm_ns / NSEC_PER_USEC, src->name);
	if (tick_run.slow_arm_ns)
		report_info("slow_arm=%llu: every comparator write held %llu us before it lands, "
			    "one arming in %d a period more (a slow emulated MMIO path, as under "
			    "kvm-pvm)",
			    tick_run.slow_arm_ns / NSEC_PER_USEC,
			    tick_run.slow_arm_ns / NSEC_PER_USEC, TICK_SLOW_ARM_EVERY);
}

int tick_main(int argc, char **argv, const struct tick_arch *arch,
	      const struct tick_source *const *srcs, size_t n)
{
	struct tick_args a;
	const struct tick_source *src = tick_parse_args(argc, argv, srcs, n, &a);
	u64 want_hz = a.hz, seconds = a.seconds, counter_hz;
	const char *why, *how;

	tick_run.fault = (enum tick_fault)a.fault;
	tick_run.record = (enum record_when)a.record;
	tick_run.miss_every = a.miss_every;
	tick_run.needs_one_in = a.resolution;
	tick_run.slow_arm_ns = a.slow_arm_us * NSEC_PER_USEC;
	if (want_hz * seconds > TICK_MAX_SAMPLES)
		report_abort("hz * seconds = %llu ticks: more than the %u this kernel keeps",
			     want_hz * seconds, TICK_MAX_SAMPLES);
	report_prefix_push(src->name);
	tick_run.arch = arch;
	tick_run.src = src;
	counter_hz = arch_counter_hz();
	if (!counter_hz)
		report_abort("the counter's frequency is unknown");
	/* sized from the rough figure; the arch measures a better one */
	tick_run.cal_window = max(counter_hz * CAL_WINDOW_MIN_MS / MSEC_PER_SEC,
				  counter_hz * seconds / CAL_RUN_SHARE);
	tick_run.arch->init();
	irq_disable();
	counter_hz = tick_run.counter_hz = measured_counter_hz(&how);
	why = src->probe ? src->probe() : NULL;
	if (why) {
		report_skip("%s: %s", src->what, why);
		return report_summary();
	}
	report_info("%s: %llu Hz for %llu s", src->what, want_hz, seconds);
	report_info("counter at %llu Hz (%s)", counter_hz, how);
	check_test_options(src, arch);
	if (tick_run.fault)
		report_info("fault=%s injected on purpose: this run should FAIL", tick_fault_name());
	if (src->kind == TICK_NONE) {
		run_idle(seconds, counter_hz);
	} else {
		start_host_accounting();
		run_ticks(src, want_hz, seconds, counter_hz);
	}
	return report_summary();
}
