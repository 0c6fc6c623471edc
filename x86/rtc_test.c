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
 * raised the same way, beside two busy loops: docs/timers.md, IRQ_LATE_MS),
 * plus the vCPU's steal time, which it can. An interrupt's edge follows the
 * previous handler's read of register C (else that read had taken its
 * flag), so the steal that can have delayed it is what accrued since that
 * handler (since the wait began, for the first). Two delays differ by less
 * than the larger of IRQ_LATE_MS plus either's steal.
 *
 * What it checks (phases=):
 *  1. update: with UIE, UPDATE_IRQS interrupts within UPDATE_IRQS + 1 s,
 *     each with UF and IRQF in register C, the seconds one more each time,
 *     1 s apart +- (the delays' difference + the reference's 1000 ppm).
 *  2. tod (with host_time=): the date and time read in the first update
 *     interrupt against the host's time of day H taken before QEMU
 *     started. QEMU's RTC runs a fraction f < 1 s behind the host's time,
 *     so at an edge RTC - H = d - f, d the time since H. The guest knows
 *     the part of d since this test started, e (TSC); the rest, QEMU's
 *     start-up and the firmware, is under threshold (default 4 s: SeaBIOS
 *     boots in 3.3 s here, qboot in 0.3 s). Allowed: (e - 1 s, e +
 *     threshold]. A clock 2 s behind fails whenever start-up and boot take
 *     under 1 s (qboot, the runner's default). The RTC's time is taken as
 *     UTC (QEMU's default), its century from the FADT's register.
 *  3. periodic: for each of rates= (default 256 and 64 Hz), PIE set and RS
 *     selecting it, interrupts over window_ms (default 500), each with PF
 *     and IRQF; the rate between two of them, the one with the least steal
 *     before it in the first and in the last quarter, bound (the delays'
 *     difference) / window + the reference's tolerance: 3.9% at 500 ms (a
 *     tick lost while the host held QEMU costs as much). A rate select one
 *     step off is 50-100% off. A window with a bound over
 *     PERIODIC_USABLE_PPB (20%) or an interrupt missing is measured again,
 *     up to PERIODIC_WINDOWS times; the best one is judged. Not 1024 or 512 Hz by
 *     default: under kvm-pvm a handler (three exits to QEMU) does not
 *     always finish within the period, and the guest itself loses ticks
 *     (1024 Hz: 22-35% of the time in every run; 512 Hz: 9% in one run of
 *     four on a busy host; docs/clocks.md).
 * RESULT lines: rtc.tod_offset_ms, rtc.update.interval_ms,
 * rtc.periodic.<hz>hz.{err_ppm,bound_ppm,long_intervals,max_interval_us}
 * (long: 1.5 periods or more, a tick lost or late).
 *
 * Arguments, key=value:
 *   host_time=S   the host's time of day when QEMU started ({host_time});
 *                 absent: no step 2
 *   threshold=S   step 2's allowance for start-up and boot, seconds (default 4)
 *   phases=LIST   which of update,tod,periodic to run (default all)
 *   rates=LIST    step 3's rates in Hz, powers of two 2..8192 (default 256,64)
 *   window_ms=N   step 3's window per rate (default 500)
 *   ref=NAME      the reference: hpet or pmtimer (default the first present)
 *   fault=NAME    test-only, makes a check fail to show it can: noack (the
 *                 handler does not read register C), tod_stale2s (the time
 *                 of day taken 2 s behind), periodic_rate (RS selects twice
 *                 the rate the check expects; half at 8192 Hz)
 * Anything else is a failure.
 */
#include "libc.h"
#include "x86/apic.h"
#include "arch.h"
#include "argv.h"
#include "x86/desc.h"
#include "x86/ioapic.h"
#include "x86/processor.h"
#include "refclock.h"
#include "report.h"
#include "x86/rtc.h"
#include "stats.h"
#include "x86/steal.h"

#define RTC_IRQ_VECTOR	     0x68
#define NS_PER_S	     1000000000ull
#define NS_PER_MS	     1000000ull
#define NS_PER_US	     1000ull
#define PPB_PER_PPM	     1000
#define UPDATE_IRQS	     2
#define IRQ_LATE_MS	     19
#define MAX_WINDOW_MS	     5000
#define MAX_RATES	     4
#define MAX_EVENTS	     4096
#define PERIODIC_USABLE_PPB  200000000ull
#define PERIODIC_WINDOWS     3
/* a first and a last interrupt in different quarters */
#define PERIODIC_MIN_IRQS 5
/* fault=tod_stale2s */
#define FAULT_TOD_STALE_S 2

enum phase {
	PHASE_UPDATE = 1 << 0,
	PHASE_TOD = 1 << 1,
	PHASE_PERIODIC = 1 << 2,
	PHASE_ALL = (1 << 3) - 1
};
enum fault { FAULT_NONE, FAULT_NOACK, FAULT_TOD_STALE2S, FAULT_PERIODIC_RATE };

static const char *const phase_names[] = {"update", "tod", "periodic"};
static const char *const fault_names[] = {"none", "noack", "tod_stale2s", "periodic_rate"};

static struct {
	u64 host_ns, threshold_ns, window_ms;
	unsigned phases;
	unsigned rates[MAX_RATES], n_rates;
	const char *rates_arg;
	const char *ref;
	unsigned fault; /* enum fault */
} opt;

/* One interrupt as the handler saw it. */
struct event {
	u64 at;	   /* reference counts */
	u64 steal; /* this vCPU's steal time, ns */
	u8 reg_c;
};

/* Update interrupts also read the date and time. */
struct update_event {
	u64 tsc; /* arch_counter() */
	struct rtc_datetime dt;
	const char *why; /* NULL, or why the read failed */
};

static const struct refclock *ref;
static bool has_steal;
static u64 steal_at_start; /* when the current wait began */
static struct event events[MAX_EVENTS];
static struct update_event updates[UPDATE_IRQS];
static volatile unsigned n_events;
static bool read_time_in_handler;
static u64 start_tsc; /* arch_counter() when main() began */

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
	ARG_SECONDS("host_time", &opt.host_ns, 1, UINT64_MAX, NULL,
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

/* ---- interrupts and the reference --------------------------------------------- */

static void rtc_irq(struct ex_regs *regs)
{
	unsigned n = n_events;
	u8 c = opt.fault == FAULT_NOACK ? 0 : rtc_irq_ack();

	if (n < MAX_EVENTS) {
		events[n] = (struct event){ref->read(), has_steal ? steal_ns() : 0, c};
		if (read_time_in_handler && n < UPDATE_IRQS) {
			updates[n].tsc = arch_counter();
			updates[n].why = rtc_read_datetime(&updates[n].dt);
		}
	}
	n_events = n + 1;
	apic_eoi();
}

static u64 ref_ns(u64 counts)
{
	return counts * NS_PER_S / ref->hz();
}

/* Steal time that can have delayed interrupt k: since the handler before it (the wait's start for
 * 0). */
static u64 steal_before(unsigned k)
{
	return events[k].steal - (k ? events[k - 1].steal : steal_at_start);
}

/* Take interrupts until n have come or about timeout_ns have passed (spinning on the TSC); how
 * many. */
static unsigned collect(enum rtc_irq irq, unsigned n, u64 timeout_ns)
{
	u64 deadline = arch_counter() + timeout_ns / NS_PER_MS * (arch_counter_hz() / 1000);

	n_events = 0;
	steal_at_start = has_steal ? steal_ns() : 0;
	rtc_irq_ack();
	rtc_irq_enable(irq);
	irq_enable();
	while (n_events < n && arch_counter() < deadline)
		cpu_relax();
	irq_disable();
	rtc_irq_disable(irq);
	rtc_irq_ack();
	return min(n_events, (unsigned)MAX_EVENTS);
}

static bool flags_set(unsigned n, u8 want)
{
	for (unsigned i = 0; i < n; i++)
		if ((events[i].reg_c & want) != want)
			return false;
	return true;
}

/* ---- 1. update and 2. time of day ----------------------------------------------- */

static void tod_test(const struct update_event *u)
{
	s64 offset_ms, e_ms = (s64)((u->tsc - start_tsc) / (arch_counter_hz() / 1000));
	s64 low = e_ms - 1000, high = e_ms + (s64)(opt.threshold_ns / NS_PER_MS);

	report_prefix_push("tod");
	if (u->why) {
		report(false, "the RTC's date in the update interrupt: %s", u->why);
		report_prefix_pop();
		return;
	}
	offset_ms = ((s64)rtc_datetime_epoch(&u->dt) * 1000 - (s64)(opt.host_ns / NS_PER_MS));
	if (opt.fault == FAULT_TOD_STALE2S)
		offset_ms -= FAULT_TOD_STALE_S * 1000;
	report_info("RTC %04u-%02u-%02u %02u:%02u:%02u UTC at its edge, %lld ms after this test "
		    "started",
		    u->dt.year, u->dt.month, u->dt.day, u->dt.hour, u->dt.min, u->dt.sec, e_ms);
	report_result("rtc.tod_offset_ms", "ms", "%lld", offset_ms);
	report(offset_ms > low && offset_ms <= high,
	       "the RTC's time of day at an update is the host's %+lld ms (allowed above %+lld ms, "
	       "up "
	       "to %+lld ms)",
	       offset_ms, low, high);
	report_prefix_pop();
}

static void interval_check(unsigned k)
{
	u64 interval_ns = ref_ns(events[k].at - events[k - 1].at);
	/* the reference's tolerance in ppb is its error in ns over the nominal second */
	u64 slack_ns = IRQ_LATE_MS * NS_PER_MS + max(steal_before(k - 1), steal_before(k)) +
		       ref->tolerance_ppb;
	u64 off = interval_ns > NS_PER_S ? interval_ns - NS_PER_S : NS_PER_S - interval_ns;
	u32 s0 = updates[k - 1].dt.sec, s1 = updates[k].dt.sec;
	char a[24], b[24];

	report_result("rtc.update.interval_ms", "ms", "%s",
		      fmt_milli(a, sizeof(a), interval_ns / NS_PER_US));
	report(!updates[k].why && !updates[k - 1].why && s1 == (s0 + 1) % 60,
	       "update interrupt %u: the seconds went from %u to %u", k, s0, s1);
	report(off <= slack_ns,
	       "update interrupt %u came %s ms after the one before (1 s +- %s ms)", k, a,
	       fmt_milli(b, sizeof(b), slack_ns / NS_PER_US));
}

static void update_test(void)
{
	unsigned want = opt.phases & PHASE_UPDATE ? UPDATE_IRQS : 1;
	unsigned n;

	read_time_in_handler = true;
	n = collect(RTC_IRQ_UPDATE, want, (want + 1) * NS_PER_S);
	read_time_in_handler = false;
	if (opt.phases & PHASE_UPDATE) {
		report_prefix_push("update");
		report(n == want,
		       "%u update-ended interrupts within %u s (want %u, one per second)", n,
		       want + 1, want);
		report(n && flags_set(n, RTC_C_UF | RTC_C_IRQF),
		       "register C has UF and IRQF set in every update interrupt (first: %#x)",
		       n ? events[0].reg_c : 0);
		for (unsigned k = 1; k < n; k++)
			interval_check(k);
		report_prefix_pop();
	}
	if (!(opt.phases & PHASE_TOD))
		return;
	if (!opt.host_ns)
		report_info("tod: no host_time given, not checked");
	else if (!n)
		report(false, "tod: no update interrupt to read the time of day at");
	else
		tod_test(&updates[0]);
}

/* ---- 3. periodic ------------------------------------------------------------------ */

struct periodic_figures {
	unsigned n, first, last;
	s64 err_ppb;
	u64 bound_ppb, long_intervals, max_interval_ns, window_ns;
};

/* The interrupt from start to end (either way) with the least steal time before it; ties: nearer
 * start. */
static unsigned least_stolen(unsigned start, unsigned end)
{
	unsigned best = start;

	for (unsigned k = start; k != end;) {
		k = end > start ? k + 1 : k - 1;
		if (steal_before(k) < steal_before(best))
			best = k;
	}
	return best;
}

static void periodic_measure(unsigned hz, struct periodic_figures *f)
{
	unsigned programmed = opt.fault != FAULT_PERIODIC_RATE ? hz
			      : hz < RTC_PERIODIC_HZ_MAX       ? hz * 2
							       : hz / 2;
	unsigned want = (unsigned)min(hz * opt.window_ms / 1000 + 1, (u64)MAX_EVENTS);
	u64 period_ns = NS_PER_S / hz, expected_ns, late_ns;
	unsigned quarter;

	rtc_set_periodic_hz(programmed);
	*f = (struct periodic_figures){
		.n = collect(RTC_IRQ_PERIODIC, want, 2 * opt.window_ms * NS_PER_MS + NS_PER_S)};
	if (f->n < PERIODIC_MIN_IRQS)
		return;
	for (unsigned k = 1; k < f->n; k++) {
		u64 interval = ref_ns(events[k].at - events[k - 1].at);

		f->max_interval_ns = max(f->max_interval_ns, interval);
		f->long_intervals += interval >= period_ns + period_ns / 2;
	}
	quarter = (f->n - 1) / 4;
	f->first = least_stolen(0, quarter);
	f->last = least_stolen(f->n - 1, f->n - 1 - quarter);
	f->window_ns = ref_ns(events[f->last].at - events[f->first].at);
	expected_ns = (u64)(f->last - f->first) * NS_PER_S / hz;
	f->err_ppb = ((s64)expected_ns - (s64)f->window_ns) * (s64)NS_PER_S / (s64)f->window_ns;
	late_ns = IRQ_LATE_MS * NS_PER_MS + max(steal_before(f->first), steal_before(f->last));
	f->bound_ppb =
		(late_ns + 2 * NS_PER_S / ref->hz()) * NS_PER_S / f->window_ns + ref->tolerance_ppb;
}

static void periodic_result(const char *prefix, const char *what, const char *unit, const char *v)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, what);
	report_result(name, unit, "%s", v);
}

static void periodic_report(unsigned hz, const struct periodic_figures *f)
{
	char name[48], digits[24], err[24], bound[24];
	u64 mag = (u64)(f->err_ppb < 0 ? -f->err_ppb : f->err_ppb);

	snprintf(err, sizeof(err), "%s%s", f->err_ppb < 0 ? "-" : "+",
		 fmt_milli(digits, sizeof(digits), mag));
	fmt_milli(bound, sizeof(bound), f->bound_ppb);
	snprintf(name, sizeof(name), "rtc.periodic.%uhz.", hz);
	periodic_result(name, "err_ppm", "ppm", err);
	periodic_result(name, "bound_ppm", "ppm", bound);
	snprintf(digits, sizeof(digits), "%llu", f->long_intervals);
	periodic_result(name, "long_intervals", "count", digits);
	snprintf(digits, sizeof(digits), "%llu", f->max_interval_ns / NS_PER_US);
	periodic_result(name, "max_interval_us", "us", digits);
	report(flags_set(f->n, RTC_C_PF | RTC_C_IRQF),
	       "register C has PF and IRQF set in every periodic interrupt");
	report(mag <= f->bound_ppb,
	       "%u periods in %llu ms (interrupts %u to %u of %u): %s ppm off %u Hz (bound +-%s "
	       "ppm)",
	       f->last - f->first, f->window_ns / NS_PER_MS, f->first,
	       f->last, f->n, err, hz, bound);
}

/*
 * Measure up to PERIODIC_WINDOWS windows, keeping the first one whose
 * interrupts all came (no interval of 1.5 periods or more) within a usable
 * bound, else the one with the fewest long intervals: a periodic interrupt
 * QEMU dropped while its main loop was held (beside two busy loops: 7-31 of
 * 129 at 256 Hz) is one period short in the count the rate comes from.
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
		if (!w || (f.bound_ppb <= PERIODIC_USABLE_PPB &&
			   (best->bound_ppb > PERIODIC_USABLE_PPB ||
			    f.long_intervals < best->long_intervals)))
			*best = f;
		if (best->bound_ppb <= PERIODIC_USABLE_PPB && !best->long_intervals)
			return;
	}
}

static void periodic_test(void)
{
	struct periodic_figures f;

	for (unsigned i = 0; i < opt.n_rates; i++) {
		unsigned hz = opt.rates[i];

		report_prefix_pushf("periodic %u Hz", hz);
		periodic_best_window(hz, &f);
		if (f.n < PERIODIC_MIN_IRQS)
			report(false, "%u periodic interrupts in %llu ms (want %llu)", f.n,
			       2 * opt.window_ms + 1000, hz * opt.window_ms / 1000 + 1);
		else if (f.bound_ppb > PERIODIC_USABLE_PPB)
			report(false, "every window disturbed (bound %llu ppm)",
			       f.bound_ppb / PPB_PER_PPM);
		else
			periodic_report(hz, &f);
		report_prefix_pop();
	}
}

/* ---- set-up ------------------------------------------------------------------------ */

static void find_ref(void)
{
	const char *names[] = {"hpet", "pmtimer"};

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		const struct refclock *r = refclock_find(names[i]);
		const char *why;

		if (opt.ref && strcmp(opt.ref, names[i]))
			continue;
		why = r->probe();
		if (!why) {
			ref = r;
			report_info("timestamps by the %s (%llu Hz)", r->what, r->hz());
			return;
		}
		report_info("no %s: %s", r->what, why);
	}
	report_abort("no reference clock to time the RTC's interrupts with");
}

static void route_irq8(void)
{
	struct ioapic_route route;
	const char *why = steal_init();

	has_steal = !why;
	if (why)
		report_info("steal time not known (%s): the bounds allow none", why);
	if (!ioapic_init())
		report_abort("no IOAPIC to route the RTC's IRQ 8 through");
	route = ioapic_isa_route(RTC_ISA_IRQ);
	handle_exception(RTC_IRQ_VECTOR, rtc_irq);
	if (!ioapic_route(&route, RTC_IRQ_VECTOR, apic_id()))
		report_abort("the IOAPIC has no pin %u for the RTC's IRQ 8", route.gsi);
	report_info("IRQ 8 reaches IOAPIC pin %u (from %s)", route.gsi, ioapic_found_by());
}

/* Each rate's window must hold enough interrupts to measure, and fit the event table. */
static void check_windows(void)
{
	for (unsigned i = 0; i < opt.n_rates; i++) {
		u64 irqs = (u64)opt.rates[i] * opt.window_ms / 1000 + 1;

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
	if (opt.phases & (PHASE_UPDATE | PHASE_TOD))
		update_test();
	if (opt.phases & PHASE_PERIODIC)
		periodic_test();
	return report_summary();
}
