/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvmclock_test: KVM's paravirtual clock on every vCPU - its rate against
 * clocks KVM and QEMU keep independently, its time of day, whether it
 * ever goes backwards between vCPUs, whether the correction for that
 * works, and what reading it costs.
 *
 * What it checks, in order:
 *  1. TSC frequency: the frequency kvmclock's multiplier and shift stand
 *     for against the TSC frequency CPUID states (hypervisor leaf
 *     0x40000010, leaf 0x15), where offered. Both come from the same
 *     kHz figure in KVM; pvclock_tsc_khz() floors to 1 kHz, CPUID holds
 *     whole kHz and the 32-bit multiplier is exact to 2^-31 (1.2 kHz at
 *     2.6 GHz): they must agree within TSC_KHZ_SLACK, 3 kHz (about
 *     1 ppm). A conversion 4x off is 75% off.
 *  2. Wall clock (only with a host time): the host's time of day H taken
 *     just before QEMU started, and KVM's boot time of day B (what
 *     MSR_KVM_WALL_CLOCK_NEW writes: time of day minus kvmclock, which
 *     counts from the VM's creation), held by lib/tod.h's one rule: the
 *     reading is B + kvmclock, the time elapsed kvmclock itself, so the
 *     figure R - H - E is B - H, QEMU's start-up delay (QEMU creates the
 *     VM after H). Behind by at most 1 ns of resolution and 1 ms of
 *     rounding (a guest earlier than H is always wrong), ahead by at most
 *     threshold (default 0.5 s: QEMU's start-up took 39 ms here idle,
 *     52-68 ms in make run, 109-188 ms with three CPU hogs on the two host
 *     CPUs), each end wider by kvmclock's drift from the host's time of
 *     day over the uptime (1000 ppm, see lib/x86/refclock.c). A time of
 *     day 2 s stale is 2 s below the lower limit, one 1 s ahead 0.5 s
 *     above the upper one. A whole-second host time is up to 1 s early:
 *     the upper limit then grows by 1 s (and a 1 s error may pass: give
 *     date +%s.%N). The vCPU judged is the first out of its band, else
 *     the one furthest from 0.
 *  3. Rate: on the BSP and on the last vCPU, kvmclock against every
 *     reference clock of refs= (lib/refclock.h) over one window of
 *     window_ms (default 100 ms), all references in the same window.
 *     Each end of the window is the narrowest of RATECHECK_TRIES marks: a
 *     mark brackets one reference read between two kvmclock reads, so
 *     its width is the cost of one reference read plus one kvmclock read
 *     (0.1-0.2 ms here). The bound (lib/refclock.c) is how far the
 *     extremes the two brackets allow lie from their midpoints - about
 *     half the two widths over the window, 1000-1500 ppm - plus one
 *     count of the reference's resolution per end (10 ns HPET, 279 ns PM
 *     timer, 838 ns PIT: under 20 ppm) plus the reference's 1000 ppm
 *     tolerance (lib/x86/refclock.c: QEMU's devices follow the host's
 *     CLOCK_MONOTONIC, kvmclock the unslewed TSC): 1900-2800 ppm here,
 *     idle or loaded. A clock 1% fast is four times further off, one
 *     read 5% fast twenty times. A window whose bound exceeds
 *     RATECHECK_USABLE_PPB (4000 ppm) without the error lying outside it had
 *     every mark disturbed (the host descheduled the vCPU): it is
 *     measured again, up to RATECHECK_WINDOWS times, and never accepted.
 *  4. Raw cycle stability: the vCPUs take turns under a fair (ticket)
 *     lock; each read of the raw clock - this vCPU's own area, no
 *     correction - is compared with the read just before it, made by
 *     whichever vCPU had the lock last. Earlier is a warp, equal a
 *     stall. When the host promises a stable clock
 *     (KVM_FEATURE_CLOCKSOURCE_STABLE_BIT and PVCLOCK_TSC_STABLE_BIT on
 *     every vCPU), a warp is a failure; when it does not, warps are what
 *     the guest-side correction is for, and the result is information.
 *  5. Monotonic cycles: the same with the read guests use (raw when the
 *     host promises stability, clamped through a global last value when
 *     it does not): any warp is a failure.
 *  6. Skew self-check (2 or more vCPUs): the odd vCPUs read the raw
 *     clock SKEW_NS (100 ms) behind, a skew larger than any gap between
 *     two turns. The raw reads must then show warps (the detector works)
 *     and the same reads through pvclock_clamp() none (the correction
 *     works) - on any host, stable or not.
 *  7. Performance: every vCPU at once reads the clock loops times in each
 *     mode - bare rdtsc (the floor: every read below contains one),
 *     raw, stable-aware, forced-adjusted (always clamped with
 *     compare-and-swap on one shared cache line) - and the cost per read
 *     is printed in TSC cycles and ns, with the ratios to raw. Figures
 *     only: nothing fails on speed. With more vCPUs than host CPUs the
 *     per-read figures include the time a vCPU spent descheduled.
 * Lines other tools grep for are printed untagged as they always were:
 * "Total vcpus:", "Test loops:", "Total warps:", "Total stalls:",
 * "Worst warp:", "TSC cycles:", "Raw cycle is [not] stable". Every figure
 * is also a RESULT line, or the BOUND line of the check that bounds it
 * (kvmclock.{raw,monotonic}.warps and kvmclock.skew.clamped.warps 0..0,
 * kvmclock.skew.raw.warps 1..inf, kvmclock.perf.<mode>.backsteps 0..0
 * for the stable-aware and adjusted reads). Not on KVM, or KVM without
 * the clocksource feature (-cpu ...,-kvmclock): SKIP with the reason.
 *
 * Arguments, positional in this order or key=value:
 *   loops=N       reads per vCPU in each of steps 4, 5 and 7 (default 1000)
 *   host_time=S   the host's time of day when QEMU started, seconds since
 *                 the epoch, optionally with up to 9 fraction digits
 *                 (date +%s.%N); 0 or absent: step 2 is not run
 *   threshold=S   the largest start-up delay step 2 allows, seconds,
 *                 fraction allowed (default 0.5)
 * key=value only:
 *   phases=LIST   which of tscfreq,wallclock,rate,raw,monotonic,skew,perf
 *                 to run (default all; the sweep script runs perf alone)
 *   refs=LIST     reference clocks for step 3 (default hpet,pmtimer; also
 *                 pit, and rtc alone: whole seconds, use window_ms=5000)
 *   window_ms=N   step 3's window (default 100)
 *   fault=NAME    test-only: inject a fault the checks must catch -
 *                 rate4x (conversion shift 2 too large), fast5pct and
 *                 fast1pct (every read 5% / 1% high), tod_stale2s, tod_ahead1s (time of day
 *                 2 s behind / 1 s ahead), noclamp (step 6 without the
 *                 clamp); each must make its check fail
 * Anything else, or a value that is not a number, is a failure.
 * Example: -append "10000 $(date +%s.%N) 0.5"
 */
#include "libc.h"
#include "alloc.h"
#include "x86/apic.h"
#include "arch.h"
#include "argv.h"
#include "fixed.h"
#include "atomic.h"
#include "x86/kvmclock.h"
#include "x86/warp_arch.h"
#include "x86/processor.h"
#include "pvclock.h"
#include "ratecheck.h"
#include "report.h"
#include "wait.h"
#include "stats.h"
#include "tod.h"
#include "units.h"
#include "x86/tsc.h"

#define MAX_LOOPS		100000000ull
#define CACHE_LINE_SIZE		64
#define TSC_KHZ_SLACK		3
/* Step 2: what KVM's boot time of day may lose besides kvmclock's drift (lib/tod.h's rounding). */
#define WALL_ROUNDING_NS	NSEC_PER_MSEC
#define MAX_WINDOW_MS		60000
#define SKEW_NS			(100 * NSEC_PER_MSEC)
#define SKEW_LOOPS		50
/* us printed as ms: NSEC_PER_USEC is 10^3, three decimals */
#define US_AS_MS_SCALE		3

/* The steps of phases=, each its index in phase_names[]. */
enum phase {
	PHASE_TSCFREQ,
	PHASE_WALLCLOCK,
	PHASE_RATE,
	PHASE_RAW,
	PHASE_MONOTONIC,
	PHASE_SKEW,
	PHASE_PERF,
};

/* Test-only faults (fault=NAME), each for the check that must catch it. */
enum fault {
	FAULT_NONE,
	FAULT_RATE4X,
	FAULT_FAST5PCT,
	FAULT_FAST1PCT,
	FAULT_TOD_STALE2S,
	FAULT_TOD_AHEAD1S,
	FAULT_NOCLAMP,
};

static const char *const fault_names[] = {
	[FAULT_NONE] = "none",		   [FAULT_RATE4X] = "rate4x",
	[FAULT_FAST5PCT] = "fast5pct",	   [FAULT_FAST1PCT] = "fast1pct",
	[FAULT_TOD_STALE2S] = "tod_stale2s",
	[FAULT_TOD_AHEAD1S] = "tod_ahead1s", [FAULT_NOCLAMP] = "noclamp",
};

struct options {
	u64 loops;
	u64 host_ns;		/* 0: no host time given */
	bool host_has_fraction;
	u64 threshold_ns;
	unsigned phases;
	const char *refs;
	u64 window_ms;
	unsigned fault;		/* enum fault */
};

static enum fault fault;

/* What one vCPU found in one step, alone on its cache line. */
struct vcpu_result {
	u64 warps;		/* step 7: reads behind this vCPU's own read before */
	u64 cycles;
	u64 boot_ns, uptime_ns;
} __aligned(CACHE_LINE_SIZE);

static struct vcpu_result *results;

static u64 magnitude(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/* "+1.234" / "-0.005": a signed count of us as ms. */
static const char *fmt_us_as_ms(char *buf, size_t size, s64 us)
{
	return fmt_fixed(buf, size, us, US_AS_MS_SCALE, US_AS_MS_SCALE, FIXED_SIGN_PLUS);
}

/* ---- arguments ---------------------------------------------------------- */

static const char *const phase_names[] = {
	[PHASE_TSCFREQ] = "tscfreq", [PHASE_WALLCLOCK] = "wallclock", [PHASE_RATE] = "rate",
	[PHASE_RAW] = "raw", [PHASE_MONOTONIC] = "monotonic", [PHASE_SKEW] = "skew",
	[PHASE_PERF] = "perf",
};

static struct options o;

static const struct arg args[] = {
	ARG_UINT("loops", &o.loops, 1, MAX_LOOPS, "1000", "reads per vCPU in steps 4, 5 and 7"),
	ARG_HOST_TIME(&o.host_ns, &o.host_has_fraction, 0,
		      "the host's time of day when QEMU started (date +%s.%N); 0 or absent: no step 2"),
	ARG_SECONDS("threshold", &o.threshold_ns, 0, UINT64_MAX, "0.5",
		    "the largest start-up delay step 2 allows"),
	ARG_LIST("phases", &o.phases, phase_names, "tscfreq,wallclock,rate,raw,monotonic,skew,perf",
		 "steps to run"),
	ARG_TEXT("refs", &o.refs, ratecheck_refs_arg, "hpet,pmtimer", "reference clocks for step 3"),
	ARG_UINT("window_ms", &o.window_ms, 1, MAX_WINDOW_MS, "100", "step 3's window"),
	ARG_ONE_OF("fault", &o.fault, fault_names, "none", "test-only: the check to make fail"),
};
/* Words without '=' fill these in order. */
static const char *const positional[] = { "loops", "host_time", "threshold" };
static const struct arg_table arg_table = ARG_TABLE_POSITIONAL(args, positional);

/* ---- the clock under test, with the faults fault= injects --------------- */

/* kvmclock's parameters on this vCPU as the test trusts them (rate4x: the shift 2 too large). */
static void params_under_test(struct pvclock_vcpu_time_info *ti)
{
	kvmclock_snapshot(ti);
	if (fault == FAULT_RATE4X)
		ti->tsc_shift += 2;
}

/* The raw clock in ns, as the checks of steps 1-3 see it. */
static u64 clock_under_test(void)
{
	struct pvclock_vcpu_time_info ti;

	switch (fault) {
	case FAULT_RATE4X:
		params_under_test(&ti);
		return pvclock_time_at(&ti, rdtsc_ordered());
	case FAULT_FAST5PCT:
		return kvmclock_read_raw() / 20 * 21;
	case FAULT_FAST1PCT:
		return kvmclock_read_raw() / 100 * 101;
	default:
		return kvmclock_read_raw();
	}
}

/* The boot time of day, as step 2 sees it. */
static u64 boot_wall_under_test(void)
{
	u64 b = kvmclock_boot_wall_ns();

	if (fault == FAULT_TOD_STALE2S)
		return b - 2 * NSEC_PER_SEC;
	if (fault == FAULT_TOD_AHEAD1S)
		return b + NSEC_PER_SEC;
	return b;
}

/* ---- 1. TSC frequency ---------------------------------------------------- */

static void tsc_khz_against(const char *leaf, u64 kvm_khz, u64 cpuid_hz)
{
	u64 cpuid_khz = cpuid_hz / HZ_PER_KHZ;
	u64 diff = kvm_khz > cpuid_khz ? kvm_khz - cpuid_khz : cpuid_khz - kvm_khz;
	char name[64];

	if (!cpuid_hz) {
		report_skip("CPUID %s offers no TSC frequency", leaf);
		return;
	}
	snprintf(name, sizeof(name), "kvmclock.tscfreq.cpuid_%s_khz", leaf);
	report_result(name, "kHz", "%llu", cpuid_khz);
	report(diff <= TSC_KHZ_SLACK,
	       "kvmclock's multiplier and shift give %llu kHz, CPUID %s %llu kHz (within %d kHz)",
	       kvm_khz, leaf, cpuid_khz, TSC_KHZ_SLACK);
}

static void tscfreq_test(void)
{
	struct pvclock_vcpu_time_info ti;
	u64 kvm_khz;

	report_prefix_push("tscfreq");
	params_under_test(&ti);
	kvm_khz = pvclock_tsc_khz(ti.tsc_to_system_mul, ti.tsc_shift);
	report_result("kvmclock.tscfreq.kvmclock_khz", "kHz", "%llu", kvm_khz);
	tsc_khz_against("0x40000010", kvm_khz, tsc_hz_from_hv_leaf());
	tsc_khz_against("0x15", kvm_khz, tsc_hz_from_crystal_leaf());
	report_prefix_pop();
}

/* ---- 2. wall clock ------------------------------------------------------ */

static void wallclock_on(void *unused)
{
	struct vcpu_result *r = &results[smp_id()];

	r->boot_ns = boot_wall_under_test();
	r->uptime_ns = clock_under_test();
}

/* vCPU i's reading: KVM's boot time of day plus kvmclock, kvmclock the time elapsed since the VM's creation */
static struct tod_reading wallclock_reading(const struct options *o, int i)
{
	return (struct tod_reading){
		.clock_ns = results[i].boot_ns + results[i].uptime_ns,
		.host_ns = o->host_ns,
		.host_time = o->host_has_fraction ? TOD_HOST_FRACTION : TOD_HOST_WHOLE_SECONDS,
		.elapsed_ns = results[i].uptime_ns,
		.threshold_ns = o->threshold_ns,
	};
}

static void wallclock_test(const struct options *o)
{
	struct tod_clock kvmclock = { .figure = "kvmclock.wallclock.startup_delay_ms",
				      .unit = TOD_UNIT_MS, .resolution_ns = 1,
				      .rounding_ns = WALL_ROUNDING_NS };
	struct tod_reading w;
	s64 worst = 0;
	int judged = 0;
	char a[32], b[32], name[48];

	report_prefix_push("wallclock");
	on_cpus(wallclock_on, NULL);
	for (int i = 0; i < cpu_count(); i++) {
		struct tod_reading r = wallclock_reading(o, i);
		/* R - H - E is B - H, the start-up delay; R - H the offset of the time of day */
		s64 delay = tod_offset_ns(&r), offset = delay + (s64)r.elapsed_ns;

		report_info("vcpu %d: time of day %s ms after the host's, uptime %llu ms: start-up delay %s ms", i,
			    fmt_us_as_ms(a, sizeof(a), offset / (s64)NSEC_PER_USEC), r.elapsed_ns / NSEC_PER_MSEC,
			    fmt_us_as_ms(b, sizeof(b), delay / (s64)NSEC_PER_USEC));
		if (magnitude(offset) > magnitude(worst))
			worst = offset;
		/* the vCPU judged: the first failing one, else the one furthest from 0 */
		w = wallclock_reading(o, judged);
		if (tod_holds(&kvmclock, &w) &&
		    (!tod_holds(&kvmclock, &r) || magnitude(delay) > magnitude(tod_offset_ns(&w))))
			judged = i;
	}
	report_result("kvmclock.wallclock.worst_offset_ms", "ms", "%s",
		      fmt_us_as_ms(a, sizeof(a), worst / (s64)NSEC_PER_USEC));
	snprintf(name, sizeof(name), "kvmclock on vCPU %d of %d", judged, cpu_count());
	kvmclock.name = name;
	w = wallclock_reading(o, judged);
	tod_check(&kvmclock, &w);
	report_prefix_pop();
}

/* ---- 3. rate ------------------------------------------------------------ */

static void rate_test(const struct options *o)
{
	struct ratecheck rc = {
		.clock = "kvmclock",
		.read = clock_under_test,
		.hz = NSEC_PER_SEC,
		.window = o->window_ms * NSEC_PER_MSEC,
		.tries = RATECHECK_TRIES,
		.windows = RATECHECK_WINDOWS,
		.usable_ppb = RATECHECK_USABLE_PPB,
	};

	report_prefix_push("rate");
	if (ratecheck_set_refs(&rc, o->refs))
		report_abort("bad refs argument '%s'", o->refs);
	if (rc.n < 2)
		report_info("only %zu of the references asked for are here", rc.n);
	if (!rc.n) {
		report(false, "no reference clock to measure kvmclock's rate against");
	} else {
		ratecheck_run(&rc, 0);
		if (cpu_count() > 1)
			ratecheck_run(&rc, cpu_count() - 1);
	}
	report_prefix_pop();
}

/* ---- 4, 5, 6. warps -------------------------------------------------------- */

/* The vCPUs take loops turns each reading read() (common/warp/warp.c); returns the total warps. */
static u64 warp_run_quiet(u64 (*read)(void), u64 loops, struct warp_findings *total)
{
	struct warp_check check = { .arch = &warp_arch_x86, .read = read, .mask = WARP_MASK_64, .loops = loops };

	kvmclock_reset_last();
	return warp_run(&check, total);
}

/* RESULT lines kvmclock.<name>.<figure>; the warps a check's BOUND line, or a RESULT where none */
static const struct warp_result warp_total_results[] = {
	{ WARP_STALLS, "stalls", "count" },
	{ WARP_WORST_STEP, "worst_warp_ns", "ns" },
};
static const struct warp_report warp_results = {
	NULL, 0, warp_total_results, ARRAY_SIZE(warp_total_results),
};

/*
 * The warp run with read(), printing the classic lines, the breakdown and
 * the RESULT lines (kvmclock.<name>.*) into *t; the caller checks the
 * warps (warp_report_check) or prints them.
 */
static u64 warp_test(const char *name, u64 (*read)(void), u64 loops, struct warp_findings *t)
{
	u64 warps = warp_run_quiet(read, loops, t);
	char prefix[32];

	for (int i = 0; i < cpu_count(); i++) {
		const struct warp_findings *f = warp_vcpu(i);

		report_info("vcpu %d: warps %llu, stalls %llu, worst warp %lld ns", i, f->warps, f->stalls,
			    -(s64)f->worst);
	}
	printf("Total vcpus: %d\nTest loops: %llu\n", cpu_count(), loops);
	printf("Total warps: %llu\nTotal stalls: %llu\nWorst warp: %lld\n", warps, t->stalls,
	       -(s64)t->worst);
	snprintf(prefix, sizeof(prefix), "kvmclock.%s.", name);
	warp_report_totals(&warp_results, prefix, t);
	return warps;
}

static void raw_stability_test(u64 loops)
{
	bool promised = kvmclock_host_stable();
	struct warp_findings t;
	u64 warps;

	report_prefix_push("raw");
	printf("Check the stability of raw cycle ...\n");
	warps = warp_test("raw", kvmclock_read_raw, loops, &t);
	printf("Raw cycle is %s\n", warps ? "not stable" : "stable");
	if (promised) {
		warp_report_check("kvmclock.raw.", &t,
				  "raw cycles never go backwards, as the host's stable flag "
				  "promises (%llu warps)", warps);
	} else {
		report_result("kvmclock.raw.warps", "count", "%llu", warps);
		report_info("raw cycles %s; the host does not promise stability, so this is not a failure",
			    warps ? "went backwards" : "did not go backwards");
	}
	report_prefix_pop();
}

static void monotonic_test(u64 loops)
{
	struct warp_findings t;
	u64 warps;

	report_prefix_push("monotonic");
	printf("Monotonic cycle test:\n");
	report_info("stable-aware reads %s", kvmclock_host_stable()
			    ? "are raw: the host promises a stable clock"
			    : "go through the clamp: the host does not promise a stable clock");
	warps = warp_test("monotonic", kvmclock_read_stable_aware, loops, &t);
	warp_report_check("kvmclock.monotonic.", &t,
			  "stable-aware reads never go backwards across %d vCPUs (%llu warps)",
			  cpu_count(), warps);
	report_prefix_pop();
}

/* The skew self-check's own last value, apart from the driver's. */
static struct {
	pvclock_last_t value;
} __aligned(CACHE_LINE_SIZE) skew_last;

/* The raw clock, SKEW_NS behind on the odd vCPUs: a host whose vCPUs disagree, made to order. */
static u64 read_skewed(void)
{
	u64 now = kvmclock_read_raw();

	return smp_id() & 1 ? now - SKEW_NS : now;
}

/* The same through the clamp the stable-aware and forced-adjusted reads use (noclamp: without). */
static u64 read_skewed_clamped(void)
{
	if (fault == FAULT_NOCLAMP)
		return read_skewed();
	return pvclock_clamp(&skew_last.value, read_skewed());
}

static void skew_test(void)
{
	struct warp_findings t;
	u64 raw, clamped;

	report_prefix_push("skew");
	if (cpu_count() < 2) {
		report_skip("needs 2 or more vCPUs to skew one against another");
		report_prefix_pop();
		return;
	}
	/* quiet: the classic "Total warps:" lines belong to steps 4 and 5, which tools grep */
	raw = warp_run_quiet(read_skewed, SKEW_LOOPS, &t);
	pvclock_last_reset(&skew_last.value);
	clamped = warp_run_quiet(read_skewed_clamped, SKEW_LOOPS, &t);
	/* the detector: some warps; the correction: none */
	report_bounded_count("kvmclock.skew.raw.warps", "count", (s64)raw, 1, BOUND_OPEN_HI,
			     "raw reads skewed %llu ms on odd vCPUs go backwards (%llu warps): the "
			     "detector works",
			     SKEW_NS / NSEC_PER_MSEC, raw);
	report_bounded_count("kvmclock.skew.clamped.warps", "count", (s64)clamped, 0, 0,
			     "the same reads through the clamp never do (%llu warps): the "
			     "correction works", clamped);
	report_prefix_pop();
}

/* ---- 7. performance ----------------------------------------------------- */

static u64 read_bare_rdtsc(void)
{
	return rdtsc();
}

/* Whether a read going backwards on its own vCPU fails the run, or is only counted. */
enum backstep_rule {
	BACKSTEP_COUNTED,
	BACKSTEP_FAILS,
};

static const struct perf_mode {
	const char *name;	/* RESULT name part */
	const char *title;	/* the classic "Measure the performance of ... cycle" word */
	u64 (*read)(void);
	enum backstep_rule rule;
} perf_modes[] = {
	{ "rdtsc", "bare rdtsc", read_bare_rdtsc, BACKSTEP_COUNTED },
	{ "raw", "raw", kvmclock_read_raw, BACKSTEP_COUNTED },
	{ "stable_aware", "stable-aware", kvmclock_read_stable_aware, BACKSTEP_FAILS },
	{ "adjusted", "adjusted", kvmclock_read_adjusted, BACKSTEP_FAILS },
};

struct perf_run {
	const struct perf_mode *mode;
	u64 loops;
	unsigned long arrived;
};

static void perf_on(void *arg)
{
	struct perf_run *run = arg;
	u64 t0, t1, prev = 0, backsteps = 0;

	/* start together, so the shared line of the adjusted read is contended from the first read */
	atomic_inc(&run->arrived);
	wait_reached(&run->arrived, (unsigned long)cpu_count());
	t0 = rdtsc_ordered();
	/* the compare costs every mode the same couple of cycles, and keeps the reads honest */
	for (u64 i = 0; i < run->loops; i++) {
		u64 now = run->mode->read();

		backsteps += now < prev;
		prev = now;
	}
	t1 = rdtsc_ordered();
	results[smp_id()].cycles = t1 - t0;
	results[smp_id()].warps = backsteps;
}

/* Mean cycles per read over all vCPUs, in thousandths of a cycle. */
static u64 perf_measure(const struct perf_mode *mode, u64 loops)
{
	struct perf_run run = { .mode = mode, .loops = loops };
	struct pvclock_vcpu_time_info ti;
	u64 begin, end, sum = 0, backsteps = 0, milli, ps;
	char a[32], b[32], rname[64];

	kvmclock_reset_last();
	printf("Measure the performance of %s cycle ...\n", mode->title);
	begin = rdtsc_ordered();
	on_cpus(perf_on, &run);
	end = rdtsc_ordered();
	for (int i = 0; i < cpu_count(); i++) {
		sum += results[i].cycles;
		backsteps += results[i].warps;
	}
	printf("Total vcpus: %d\nTest loops: %llu\nTSC cycles: %llu\n", cpu_count(),
	       loops, end - begin);
	milli = sum * MILLI_PER_UNIT / (loops * (u64)cpu_count());
	kvmclock_snapshot(&ti);
	ps = pvclock_scale_delta(sum, ti.tsc_to_system_mul, ti.tsc_shift) * PSEC_PER_NSEC / (loops * (u64)cpu_count());
	report_info("%s: %s cycles, %s ns per read", mode->title, fmt_milli(a, sizeof(a), milli),
		    fmt_milli(b, sizeof(b), ps));
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s.cycles_per_read", mode->name);
	report_result(rname, "cycles", "%s", a);
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s.ns_per_read", mode->name);
	report_result(rname, "ns", "%s", b);
	if (mode->rule == BACKSTEP_FAILS) {
		snprintf(rname, sizeof(rname), "kvmclock.perf.%s.backsteps", mode->name);
		report_bounded_count(rname, "count", (s64)backsteps, 0, 0,
				     "%s reads never went backwards on their own vCPU (%llu times)",
				     mode->title, backsteps);
	} else if (backsteps)
		report_info("%s reads went backwards on their own vCPU %llu times", mode->title,
			    backsteps);
	return milli;
}

static void perf_ratio(const char *name, u64 num_milli, u64 raw_milli)
{
	char a[32], rname[64];

	fmt_milli(a, sizeof(a), raw_milli ? num_milli * MILLI_PER_UNIT / raw_milli : 0);
	report_info("%s/raw: %sx", name, a);
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s_over_raw", name);
	report_result(rname, "ratio", "%s", a);
}

static void perf_test(u64 loops)
{
	u64 milli[ARRAY_SIZE(perf_modes)];

	report_prefix_push("perf");
	for (unsigned i = 0; i < ARRAY_SIZE(perf_modes); i++)
		milli[i] = perf_measure(&perf_modes[i], loops);
	/* indexes as in perf_modes[]: 1 raw, 2 stable-aware, 3 adjusted */
	perf_ratio("stable_aware", milli[2], milli[1]);
	perf_ratio("adjusted", milli[3], milli[1]);
	report_prefix_pop();
}

int main(int argc, char **argv)
{
	const char *why;

	args_parse_or_abort(&arg_table, argc, argv);
	fault = o.fault;
	if (fault != FAULT_NONE)
		report_info("fault injected: %s (test-only: checks are expected to fail)", fault_names[fault]);
	why = kvmclock_unavailable();
	if (why) {
		report_skip("%s", why);
		return report_summary();
	}
	if (kvmclock_init()) {
		kvmclock_exit();
		report_abort("could not register kvmclock on every vCPU");
	}
	results = memalign(CACHE_LINE_SIZE, sizeof(*results) * (size_t)cpu_count());
	kvmclock_print_params();

	if (arg_listed(o.phases, PHASE_TSCFREQ))
		tscfreq_test();
	if (arg_listed(o.phases, PHASE_WALLCLOCK) && o.host_ns)
		wallclock_test(&o);
	else if (arg_listed(o.phases, PHASE_WALLCLOCK))
		report_info("wallclock: no host time given, not checked");
	if (arg_listed(o.phases, PHASE_RATE))
		rate_test(&o);
	if (arg_listed(o.phases, PHASE_RAW))
		raw_stability_test(o.loops);
	if (arg_listed(o.phases, PHASE_MONOTONIC))
		monotonic_test(o.loops);
	if (arg_listed(o.phases, PHASE_SKEW))
		skew_test();
	if (arg_listed(o.phases, PHASE_PERF))
		perf_test(o.loops);

	kvmclock_exit();
	return report_summary();
}
