/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rtc_test: the CMOS RTC (MC146818) as a clock - its time of day against
 * the host's, its update-ended interrupt, and its periodic interrupt at
 * the rate register A selects.
 *
 * Why: a PC guest takes its date from the CMOS RTC (rtc-cmos, hwclock), and
 * some keep time on its interrupts. An RTC set from the wrong time, an
 * update interrupt late, missing or doubled, or a periodic rate other than
 * the one selected is the hypervisor's bug.
 *
 * How: IRQ 8 goes through the IOAPIC (the MADT's ISA route) to a handler
 * that reads register C (the acknowledgement), its steal time, and a
 * reference clock (ref=: the HPET main counter, else the ACPI PM timer).
 * Waits spin on the TSC, never on a device: a device read exits to QEMU
 * and takes the global lock the main loop raising IRQ 8 needs (spinning on
 * HPET reads lost seven 1024 Hz ticks in eight). lib/x86/rtc.c decodes BCD
 * or binary, 12- or 24-hour registers as register B says.
 *
 * Delivery delay: QEMU raises IRQ 8 from its main loop, whose scheduling
 * delays the guest cannot see (up to 16.3 ms measured for the HPET's,
 * raised the same way, beside two busy loops: docs/timers.md, IRQ_UNEXPLAINED_LATE_MS),
 * plus the vCPU's steal time, which it can. An interrupt's edge follows the
 * previous handler's read of register C (else that read had taken its
 * flag), so the steal that can have delayed it is what accrued since that
 * handler (since the wait began, for the first). Two delays differ by less
 * than the larger of IRQ_UNEXPLAINED_LATE_MS plus either's steal.
 *
 * What it checks (phases=):
 *  1. update: with UIE, UPDATE_IRQS interrupts within UPDATE_IRQS + 1 s,
 *     each with UF and IRQF in register C, the seconds one more each time,
 *     1 s apart +- (the delays' difference + the reference's 1000 ppm).
 *  2. tod (with host_time=): the date and time read in the first update
 *     interrupt against the host's time of day H taken before QEMU
 *     started, by lib/tod.h's one rule: the figure is RTC - H - e, e the
 *     time since this test started (TSC), that is QEMU's start-up and the
 *     firmware less what the RTC lost. QEMU's RTC runs a fraction f < 1 s
 *     behind the host's time (its 1 s resolution: it was set by
 *     truncating it), so the figure may be 1 s below 0; above, threshold
 *     (default 4 s: SeaBIOS boots in 3.3 s here, qboot in 0.3 s), +1 s for
 *     a host time without a fraction; each end 1000 ppm of e wider for the
 *     TSC's drift. A clock 2 s behind fails whenever start-up and boot take
 *     under 1 s (qboot, the runner's default). The RTC's time is taken as
 *     UTC (QEMU's default), its century from the FADT's register.
 *  3. periodic: for each of rates= (default 256 and 64 Hz), PIE set and RS
 *     selecting it, interrupts over window_ms (default 500). Each has PF
 *     and IRQF in register C, but one right after another (a late handler
 *     read its flag with its own) and on a busy host 1 in 16. The rate between two marks, the least
 *     delayed interrupt of the first and of the last quarter (QEMU raises
 *     them on time or late, and loses one raised before the last was
 *     acknowledged), over the whole periods between them, counted with the
 *     period the longest run of interrupts a period apart gives. Bound on a
 *     quiet host: the marks' measured spread over the window + the
 *     reference's tolerance, about 0.1% (a rate 0.5% off fails). On a busy
 *     one (steal time over 5% of the window, under half a mark's quarter in
 *     its run, or no steal time to tell by: TCG) the delays' difference,
 *     IRQ_UNEXPLAINED_LATE_MS and steal, / window + tolerance, about 4-8%; there, with
 *     no run to time the period by (or its count uncertain), the periods
 *     are counted interval by interval. A window whose periods are not
 *     certain (on a quiet host no run of 16 or the count ambiguous; on a
 *     busy one over a third of the periods without an interrupt) is
 *     unusable; up to PERIODIC_WINDOWS are measured, the best judged.
 *     Under the runner (unittests.cfg's evidence = host) the host's
 *     evidence replaces steal time and IRQ_UNEXPLAINED_LATE_MS (evidence.c; docs/
 *     runner.md, "Host evidence for the guest"): a window is busy when the
 *     host held QEMU's threads (a vCPU's and the main loop's waits, the
 *     steal) over 5% of it; then its periods are counted interval by
 *     interval, the periods without an interrupt explained by the host's
 *     delays over each gap, and its bound is what the host held QEMU back
 *     before either mark's interrupt. A window whose explained or
 *     unexplained missed periods reach a quarter cannot tell a rate select
 *     one step slow (half of them) from the load: unusable, and if every
 *     window is so, a SKIP giving the evidence; a bound too wide to tell a
 *     rate 0.5% off (fault=periodic_slow) makes a rate within it a SKIP. A
 *     rate select one step off is 50-100% off. Not 1024 or 512 Hz by
 *     default: under kvm-pvm a handler (three exits to QEMU) does not
 *     always finish within the period and interrupts are lost (on an
 *     earlier, slower machine 22-35% of them at 1024 Hz; docs/clocks.md).
 * RESULT lines: rtc.update.interval_ms, rtc.periodic.<hz>hz.{bound_ppm,
 * long_intervals,missed,max_interval_us,steal_us} (long: 1.5 periods or
 * more, a tick lost or late; missed: periods between the marks without an
 * interrupt). BOUND lines (a figure and the band its check judged it by):
 * rtc.tod_offset_ms (RTC - H - e, ms to the ns), rtc.periodic.<hz>hz.
 * err_ppm (+-bound_ppm; a RESULT where the rate is not judged),
 * .flagless_unexplained (0, or 1 in 16 interrupts on a busy host) and,
 * where no window was usable, .run_period_ns (the longest run's period:
 * nominal +- its uncertainty and the reference's tolerance).
 *
 * Arguments, key=value:
 *   host_time=S   the host's time of day when QEMU started ({host_time}),
 *                 optionally with up to 9 fraction digits; absent: no step 2
 *   threshold=S   step 2's allowance for start-up and boot, seconds (default 4)
 *   phases=LIST   which of update,tod,periodic to run (default all)
 *   rates=LIST    step 3's rates in Hz, powers of two 2..8192 (default 256,64),
 *                 each giving 16 interrupts or more in the window (2 Hz cannot)
 *   window_ms=N   step 3's window per rate (default 500)
 *   ref=NAME      the reference: hpet or pmtimer (default the first present)
 *   fault=NAME    test-only, makes a check fail to show it can: noack (the
 *                 handler does not read register C), tod_stale2s (the time
 *                 of day taken 2 s behind), periodic_rate (RS selects twice
 *                 the rate the check expects; half at 8192 Hz),
 *                 periodic_half (RS selects half of it; twice at 2 Hz),
 *                 periodic_slow (the interrupts' times stretched by 0.5%),
 *                 periodic_noflag (one interrupt in 8 taken as without PF)
 * Anything else is a failure.
 */
#include "libc.h"
#include "rtc_test.h"
#include "arch.h"
#include "argv.h"
#include "report.h"
#include "units.h"

static const char *const phase_names[] = {
	[PHASE_UPDATE] = "update", [PHASE_TOD] = "tod", [PHASE_PERIODIC] = "periodic"};
static const char *const fault_names[] = {"none",	    "noack",	     "tod_stale2s",
					  "periodic_rate",  "periodic_half", "periodic_slow",
					  "periodic_noflag"};

struct rtc_test_options opt;
u64 start_tsc;

/* ---- arguments ------------------------------------------------------------ */

/* rates=: the check of struct arg, filling opt.rates. */
static const char *parse_rates(const char *v)
{
	static char must[80];
	char word[16];
	u64 hz;

	snprintf(must, sizeof(must), "at most %d powers of two from %d to %d, comma-separated",
		 MAX_RATES, RTC_PERIODIC_HZ_MIN, RTC_PERIODIC_HZ_MAX);
	for (opt.n_rates = 0; *v; opt.n_rates++) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);

		snprintf(word, sizeof(word), "%.*s", (int)len, v);
		if (opt.n_rates == MAX_RATES || parse_u64(word, &hz) || hz < RTC_PERIODIC_HZ_MIN ||
		    hz > RTC_PERIODIC_HZ_MAX || (hz & (hz - 1)))
			return must;
		opt.rates[opt.n_rates] = (unsigned)hz;
		v += len + (comma != NULL);
	}
	return opt.n_rates ? NULL : must;
}

static const char *parse_ref(const char *v)
{
	return strcmp(v, "hpet") && strcmp(v, "pmtimer") ? "hpet or pmtimer" : NULL;
}

static const struct arg args[] = {
	ARG_HOST_TIME(&opt.host_ns, &opt.host_has_fraction, 1,
		      "the host's time of day when QEMU started; absent: no step 2"),
	ARG_SECONDS("threshold", &opt.threshold_ns, 0, UINT64_MAX, "4",
		    "step 2's allowance for start-up and boot"),
	ARG_LIST("phases", &opt.phases, phase_names, "update,tod,periodic", "steps to run"),
	ARG_TEXT("rates", &opt.rates_arg, parse_rates, "256,64", "step 3's rates in Hz"),
	ARG_UINT("window_ms", &opt.window_ms, 1, MAX_WINDOW_MS, "500", "step 3's window per rate"),
	ARG_TEXT("ref", &opt.ref, parse_ref, NULL,
		 "the reference, hpet or pmtimer (default the first present)"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* Each rate's window must hold enough interrupts to measure, and fit the event table. */
static void check_windows(void)
{
	for (unsigned i = 0; i < opt.n_rates; i++) {
		u64 irqs = (u64)opt.rates[i] * opt.window_ms / MSEC_PER_SEC + 1;

		if (irqs > MAX_EVENTS || irqs < PERIODIC_MIN_IRQS)
			report_abort(
				"rates: %u Hz over window_ms=%llu is %llu interrupts (%d to %d)",
				opt.rates[i], opt.window_ms, irqs, PERIODIC_MIN_IRQS, MAX_EVENTS);
	}
}

int main(int argc, char **argv)
{
	start_tsc = arch_counter();
	args_parse_or_abort(&arg_table, argc, argv);
	check_windows();
	if (!arch_counter_hz())
		report_abort(
			"the TSC's frequency is not known: no timeout for the interrupt waits");
	find_ref();
	route_irq8();
	if (arg_listed(opt.phases, PHASE_UPDATE) || arg_listed(opt.phases, PHASE_TOD))
		update_test();
	if (arg_listed(opt.phases, PHASE_PERIODIC))
		periodic_test();
	return report_summary();
}
