/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * platform_clocks: the HPET main counter and the ACPI PM timer as clocks -
 * whether either ever goes backwards between vCPUs, and whether each runs
 * at the rate the hardware states.
 *
 * Why: both are machine-wide counters a guest falls back on when it does
 * not trust the TSC (Linux's clocksource watchdog reads one of them to
 * judge the TSC; an OS without a paravirtual clock keeps time on them). A
 * hypervisor that scales one wrongly, or lets two vCPUs see it at
 * different values, misleads the guest about the one clock it was told to
 * trust.
 *
 * What it checks, in order (phases=), for each counter the machine has
 * (SKIP with the reason where there is none):
 *  1. warps: the warp check of common/warp/warp.c (as x86/tsc_test.c runs it
 *     for the TSC): the vCPUs take turns under a fair lock; each read is compared with the
 *     one before it, made by whichever vCPU held the lock last. The
 *     counters wrap (HPET: reads of the main counter's low 32 bits, 42.9 s
 *     at QEMU's 100 MHz; PM timer: 24 bits, 4.69 s, or 32 with
 *     TMR_VAL_EXT), so a step is taken modulo the width: a step in the
 *     upper half of the range is a warp (the read went backwards), one in
 *     the lower half progress. Two reads under the lock are microseconds
 *     apart; only a vCPU kept off its CPU for half the wrap (2.3 s for the
 *     PM timer) could make progress look like a warp, and the largest
 *     step is printed to show how far from that a run stayed. Any warp
 *     fails. The quickest hand-off between two vCPUs is printed: an offset
 *     between two vCPUs' views smaller than it could not show.
 *  2. rates: on vCPU 0 and on the last vCPU, each counter at its stated
 *     rate (HPET: 10^15 / the period in femtoseconds of its capability
 *     register; PM timer: 3.579545 MHz, ACPI spec) against the other
 *     counter and against the TSC where CPUID states the TSC's frequency
 *     (QEMU's +invtsc under KVM: the host's TSC, a clock QEMU does not
 *     derive from the one it drives both counters with). Measured by
 *     lib/ratecheck.c: each end of a window_ms window is the narrowest of
 *     RATECHECK_TRIES marks, a mark brackets the moment the reference changed
 *     between two reads of the counter under test; the bound is the
 *     brackets' widths over the window (a few hundred ppm here), plus one
 *     count of each reference per end, plus the reference's tolerance
 *     (lib/x86/refclock.c: 1000 ppm, QEMU's devices follow the host's
 *     NTP-slewed CLOCK_MONOTONIC, the TSC the unslewed crystal; the TSC's
 *     stated frequency adds its leaf's resolution). A window with a bound
 *     wider than RATECHECK_USABLE_PPB, its error inside, had every mark
 *     disturbed: measured again, up to RATECHECK_WINDOWS times. A counter
 *     0.5% off is more than twice the bound.
 * RESULT lines: <counter>.warps.vcpuN.{warps,stalls,worst_warp_counts,
 * handoffs,min_handoff_counts,max_step_counts}, <counter>.hz, and
 * lib/ratecheck.c's <counter>.rate.vcpuN.<ref>.{err,bound}_ppm; the total
 * warps, <counter>.warps, is the check's BOUND line (0..0).
 *
 * Arguments, key=value:
 *   loops=N       reads per vCPU in each warp run (default 1000)
 *   counters=LIST which of hpet,pmtimer to test (default both)
 *   window_ms=N   step 2's window (default 150)
 *   phases=LIST   which of warps,rates to run (default both)
 *   fault=NAME    test-only, makes a check fail to show it can: warp (the
 *                 last vCPU's reads come out 1 ms of counts early, as if
 *                 its view of the counter were offset), hpet_rate and
 *                 pm_rate (that counter's stated rate taken 0.5% high)
 * Anything else is a failure. Example: -append "loops=2000 counters=pmtimer"
 */
#include "libc.h"
#include "arch.h"
#include "argv.h"
#include "x86/hpet.h"
#include "x86/layout.h"
#include "x86/pmtimer.h"
#include "x86/processor.h"
#include "ratecheck.h"
#include "report.h"
#include "x86/tsc_cpuid.h"
#include "x86/warp_arch.h"
#include "units.h"

#define MAX_LOOPS	  100000000ull
#define MAX_WINDOW_MS	  10000
/* fault=warp: 1 ms of counts, far above a hand-off (about 40 us under kvm-pvm) */
#define FAULT_WARP_MS 1
/* fault=hpet_rate, pm_rate: +0.5%, more than the 0.1% the references tolerate plus the brackets */
#define FAULT_RATE_PPM 5000

/* The steps of phases=, each its index in phase_names[]. */
enum phase { PHASE_WARPS, PHASE_RATES };
enum fault { FAULT_NONE, FAULT_WARP, FAULT_HPET_RATE, FAULT_PM_RATE };

static const char *const phase_names[] = {[PHASE_WARPS] = "warps", [PHASE_RATES] = "rates"};
static const char *const fault_names[] = {"none", "warp", "hpet_rate", "pm_rate"};

/* A platform counter: raw reads of its hardware width, and the refclock (lib/x86/refclock.c)
 * reading it. */
struct counter {
	const char *name; /* its refclock name */
	const char *what;
	const char *(*find)(void);
	u64 (*read)(void);	/* raw reads of its hardware width */
	unsigned (*bits)(void);
	u64 (*hz)(void);
	enum fault rate_fault;
};

static const char *hpet_find_and_run(void)
{
	const char *why = hpet_find();

	if (!why)
		hpet_counter_run();
	return why;
}

static unsigned hpet_bits(void)
{
	return 32; /* one MMIO read of the main counter's low dword */
}

/* The counters' raw reads, widened for the warp check. */
static u64 hpet_read(void)
{
	return hpet_counter_read32();
}

static u64 pm_read(void)
{
	return pmtimer_read();
}

static u64 pm_hz(void)
{
	return PMTIMER_HZ;
}

static const struct counter counters[] = {
	{"hpet", "HPET main counter", hpet_find_and_run, hpet_read, hpet_bits,
	 hpet_counter_hz, FAULT_HPET_RATE},
	{"pmtimer", "ACPI PM timer", pmtimer_find, pm_read, pmtimer_bits, pm_hz,
	 FAULT_PM_RATE},
};

static struct {
	u64 loops;
	u64 window_ms;
	unsigned phases;
	unsigned counters; /* bit per counters[] entry */
	unsigned fault; /* enum fault */
} opt;

/* ---- arguments ------------------------------------------------------------ */

static const char *const counter_names[] = {"hpet", "pmtimer"};

static const struct arg args[] = {
	ARG_UINT("loops", &opt.loops, 1, MAX_LOOPS, "1000", "reads per vCPU in each warp run"),
	ARG_LIST("counters", &opt.counters, counter_names, "hpet,pmtimer", "counters to test"),
	ARG_UINT("window_ms", &opt.window_ms, 1, MAX_WINDOW_MS, "150", "step 2's window"),
	ARG_LIST("phases", &opt.phases, phase_names, "warps,rates", "steps to run"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* ---- 1. warps --------------------------------------------------------------- */

/* RESULT lines <counter>.warps.vcpuN.<figure> and <counter>.warps */
static const struct warp_result warp_vcpu_results[] = {
	{ WARP_WARPS, "warps", "count" },
	{ WARP_STALLS, "stalls", "count" },
	{ WARP_WORST_BACK, "worst_warp_counts", "counts" },
	{ WARP_HANDOFFS, "handoffs", "count" },
	{ WARP_MAX_STEP, "max_step_counts", "counts" },
	{ WARP_MIN_HANDOFF, "min_handoff_counts", "counts" },
};
/* the total warps: the check's BOUND line <counter>.warps */
static const struct warp_report warp_results = {
	warp_vcpu_results, ARRAY_SIZE(warp_vcpu_results), NULL, 0,
};

static void warp_test(const struct counter *c)
{
	struct warp_check check = {
		.arch = &warp_arch_x86,
		.read = c->read,
		.mask = (1ull << c->bits()) - 1,
		.loops = opt.loops,
		.fault_skew = opt.fault == FAULT_WARP ? c->hz() / MSEC_PER_SEC * FAULT_WARP_MS : 0,
	};
	struct warp_findings t;
	char prefix[32];

	warp_run(&check, &t);
	snprintf(prefix, sizeof(prefix), "%s.warps.", c->name);
	warp_report_vcpus(&warp_results, prefix);
	snprintf(prefix, sizeof(prefix), "%s.", c->name);
	warp_report_handoff(&t, "", "counts");
	report_info(
		"%llu reads on each of %d vCPUs, %u-bit counter: largest step %llu counts, a warp "
		"is a step above %llu",
		opt.loops, cpu_count(), c->bits(), t.max_step, check.mask / 2);
	if (cpu_count() == 1)
		report_info("one vCPU: the reads only check that the counter never goes backwards "
			    "on it");
	warp_report_check(prefix, &t,
			  "the %s never goes backwards across %d vCPUs (%llu warps, worst %llu "
			  "counts back)",
			  c->what, cpu_count(), t.warps, t.worst);
}

/* ---- 2. rates --------------------------------------------------------------- */

/*
 * The TSC as a reference where CPUID states its frequency. Its tolerance
 * against QEMU's devices is the one lib/x86/refclock.c allows them
 * against the TSC (copied from the HPET's entry at run time), plus what
 * the stating leaf's unit cannot express.
 */
static struct tsc_freq_statement tsc_stated;

static const char *tsc_ref_probe(void)
{
	struct tsc_freq_statement st[TSC_FREQ_MAX_STATEMENTS];

	if (!tsc_freq_statements(st))
		return "CPUID states no TSC frequency (no leaf 0x15 crystal, 0x16 or 0x40000010)";
	tsc_stated = st[0];
	return NULL;
}

static u64 tsc_ref_hz(void)
{
	return tsc_stated.hz;
}

static u64 tsc_ref_read(void)
{
	return rdtsc_ordered();
}

static struct refclock tsc_ref = {
	.name = "tsc",
	.what = "TSC at its CPUID-stated frequency",
	.probe = tsc_ref_probe,
	.hz = tsc_ref_hz,
	.read = tsc_ref_read,
	.max_poll_ns = ~0ull, /* 64 bits: no wrap to follow */
};

static void add_tsc_ref(struct ratecheck *rc, const struct refclock *device)
{
	const char *why = tsc_ref.probe();

	if (why) {
		report_skip("rate against the TSC: %s", why);
		return;
	}
	tsc_ref.tolerance_ppb =
		device->tolerance_ppb + tsc_stated.resolution_hz * PPB_PER_UNIT / tsc_stated.hz;
	report_info("TSC: CPUID %s states %llu Hz (resolution %llu Hz)", tsc_stated.leaf,
		    tsc_stated.hz, tsc_stated.resolution_hz);
	rc->refs[rc->n++] = &tsc_ref;
}

static void rate_test(const struct counter *c, const struct counter *other)
{
	const struct refclock *self = refclock_find(c->name);
	struct ratecheck rc = {
		.clock = c->name,
		.tries = RATECHECK_TRIES,
		.windows = RATECHECK_WINDOWS,
		.usable_ppb = RATECHECK_USABLE_PPB,
	};
	char name[32];

	if (!self || self->probe())
		report_abort("the %s was found but its reference clock entry does not probe",
			     c->what);
	rc.read = self->read;
	rc.hz = c->hz();
	snprintf(name, sizeof(name), "%s.hz", c->name);
	report_result(name, "Hz", "%llu", rc.hz);
	if (opt.fault == c->rate_fault)
		rc.hz += rc.hz * FAULT_RATE_PPM / PPM_PER_UNIT;
	rc.window = rc.hz / MSEC_PER_SEC * opt.window_ms;
	if (other && ratecheck_set_refs(&rc, other->name))
		report_abort("no reference clock entry for the %s", other->what);
	add_tsc_ref(&rc, self);
	if (!rc.n) {
		report_skip("no other clock to measure the %s against", c->what);
		return;
	}
	report_info("measuring against %llu Hz", rc.hz);
	ratecheck_run(&rc, 0);
	if (cpu_count() > 1)
		ratecheck_run(&rc, cpu_count() - 1);
}

int main(int argc, char **argv)
{
	const char *why[ARRAY_SIZE(counters)];
	bool present[ARRAY_SIZE(counters)];

	args_parse_or_abort(&arg_table, argc, argv);
	if (cpu_count() > MAX_CPUS)
		report_abort("%d vCPUs, this test keeps results for %d", cpu_count(), MAX_CPUS);
	for (unsigned i = 0; i < ARRAY_SIZE(counters); i++) {
		why[i] = counters[i].find();
		present[i] = !why[i];
		if (present[i])
			report_info("%s: %u bits, %llu Hz stated", counters[i].what,
				    counters[i].bits(), counters[i].hz());
	}
	for (unsigned i = 0; i < ARRAY_SIZE(counters); i++) {
		const struct counter *c = &counters[i];
		const struct counter *other = &counters[1 - i];

		if (!(opt.counters & (1u << i)))
			continue;
		report_prefix_push(c->name);
		if (!present[i]) {
			report_skip("no %s: %s", c->what, why[i]);
			report_prefix_pop();
			continue;
		}
		if (arg_listed(opt.phases, PHASE_WARPS))
			warp_test(c);
		if (arg_listed(opt.phases, PHASE_RATES))
			rate_test(c, present[1 - i] ? other : NULL);
		report_prefix_pop();
	}
	return report_summary();
}
