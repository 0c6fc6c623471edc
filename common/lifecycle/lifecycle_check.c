/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's checks of one event: every vCPU's clocks, timers and the time of day against what the host measured. */
#include "lifecycle_judge.h"
#include "period.h"
#include "fixed.h"

static u64 worst(const struct lc_record *r, const u64 *per_cpu_value, size_t stride, int *which)
{
	u64 w = 0;

	*which = 0;
	for (int cpu = 0; cpu < (int)r->ncpus; cpu++) {
		u64 v = *(const u64 *)((const char *)per_cpu_value + (size_t)cpu * stride);

		if (v > w) {
			w = v;
			*which = cpu;
		}
	}
	return w;
}

/* One clock's steps over an event: the worst vCPU's, in ns, and the stop they are judged by. */
struct clock_steps {
	const struct lc_clock *c;
	u64 hz;
	int cpu_back, cpu_step;
	u64 back;    /* times it went backwards, on the worst vCPU */
	u64 base_ns; /* the largest step in the window before */
	u64 step_ns; /* the largest over the event or in the window after */
	/* a step is one stop's: a run of migrations is judged by its longest stop and wait */
	u64 stop_ns, wait_ns;
};

static struct clock_steps clock_steps(const struct lc_record *r, unsigned i)
{
	struct clock_steps s = {.c = &r->arch->clocks[i]};
	int cpu_base, cpu_after;
	u64 base = worst(r, &r->cpu[0].step[LC_BEFORE][i], sizeof(struct lc_cpu), &cpu_base);
	u64 during = worst(r, &r->cpu[0].step[LC_DURING][i], sizeof(struct lc_cpu), &s.cpu_step);
	u64 after = worst(r, &r->cpu[0].step[LC_AFTER][i], sizeof(struct lc_cpu), &cpu_after);

	s.hz = lc_clock_hz(r, s.c);
	s.back = worst(r, &r->cpu[0].backwards[i], sizeof(struct lc_cpu), &s.cpu_back);
	s.stop_ns = lc_one_stop_ns(r);
	s.wait_ns = lc_one_stop_wait_ns(r);
	/*
	 * A step in the window after may hold the stop (a vCPU that had not
	 * read since it) and what the host kept a vCPU from running there (the
	 * runner measures it): 103 ms of it once, of a boot vCPU whose QEMU's
	 * own threads outnumbered the host's CPUs, where the event's was 3 ms.
	 */
	if (after > during) {
		during = after, s.cpu_step = cpu_after;
		s.wait_ns += r->done.after_wait_ns;
	}
	s.base_ns = ticks_to_ns(base, s.hz);
	s.step_ns = ticks_to_ns(during, s.hz);
	return s;
}

/* Never backwards, and no step longer than the stop and what the host's delays add to it. */
static void check_steps(struct checks *out, const struct lc_record *r, unsigned i,
			const struct clock_steps *s)
{
	/*
	 * a vCPU descheduled next to the stop adds what the window before saw,
	 * on either side; one the host kept from running during the event (the
	 * runner measures it: a migration's second QEMU and the vCPUs share
	 * the host's CPUs) sees every clock step by that long
	 */
	u64 allow_ns = s->stop_ns + 2 * s->base_ns + LC_STAMP_SLACK_NS + s->wait_ns;
	const char *name = s->c->name;

	lc_bounded(
		out, r, name, "backwards",
		&(struct bounded){
			.unit = "count", .value = (s64)s->back, .nbands = 1, .band = {{0, 0}}},
		"%s never went backwards on any vCPU (worst vCPU %d: %llu times, by up to %llu ns)",
		name, s->cpu_back, s->back, ticks_to_ns(r->cpu[s->cpu_back].worst_back[i], s->hz));
	lc_bounded_ms(out, r, name, "step", s->step_ns, 0, allow_ns,
		      "%s: largest step over the event %llu us (vCPU %d) <= stopped %llu us + 2 x "
		      "%llu us "
		      "(largest step before) + %llu us + %llu us a vCPU waited for a host CPU",
		      name, s->step_ns / NSEC_PER_USEC, s->cpu_step, s->stop_ns / NSEC_PER_USEC,
		      s->base_ns / NSEC_PER_USEC, LC_STAMP_SLACK_NS / NSEC_PER_USEC,
		      s->wait_ns / NSEC_PER_USEC);
}

/* Whether the clock ran or stood still over the stop, as the arch declares for the event. */
static void check_semantics(struct checks *out, const struct lc_record *r, unsigned i,
			    const struct clock_steps *s)
{
	enum lc_semantics sem = s->c->during[r->done.kind];
	const char *name = s->c->name;
	/*
	 * A frozen clock resumes with the guest; a vCPU the host then keeps
	 * from running (the runner measures it) reads it that much later.
	 */
	u64 frozen_ns = 2 * s->base_ns + LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS +
			r->done.overhead_ns + s->wait_ns;

	if (r->fault == LC_FAULT_FLIP)
		sem = sem == LC_RUNS ? LC_FROZEN : LC_RUNS;
	if (r->arch->derived && i == r->arch->derived->clock) {
		/* exact, where a read's delay beside the stop made this check flaky under load */
		checks_info(out,
			    "%s: whether it ran or stood still over the stop is judged by its "
			    "parameters against the %s (below)",
			    name, r->arch->clocks[r->arch->derived->counter].name);
	} else if (s->stop_ns < 2 * frozen_ns) {
		checks_info(out,
			    "%s: a stop of %llu ms is too short to tell a running clock from a "
			    "frozen one (which may move by %llu ms)",
			    name, s->stop_ns / NSEC_PER_MSEC, frozen_ns / NSEC_PER_MSEC);
	} else if (sem == LC_RUNS) {
		lc_bounded_ms(out, r, name, "step", s->step_ns,
			      (s64)s->stop_ns - (s64)LC_STAMP_SLACK_NS, BOUND_OPEN_HI,
			      "%s ran while the guest was stopped: step %llu us >= stopped %llu us "
			      "- %llu us",
			      name, s->step_ns / NSEC_PER_USEC, s->stop_ns / NSEC_PER_USEC,
			      LC_STAMP_SLACK_NS / NSEC_PER_USEC);
	} else {
		lc_bounded_ms(
			out, r, name, "step", s->step_ns, 0, frozen_ns,
			"%s was frozen while the guest was stopped: step %llu us <= 2 x %llu us + "
			"%llu us + %llu us QEMU spent stopping and restarting the vCPUs + %llu us "
			"a "
			"vCPU waited for a host CPU",
			name, s->step_ns / NSEC_PER_USEC, s->base_ns / NSEC_PER_USEC,
			(LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS) / NSEC_PER_USEC,
			r->done.overhead_ns / NSEC_PER_USEC, s->wait_ns / NSEC_PER_USEC);
	}
}

void lc_check_clock(struct checks *out, const struct lc_record *r, unsigned i)
{
	struct clock_steps s = clock_steps(r, i);

	check_steps(out, r, i, &s);
	check_semantics(out, r, i, &s);
}

unsigned lc_every_cpu_slots(const struct lc_arch *arch)
{
	unsigned n = 0;

	for (unsigned s = 0; s < arch->nslots; s++)
		n += arch->slot_use[s] == LC_SLOT_EVERY_CPU;
	return n;
}

/* A one-shot armed before the event fires once its deadline has passed, at the latest a window after the answer. */
static void check_oneshot(struct checks *out, const struct lc_record *r, int cpu, unsigned slot)
{
	const struct lc_timer *t = &r->cpu[cpu].t[slot];
	const char *name = r->arch->name_of_slot[slot];
	/* a vCPU the host kept from running after the answer takes its interrupt that much later */
	u64 answered = r->answer.answered;
	u64 grace = lc_ticks(r, LC_WINDOW_NS + r->done.after_wait_ns);

	char figure[32];

	if (!t->fired_at) {
		/* a figure of its own, so that a known defect is matched by name (scripts/qemu.bash) */
		snprintf(figure, sizeof(figure), "cpu%d.oneshot_fired", cpu);
		lc_bounded(out, r, name, figure,
			   &(struct bounded){.unit = "count", .value = 0, .nbands = 1,
					     .band = {{1, 1}}},
			   "vCPU %d %s one-shot armed before the event fired (not within %llu ms of "
			   "the answer)",
			   cpu, name, (LC_WINDOW_NS + r->done.after_wait_ns) / NSEC_PER_MSEC);
		return;
	}
	s64 late_ns = t->fired_at >= t->deadline ? (s64)lc_ns(r, t->fired_at - t->deadline)
						 : -(s64)lc_ns(r, t->deadline - t->fired_at);
	/* the latest it may fire: the answer and its grace, after the deadline */
	s64 latest_ns = answered + grace >= t->deadline ? (s64)lc_ns(r, answered + grace - t->deadline)
							: -(s64)lc_ns(r, t->deadline - answered - grace);

	snprintf(figure, sizeof(figure), "cpu%d.oneshot_late", cpu);
	lc_bounded_ms(
		out, r, name, figure, late_ns, 0, latest_ns,
		"vCPU %d %s one-shot armed before the event fired after its deadline, by %lld us, "
		"and within %llu ms of the answer",
		cpu, name, late_ns / (s64)NSEC_PER_USEC,
		(LC_WINDOW_NS + r->done.after_wait_ns) / NSEC_PER_MSEC);
}

/* Ticks per 1000 periods over a window of the given phase. */
static u64 rate_ppt(const struct lc_record *r, const struct lc_timer *t, enum lc_phase ph)
{
	u64 len = r->phase_start[ph + 1] - r->phase_start[ph];

	return len ? (u64)t->ticks[ph] * t->period * MILLI_PER_UNIT / len : 0;
}

/*
 * Catch-up ticks the vCPU's own history explains: the baseline's rate of
 * them over the longer windows since, and with a re-armed schedule one per
 * period of the largest gap in the vCPU's own counter reads.
 */
static u64 explained_catchup(const struct lc_record *r, int cpu, const struct lc_timer *t)
{
	const struct lc_cpu *c = &r->cpu[cpu];
	u64 before = r->phase_start[LC_DURING] - r->phase_start[LC_BEFORE];
	u64 since = r->phase_start[LC_FINISHED] - r->phase_start[LC_DURING];
	u64 n = before ? ((u64)t->early[LC_BEFORE] * since + before - 1) / before : 0;

	if (r->arch->periodic_kind == LC_PERIODIC_REARMED)
		n += max(c->step[LC_DURING][0], c->step[LC_AFTER][0]) / t->period;
	return n;
}

/* Periods a vCPU the host kept from running for wait_ns can have missed, or taken late at once. */
static u64 waited_periods(const struct lc_record *r, const struct lc_timer *t, u64 wait_ns)
{
	/* lib/period.h's rule; no uncertainty: the wait's own length, whole periods of it */
	return periods_explained(lc_ticks(r, wait_ns), t->period, 0);
}

/* Phase ph's window, ns. */
static u64 phase_ns(const struct lc_record *r, enum lc_phase ph)
{
	return lc_ns(r, r->phase_start[ph + 1] - r->phase_start[ph]);
}

/* The part of phase ph's window a vCPU waited for the host (wait_ns), in parts per thousand. */
static u64 wait_ppt(const struct lc_record *r, enum lc_phase ph, u64 wait_ns)
{
	u64 len = phase_ns(r, ph);

	return len ? min(wait_ns * MILLI_PER_UNIT / len, MILLI_PER_UNIT) : MILLI_PER_UNIT;
}

/*
 * Whether rate (parts per thousand of nominal) is within the tolerance of
 * ref, its shortfall by up to waited (the periods a vCPU waited through,
 * in the same parts) forgiven: waiting loses ticks, it never adds any.
 */
static struct bound_band rate_band(u64 waited, u64 ref)
{
	/* in millionths of nominal (10^-4 %), the tolerance's per mille of ref exact */
	u64 tol = ref * LC_RATE_TOL_PPT;

	return (struct bound_band){(s64)(ref * MILLI_PER_UNIT) - (s64)(tol + waited * MILLI_PER_UNIT),
				   (s64)(ref * MILLI_PER_UNIT + tol)};
}

/* A window's period from its ticks' own grid (lib/period.h): its marks and the periods between them. */
struct lc_window_period {
	struct period_marks m;
	u64 periods;	     /* whole periods between the marks */
	const char *why_not; /* NULL, or why the window cannot be timed */
};

/*
 * Marks at the least delayed tick of the window's first and last quarter
 * (period_marks, on the window's own mean period), and the ticks between
 * them: the window must be one run of ticks each less than 1.5 periods
 * after the one before (period_one_run), so that every tick is the next
 * period's (rounding the span to nominal periods would hide a rate off by
 * more than half a period over it). Not timed on a busy host (period_busy:
 * steal time or a vCPU's wait over 5% of the window), with too few ticks,
 * or with a tick lost or late by half a period.
 */
static struct lc_window_period window_period(const struct lc_record *r, const struct lc_timer *t,
					     unsigned w)
{
	struct lc_window_period p = {0};
	const u64 *s = t->stamps[w];
	unsigned n = t->nstamps[w];
	u64 mean;

	if (n < LC_STAMPS_MIN) {
		p.why_not = "too few ticks";
		return p;
	}
	/*
	 * The runner's measure too: a device slot's ticks come from QEMU's
	 * main loop, whose delays are no vCPU's steal time (a pause's window
	 * before with 8.3 % of a vCPU's waits timed the RTC 877 ppm off).
	 */
	p.why_not = period_busy(&(struct period_host){
		.by = PERIOD_BY_STEAL,
		.window_ns = lc_ns(r, s[n - 1] - s[0]),
		.delay_ns = t->steal_last[w] - t->steal_first[w],
		.wait_ns = w ? r->done.after_wait_ns : r->done.before_wait_ns,
		.wait_window_ns = phase_ns(r, w ? LC_AFTER : LC_BEFORE),
	});
	if (p.why_not)
		return p;
	mean = (s[n - 1] - s[0]) / (n - 1);
	p.why_not = period_one_run(s, n, mean);
	if (p.why_not)
		return p;
	p.m = period_marks(s, n, mean);
	p.periods = p.m.last - p.m.first;
	return p;
}

/*
 * The period after the event against the period before it, each from its
 * window's ticks (window_period): the same timer, programmed the same way,
 * so the LAPIC's calibration cancels. Bound: both windows' slack over
 * their spans (period_change). A window that cannot be timed leaves the
 * counts' check (10%) alone to judge, said in an INFO line.
 */
static void check_period(struct checks *out, const struct lc_record *r, int cpu, unsigned slot,
			 const struct lc_timer *t)
{
	const char *name = r->arch->name_of_slot[slot];
	struct lc_window_period b = window_period(r, t, 0), a = window_period(r, t, 1);
	struct period_change c;
	char figure[32];

	/* without steal time lc_main said so once: a busy host cannot be told */
	if (!r->has_steal)
		return;
	if (b.why_not || a.why_not) {
		checks_info(out, "vCPU %d %s period after the event not timed (%s window: %s)", cpu,
			    name, b.why_not ? "the before" : "the after",
			    b.why_not ? b.why_not : a.why_not);
		return;
	}
	c = period_change(&b.m, b.periods, &a.m, a.periods);
	snprintf(figure, sizeof(figure), "cpu%d.period_ppm", cpu);
	lc_bounded(out, r, name, figure,
		   &(struct bounded){.unit = "ppm",
				     .value = c.err_ppm,
				     .nbands = 1,
				     .band = {{-(s64)c.bound_ppm, (s64)c.bound_ppm}}},
		   "vCPU %d %s period after the event %lld ppm off the period before, timed by "
		   "the ticks (bound +-%llu ppm: the marks' spread)",
		   cpu, name, c.err_ppm, c.bound_ppm);
}

/*
 * Nominal, or what it was before: an overcommitted vCPU loses ticks to the
 * host as much before the event as after it. Each window's count is taken
 * with the periods a vCPU waited through in it added back, when that was
 * little enough to judge by (LC_JUDGE_WAIT_PCT).
 */
static void check_rate(struct checks *out, const struct lc_record *r, int cpu, unsigned slot,
		       const struct lc_timer *t)
{
	const char *name = r->arch->name_of_slot[slot];
	u64 wait_b = wait_ppt(r, LC_BEFORE, r->done.before_wait_ns);
	u64 wait_a = wait_ppt(r, LC_AFTER, r->done.after_wait_ns);
	u64 before = rate_ppt(r, t, LC_BEFORE), after = rate_ppt(r, t, LC_AFTER);
	char after_pct[FIXED_BUF_SIZE], before_pct[FIXED_BUF_SIZE];
	char wait_a_pct[FIXED_BUF_SIZE], wait_b_pct[FIXED_BUF_SIZE], figure[32];

	if (max(wait_a, wait_b) > LC_JUDGE_WAIT_PCT * 10) {
		checks_info(
			out,
			"vCPU %d %s periodic rate not judged: a vCPU waited for a host CPU %llu ms "
			"over the window before the event, %llu ms over the one after (more "
			"than %u%% of one)",
			cpu, name, r->done.before_wait_ns / NSEC_PER_MSEC,
			r->done.after_wait_ns / NSEC_PER_MSEC, LC_JUDGE_WAIT_PCT);
		return;
	}
	/* rates are in per mille of nominal, shown in percent with one decimal */
	fmt_ufixed(after_pct, sizeof(after_pct), after, 1, 1);
	fmt_ufixed(before_pct, sizeof(before_pct), before, 1, 1);
	fmt_ufixed(wait_a_pct, sizeof(wait_a_pct), wait_a, 1, 1);
	fmt_ufixed(wait_b_pct, sizeof(wait_b_pct), wait_b, 1, 1);
	if (!before) {
		checks_plain(out, false,
			     "vCPU %d %s periodic rate: no tick in the window before the event",
			     cpu, name);
		return;
	}
	snprintf(figure, sizeof(figure), "cpu%d.rate_pct", cpu);
	lc_bounded(
		out, r, name, figure,
		&(struct bounded){.unit = "%",
				  .scale = 4,
				  .value = (s64)(after * MILLI_PER_UNIT),
				  .nbands = 2,
				  .band = {rate_band(wait_a, MILLI_PER_UNIT),
					   rate_band(wait_a, before + wait_b)}},
		"vCPU %d %s periodic rate after the event %s%% of nominal, within %u%% of nominal "
		"or of the rate before, %s%%, short by no more than the periods a vCPU waited for "
		"a host CPU (%s%% of the window after, %s%% of the one before)",
		cpu, name, after_pct, LC_RATE_TOL_PPT / 10, before_pct, wait_a_pct, wait_b_pct);
}

static void check_periodic(struct checks *out, const struct lc_record *r, int cpu, unsigned slot)
{
	const struct lc_timer *t = &r->cpu[cpu].t[slot];
	const char *name = r->arch->name_of_slot[slot];
	u64 catchup = t->early[LC_DURING] + t->early[LC_AFTER];
	u64 explained = explained_catchup(r, cpu, t);
	u64 waited = waited_periods(r, t, r->done.vcpu_wait_ns + r->done.after_wait_ns);
	u64 allowed = r->catchup_max + explained + waited;
	char what[32];

	check_rate(out, r, cpu, slot, t);
	check_period(out, r, cpu, slot, t);
	snprintf(what, sizeof(what), "%s.cpu%d", name, cpu);
	lc_bounded(
		out, r, what, "catchup",
		&(struct bounded){.unit = "ticks",
				  .value = (s64)catchup,
				  .nbands = 1,
				  .band = {{0, (s64)allowed}}},
		"vCPU %d %s catch-up: %llu ticks closer than half a period after the event <= %llu "
		"(bound %llu + %llu the vCPU's own delays explain + %llu periods it waited for a "
		"host CPU)",
		cpu, name, catchup, allowed, r->catchup_max, explained, waited);
	if (!cpu || lc_every_cpu_slots(r->arch) == 1)
		lc_result_count(out, r, what, "ticks_during", t->ticks[LC_DURING], "ticks");
}

void lc_check_timers(struct checks *out, const struct lc_record *r)
{
	for (int cpu = 0; cpu < (int)r->ncpus; cpu++)
		for (unsigned s = 0; s < r->arch->nslots; s++)
			if (r->cpu[cpu].t[s].role == LC_ROLE_ONESHOT && !r->run.n)
				check_oneshot(out, r, cpu, s);
			else if (r->cpu[cpu].t[s].role == LC_ROLE_PERIODIC)
				check_periodic(out, r, cpu, s);
}

/* One vCPU's stopped flag: set once after the request, never before it, never again after. */
static void check_stopped_cpu(struct checks *out, const struct lc_record *r, int cpu)
{
	const u32 *seen = r->cpu[cpu].stopped_seen;
	const char *flag = r->arch->stopped_flag_name;
	u32 after = seen[LC_DURING] + seen[LC_AFTER];

	checks_plain(out, after && !seen[LC_BEFORE],
		     "vCPU %d: the host set %s in this vCPU's own area for the event (found set %u "
		     "times after the request, %u before it)",
		     cpu, flag, after, seen[LC_BEFORE]);
	/* once per stop: a run of migrations stops the guest lc_stops(r) times */
	checks_plain(
		out, after <= lc_stops(r),
		"vCPU %d: %s stayed clear once the guest cleared it (set again %u times by the end "
		"of the window after)",
		cpu, flag, after > lc_stops(r) ? after - lc_stops(r) : 0);
}

/*
 * The host sets every vCPU's stopped flag as the VM runs again after a
 * stop, for the guest's watchdogs to excuse the time it did not run;
 * the guest clears it as it reads it (common/lifecycle/lifecycle_sample.c).
 */
void lc_check_stopped_flag(struct checks *out, const struct lc_record *r)
{
	u64 vcpus = 0;

	for (int cpu = 0; cpu < (int)r->ncpus; cpu++)
		vcpus += r->cpu[cpu].stopped_seen[LC_DURING] + r->cpu[cpu].stopped_seen[LC_AFTER] > 0;
	lc_result_count(out, r, "stopped_flag", "vcpus_set", vcpus, "vcpus");
	for (int cpu = 0; cpu < (int)r->ncpus; cpu++)
		check_stopped_cpu(out, r, cpu);
}
