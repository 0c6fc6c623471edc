/* SPDX-License-Identifier: GPL-2.0-only */
/* The period of a periodic source from its tick stamps (lib/period.h). */
#include "period.h"
#include "busy.h"
#include "stats.h"
#include "units.h"

struct period_marks period_marks(const u64 *t, unsigned n, u64 period)
{
	struct quarter_marks m = quarter_marks(t, n, period);

	return (struct period_marks){
		.first = m.first,
		.last = m.last,
		.run = m.run,
		.span = t[m.last] - t[m.first],
		.slack = m.slack,
	};
}

const char *period_one_run(const u64 *t, unsigned n, u64 period)
{
	return least_delayed(t, n, period).run < n ? "a tick lost or late by half a period" : NULL;
}

struct period_of_run period_of_longest_run(const u64 *t, unsigned n, u64 nominal, unsigned min_run,
					   u64 stamp_slack)
{
	unsigned len, from = longest_run(t, n, nominal, &len);
	struct period_marks m;
	u64 periods;

	if (len < min_run)
		return (struct period_of_run){0};
	m = period_marks(&t[from], len, nominal);
	periods = m.last - m.first;
	return (struct period_of_run){
		.first = from + m.first,
		.last = from + m.last,
		.period = m.span / periods,
		.per_period = (m.slack + stamp_slack) / periods + 1,
	};
}

s64 period_err_ppb(u64 periods, u64 hz, u64 span_ns)
{
	return ((s64)(periods * NSEC_PER_SEC / hz) - (s64)span_ns) * (s64)NSEC_PER_SEC /
	       (s64)span_ns;
}

/* slack over span in ppm, rounded up */
static u64 spread_ppm(const struct period_marks *m)
{
	return (m->slack * PPM_PER_UNIT + m->span - 1) / m->span;
}

struct period_change period_change(const struct period_marks *before, u64 periods_before,
				   const struct period_marks *after, u64 periods_after)
{
	/* (a.span / a.periods) / (b.span / b.periods) - 1, in ppm */
	s64 num = (s64)(after->span * periods_before) - (s64)(before->span * periods_after);

	return (struct period_change){
		.err_ppm = num * (s64)PPM_PER_UNIT / (s64)(before->span * periods_after),
		.bound_ppm = spread_ppm(before) + spread_ppm(after) + 1,
	};
}

struct period_count period_count(u64 got, u64 want, u64 short_allowed, u64 over_allowed)
{
	struct period_count c = {
		.is_short = got <= want,
		.short_allowed = short_allowed,
		.over_allowed = over_allowed,
	};

	c.off = c.is_short ? want - got : got - want;
	c.bound = c.is_short ? short_allowed : over_allowed;
	c.ok = c.off <= c.bound;
	return c;
}

u64 periods_explained(u64 delay, u64 period, u64 uncertainty)
{
	if (!delay || !period)
		return 0;
	/* floor((delay + uncertainty) / period), without the sum's overflow */
	return delay / period + (delay % period + uncertainty) / period;
}

const char *period_busy(const struct period_host *h)
{
	const char *why = NULL;

	if (h->by == PERIOD_BY_HOST)
		why = busy_by_host(h->delay_ns, h->window_ns);
	else if (h->by == PERIOD_BY_STEAL)
		why = busy_by_steal(h->delay_ns, h->window_ns);
	else
		why = "no steal time here to tell a busy host by";
	if (!why && h->wait_window_ns)
		why = busy_by_wait(h->wait_ns, h->wait_window_ns);
	return why;
}
