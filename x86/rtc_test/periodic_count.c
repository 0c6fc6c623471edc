/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's step 3: the whole periods between a window's marks, by a run's period or interval by
 * interval, and the missed ones the host's evidence explains. */
#include "libc.h"
#include "periodic.h"
#include "units.h"

/* interval k (from interrupt k - 1) spans two nominal periods or more: periods without one */
static bool periodic_gap[MAX_EVENTS];
bool periodic_ask[MAX_EVENTS];

/*
 * The whole periods between the marks: a whole number of periods of
 * period_ns within a quarter period plus the marks' slack, and the period's
 * own uncertainty over them under a quarter period. False (and why in
 * f->unusable) when not.
 */
static bool count_periods(struct periodic_figures *f, u64 nominal_ns, u64 period_ns,
			  u64 per_period_ns, u64 slack)
{
	u64 span = f->window_ns, off;

	/* each period brings one interrupt at most */
	f->periods = max(max((span + period_ns / 2) / period_ns, (u64)(f->last - f->first)), 1ull);
	off = span > f->periods * period_ns ? span - f->periods * period_ns
					    : f->periods * period_ns - span;
	if (f->periods * per_period_ns < period_ns / 4 && off <= period_ns / 4 + slack)
		return true;
	snprintf(f->unusable, sizeof(f->unusable),
		 "interrupts %u and %u, %llu us apart, are %llu periods of %llu ns +- %llu ns "
		 "(nominal %llu ns) only to within %llu us (allowed a quarter period)",
		 f->first, f->last, span / NSEC_PER_USEC, f->periods, period_ns, per_period_ns,
		 nominal_ns, (off + f->periods * per_period_ns) / NSEC_PER_USEC);
	return false;
}

/* The intervals between the marks that span two nominal periods or more, into periodic_gap[]; those
 * to ask the host about, into periodic_ask[]. */
void find_gaps(const struct periodic_figures *f, u64 nominal_ns, const struct period_of_run *run)
{
	memset(periodic_gap, 0, sizeof(periodic_gap));
	memset(periodic_ask, 0, sizeof(periodic_ask));
	for (unsigned k = f->first + 1; k <= f->last; k++)
		periodic_gap[k] = irq_ns[k] - irq_ns[k - 1] + nominal_ns / 2 >= 2 * nominal_ns;
	for (unsigned k = f->first; k <= f->last; k++)
		periodic_ask[k] = true;
	if (run->period)
		periodic_ask[run->first] = periodic_ask[run->last] = true;
}

/*
 * The periods a delay of delay_ns explains against the nominal period
 * (lib/period.h, periods_explained): the uncertainty is half a period, as
 * an interval is counted to the nearest whole period, so its missed
 * periods can be half a period more than the delay in it covers.
 */
static u64 delay_explains(u64 delay_ns, u64 nominal_ns)
{
	return periods_explained(delay_ns, nominal_ns, nominal_ns / 2);
}

/*
 * With the host's evidence: of the missed periods between the marks, those
 * the host's delays explain: a gap's delay explains delay_explains() of
 * its missed periods at most, and all of them together no more than the
 * delay between the marks explains by the same rule (the agent widens
 * each gap to its samples, 5 ms apart: summed, the gaps' delays count a
 * delay more than once). True when the window can tell a rate select one
 * step slow from the load (PERIODIC_TELL_PCT); else why not, in
 * f->unusable.
 */
static bool missed_told(struct periodic_figures *f, u64 nominal_ns, u64 missed)
{
	u64 explained = 0, gap_ns = 0, left;

	for (unsigned k = f->first + 1; k <= f->last; k++) {
		u64 periods = (irq_ns[k] - irq_ns[k - 1] + nominal_ns / 2) / nominal_ns;

		if (!periodic_gap[k])
			continue;
		gap_ns += f->host.before_ns[k];
		explained += min(periods - 1, delay_explains(f->host.before_ns[k], nominal_ns));
	}
	f->explained = min(min(explained, delay_explains(f->host.window_ns, nominal_ns)), missed);
	left = missed - f->explained;
	if (f->explained * 100 < f->periods * PERIODIC_TELL_PCT &&
	    left * 100 < f->periods * PERIODIC_TELL_PCT)
		return true;
	f->untold = f->explained * 100 >= f->periods * PERIODIC_TELL_PCT;
	snprintf(f->unusable, sizeof(f->unusable),
		 "no run of interrupts a period apart to time the period by, and %llu of the %llu "
		 "periods between interrupts %u and %u without one: %llu explained by the host's "
		 "delays (%llu ms over the gaps, %llu ms between the marks), %llu not; %s %u%% or "
		 "more (a rate select one step slow leaves %u%%%s)",
		 missed, f->periods, f->first, f->last, f->explained, gap_ns / NSEC_PER_MSEC,
		 f->host.window_ns / NSEC_PER_MSEC, left, f->untold ? "explained" : "unexplained",
		 PERIODIC_TELL_PCT, PERIODIC_SLOW_MISSED_PCT,
		 f->untold ? ": the host left too little to tell it from the load" : "");
	return false;
}

/*
 * On a busy host where no run of interrupts gives the period: the periods
 * between the marks counted interval by interval, each rounded to whole
 * nominal periods, which the coarse bound allows (a period miscounted in a
 * hundred is 1%). An interrupt late by over half a period rounds its
 * interval up and the next one's down to none: the sum keeps the count
 * (seen beside two busy loops under TCG; "one at least" counted 20% too
 * many). Never fewer periods than interrupts: a rate select one step fast
 * gives intervals of half a period, which round either way. A rate select
 * one step slow gives two per interval: more than PERIODIC_BUSY_MISSED_PCT
 * of the periods without an interrupt leaves the window unusable.
 */
static bool count_periods_by_intervals(struct periodic_figures *f, u64 nominal_ns)
{
	u64 periods = 0, missed;

	for (unsigned k = f->first + 1; k <= f->last; k++)
		periods += (irq_ns[k] - irq_ns[k - 1] + nominal_ns / 2) / nominal_ns;
	/* each period brings one interrupt at most: more interrupts, a faster rate */
	f->periods = max(max(periods, (u64)(f->last - f->first)), 1ull);
	missed = f->periods - (f->last - f->first);
	if (!f->no_host) {
		/*
		 * An interval rounds wrong where an interrupt's lateness grew or
		 * fell by half a period since the one before. Lateness grows only
		 * while the host holds QEMU back, D in all between the marks, and
		 * falls back as much: the rounded intervals can be 2 D / P
		 * periods off in all, at most one an interval.
		 */
		f->ambiguous = min((2 * f->host.window_ns + nominal_ns - 1) / nominal_ns,
				   (u64)(f->last - f->first));
		return missed_told(f, nominal_ns, missed);
	}
	if (missed * 100 <= f->periods * PERIODIC_BUSY_MISSED_PCT)
		return true;
	snprintf(f->unusable, sizeof(f->unusable),
		 "no run of interrupts a period apart to time the period by, and %llu of the "
		 "%llu periods between interrupts %u and %u without one (over %u%%: a rate select "
		 "one step slow looks so too)",
		 missed, f->periods, f->first, f->last, PERIODIC_BUSY_MISSED_PCT);
	return false;
}

/* The most the host held QEMU back before interrupt a or b (the host's evidence). */
static u64 held_before(const struct periodic_figures *f, unsigned a, unsigned b)
{
	return max(f->host.before_ns[a], f->host.before_ns[b]);
}

/*
 * The whole periods between the marks: by the longest run's period, or on
 * a busy host, where a run's period can be too uncertain to count by,
 * interval by interval. With the host's evidence, on a busy host, the
 * run's period can be off by what the host held back its marks, and the
 * window's span by what it held back the window's marks: both are added
 * to their spreads (a run's period timed by marks the host delayed
 * together counted a window two periods in 112 too long under KVM, its
 * spread alone taken). Counted interval by interval, the periods the
 * rounding can be off by what the host held QEMU back add to the bound
 * (f->ambiguous: one late by half a period and one lost after it make two
 * intervals of 1.5 periods, counted 4 for 3; beside two busy loops under
 * KVM, 137 periods counted for 132).
 */
bool count_window(struct periodic_figures *f, bool busy, u64 nominal_ns,
		  const struct period_of_run *run, u64 slack)
{
	u64 per_period = run->per_period;

	if (run->period && busy && !f->no_host) {
		per_period += held_before(f, run->first, run->last) / (run->last - run->first);
		slack += held_before(f, f->first, f->last);
	}
	if (run->period && count_periods(f, nominal_ns, run->period, per_period, slack))
		return true;
	return busy && count_periods_by_intervals(f, nominal_ns);
}
