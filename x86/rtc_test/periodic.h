/* SPDX-License-Identifier: GPL-2.0-only */
/* What rtc_test's step 3 files share: a window's figures and its constants. */
#ifndef VMTICK_X86_RTC_TEST_PERIODIC_H
#define VMTICK_X86_RTC_TEST_PERIODIC_H

#include "libc.h"
#include "rtc_test.h"
#include "period.h"

/* a window whose quiet bound is wider than this (0.5%) is measured again */
#define PERIODIC_USABLE_PPB 5000000ull
/* fault=periodic_slow: the interrupts' times stretched by 1/200 (an RTC 0.5% slow) */
#define PERIODIC_SLOW_DIV 200
/* fault=periodic_noflag: every this many interrupts one is taken as without PF */
#define PERIODIC_NOFLAG_EVERY 8
/* the longest run of interrupts a period apart, for the period: at least this long */
#define PERIODIC_RUN_FOR_PERIOD 16
/* without such a run, on a busy host: at most this share of periods without an interrupt */
#define PERIODIC_BUSY_MISSED_PCT 33
/* on a busy host, interrupts in this many that may lack PF though not right after another */
#define PERIODIC_BUSY_FLAGLESS 16
/*
 * With the host's evidence, on a busy host: a rate select one step slow
 * leaves half the periods without an interrupt, so a window tells it from
 * the load only while the periods the host's waits explain and those they
 * do not each stay under half of that (then one of them cannot).
 */
#define PERIODIC_SLOW_MISSED_PCT 50
#define PERIODIC_TELL_PCT	 (PERIODIC_SLOW_MISSED_PCT / 2)
/* the smallest rate error the check exists to catch: fault=periodic_slow's, 1/201 */
#define PERIODIC_FINE_PPB (NSEC_PER_SEC / (PERIODIC_SLOW_DIV + 1))

struct periodic_figures {
	unsigned n, first, last; /* interrupts collected; the two marks' */
	u64 periods;		 /* whole periods between the marks */
	s64 err_ppb;
	u64 bound_ppb, long_intervals, max_interval_ns, window_ns, missed;
	u64 steal_ns; /* the vCPU's steal time over the window */
	/*
	 * interrupts of the window without PF and IRQF in register C, and of
	 * those the ones that came more than half a period after the one
	 * before (see periodic_flags)
	 */
	unsigned flagless, flagless_unexplained;
	u64 period_ns, per_period_ns; /* the longest run's period and how far it can be off */
	/* why the bound is the coarse one (empty: the marks' spread) */
	char coarse[160];
	char unusable[384]; /* why the window gives no rate, else empty */
	/*
	 * The host's evidence (evidence.c): why there is none (by hand), else
	 * its delays; the periods without an interrupt they explain; and
	 * whether the window was unusable because they explain too many to
	 * tell a fault from the load (untold), or judged with a bound too
	 * wide to tell a rate PERIODIC_FINE_PPB off (rate_untold).
	 */
	const char *no_host;
	struct host_delays host;
	u64 explained;
	/* counted interval by interval: the periods the host's delays can have miscounted */
	u64 ambiguous;
	bool untold, rate_untold;
};

/* the intervals to ask the host's evidence about: each between the marks, and before the run's
 * marks (periodic_count.c) */
extern bool periodic_ask[MAX_EVENTS];
/* interrupt k's time since interrupt 0, by the reference (periodic.c) */
extern u64 irq_ns[MAX_EVENTS];

/* periodic_count.c: the whole periods between the marks into f->periods (false: why in
 * f->unusable). */
void find_gaps(const struct periodic_figures *f, u64 nominal_ns, const struct period_of_run *run);
bool count_window(struct periodic_figures *f, bool busy, u64 nominal_ns,
		  const struct period_of_run *run, u64 slack);

#endif
