/* SPDX-License-Identifier: GPL-2.0-only */
/* The period of a periodic source from its tick stamps, and whether the host left the stretch quiet
 * enough to time it by. */
#ifndef VMTICK_PERIOD_H
#define VMTICK_PERIOD_H

#include "libc.h"

/*
 * Ticks t[0..n), in order: a source's interrupts due on its period's grid,
 * each on time or late, never early (raised from a host thread that is
 * sometimes delayed), one raised while the one before was not yet taken
 * lost. The period is timed between two marks, the least delayed tick of
 * the first and of the last quarter (lib/stats.h, quarter_marks), over the
 * whole periods between them; the marks' measured spread (how much later
 * the third least delayed of each mark's run came) is how far the span
 * can be off. Used by rtc_test's periodic rate (x86/rtc_test/periodic.c)
 * and the lifecycle test's period across an event (common/lifecycle/lifecycle_check.c).
 */
struct period_marks {
	unsigned first, last; /* indices into t */
	unsigned run;	      /* the shorter of the marks' runs */
	u64 span;	      /* t[last] - t[first] */
	u64 slack;	      /* the marks' measured spread, both added */
};

/* The marks of t[0..n) (n >= 4) against period. */
struct period_marks period_marks(const u64 *t, unsigned n, u64 period);

/*
 * NULL when t[0..n) is one run, every tick less than 1.5 periods after the
 * one before (so each is the next period's and the marks' indices count
 * the periods between them); else why not.
 */
const char *period_one_run(const u64 *t, unsigned n, u64 period);

/*
 * The period of the longest run of t[0..n) against nominal (each tick the
 * next period's, however late: a rate select 2x off still counts right; at
 * 0.5x no run is long enough): its marks, half the run apart or more, over
 * the periods between them.
 */
struct period_of_run {
	unsigned first, last; /* the run's marks, indices into t */
	u64 period;	      /* ns per period; 0 when the run is shorter than min_run */
	u64 per_period;	      /* how far it can be off: the marks' slack over the periods */
};
/* stamp_slack: the stamps' own resolution at both marks, added to their spread. */
struct period_of_run period_of_longest_run(const u64 *t, unsigned n, u64 nominal, unsigned min_run,
					   u64 stamp_slack);

/* The rate of periods at hz over span_ns against hz, ppb: positive when faster. */
s64 period_err_ppb(u64 periods, u64 hz, u64 span_ns);

/*
 * The period after an event against the one before, each span / periods
 * (every tick in one run), in ppm; the bound both windows' slack over
 * their spans (rounded up) and 1 ppm of rounding.
 */
struct period_change {
	s64 err_ppm;
	u64 bound_ppm;
};
struct period_change period_change(const struct period_marks *before, u64 periods_before,
				   const struct period_marks *after, u64 periods_after);

/*
 * A periodic source's ticks counted over a stretch against the count it
 * should hold there, in one unit the caller picks (ticks, or parts of a
 * tick): short by up to short_allowed (what lost ticks the host and the
 * caller's tolerance explain: waiting loses ticks), over by up to
 * over_allowed (nothing but a faster source adds any). A count exactly
 * right is short by 0. Used by the tick engine's count at the end
 * (common/tick/tick_judge.c) and the lifecycle's windows' rates
 * (common/lifecycle/lifecycle_check.c).
 */
struct period_count {
	bool is_short; /* got <= want */
	u64 off;       /* how far got is from want */
	u64 bound;     /* short_allowed or over_allowed, by the side it is off */
	bool ok;       /* off <= bound */
	/* the band got - want had to lie in: -short_allowed..over_allowed */
	u64 short_allowed, over_allowed;
};
struct period_count period_count(u64 got, u64 want, u64 short_allowed, u64 over_allowed);

/*
 * The periods of period a delay explains: how many expiries of a periodic
 * source a stretch held back for delay can have lost, given that the
 * stretch in which its expiries coalesce may reach uncertainty further
 * against the source's grid than the delay measured. While whatever
 * delivers the source is held back (a vCPU, the QEMU thread that fires
 * the device's timer), the expiries due meanwhile come as one interrupt
 * when it runs again (QEMU folds a periodic timer's missed expiries into
 * one; an interrupt raised while the one before is pending is lost): a
 * stretch of B holds at most ceil(B / P) expiries, one of them delivered,
 * so at most floor(B / P) are lost, B = delay + uncertainty. The
 * uncertainty is each caller's, and says where it comes from:
 *   - the tick judgment (common/tick/tick_judge.c): the run's normal
 *     latency, the handling of the tick before the delay, whose expiries
 *     coalesce with those due during it;
 *   - rtc_test's intervals (x86/rtc_test/periodic_count.c): half a period,
 *     an interval's count being rounded to the nearest whole period;
 *   - the lifecycle's run checks (common/lifecycle/lifecycle_run_check.c):
 *     one counter tick short of a period, the stop's phase against the
 *     grid unknown (every slot it covers may be dropped: ceil(delay /
 *     period));
 *   - the lifecycle window's waited periods
 *     (common/lifecycle/lifecycle_check.c): none, the wait's whole periods.
 * No delay explains nothing, whatever the uncertainty; a period of 0
 * explains nothing either. All three in one unit, the caller's.
 */
u64 periods_explained(u64 delay, u64 period, u64 uncertainty);

/*
 * What is known of what the host did over a stretch of ticks, to tell
 * whether it was quiet enough to time a period by (lib/busy.h).
 */
enum period_witness {
	PERIOD_BY_NOTHING, /* no steal time, no host's evidence (TCG by hand) */
	PERIOD_BY_STEAL,   /* the vCPU's steal time */
	PERIOD_BY_HOST,	   /* the runner's agent: QEMU's threads held back */
};
struct period_host {
	enum period_witness by;
	u64 window_ns;	    /* the stretch */
	u64 delay_ns;	    /* the witness's figure over it: steal, or the host's delays */
	u64 wait_ns;	    /* the runner's measure of a vCPU's wait (0: none) ... */
	u64 wait_window_ns; /* ... over its own window */
};
/* NULL when the host left the stretch quiet; else why not (busy_by_*'s words). */
const char *period_busy(const struct period_host *h);

#endif
