// SPDX-License-Identifier: GPL-2.0-only
/* The timer-tick engine's reports: counts, lateness, host accounting, checks against their bounds,
 * RESULT lines. */
#include "tick_engine.h"
#include "report.h"
#include "stats.h"
#include "tick_ref.h"
#include "fixed.h"

/* RESULT: timer_tick.SOURCE.NAME value unit */
void tick_result(const char *name, const char *unit, u64 value)
{
	char full[96];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", tick_run.src->name, name);
	report_result(full, unit, "%llu", value);
}

static void result_milli(const char *name, const char *unit, u64 thousandths)
{
	char full[96], buf[24];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", tick_run.src->name, name);
	report_result(full, unit, "%s", fmt_milli(buf, sizeof(buf), thousandths));
}

/*
 * The lateness distribution in log2 buckets of ns, compactly: one line per
 * bucket that holds ticks, "late_log2_ns.K N ticks" for N ticks late by
 * [2^K, 2^(K+1)) ns (bucket 0 also holds the ticks late by 0 or 1 ns).
 * Tools draw the histogram from them (scripts/report); the buckets add up
 * to ticks_received.
 */
#define LATE_BUCKETS 64

static unsigned log2_bucket(u64 ns)
{
	unsigned k = 0;

	while (k < LATE_BUCKETS - 1 && ns >> (k + 1))
		k++;
	return k;
}

static void report_lateness_buckets(u64 hz)
{
	u64 count[LATE_BUCKETS] = { 0 };
	char name[32];

	for (u64 i = 0; i < tick_run.received; i++)
		count[log2_bucket(ticks_to_ns(tick_run.late[i], hz))]++;
	for (unsigned k = 0; k < LATE_BUCKETS; k++) {
		if (!count[k])
			continue;
		snprintf(name, sizeof(name), "late_log2_ns.%u", k);
		tick_result(name, "ticks", count[k]);
	}
}

void tick_report_lateness(u64 hz)
{
	struct stats st;
	u64 min_ns, med_ns, p99_ns, max_ns;

	stats_compute(tick_run.late, tick_run.received, &st);
	min_ns = ticks_to_ns(st.min, hz);
	med_ns = ticks_to_ns(st.median, hz);
	p99_ns = ticks_to_ns(st.p99, hz);
	max_ns = ticks_to_ns(st.max, hz);
	report_info("lateness: min %llu ns, median %llu ns, p99 %llu ns, max %llu ns",
		    min_ns, med_ns, p99_ns, max_ns);
	tick_result("late_min", "ns", min_ns);
	tick_result("late_median", "ns", med_ns);
	tick_result("late_p99", "ns", p99_ns);
	tick_result("late_max", "ns", max_ns);
	report_lateness_buckets(hz);
}

/* Counts, and the rate over the schedule's span (not the wait for lost ticks at the end). */
void tick_report_counts(u64 span, u64 phase, u64 hz)
{
	u64 span_ns = max(ticks_to_ns(span, hz), 1ull),
	    rate = tick_run.received * MSEC_PER_SEC * NSEC_PER_SEC / span_ns;
	char buf[24];

	report_info("%llu of %llu ticks in %llu ms: %s per second",
		    tick_run.received, tick_run.expected,
		    span_ns / 1000000, fmt_milli(buf, sizeof(buf), rate));
	tick_result("ticks_expected", "ticks", tick_run.expected);
	tick_result("ticks_received", "ticks", tick_run.received);
	result_milli("ticks_per_s", "Hz", rate);
	tick_result("phase", "us", ticks_to_ns(phase, hz) / 1000);
}

/* What the host's scheduling explains: steal time over the run, and the ticks it may have cost. */
void tick_report_host(u64 hz)
{
	u64 steal;

	if (!tick_run.has_steal)
		return;
	steal = steal_ns() - tick_run.steal_start;
	report_info("steal time over the run: %llu us, explaining up to %llu lost tick(s)",
		    steal / 1000, tick_run.steal_lost);
	if (tick_run.steal_carry)
		report_info(
			"steal time beyond the time the ticks took, not counted for lost ticks: "
			"%llu us",
			ticks_to_ns(tick_run.steal_carry, hz) / 1000);
	tick_result("steal", "us", steal / 1000);
	tick_result("steal_lost", "ticks", tick_run.steal_lost);
}

u64 tick_slots_owed(void)
{
	return max(tick_run.slots_passed, tick_run.expected);
}

/*
 * Expiries one delay of the vCPU as long as the lateness check lets go
 * unexplained (a host that is itself a guest loses time nobody's steal
 * time shows) coalesces into the interrupt after it.
 */
static u64 unseen_delay_ticks(u64 want_hz)
{
	return TICK_UNEXPLAINED_LATE_MS * want_hz / MSEC_PER_SEC;
}

/*
 * Lost ticks the host may cost where the guest cannot see it: none where
 * the guest's clock runs by its instructions; else one unseen delay's and
 * the share of an emulation thread other than the vCPU's.
 */
static u64 unseen_allowance(u64 want_hz)
{
	if (tick_run.clock_by_instructions)
		return 0;
	return unseen_delay_ticks(want_hz) +
	       tick_run.expected * tick_run.src->unseen_host_lost_pct / 100;
}

/* What a planned period may be off by: a whole number of counts (one count), and the calibration. */
static u64 plan_slack_ppb(void)
{
	return NSEC_PER_SEC / max(tick_run.plan.period_counts, 1ull) + tick_run.plan.cal.err_ppb;
}

/*
 * The interrupts that came, over the run's real length by the counter,
 * against the programmed rate: short by the lost ticks allowed or
 * explained (steal time) and one period at most (the run ends at the
 * first interrupt past its last slot), over by none; both give the
 * period's rounding and the calibration's error. A source that loses
 * interrupts, or ticks slower or faster than programmed, is off however
 * its schedule was calibrated. Figures in thousandths of a tick.
 */
static void check_arrival_rate(u64 want_hz, u64 hz, u64 allowed)
{
	u64 real_ns = max(ticks_to_ns(tick_run.end_at - tick_run.anchor, hz), 1ull),
	    ideal = real_ns * want_hz / (NSEC_PER_SEC / MSEC_PER_SEC),
	    got = tick_run.received * MSEC_PER_SEC,
	    rate = tick_run.received * MSEC_PER_SEC * NSEC_PER_SEC / real_ns,
	    slack = ideal / MSEC_PER_SEC * plan_slack_ppb() / (NSEC_PER_SEC / MSEC_PER_SEC) + 1;
	bool is_short = got <= ideal;
	u64 off = is_short ? ideal - got : got - ideal,
	    bound = is_short ? (allowed + 1) * MSEC_PER_SEC + slack : slack;
	char got_hz[24], off_ticks[24], bound_ticks[24];

	fmt_milli(got_hz, sizeof(got_hz), rate);
	fmt_milli(off_ticks, sizeof(off_ticks), off);
	fmt_milli(bound_ticks, sizeof(bound_ticks), bound);
	report(off <= bound,
	       "the interrupts that came ran at %s Hz over the run's %llu ms against the "
	       "programmed %llu Hz: %s tick(s) %s (at most %s)",
	       got_hz, real_ns / NSEC_PER_MSEC, want_hz, off_ticks, is_short ? "short" : "over",
	       bound_ticks);
	result_milli("ticks_per_s_arrived", "Hz", rate);
}

void tick_report_checks(u64 hz, u64 want_hz)
{
	u64 owed = tick_slots_owed(),
	    lost = owed > tick_run.received ? owed - tick_run.received : 0,
	    unexplained = lost > tick_run.steal_lost ? lost - tick_run.steal_lost : 0,
	    allowed = TICK_UNEXPLAINED_LOST_MAX + unseen_allowance(want_hz);
	char why[160];

	report_info("ticks counted from time: %llu slot(s) of the schedule passed by the run's end "
		    "(by the counter), %llu interrupt(s) counted",
		    owed, tick_run.received);
	if (tick_run.missed)
		report_info("fault=miss muted %llu expiries", tick_run.missed);
	if (tick_run.clock_by_instructions)
		snprintf(why, sizeof(why), "the guest's clock runs by its instructions: the host's "
			 "delays cost none");
	else
		snprintf(why, sizeof(why), "%u, plus %llu a %u ms delay the guest cannot see may "
			 "coalesce, plus %u%% for an emulation thread's delays",
			 TICK_UNEXPLAINED_LOST_MAX, unseen_delay_ticks(want_hz),
			 TICK_UNEXPLAINED_LATE_MS, tick_run.src->unseen_host_lost_pct);
	if (tick_run.clock_by_instructions)
		report(unexplained <= allowed, "ticks lost: %llu of %llu, at most %llu allowed (%s)",
		       lost, owed, allowed, why);
	else if (!tick_run.has_steal)
		/* no steal time here (TCG, or a KVM without it): say what the allowance is instead */
		report(unexplained <= allowed,
		       "ticks lost: %llu of %llu, at most %llu allowed (%s; no steal time here to "
		       "explain more: docs/timers.md, \"The host's share: steal time\")",
		       lost, owed, allowed, why);
	else
		report(unexplained <= allowed,
		       "ticks lost beyond what steal time explains: %llu of %llu lost, %llu "
		       "explained, %llu unexplained (at most %llu: %s)",
		       lost, owed, min(lost, tick_run.steal_lost), unexplained, allowed, why);
	report(!tick_run.over_late,
	       "no tick late by more than %u ms beyond steal time: %llu were, the worst tick %llu "
	       "by %llu us",
	       TICK_UNEXPLAINED_LATE_MS, tick_run.over_late, tick_run.worst_unexplained_tick,
	       ticks_to_ns(tick_run.worst_unexplained, hz) / 1000);
	if (tick_run.plan.cal.err_ppb)
		report(!tick_run.early,
		       "no tick early beyond the calibration's error (%llu ppb of the distance it "
		       "was scheduled over): "
		       "%llu early, the worst by %llu ns",
		       tick_run.plan.cal.err_ppb, tick_run.early,
		       ticks_to_ns(tick_run.worst_early, hz));
	else
		report(!tick_run.early,
		       "no tick before its deadline: %llu early, the worst by %llu ns",
		       tick_run.early, ticks_to_ns(tick_run.worst_early, hz));
	if (tick_run.ahead)
		report_info("%llu tick(s) before their slot in the calibrated schedule, within its "
			    "error",
			    tick_run.ahead);
	if (tick_run.stray)
		report_info("%llu interrupt(s) outside the run, ignored", tick_run.stray);
	tick_result("early", "ticks", tick_run.early);
	check_arrival_rate(want_hz, hz, allowed + min(lost, tick_run.steal_lost));
	tick_result("slots_passed", "ticks", owed);
	tick_result("lost", "ticks", lost);
	tick_result("lost_unexplained", "ticks", unexplained);
	tick_result("late_unexplained_max", "ns", ticks_to_ns(tick_run.worst_unexplained, hz));
	/* the checks' bounds, for tools that draw the figures against them */
	tick_result("late_unexplained_bound", "ns", TICK_UNEXPLAINED_LATE_MS * 1000000ull);
	tick_result("lost_allowed", "ticks", allowed);
}

/*
 * A source that stopped ends the run by the guard (or its own wake-up):
 * that is a failure of its own, with the last tick seen, not a lost-tick
 * count among others.
 */
void tick_report_stopped(u64 end, u64 hz)
{
	u64 since = end - (tick_run.received ? tick_run.last_at : tick_run.anchor);

	if (tick_run.received == tick_run.expected || since < hz * TICK_GRACE_MS / MSEC_PER_SEC)
		return;
	if (tick_run.received)
		report(false,
		       "the source stopped: the last tick seen was interrupt %llu of %llu, %llu ms "
		       "into the run; none in the %llu ms after it",
		       tick_run.interrupts, tick_run.expected,
		       ticks_to_ns(tick_run.last_at - tick_run.anchor, hz) / 1000000,
		       ticks_to_ns(since, hz) / 1000000);
	else
		report(false, "the source never ticked: no interrupt in the %llu ms of the run",
		       ticks_to_ns(since, hz) / 1000000);
}

/* The source's clock as measured, against its period: what the schedule is built from. */
void tick_report_plan(u64 hz, u64 want_hz)
{
	const struct tick_plan *p = &tick_run.plan;
	u64 period = tick_counts_to_ticks(&p->cal, p->period_counts);
	char rate[24];

	fmt_milli(rate, sizeof(rate), hz * MSEC_PER_SEC / max(period, 1ull));
	report_info("source clock %llu Hz against the counter (+-%llu ppb); period %llu counts = "
		    "%llu ns: %s Hz for hz=%llu",
		    tick_ticks_to_counts(&p->cal, hz), p->cal.err_ppb, p->period_counts,
		    ticks_to_ns(period, hz), rate, want_hz);
}

/* The counter's frequency and the schedule's rate against the reference clock. */
void tick_check_rates(const struct tick_ref *ref, u64 want_hz, u64 hz)
{
	struct tick_ref_plan p = {
		.source = tick_run.src->name,
		.counter_hz = hz,
		.want_hz = want_hz,
		.slots = tick_run.expected,
		.span = tick_slot(tick_run.expected - 1) - tick_run.anchor,
		.received = tick_run.received,
		.slack_ppb = plan_slack_ppb(),
	};

	tick_ref_check(ref, &p);
}
