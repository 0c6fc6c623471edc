// SPDX-License-Identifier: GPL-2.0-only
/* The timer-tick engine's cross-check of the counter's frequency and of the tick rate against a
 * reference clock. */
#include "tick_ref.h"
#include "tick_figure.h"
#include "arch.h"
#include "tick_judge.h"
#include "fixed.h"
#include "report.h"
#include "stats.h"
#include "units.h"

/*
 * Marks per end, the narrowest kept: a fast reference (HPET, PM timer)
 * gives one every read, so several cost nothing and drop a bracket a
 * descheduled vCPU widened; a slow one (1 Hz) costs a second each.
 */
#define TICK_REF_TRIES_FAST 5
#define TICK_REF_TRIES_SLOW 1
/* A reference below this rate is slow. */
#define TICK_REF_SLOW_HZ   1000
#define TICK_REF_TIMEOUT_S 2
/* ppb printed as ppm: PPB_PER_PPM is 10^3, three decimals */
#define PPM_SCALE 3

static unsigned tries(const struct refclock *ref)
{
	return ref->hz() < TICK_REF_SLOW_HZ ? TICK_REF_TRIES_SLOW : TICK_REF_TRIES_FAST;
}

static void mark(struct tick_ref *r, struct refclock_mark *m, u64 counter_hz)
{
	static char why[96];

	if (r->why)
		return;
	if (!refclock_mark_best(r->ref, arch_counter, TICK_REF_TIMEOUT_S * counter_hz,
				tries(r->ref), m)) {
		snprintf(why, sizeof(why), "the %s did not move in %u s", r->ref->what,
			 TICK_REF_TIMEOUT_S);
		r->why = why;
	}
}

void tick_ref_begin(struct tick_ref *r, const char *avoid, u64 counter_hz)
{
	size_t n;
	const struct refclock *const *t = refclock_table(&n);

	r->ref = NULL;
	r->why = "the machine has none of the arch's reference clocks";
	for (size_t i = 0; i < n && !r->ref; i++) {
		if (!strcmp(t[i]->name, avoid))
			continue;
		if (!t[i]->probe()) {
			r->ref = t[i];
			r->why = NULL;
		}
	}
	if (r->ref)
		report_info("reference clock: %s (marks before and after the run)", r->ref->what);
	mark(r, &r->m0, counter_hz);
}

void tick_ref_end(struct tick_ref *r, u64 counter_hz)
{
	mark(r, &r->m1, counter_hz);
}

/* How far span differs from slots periods at want_hz of a counter at counter_hz, in ppb. */
static s64 plan_ppb(const struct tick_ref_plan *p)
{
	u64 ideal = p->slots / p->want_hz * p->counter_hz +
		    (p->slots % p->want_hz) * p->counter_hz / p->want_hz;
	s64 diff = (s64)p->span - (s64)ideal;

	if (!ideal)
		return 0;
	/* ppb in two steps: the difference can be 5 % of a 10-minute span */
	return diff * (s64)PPM_PER_UNIT / (s64)max(ideal / PPB_PER_PPM, 1ull);
}

/* Ticks per second (thousandths) in the reference's time: the span is err_ppb short or long of it.
 */
static u64 ref_ticks_per_s_milli(const struct tick_ref_plan *p, s64 err_ppb)
{
	u64 span_us = ticks_to_ns(p->span, p->counter_hz) / NSEC_PER_USEC;
	u64 real_us = span_us * PPB_PER_UNIT / (u64)((s64)PPB_PER_UNIT + err_ppb);

	return real_us ? p->received * PPB_PER_UNIT / real_us : 0;
}

void tick_ref_check(struct checks *out, const struct tick_ref *r, const struct tick_ref_plan *p)
{
	struct refclock_rate rate;
	s64 sched_err;
	u64 sched_bound;
	char buf[24], full[96];

	if (r->why) {
		checks_skip(out, "counter frequency and tick rate not checked: %s", r->why);
		return;
	}
	if (!refclock_rate(r->ref, p->counter_hz, &r->m0, &r->m1, &rate)) {
		checks_plain(out, false, "the %s gave no rate: counts %llu to %llu", r->ref->what,
			     r->m0.count, r->m1.count);
		return;
	}
	tick_bounded(out, p->source, "counter_err", "ppm", PPM_SCALE, rate.err_ppb,
		     -(s64)rate.bound_ppb, (s64)rate.bound_ppb,
		     "the counter runs at the %llu Hz used, against the %s over %llu ms: %+lld ppm "
		     "(bound +-%llu ppm)",
		     p->counter_hz, r->ref->what, rate.window_ns / NSEC_PER_MSEC,
		     rate.err_ppb / (s64)PPB_PER_PPM, rate.bound_ppb / PPB_PER_PPM);
	/*
	 * The schedule lasts span counter ticks, each really 1 + err long:
	 * its rate against want_hz is off by err minus the plan's own error.
	 */
	sched_err = rate.err_ppb - plan_ppb(p);
	sched_bound = rate.bound_ppb + p->slack_ppb;
	fmt_milli(buf, sizeof(buf), ref_ticks_per_s_milli(p, rate.err_ppb));
	tick_bounded(out, p->source, "schedule_err", "ppm", PPM_SCALE, sched_err, -(s64)sched_bound,
		     (s64)sched_bound,
		     "the schedule runs at hz=%llu against the %s: %+lld ppm (bound +-%llu ppm); "
		     "%s ticks per second in its time",
		     p->want_hz, r->ref->what, sched_err / (s64)PPB_PER_PPM,
		     sched_bound / PPB_PER_PPM, buf);
	snprintf(full, sizeof(full), "timer_tick.%s.ticks_per_s_ref", p->source);
	checks_result(out, full, "Hz", "%s", buf);
}

/* The counter's frequency and the schedule's rate against the reference clock. */
void tick_check_rates(struct checks *out, const struct tick_record *r, const struct tick_ref *ref)
{
	struct tick_ref_plan p = {
		.source = r->source,
		.counter_hz = r->counter_hz,
		.want_hz = r->want_hz,
		.slots = r->expected,
		.span = tick_rec_slot(r, r->expected - 1),
		.received = r->n,
		.slack_ppb = tick_rec_slack_ppb(r),
	};

	tick_ref_check(out, ref, &p);
}
