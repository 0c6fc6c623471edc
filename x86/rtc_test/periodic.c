/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's step 3: the periodic interrupt at each rate of rates=, its rate against the reference
 * and its PF flags. */
#include "libc.h"
#include "periodic.h"
#include "host_evidence.h"
#include "fixed.h"
#include "report.h"
#include "period.h"
#include "units.h"

/* ppb printed as ppm (PPB_PER_PPM is 10^3), ns as ms (NSEC_PER_MSEC is 10^6): three decimals */
#define PPM_SCALE	  3
#define NS_AS_MS_SCALE	  6
#define NS_AS_MS_DECIMALS 3

/* ---- 3. periodic ------------------------------------------------------------------ */

u64 irq_ns[MAX_EVENTS];

/* One count of the reference, ns, rounded up. */
static u64 ref_tick_ns(void)
{
	return (NSEC_PER_SEC + rtc_ref->hz() - 1) / rtc_ref->hz();
}

/* The two marks' own resolution: each is a reference read, two counts of it each. */
static u64 marks_stamp_ns(void)
{
	return 4 * ref_tick_ns();
}

/* Interrupt k's time since interrupt 0 into irq_ns, and the intervals' figures. */
static void interrupt_times(struct periodic_figures *f, u64 nominal_ns)
{
	for (unsigned k = 0; k < f->n; k++) {
		irq_ns[k] = ref_ns(rtc_events[k].at - rtc_events[0].at);
		if (opt.fault == FAULT_PERIODIC_SLOW)
			irq_ns[k] += irq_ns[k] / PERIODIC_SLOW_DIV;
	}
	for (unsigned k = 1; k < f->n; k++) {
		u64 interval = irq_ns[k] - irq_ns[k - 1];

		f->max_interval_ns = max(f->max_interval_ns, interval);
		f->long_intervals += interval >= nominal_ns + nominal_ns / 2;
	}
}

/* The two marks of interrupts 0..n-1 (lib/period.h) in irq_ns, with the stamps' resolution. */
static struct period_marks periodic_marks(unsigned n, u64 period_ns)
{
	struct period_marks m = period_marks(irq_ns, n, period_ns);

	m.slack += marks_stamp_ns();
	return m;
}

/*
 * PF and IRQF at every interrupt. A handler that runs late can read the
 * next period's flag with its own (the flag was set before the read), and
 * the edge that flag raised then brings an interrupt with register C
 * already clear, right after: beside two busy loops under TCG, 1 in 4 runs
 * had one. An interrupt without them more than half a period after the one
 * before has no such excuse.
 */
static void periodic_flags(struct periodic_figures *f, u64 nominal_ns)
{
	for (unsigned k = 0; k < f->n; k++) {
		if (opt.fault == FAULT_PERIODIC_NOFLAG && k % PERIODIC_NOFLAG_EVERY == 1)
			rtc_events[k].reg_c &= (u8)~RTC_C_PF;
		if ((rtc_events[k].reg_c & (RTC_C_PF | RTC_C_IRQF)) == (RTC_C_PF | RTC_C_IRQF))
			continue;
		f->flagless++;
		if (!k || irq_ns[k] - irq_ns[k - 1] > nominal_ns / 2)
			f->flagless_unexplained++;
	}
}

/*
 * Interrupts without PF more than half a period after the one before that
 * a busy host explains: its vCPU can stand still between a late handler
 * that read the next flag and the interrupt that flag raised (seen beside
 * two busy loops under KVM: 1 of 129, the one before 0.5 period or more
 * back). None on a quiet host; on a busy one 1 in PERIODIC_BUSY_FLAGLESS
 * (fault=periodic_noflag's 1 in 8 still fails).
 */
static unsigned flagless_allowed(const struct periodic_figures *f)
{
	return f->coarse[0] ? f->n / PERIODIC_BUSY_FLAGLESS : 0;
}

/* The rate RS selects: hz, or the faults' twice (half at 8192 Hz) or half of it. */
static unsigned periodic_programmed(unsigned hz)
{
	if (opt.fault == FAULT_PERIODIC_RATE)
		return hz < RTC_PERIODIC_HZ_MAX ? hz * 2 : hz / 2;
	if (opt.fault == FAULT_PERIODIC_HALF)
		return hz > RTC_PERIODIC_HZ_MIN ? hz / 2 : hz * 2;
	return hz;
}

/*
 * Why the host may be busy, or NULL. With the host's evidence: what it
 * took from QEMU's threads over the window (a vCPU's and the main loop's
 * waits, the steal) over QUIET_HOST_PCT of it (lib/busy.h). By hand: the
 * vCPU's steal time over that (in 0.5 s here: 0-0.3 ms idle, 0.4-4.5 ms
 * beside one busy loop, 100-260 ms beside two or three, where the three
 * least delayed of a 64 Hz quarter came 2 ms late together: QEMU's main
 * loop waits for its share of a CPU, 4 ms at a time), or no steal time to
 * tell by (TCG).
 */
static bool busy_host(struct periodic_figures *f)
{
	struct period_host h = {.by = rtc_has_steal ? PERIOD_BY_STEAL : PERIOD_BY_NOTHING,
				.window_ns = irq_ns[f->n - 1],
				.delay_ns = f->steal_ns};
	const char *why;

	if (!f->no_host)
		h = (struct period_host){.by = PERIOD_BY_HOST,
					 .window_ns = f->window_ns,
					 .delay_ns = f->host.window_ns};
	why = period_busy(&h);
	if (why && h.by == PERIOD_BY_HOST)
		snprintf(f->coarse, sizeof(f->coarse), "%s (%llu ms of %llu ms)", why,
			 h.delay_ns / NSEC_PER_MSEC, h.window_ns / NSEC_PER_MSEC);
	else if (why)
		snprintf(f->coarse, sizeof(f->coarse), "%s", why);
	return why;
}

/*
 * A mark's spread says how late the least delayed interrupt can have been
 * only on a quiet host (busy_host) with half the quarter's interrupts or
 * more in the mark's run. Otherwise the bound is what either mark's
 * interrupt may have been late by: with the host's evidence, what the host
 * took from QEMU's threads over the interval before it, and, counted
 * interval by interval, the periods its delays can have miscounted
 * (f->ambiguous); by hand,
 * IRQ_UNEXPLAINED_LATE_MS and the steal time before it. A bound so found that is too
 * wide to tell a rate PERIODIC_FINE_PPB off leaves the rate untold unless
 * it is off beyond it.
 */
static void coarse_bound(struct periodic_figures *f, const struct period_marks *m, u64 nominal_ns)
{
	u64 late_ns = f->no_host ? IRQ_UNEXPLAINED_LATE_MS * NSEC_PER_MSEC +
					   max(steal_before(m->first), steal_before(m->last))
				 : max(f->host.before_ns[m->first], f->host.before_ns[m->last]) +
					   f->ambiguous * nominal_ns;

	f->bound_ppb =
		max(f->bound_ppb, (late_ns + 2 * ref_tick_ns()) * NSEC_PER_SEC / f->window_ns +
					  rtc_ref->tolerance_ppb);
	f->rate_untold = !f->no_host && f->bound_ppb >= PERIODIC_FINE_PPB;
}

/*
 * The rate over one window. Interrupts are timed in the handler; QEMU
 * raises each on its period's grid or late (its main loop's delays), and
 * one raised while the one before is not yet acknowledged is lost (a long
 * interval). So the rate comes from two marks, the least delayed interrupt
 * of the first and of the last quarter (least_delayed), and the whole
 * periods between them, counted with the period the longest run of
 * interrupts gives (period_of_longest_run, lib/period.h). The bound is the marks' slack over
 * the window plus the reference's tolerance: how late the least delayed
 * interrupts themselves were is what it cannot know, measured by how much
 * later the next least delayed came.
 */
static void periodic_measure(unsigned hz, struct periodic_figures *f)
{
	unsigned programmed = periodic_programmed(hz);
	unsigned want = (unsigned)min(hz * opt.window_ms / MSEC_PER_SEC + 1, (u64)MAX_EVENTS);
	u64 nominal_ns = NSEC_PER_SEC / hz;
	struct period_of_run run;
	struct period_marks m;
	bool busy;

	rtc_set_periodic_hz(programmed);
	*f = (struct periodic_figures){0};
	evidence_begin();
	f->n = collect(RTC_IRQ_PERIODIC, want, 2 * opt.window_ms * NSEC_PER_MSEC + NSEC_PER_SEC);
	evidence_end();
	if (f->n < PERIODIC_MIN_IRQS)
		return;
	interrupt_times(f, nominal_ns);
	periodic_flags(f, nominal_ns);
	f->steal_ns = rtc_events[f->n - 1].steal - rtc_steal_at_start;
	/*
	 * The longest run of interrupts each less than 1.5 nominal periods
	 * after the one before counts its periods however late each came (a
	 * rate select 2x off still counts right; at 0.5x no run is long
	 * enough): its period, and how far it can be off (lib/period.h).
	 */
	run = period_of_longest_run(irq_ns, f->n, nominal_ns, PERIODIC_RUN_FOR_PERIOD,
				    marks_stamp_ns());
	f->period_ns = run.period;
	f->per_period_ns = run.per_period;
	m = periodic_marks(f->n, run.period ? run.period : nominal_ns);
	f->first = m.first;
	f->last = m.last;
	f->window_ns = m.span;
	find_gaps(f, nominal_ns, &run);
	f->no_host = evidence_ask(&f->host, f->n, m.first, m.last, periodic_ask, nominal_ns);
	busy = busy_host(f);
	if (!run.period && !busy) {
		snprintf(f->unusable, sizeof(f->unusable), "%s",
			 "no run of interrupts a period apart long enough to time the period by "
			 "(a rate select one step slow leaves none)");
		return;
	}
	if (!count_window(f, busy, nominal_ns, &run, m.slack))
		return;
	f->unusable[0] = '\0';
	f->missed = f->periods > f->last - f->first ? f->periods - (f->last - f->first) : 0;
	f->err_ppb = period_err_ppb(f->periods, hz, f->window_ns);
	f->bound_ppb = m.slack * NSEC_PER_SEC / f->window_ns + rtc_ref->tolerance_ppb;
	if (!busy && m.run < f->n / 4 / 2)
		snprintf(f->coarse, sizeof(f->coarse), "%s",
			 "interrupts lost or half a period late near a mark");
	if (f->coarse[0])
		coarse_bound(f, &m, nominal_ns);
}

/* Where the bound came from, for the messages. */
static void coarse_how(const struct periodic_figures *f, char *how, size_t size)
{
	if (!f->coarse[0])
		snprintf(how, size, "the marks' spread");
	else if (f->no_host)
		snprintf(how, size, "%s: %u ms of delay and the steal time at either end",
			 f->coarse, IRQ_UNEXPLAINED_LATE_MS);
	else
		snprintf(how, size,
			 "%s: the host held QEMU's threads back %llu us before the first mark's "
			 "interrupt, %llu us before the last's, %llu periods its delays can have "
			 "miscounted",
			 f->coarse, f->host.before_ns[f->first] / NSEC_PER_USEC,
			 f->host.before_ns[f->last] / NSEC_PER_USEC, f->ambiguous);
}

static void periodic_result(const char *prefix, const char *what, const char *unit, const char *v)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, what);
	report_result(name, unit, "%s", v);
}

/*
 * Register C's flags: the interrupts without PF and IRQF more than half a
 * period after the one before, bounded by what a busy host explains
 * (flagless_allowed): BOUND rtc.periodic.<hz>hz.flagless_unexplained.
 */
static void flags_report(const char *prefix, const struct periodic_figures *f)
{
	char name[64];

	snprintf(name, sizeof(name), "%sflagless_unexplained", prefix);
	report_bounded_count(
		name, "count", f->flagless_unexplained, 0, flagless_allowed(f),
		"register C has PF and IRQF set in every periodic interrupt but those right after "
		"another (%u without: %u of them more than half a period after the one before, "
		"allowed %u%s)",
		f->flagless, f->flagless_unexplained, flagless_allowed(f),
		f->coarse[0] ? " on a busy host" : "");
}

/*
 * The rate: err_ppm within +-bound_ppm, BOUND rtc.periodic.<hz>hz.err_ppm;
 * a bound too wide to tell fault=periodic_slow's rate from the load with
 * the rate within it is a SKIP, the figure a RESULT alone.
 */
static void rate_report(unsigned hz, const char *prefix, const struct periodic_figures *f)
{
	char name[64], err[FIXED_BUF_SIZE], bound[FIXED_BUF_SIZE], how[256],
		window_ms[FIXED_BUF_SIZE];
	u64 mag = f->err_ppb < 0 ? -(u64)f->err_ppb : (u64)f->err_ppb;
	struct bounded b = {
		.name = name,
		.unit = "ppm",
		.scale = PPM_SCALE,
		.value = f->err_ppb,
		.nbands = 1,
		.band = {{-(s64)f->bound_ppb, (s64)f->bound_ppb}},
	};

	fmt_fixed(err, sizeof(err), f->err_ppb, PPM_SCALE, PPM_SCALE, FIXED_SIGN_PLUS);
	fmt_ufixed(bound, sizeof(bound), f->bound_ppb, PPM_SCALE, PPM_SCALE);
	fmt_ufixed(window_ms, sizeof(window_ms), f->window_ns, NS_AS_MS_SCALE, NS_AS_MS_DECIMALS);
	snprintf(name, sizeof(name), "%serr_ppm", prefix);
	coarse_how(f, how, sizeof(how));
	if (f->rate_untold && mag <= f->bound_ppb) {
		report_result(name, "ppm", "%s", err);
		report_skip(
			"%llu periods in %s ms (interrupts %u to %u of %u, %llu periods without "
			"one): %s ppm off %u Hz, within +-%s ppm (%s), too wide to tell a rate "
			"%llu ppm off (fault=periodic_slow) from the load: not judged",
			f->periods, window_ms, f->first, f->last, f->n, f->missed, err, hz, bound,
			how, PERIODIC_FINE_PPB / PPB_PER_PPM);
		return;
	}
	report_bounded(&b,
		       "%llu periods in %s ms (interrupts %u to %u of %u, %llu periods without "
		       "one): %s ppm off %u Hz (bound +-%s ppm, %s)",
		       f->periods, window_ms, f->first, f->last, f->n, f->missed, err, hz, bound,
		       how);
}

static void periodic_report(unsigned hz, const struct periodic_figures *f)
{
	char name[48], digits[24], bound[FIXED_BUF_SIZE];

	fmt_ufixed(bound, sizeof(bound), f->bound_ppb, PPM_SCALE, PPM_SCALE);
	snprintf(name, sizeof(name), "rtc.periodic.%uhz.", hz);
	periodic_result(name, "bound_ppm", "ppm", bound);
	snprintf(digits, sizeof(digits), "%llu", f->long_intervals);
	periodic_result(name, "long_intervals", "count", digits);
	snprintf(digits, sizeof(digits), "%llu", f->missed);
	periodic_result(name, "missed", "count", digits);
	snprintf(digits, sizeof(digits), "%llu", f->max_interval_ns / NSEC_PER_USEC);
	periodic_result(name, "max_interval_us", "us", digits);
	snprintf(digits, sizeof(digits), "%llu", f->steal_ns / NSEC_PER_USEC);
	periodic_result(name, "steal_us", "us", digits);
	flags_report(name, f);
	rate_report(hz, name, f);
}

/* A window's rank: usable; unusable (a fault's sign: it fails); untold (the host's load hid it). */
static unsigned window_rank(const struct periodic_figures *f)
{
	return !f->unusable[0] ? 2 : !f->untold;
}

/* Whether window f is better than window than: by rank, then the tighter bound. */
static bool better_window(const struct periodic_figures *f, const struct periodic_figures *than)
{
	if (window_rank(f) != window_rank(than))
		return window_rank(f) > window_rank(than);
	return f->bound_ppb < than->bound_ppb;
}

/*
 * Measure up to PERIODIC_WINDOWS windows, keeping the best: the first one
 * whose bound is its marks' spread within PERIODIC_USABLE_PPB ends it.
 * A window is unusable when no run of interrupts gives the period or the
 * periods between the marks are not certain; its bound is the coarse one
 * when the host may be busy (periodic_measure says how it tells).
 */
static void periodic_best_window(unsigned hz, struct periodic_figures *best)
{
	struct periodic_figures f;

	for (unsigned w = 0; w < PERIODIC_WINDOWS; w++) {
		periodic_measure(hz, &f);
		if (f.n < PERIODIC_MIN_IRQS) {
			*best = f;
			return;
		}
		if (!w || better_window(&f, best))
			*best = f;
		/*
		 * without steal time or the host's evidence every bound is the
		 * coarse one: measuring again cannot help
		 */
		if (!best->unusable[0] &&
		    ((!rtc_has_steal && f.no_host) ||
		     (!best->coarse[0] && best->bound_ppb <= PERIODIC_USABLE_PPB)))
			return;
		if (f.unusable[0])
			report_info("window %u of %u unusable: %s", w + 1, PERIODIC_WINDOWS,
				    f.unusable);
		else
			report_info("window %u of %u: bound %llu ppm (%s)", w + 1, PERIODIC_WINDOWS,
				    f.bound_ppb / PPB_PER_PPM,
				    f.coarse[0] ? f.coarse : "the marks' spread");
	}
}

/*
 * An unusable window's rate by the longest run's own period, when that
 * alone is off nominal beyond its uncertainty and the reference's
 * tolerance (a rate select one step off): true after the FAIL is reported,
 * BOUND rtc.periodic.<hz>hz.run_period_ns with the band it left.
 */
static bool run_period_off(unsigned hz, const struct periodic_figures *f)
{
	u64 nominal_ns = NSEC_PER_SEC / hz, off, allowed;
	s64 err_ppb;
	char name[64];

	if (!f->period_ns)
		return false;
	off = f->period_ns > nominal_ns ? f->period_ns - nominal_ns : nominal_ns - f->period_ns;
	allowed = f->per_period_ns + nominal_ns * rtc_ref->tolerance_ppb / NSEC_PER_SEC;
	if (off <= allowed)
		return false;
	err_ppb = ((s64)nominal_ns - (s64)f->period_ns) * (s64)NSEC_PER_SEC / (s64)f->period_ns;
	snprintf(name, sizeof(name), "rtc.periodic.%uhz.run_period_ns", hz);
	report_bounded_count(
		name, "ns", (s64)f->period_ns, (s64)(nominal_ns - allowed),
		(s64)(nominal_ns + allowed),
		"the interrupts' period %llu ns +- %llu ns (the longest run of them) is %lld ppm "
		"off %u Hz, beyond that and the reference's tolerance (the window itself: %s)",
		f->period_ns, f->per_period_ns, err_ppb / (s64)PPB_PER_PPM, hz, f->unusable);
	return true;
}

/* The verdict on a rate's best window. */
static void periodic_verdict(unsigned hz, const struct periodic_figures *f)
{
	if (f->n < PERIODIC_MIN_IRQS)
		report(false, "%u periodic interrupts in %llu ms (want %llu)", f->n,
		       2 * opt.window_ms + MSEC_PER_SEC, hz * opt.window_ms / MSEC_PER_SEC + 1);
	else if (!f->unusable[0])
		periodic_report(hz, f);
	else if (run_period_off(hz, f))
		return;
	else if (f->untold)
		report_skip("every window unusable, the host's load hiding what a fault would "
			    "show: %s",
			    f->unusable);
	else
		report(false, "every window unusable, the first: %s", f->unusable);
}

void periodic_test(void)
{
	struct periodic_figures f;

	for (unsigned i = 0; i < opt.n_rates; i++) {
		report_prefix_pushf("periodic %u Hz", opt.rates[i]);
		periodic_best_window(opt.rates[i], &f);
		periodic_verdict(opt.rates[i], &f);
		report_prefix_pop();
	}
}
