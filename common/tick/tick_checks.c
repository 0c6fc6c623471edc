// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timer-tick judgment's words: counts, lateness, host accounting,
 * checks against their bounds, RESULT lines, appended to a list the
 * engine prints (lib/checks.h). Pure functions of the record and the
 * verdict; the one place each check's band and outcome is set.
 */
#include "tick_judge.h"
#include "tick_figure.h"
#include "stats.h"
#include "fixed.h"
#include "units.h"

static void result_milli(struct checks *out, const char *source, const char *name, const char *unit,
			 u64 thousandths)
{
	char full[96], buf[24];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", source, name);
	checks_result(out, full, unit, "%s", fmt_milli(buf, sizeof(buf), thousandths));
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

static void lateness_buckets(struct checks *out, const struct tick_record *r, const u64 *late)
{
	u64 count[LATE_BUCKETS] = {0};
	char name[32];

	for (u64 i = 0; i < r->n; i++)
		count[log2_bucket(ticks_to_ns(late[i], r->counter_hz))]++;
	for (unsigned k = 0; k < LATE_BUCKETS; k++) {
		if (!count[k])
			continue;
		snprintf(name, sizeof(name), "late_log2_ns.%u", k);
		tick_result(out, r->source, name, "ticks", count[k]);
	}
}

void tick_note_lateness(struct checks *out, const struct tick_record *r, u64 *late)
{
	u64 counter_hz = r->counter_hz;
	struct stats st;
	u64 min_ns, med_ns, p99_ns, max_ns;

	lateness_buckets(out, r, late);
	stats_compute(late, r->n, &st);
	min_ns = ticks_to_ns(st.min, counter_hz);
	med_ns = ticks_to_ns(st.median, counter_hz);
	p99_ns = ticks_to_ns(st.p99, counter_hz);
	max_ns = ticks_to_ns(st.max, counter_hz);
	checks_info(out, "lateness: min %llu ns, median %llu ns, p99 %llu ns, max %llu ns", min_ns,
		    med_ns, p99_ns, max_ns);
	tick_result(out, r->source, "late_min", "ns", min_ns);
	tick_result(out, r->source, "late_median", "ns", med_ns);
	tick_result(out, r->source, "late_p99", "ns", p99_ns);
	tick_result(out, r->source, "late_max", "ns", max_ns);
}

/* Counts, and the rate over the schedule's span (not the wait for lost ticks at the end). */
void tick_note_counts(struct checks *out, const char *source, u64 expected, u64 received, u64 span,
		      u64 phase, u64 counter_hz)
{
	u64 span_ns = max(ticks_to_ns(span, counter_hz), 1ull),
	    rate = received * MSEC_PER_SEC * NSEC_PER_SEC / span_ns;
	char buf[24];

	checks_info(out, "%llu of %llu ticks in %llu ms: %s per second", received, expected,
		    span_ns / NSEC_PER_MSEC, fmt_milli(buf, sizeof(buf), rate));
	tick_result(out, source, "ticks_expected", "ticks", expected);
	tick_result(out, source, "ticks_received", "ticks", received);
	result_milli(out, source, "ticks_per_s", "Hz", rate);
	tick_result(out, source, "phase", "us", ticks_to_ns(phase, counter_hz) / NSEC_PER_USEC);
}

static u64 us_of(const struct tick_record *r, u64 ticks)
{
	return ticks_to_ns(ticks, r->counter_hz) / NSEC_PER_USEC;
}

/* The evidence the run was judged with: the guest's steal time, the host's. */
void tick_note_host(struct checks *out, const struct tick_record *r, const struct tick_verdict *v)
{
	if (r->steal_ns) {
		checks_info(out, "steal time over the run: %llu us",
			    r->steal_end_ns / NSEC_PER_USEC);
		tick_result(out, r->source, "steal", "us", r->steal_end_ns / NSEC_PER_USEC);
	}
	if (!v->host) {
		checks_info(out,
			    "no host evidence: %s; lost ticks only counted, lateness judged by the "
			    "guest's own steal time: a weaker verdict",
			    r->host.why_none);
		return;
	}
	checks_info(out,
		    "host evidence over %u parts of %llu ms: QEMU's threads and the host's "
		    "hypervisor took %llu us, stamps within %llu us; %llu part(s) swamped (over "
		    "%u %%) are not judged",
		    r->host.nparts,
		    us_of(r, (r->host.to - r->host.from) / r->host.nparts) / USEC_PER_MSEC,
		    v->host_us, r->host.stamp_us, v->parts_swamped, TICK_HOST_SWAMPED_PCT);
	tick_result(out, r->source, "host_us", "us", v->host_us);
	tick_result(out, r->source, "host_parts_swamped", "parts", v->parts_swamped);
}

/*
 * Where the lost-tick check passed, judged: its resolution on this run
 * (tick_resolution), into v, with the resolution the entry needs.
 */
void tick_take_resolution(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w,
			  u64 needs_one_in)
{
	v->needs_one_in = needs_one_in;
	if (!v->host || v->schedule_unsure || v->too_little_judged ||
	    r->kind != TICK_REC_PERIODIC || tick_lost_fails(r, v))
		return;
	v->catches_one_in = tick_resolution(r, w);
	v->resolution_taken = true;
}

/* "1 in K", or what is true when not even 1 in 2 is caught. */
static const char *one_in(char *buf, size_t size, u64 k)
{
	if (k)
		snprintf(buf, size, "1 in %llu", k);
	else
		snprintf(buf, size, "not even 1 in 2");
	return buf;
}

/* What the lost ticks were, and where each explanation came from. */
static void lost_context(struct checks *out, const struct tick_record *r,
			 const struct tick_verdict *v)
{
	checks_info(
		out,
		"ticks counted from time: %llu slot(s) passed by the run's end (by the "
		"counter), %llu tick(s) came; lost %llu: %llu explained by steal time, %llu by "
		"QEMU's threads' waits, %llu by a late delivery, %llu by the host's hypervisor's "
		"steal in their part, %llu not judged",
		v->owed, r->n, v->lost, v->lost_steal, v->lost_host, v->lost_late, v->lost_pool,
		v->lost_unjudged);
	if (v->lost_unjudged)
		checks_info(out, "%llu lost tick(s) fell in parts the host swamped: not judged",
			    v->lost_unjudged);
}

/* Whether the lost-tick check has its resolution below what the entry needs: not judged. */
static bool below_needed_resolution(const struct tick_verdict *v)
{
	return v->resolution_taken && v->needs_one_in &&
	       (!v->catches_one_in || v->catches_one_in < v->needs_one_in);
}

void tick_check_lost(struct checks *out, const struct tick_record *r, const struct tick_verdict *v)
{
	u64 normal = us_of(r, v->normal_late), on_time = us_of(r, v->on_time);
	char res[32];

	/* nothing left to explain is a verdict, evidence or not */
	if (v->schedule_unsure && v->unexplained)
		checks_skip(out,
			    "ticks lost that nothing explains: %llu of %llu, not judged: the "
			    "calibration's error (%llu ppb) lets the schedule drift %llu us by the "
			    "end, "
			    "more than half the %llu us period, so a tick's slot is unsure",
			    v->unexplained, v->owed, r->cal.err_ppb, us_of(r, v->schedule_drift),
			    us_of(r, v->period));
	else if (!v->host && v->unexplained)
		checks_skip(
			out,
			"ticks lost that nothing explains: %llu of %llu, not judged: without the "
			"host's evidence (no vmtick runner) a host delay the guest cannot see "
			"looks "
			"like a lost interrupt; the rate's shortfall leaves them out too",
			v->unexplained, v->owed);
	else if (below_needed_resolution(v))
		checks_skip(
			out,
			"ticks lost that nothing explains: %llu of %llu, at most %llu, not judged: "
			"with this run's noise the check would have caught %s never-delivered "
			"interrupts, the entry needs 1 in %llu (resolution=)",
			v->unexplained, v->owed, v->allowed,
			one_in(res, sizeof(res), v->catches_one_in), v->needs_one_in);
	else {
		/* the allowance's derivation apart: the check's line says what and by how much */
		checks_info(
			out,
			"lost ticks allowed: %d for the last tick, across a slot's edge as the run "
			"ends, and %llu that chance explains: of %llu gap(s) closed late, those "
			"expected to close within the normal latency %llu us (%llu us with a "
			"period's uncertainty) of the %llu us period, plus twice that count's "
			"standard deviation",
			TICK_UNEXPLAINED_LOST_MAX, v->chance, v->gaps_late, normal, on_time,
			us_of(r, v->period));
		tick_bounded(
			out, r->source, "lost_unexplained", "ticks", 0, (s64)v->unexplained, 0,
			(s64)v->allowed,
			"ticks lost that nothing explains: %llu of %llu, at most %llu (%d for the "
			"run's end, %llu for late gaps by chance)%s%s%s",
			v->unexplained, v->owed, v->allowed, TICK_UNEXPLAINED_LOST_MAX, v->chance,
			v->unexplained > v->allowed ? ": never delivered, or held back where the "
						      "host's evidence saw nothing"
						    : "",
			v->resolution_taken ? "; resolution: it would have caught " : "",
			v->resolution_taken ? one_in(res, sizeof(res), v->catches_one_in) : "");
	}
}

/* The lost ticks' figures; the count nothing explains as a RESULT where no check bounded it. */
static void lost_results(struct checks *out, const struct tick_record *r,
			 const struct tick_verdict *v)
{
	if (v->resolution_taken)
		tick_result(out, r->source, "catches_one_in", "ticks", v->catches_one_in);
	tick_result(out, r->source, "slots_passed", "ticks", v->owed);
	tick_result(out, r->source, "lost", "ticks", v->lost);
	tick_result(out, r->source, "steal_lost", "ticks", v->lost_steal);
	tick_result(out, r->source, "lost_host", "ticks", v->lost_host);
	tick_result(out, r->source, "lost_late", "ticks", v->lost_late);
	tick_result(out, r->source, "lost_pool", "ticks", v->lost_pool);
	tick_result(out, r->source, "lost_unjudged", "ticks", v->lost_unjudged);
	if ((v->schedule_unsure || !v->host) && v->unexplained)
		tick_result(out, r->source, "lost_unexplained", "ticks", v->unexplained);
	tick_result(out, r->source, "normal_late", "ns",
		    ticks_to_ns(v->normal_late, r->counter_hz));
}

static void check_lost(struct checks *out, const struct tick_record *r,
		       const struct tick_verdict *v)
{
	lost_context(out, r, v);
	tick_check_lost(out, r, v);
	lost_results(out, r, v);
}

/* The bounded check of timer_tick.SOURCE.NAME in l, or NULL where it was not judged. */
static const struct check *bounded_check(const struct checks *l, const struct tick_record *r,
					 const char *name)
{
	char full[CHECK_NAME_MAX];
	const struct check *c;

	snprintf(full, sizeof(full), "timer_tick.%s.%s", r->source, name);
	c = checks_find(l, full);
	return c && c->kind == CHECK_BOUNDED ? c : NULL;
}

bool tick_check_failed(const struct checks *l, const struct tick_record *r, const char *name)
{
	const struct check *c = bounded_check(l, r, name);

	return c && !check_holds(c);
}


static void check_early(struct checks *out, const struct tick_record *r,
			const struct tick_verdict *v)
{
	if (r->cal.err_ppb)
		tick_bounded(
			out, r->source, "early", "ticks", 0, (s64)v->early, 0, 0,
			"no tick early beyond the calibration's error (%llu ppb of the distance "
			"it was scheduled over): %llu early, the worst by %llu ns",
			r->cal.err_ppb, v->early, ticks_to_ns(v->worst_early, r->counter_hz));
	else
		tick_bounded(out, r->source, "early", "ticks", 0, (s64)v->early, 0, 0,
			     "no tick before its deadline: %llu early, the worst by %llu ns",
			     v->early, ticks_to_ns(v->worst_early, r->counter_hz));
	if (v->ahead)
		checks_info(out,
			    "%llu tick(s) before their slot in the calibrated schedule, within its "
			    "error",
			    v->ahead);
}

static void check_rate(struct checks *out, const struct tick_record *r,
		       const struct tick_verdict *v)
{
	char got_hz[24], sched_hz[24], off[24], bound[24];

	fmt_milli(got_hz, sizeof(got_hz), v->rate_mhz);
	fmt_milli(sched_hz, sizeof(sched_hz), v->sched_mhz);
	fmt_milli(off, sizeof(off), v->off_milli);
	fmt_milli(bound, sizeof(bound), v->bound_milli);
	if (r->kind == TICK_REC_ONESHOT && v->catchup_us)
		checks_info(
			out,
			"one-shot catch-up: %llu tick(s) owed at the end, a catch-up tick every "
			"%llu us (the period: %llu us): %s",
			v->backlog, v->catchup_us, us_of(r, v->period),
			v->ended_catching_up ? "the run ended catching up, its backlog explained"
					     : "the run ended on schedule");
	/*
	 * short by the lost ticks explained or allowed, over by the rounding
	 * and calibration alone (tick_judge's judge_rate): the band's ends differ
	 */
	tick_bounded(out, r->source, "count_off", "ticks", MILLI_SCALE,
		     v->rate_short ? -(s64)v->off_milli : (s64)v->off_milli, -(s64)v->short_milli,
		     (s64)v->over_milli,
		     "the interrupts that came ran at %s Hz over the run's %llu ms against the "
		     "schedule's %s Hz (hz=%llu by the counter): %s tick(s) %s (at most %s)",
		     got_hz, us_of(r, r->end_at) / USEC_PER_MSEC, sched_hz, r->want_hz, off,
		     v->rate_short ? "short" : "over", bound);
	result_milli(out, r->source, "ticks_per_s_arrived", "Hz", v->rate_mhz);
}

void tick_checks(struct checks *out, const struct tick_record *r, const struct tick_verdict *v)
{
	if (v->too_little_judged) {
		checks_skip(
			out,
			"the host swamped %llu of the run's %u parts (over %u%%; %llu us of QEMU's "
			"threads' waits and steal in %llu ms): lost, late and early ticks and "
			"their "
			"rate not judged, too little of the run left to tell a fault from the load",
			v->parts_swamped, r->host.nparts, TICK_JUDGED_MIN_PCT, v->host_us,
			us_of(r, r->end_at) / USEC_PER_MSEC);
		return;
	}
	check_lost(out, r, v);
	if (!v->host && v->over_late)
		checks_skip(
			out,
			"no tick late by more than %u ms beyond the evidence (steal time): %llu "
			"were, the worst tick %llu by %llu us, not judged: without the host's "
			"evidence (no vmtick runner) a host delay the guest cannot see looks like "
			"a late interrupt",
			IRQ_UNEXPLAINED_LATE_MS, v->over_late, v->worst_unexplained_tick,
			us_of(r, v->worst_unexplained));
	else
		tick_bounded(out, r->source, "late_unexplained_max", "ns", 0,
			     (s64)ticks_to_ns(v->worst_unexplained, r->counter_hz), 0,
			     IRQ_UNEXPLAINED_LATE_MS * NSEC_PER_MSEC,
			     "no tick late by more than %u ms beyond the evidence (steal time, the "
			     "host's): %llu were, the worst tick %llu by %llu us",
			     IRQ_UNEXPLAINED_LATE_MS, v->over_late, v->worst_unexplained_tick,
			     us_of(r, v->worst_unexplained));
	check_early(out, r, v);
	check_rate(out, r, v);
	if (!v->host && v->over_late)
		tick_result(out, r->source, "late_unexplained_max", "ns",
			    ticks_to_ns(v->worst_unexplained, r->counter_hz));
}

/*
 * A source that stopped ends the run by the guard (or its own wake-up):
 * that is a failure of its own, with the last tick seen, not a lost-tick
 * count among others.
 */
void tick_check_stopped(struct checks *out, const struct tick_record *r, u64 interrupts)
{
	u64 last = r->n ? r->at[r->n - 1] : 0, since = r->end_at - last;

	if (r->n == r->expected || since < r->counter_hz * TICK_GRACE_MS / MSEC_PER_SEC)
		return;
	if (r->n)
		checks_plain(out, false,
			     "the source stopped: the last tick seen was interrupt %llu of %llu, "
			     "%llu ms "
			     "into the run; none in the %llu ms after it",
			     interrupts, r->expected, us_of(r, last) / USEC_PER_MSEC,
			     us_of(r, since) / USEC_PER_MSEC);
	else
		checks_plain(out, false,
			     "the source never ticked: no interrupt in the %llu ms of the run",
			     us_of(r, since) / USEC_PER_MSEC);
}

/* The source's clock as measured, against its period: what the schedule is built from. */
void tick_note_plan(struct checks *out, const struct tick_record *r)
{
	u64 period = tick_rec_period(r);
	char rate[24];

	fmt_milli(rate, sizeof(rate), r->counter_hz * MSEC_PER_SEC / period);
	checks_info(out,
		    "source clock %llu Hz against the counter (+-%llu ppb); period %llu counts = "
		    "%llu ns: %s Hz for hz=%llu",
		    tick_ticks_to_counts(&r->cal, r->counter_hz), r->cal.err_ppb, r->period_counts,
		    ticks_to_ns(period, r->counter_hz), rate, r->want_hz);
}

bool tick_lost_fails(const struct tick_record *r, const struct tick_verdict *v)
{
	/* the check's skip, or its allowance and bounded line: static, the guest's stack is small
	 */
	static struct check entries[TICK_LOST_ENTRIES];
	static char text[TICK_LOST_ENTRIES * CHECK_TEXT_MAX];
	struct checks l;

	checks_init(&l, entries, TICK_LOST_ENTRIES, text, sizeof(text));
	tick_check_lost(&l, r, v);
	return tick_check_failed(&l, r, "lost_unexplained");
}
