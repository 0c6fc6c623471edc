/* SPDX-License-Identifier: GPL-2.0-only */
/* The checks of a run of migrations (events=migrate=N), migration by migration: every periodic
 * timer's ticks lost and late, every one-shot fired once. */
#include "lifecycle_judge.h"
#include "period.h"

/*
 * How long the host kept the timer's interrupt from being taken around
 * migration k, as the runner measured it: from the answer before to
 * request k (the dwell), the migration itself, and the dwell after it. A
 * tick lost or late over migration k can fall in any of them. A vCPU's
 * own timer waits for its vCPU thread; a device of the machine (the RTC,
 * an HPET comparator) is raised from QEMU's main loop, so any of QEMU's
 * threads' waits delay it (the stamp waits: over the dwell and the
 * migration; the one after also covers the next migration, which it
 * cannot tell apart). A one-shot of the HPET fired 306 ms after its
 * deadline under TCG at rest, its vCPU waited 206 ms, QEMU's threads 674.
 */
/* Whose waits those are, for the messages. */
static const char *waiter(const struct lc_record *r, unsigned slot)
{
	return r->arch->slot_use[slot] != LC_SLOT_EVERY_CPU ? "QEMU's threads" : "a vCPU";
}

static u64 wait_around(const struct lc_record *r, unsigned slot, unsigned k)
{
	const struct lc_run *run = &r->run;

	if (r->arch->slot_use[slot] != LC_SLOT_EVERY_CPU)
		return run->done[k].stamp_wait_ns +
		       (k < run->n ? run->done[k + 1].stamp_wait_ns : r->done.after_stamp_wait_ns);
	return run->done[k].before_wait_ns + run->done[k].vcpu_wait_ns +
	       (k < run->n ? run->done[k + 1].before_wait_ns : r->done.after_wait_ns);
}

/*
 * The periods a delay of ns can have taken (lib/period.h's one rule): the
 * stop's or the wait's phase against the grid is unknown, so the
 * uncertainty is a period less one counter tick (every slot it covers may
 * be dropped: ceil(delay / period)).
 */
static u64 periods_in(const struct lc_record *r, u64 ns, u64 period)
{
	return periods_explained(lc_ticks(r, ns), period, period - 1);
}

/* Migration k's stretch of the run: from its request to the next one (the last: to the run's end).
 */
static u64 stretch(const struct lc_record *r, unsigned k)
{
	const struct lc_run *run = &r->run;
	u64 end = k < run->n ? run->req_at[k + 1] : r->phase_start[LC_AFTER];

	return end - run->req_at[k];
}

static void result_run(struct checks *out, const struct lc_record *r, int cpu, unsigned slot,
		       const char *figure, u64 v, const char *unit)
{
	char what[48];

	snprintf(what, sizeof(what), "%s.cpu%d", r->arch->name_of_slot[slot], cpu);
	lc_result_count(out, r, what, figure, v, unit);
}

/* A bounded check of the worst migration's figure, e<seq>.<event>.<slot>.cpu<cpu>.<figure>: value in 0..hi. */
static bool bounded_run(struct checks *out, const struct lc_record *r, int cpu, unsigned slot,
			const char *figure, const char *unit, u64 v, u64 hi, const char *fmt, ...)
	__printf(9, 10);
static bool bounded_run(struct checks *out, const struct lc_record *r, int cpu, unsigned slot,
			const char *figure, const char *unit, u64 v, u64 hi, const char *fmt, ...)
{
	struct bounded b = {.unit = unit, .value = (s64)v, .nbands = 1, .band = {{0, (s64)hi}}};
	char what[48];
	va_list ap;
	bool pass;

	snprintf(what, sizeof(what), "%s.cpu%d", r->arch->name_of_slot[slot], cpu);
	va_start(ap, fmt);
	pass = lc_vbounded(out, r, what, figure, &b, fmt, ap);
	va_end(ap);
	return pass;
}

/* The periods of migration k's stretch no tick came for, and what its stop and the host's waits
 * explain. */
struct run_loss {
	u64 lost, periods, stopped, waited;
};

static struct run_loss loss_of(const struct lc_record *r, unsigned slot, const struct lc_timer *t,
			       unsigned k)
{
	struct run_loss l = {
		.periods = stretch(r, k) / t->period,
		.stopped = periods_in(r, r->run.done[k].duration_ns, t->period),
		.waited = periods_in(r, wait_around(r, slot, k), t->period),
	};

	l.lost = l.periods > t->run_ticks[k] ? l.periods - t->run_ticks[k] : 0;
	return l;
}

/*
 * Ticks lost over each migration: the periods of its stretch without a
 * tick, at most one (the stretch's ends cut periods) plus the periods of
 * its stop (QEMU's STOP to RESUME: a counter that ran through the stop
 * may drop them) and those a vCPU waited for a host CPU around it.
 */
static void check_run_lost(struct checks *out, const struct lc_record *r, int cpu, unsigned slot)
{
	const struct lc_timer *t = &r->cpu[cpu].t[slot];
	unsigned over = 0, worst = 1;
	s64 worst_margin = 0;
	struct run_loss w;

	for (unsigned k = 1; k <= r->run.n; k++) {
		struct run_loss l = loss_of(r, slot, t, k);
		s64 margin = (s64)l.lost - (s64)(1 + l.stopped + l.waited);

		over += margin > 0;
		if (k == 1 || margin > worst_margin)
			worst_margin = margin, worst = k;
	}
	w = loss_of(r, slot, t, worst);
	bounded_run(
		out, r, cpu, slot, "run_lost_worst", "ticks", w.lost, 1 + w.stopped + w.waited,
		"vCPU %d %s over %u migrations back to back: ticks lost in each no more than its "
		"stop and the host's waits explain (%u over; the worst, migration %u: %llu of %llu "
		"periods without a tick, allowed 1 + %llu periods stopped + %llu periods %s "
		"waited for a host CPU)",
		cpu, r->arch->name_of_slot[slot], r->run.n, over, worst, w.lost, w.periods,
		w.stopped, w.waited, waiter(r, slot));
}

/* The longest time between two ticks allowed in migration k's stretch, ns. */
static u64 gap_allowed_ns(const struct lc_record *r, unsigned slot, const struct lc_timer *t,
			  unsigned k)
{
	return lc_ns(r, t->period) + r->run.done[k].duration_ns + wait_around(r, slot, k) +
	       LC_STAMP_SLACK_NS;
}

/* Each migration's longest time between two ticks: a period, its stop and the host's waits. */
static void check_run_late(struct checks *out, const struct lc_record *r, int cpu, unsigned slot)
{
	const struct lc_timer *t = &r->cpu[cpu].t[slot];
	unsigned over = 0, worst = 1;
	s64 worst_margin = 0;

	for (unsigned k = 1; k <= r->run.n; k++) {
		s64 margin = (s64)lc_ns(r, t->run_gap[k]) - (s64)gap_allowed_ns(r, slot, t, k);

		over += margin > 0;
		if (k == 1 || margin > worst_margin)
			worst_margin = margin, worst = k;
	}
	bounded_run(
		out, r, cpu, slot, "run_gap_worst_us", "us",
		lc_ns(r, t->run_gap[worst]) / NSEC_PER_USEC,
		gap_allowed_ns(r, slot, t, worst) / NSEC_PER_USEC,
		"vCPU %d %s over %u migrations back to back: no tick later than its migration's "
		"stop and the host's waits explain (%u over; the worst, migration %u: %llu us "
		"after "
		"the tick before, allowed a period %llu us + stopped %llu us + %llu us %s "
		"waited for a host CPU + %llu us)",
		cpu, r->arch->name_of_slot[slot], r->run.n, over, worst,
		lc_ns(r, t->run_gap[worst]) / NSEC_PER_USEC, lc_ns(r, t->period) / NSEC_PER_USEC,
		r->run.done[worst].duration_ns / NSEC_PER_USEC,
		wait_around(r, slot, worst) / NSEC_PER_USEC, waiter(r, slot),
		LC_STAMP_SLACK_NS / NSEC_PER_USEC);
}

/* Migration k's one-shot fired once, after its deadline, and within the dwell and the host's waits
 * of the deadline or the answer. */
static bool oneshot_ok(const struct lc_record *r, unsigned slot, const struct lc_timer *t, unsigned k,
		       u64 *late_ns)
{
	const struct lc_run *run = &r->run;
	u64 from = max(run->deadlines[k], run->answered[k]);
	u64 grace = LC_RUN_DWELL_NS + wait_around(r, slot, k);
	u64 at = t->run_fired_at[k];

	*late_ns = at > from ? lc_ns(r, at - from) : 0;
	return t->run_fires[k] == 1 && at >= run->deadlines[k] && *late_ns <= grace;
}

/*
 * Each migration's one-shot, armed as its request went out for a deadline
 * inside the migration or past its answer (lc_run_step): it must fire
 * once, never before its deadline, and no later than the dwell after the
 * deadline or the answer plus what the host kept a vCPU waiting. Those
 * still pending when the answer came were pending across the stop.
 */
static void check_run_oneshot(struct checks *out, const struct lc_record *r, int cpu, unsigned slot)
{
	const struct lc_timer *t = &r->cpu[cpu].t[slot];
	unsigned bad = 0, pending = 0, first_bad = 1, latest = 1, worst;
	u64 late_ns, latest_ns = 0;

	for (unsigned k = 1; k <= r->run.n; k++) {
		pending += t->run_fired_at[k] > r->run.answered[k];
		if (!oneshot_ok(r, slot, t, k, &late_ns)) {
			if (!bad++)
				first_bad = k;
		} else if (late_ns >= latest_ns) {
			latest_ns = late_ns;
			latest = k;
		}
	}
	worst = bad ? first_bad : latest;
	oneshot_ok(r, slot, t, worst, &late_ns);
	bounded_run(out, r, cpu, slot, "run_oneshot_not_ok", "count", bad, 0,
		    "vCPU %d %s one-shot armed with each of %u migrations back to back fired once, "
		    "after its deadline, within %llu ms + the host's waits of the deadline or the "
		    "answer (%u not; %u of them still pending at the answer, across the stop; %s "
		    "migration %u: fired %u times, %lld us from the deadline, %llu us late, %s "
		    "waited %llu us)",
		    cpu, r->arch->name_of_slot[slot], r->run.n, LC_RUN_DWELL_NS / NSEC_PER_MSEC,
		    bad, pending, bad ? "the first not," : "the latest,", worst,
		    t->run_fires[worst],
		    t->run_fired_at[worst] >= r->run.deadlines[worst]
			    ? (s64)(lc_ns(r, t->run_fired_at[worst] - r->run.deadlines[worst]) /
				    NSEC_PER_USEC)
			    : -(s64)(lc_ns(r, r->run.deadlines[worst] - t->run_fired_at[worst]) /
				     NSEC_PER_USEC),
		    late_ns / NSEC_PER_USEC, waiter(r, slot),
		    wait_around(r, slot, worst) / NSEC_PER_USEC);
	result_run(out, r, cpu, slot, "run_oneshot_pending", pending, "count");
}

void lc_check_run(struct checks *out, const struct lc_record *r)
{
	for (unsigned k = 1; k <= r->run.n; k++) {
		char figure[32];

		snprintf(figure, sizeof(figure), "m%u_stopped", k);
		lc_result_ms(out, r, "host", figure, (s64)r->run.done[k].duration_ns);
	}
	for (int cpu = 0; cpu < (int)r->ncpus; cpu++) {
		for (unsigned s = 0; s < r->arch->nslots; s++) {
			if (r->cpu[cpu].t[s].role == LC_ROLE_PERIODIC) {
				check_run_lost(out, r, cpu, s);
				check_run_late(out, r, cpu, s);
			} else if (r->cpu[cpu].t[s].role == LC_ROLE_ONESHOT) {
				check_run_oneshot(out, r, cpu, s);
			}
		}
	}
}
