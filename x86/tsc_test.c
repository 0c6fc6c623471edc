/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsc_test: the time stamp counter as every vCPU sees it - whether it ever
 * goes backwards between vCPUs, what RDTSCP and RDPID say about each vCPU,
 * and whether it runs at the frequency CPUID states.
 *
 * Why: the TSC is the clock under every other clock a guest has (kvmclock
 * and Hyper-V's page scale it, the TSC-deadline timer counts it), and a
 * guest kernel trusts it without a paravirtual correction when the CPU
 * says it is invariant. A hypervisor that offsets one vCPU's TSC from the
 * others, keeps one TSC_AUX for all vCPUs or states a frequency the
 * counter does not keep breaks a guest that did nothing wrong.
 *
 * What it checks, in order (phases=):
 *  1. cpuid: the invariant-TSC bit (CPUID 0x80000007 EDX[8]) and the
 *     RDTSCP and RDPID bits read the same on every vCPU (a guest reads
 *     them once, on its boot CPU, and applies them to all).
 *  2. warps: the warp check of common/warp/warp.c - the vCPUs take turns
 *     under a fair lock; each read is compared with the one before it,
 *     made by whichever vCPU had the lock last. Earlier is a warp, equal a
 *     stall. Once with
 *     rdtsc (fenced, so it cannot run ahead of the lock), once with rdtscp
 *     where offered. With the invariant bit set the guest may treat the
 *     TSC as one clock, so a warp fails; without it the counts are
 *     information (the TSC is then not promised to be synchronised).
 *  3. aux: every vCPU writes its own value to IA32_TSC_AUX, then every
 *     vCPU reads it back through RDTSCP and, where CPUID offers it, RDPID,
 *     and the two must give its own value (a hypervisor that keeps one
 *     TSC_AUX for the whole VM shows every vCPU the last write).
 *  4. freq: the TSC frequency stated by CPUID 0x15 (crystal Hz * EBX /
 *     EAX), 0x40000010 (hypervisor leaf, kHz) and 0x16 (base MHz), the
 *     finest first: the finest is measured against the reference clocks
 *     of refs= (lib/ratecheck.c: marks bracketed by TSC reads, a bound
 *     from the brackets and the reference's tolerance, disturbed windows
 *     measured again) on vCPU 0 and on the last vCPU; each coarser
 *     statement must agree with the finest within its own resolution.
 *     No statement at all: SKIP.
 * RESULT lines: tsc.invariant, tsc.<mode>.vcpuN.{warps,stalls,worst_warp_cycles,
 * handoffs,min_handoff_cycles} and totals (tsc.<mode>.warps a BOUND line,
 * 0..0, where the TSC is stated invariant), tsc.freq.<leaf>_hz,
 * tsc.rate.vcpuN.<ref>.{err,bound}_ppm. The quickest hand-off is the
 * warp check's resolution: an offset between two vCPUs' TSCs smaller
 * than it cannot show.
 *
 * Arguments, key=value:
 *   loops=N       reads per vCPU in each warp run (default 1000)
 *   refs=LIST     reference clocks for step 4 (default hpet,pmtimer)
 *   window_ms=N   step 4's window (default 150)
 *   phases=LIST   which of cpuid,warps,aux,freq to run (default all)
 *   fault=NAME    test-only, makes a check fail to show it can:
 *                 warp (the last vCPU's reads come out 1,000,000 cycles
 *                 early, as if its TSC were offset), aux (every vCPU
 *                 writes vCPU 0's TSC_AUX value, as a VM-wide MSR would
 *                 leave it), freq (the stated frequency is taken 0.5% too
 *                 high), invtsc (the last vCPU sees the invariant bit
 *                 flipped)
 * Anything else is a failure. Example: -append "loops=2000 refs=hpet"
 */
#include "libc.h"
#include "arch.h"
#include "argv.h"
#include "x86/desc.h"
#include "x86/layout.h"
#include "x86/processor.h"
#include "ratecheck.h"
#include "report.h"
#include "units.h"
#include "x86/tsc_cpuid.h"
#include "x86/warp_arch.h"

#define MAX_LOOPS		100000000ull
#define MAX_WINDOW_MS		10000
#define CACHE_LINE_SIZE		64
/* TSC_AUX values: distinct per vCPU, and not the vCPU id firmware may have left there */
#define AUX_BASE		0x5a000
/* fault=warp: about 0.5 ms at 2 GHz, well above a hand-off even under kvm-pvm (~100,000 cycles) */
#define FAULT_WARP_CYCLES	1000000
/* fault=freq: +0.5%, more than the 0.1% the references tolerate plus the brackets */
#define FAULT_FREQ_PPM		5000

/* The steps of phases=, each its index in phase_names[]. */
enum phase { PHASE_CPUID, PHASE_WARPS, PHASE_AUX, PHASE_FREQ };

enum fault { FAULT_NONE, FAULT_WARP, FAULT_AUX, FAULT_FREQ, FAULT_INVTSC };

static const char *const phase_names[] = {
	[PHASE_CPUID] = "cpuid", [PHASE_WARPS] = "warps", [PHASE_AUX] = "aux", [PHASE_FREQ] = "freq",
};
static const char *const fault_names[] = { "none", "warp", "aux", "freq", "invtsc" };

struct options {
	u64 loops;
	const char *refs;
	u64 window_ms;
	unsigned phases;
	unsigned fault;		/* enum fault */
};

static struct options opt;

/* What one vCPU found, alone on its cache line (the warps: common/warp/warp.c). */
struct vcpu_result {
	u32 features;		/* step 1: TSC_FEATURE_* bits */
	u32 aux_rdtscp, aux_rdpid, aux_msr;
	int aux_rdpid_vector;
} __aligned(CACHE_LINE_SIZE);

static struct vcpu_result results[MAX_CPUS];

/* ---- arguments ----------------------------------------------------------- */

static const struct arg args[] = {
	ARG_UINT("loops", &opt.loops, 1, MAX_LOOPS, "1000", "reads per vCPU in each warp run"),
	ARG_TEXT("refs", &opt.refs, ratecheck_refs_arg, "hpet,pmtimer",
		 "reference clocks for step 4"),
	ARG_UINT("window_ms", &opt.window_ms, 1, MAX_WINDOW_MS, "150", "step 4's window"),
	ARG_LIST("phases", &opt.phases, phase_names, "cpuid,warps,aux,freq", "steps to run"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* ---- 1. CPUID ------------------------------------------------------------ */

static void features_on(void *unused)
{
	u32 f = tsc_features();

	if (opt.fault == FAULT_INVTSC && smp_id() == cpu_count() - 1)
		f ^= TSC_FEATURE_INVARIANT;
	results[smp_id()].features = f;
}

static void cpuid_test(void)
{
	u32 f0;

	report_prefix_push("cpuid");
	on_cpus(features_on, NULL);
	f0 = results[0].features;
	for (int i = 1; i < cpu_count(); i++)
		report(results[i].features == f0,
		       "vCPU %d's TSC feature bits (invariant, rdtscp, rdpid) are vCPU 0's: %s%s%s vs %s%s%s", i,
		       tsc_feature_word(results[i].features, TSC_FEATURE_INVARIANT),
		       tsc_feature_word(results[i].features, TSC_FEATURE_RDTSCP),
		       tsc_feature_word(results[i].features, TSC_FEATURE_RDPID),
		       tsc_feature_word(f0, TSC_FEATURE_INVARIANT), tsc_feature_word(f0, TSC_FEATURE_RDTSCP),
		       tsc_feature_word(f0, TSC_FEATURE_RDPID));
	report_info("invariant TSC %s, RDTSCP %s, RDPID %s",
		    f0 & TSC_FEATURE_INVARIANT ? "stated" : "not stated",
		    f0 & TSC_FEATURE_RDTSCP ? "offered" : "not offered",
		    f0 & TSC_FEATURE_RDPID ? "offered" : "not offered");
	report_result("tsc.invariant", "bool", "%u", !!(f0 & TSC_FEATURE_INVARIANT));
	if (cpu_count() == 1)
		report_skip("one vCPU: no other vCPU's feature bits to compare");
	report_prefix_pop();
}

/* ---- 2. warps ------------------------------------------------------------ */

static u64 read_rdtsc(void)
{
	return rdtsc_ordered();
}

static u64 read_rdtscp(void)
{
	return rdtscp(NULL);
}

static const struct warp_mode {
	const char *name;
	u32 needs;		/* TSC_FEATURE_* the mode needs, or 0 */
	u64 (*read)(void);
} warp_modes[] = {
	{ "rdtsc", 0, read_rdtsc },
	{ "rdtscp", TSC_FEATURE_RDTSCP, read_rdtscp },
};

/* RESULT lines tsc.<mode>.vcpuN.<figure> and tsc.<mode>.<figure> */
static const struct warp_result warp_vcpu_results[] = {
	{ WARP_WARPS, "warps", "count" },
	{ WARP_STALLS, "stalls", "count" },
	{ WARP_WORST_STEP, "worst_warp_cycles", "cycles" },
	{ WARP_HANDOFFS, "handoffs", "count" },
	{ WARP_MIN_HANDOFF, "min_handoff_cycles", "cycles" },
};
/* the total warps: the check's BOUND line, or a RESULT where the TSC is not stated invariant */
static const struct warp_result warp_total_results[] = {
	{ WARP_WORST_STEP, "worst_warp_cycles", "cycles" },
};
static const struct warp_report warp_results = {
	warp_vcpu_results, ARRAY_SIZE(warp_vcpu_results), warp_total_results, ARRAY_SIZE(warp_total_results),
};

static void warp_test_mode(const struct warp_mode *mode, u32 features)
{
	struct warp_check check = {
		.arch = &warp_arch_x86,
		.read = mode->read,
		.mask = WARP_MASK_64,
		.loops = opt.loops,
		.fault_skew = opt.fault == FAULT_WARP ? FAULT_WARP_CYCLES : 0,
	};
	struct warp_findings t;
	char prefix[32], lead[32], name[40];
	s64 worst;

	warp_run(&check, &t);
	worst = -(s64)t.worst;
	snprintf(prefix, sizeof(prefix), "tsc.%s.", mode->name);
	snprintf(lead, sizeof(lead), "%s: ", mode->name);
	warp_report_vcpus(&warp_results, prefix);
	warp_report_handoff(&t, lead, "cycles");
	warp_report_totals(&warp_results, prefix, &t);
	report_info("%s: %llu reads on each of %d vCPUs, %llu after another vCPU's, %llu stalls", mode->name,
		    opt.loops, cpu_count(), t.handoffs, t.stalls);
	if (features & TSC_FEATURE_INVARIANT) {
		warp_report_check(prefix, &t,
				  "%s never goes backwards across %d vCPUs, as the "
				  "invariant TSC promises (%llu warps, worst %lld cycles)",
				  mode->name, cpu_count(), t.warps, worst);
		return;
	}
	snprintf(name, sizeof(name), "%swarps", prefix);
	report_result(name, "count", "%llu", t.warps);
	report_info("%s went backwards %llu times across %d vCPUs (worst %lld cycles); the TSC "
		    "is not stated invariant, so this is not a failure",
		    mode->name, t.warps, cpu_count(), worst);
}

static void warp_test(void)
{
	u32 f = tsc_features();

	report_prefix_push("warps");
	if (cpu_count() == 1)
		report_info("one vCPU: the reads only check that the TSC never goes backwards on it");
	if (!(f & TSC_FEATURE_INVARIANT))
		report_skip("the invariant-TSC bit is clear: warps are counted, not checked");
	for (unsigned i = 0; i < ARRAY_SIZE(warp_modes); i++) {
		if (warp_modes[i].needs & ~f)
			report_skip("%s: CPUID does not offer it", warp_modes[i].name);
		else
			warp_test_mode(&warp_modes[i], f);
	}
	report_prefix_pop();
}

/* ---- 3. TSC_AUX ---------------------------------------------------------- */

static u32 aux_value(int cpu)
{
	return AUX_BASE + (u32)cpu;
}

static void aux_write_on(void *unused)
{
	wrmsr(MSR_TSC_AUX, aux_value(opt.fault == FAULT_AUX ? 0 : smp_id()));
}

static void aux_read_on(void *unused)
{
	struct vcpu_result *r = &results[smp_id()];

	rdtscp(&r->aux_rdtscp);
	r->aux_msr = (u32)rdmsr(MSR_TSC_AUX);
	if (tsc_features() & TSC_FEATURE_RDPID)
		r->aux_rdpid_vector = rdpid_safe(&r->aux_rdpid);
}

static void aux_test(void)
{
	u32 f = tsc_features();

	report_prefix_push("aux");
	if (!(f & TSC_FEATURE_RDTSCP)) {
		report_skip("CPUID offers no RDTSCP (and so no TSC_AUX)");
		report_prefix_pop();
		return;
	}
	/* every write before any read: a VM-wide value shows as the last write on every vCPU */
	on_cpus(aux_write_on, NULL);
	on_cpus(aux_read_on, NULL);
	for (int i = 0; i < cpu_count(); i++) {
		const struct vcpu_result *r = &results[i];

		report(r->aux_rdtscp == aux_value(i) && r->aux_msr == aux_value(i),
		       "vCPU %d: RDTSCP gives its own TSC_AUX %#x (got %#x, RDMSR %#x)", i, aux_value(i),
		       r->aux_rdtscp, r->aux_msr);
		if (!(f & TSC_FEATURE_RDPID))
			continue;
		if (r->aux_rdpid_vector != EXC_NONE)
			report(false, "vCPU %d: RDPID raised vector %d though CPUID offers it", i,
			       r->aux_rdpid_vector);
		else
			report(r->aux_rdpid == aux_value(i), "vCPU %d: RDPID gives its own TSC_AUX %#x (got %#x)", i,
			       aux_value(i), r->aux_rdpid);
	}
	if (!(f & TSC_FEATURE_RDPID))
		report_skip("CPUID offers no RDPID: TSC_AUX read through RDTSCP only");
	report_prefix_pop();
}

/* ---- 4. frequency -------------------------------------------------------- */

static void freq_check_coarser(const struct tsc_freq_statement *finest, const struct tsc_freq_statement *s)
{
	u64 diff = s->hz > finest->hz ? s->hz - finest->hz : finest->hz - s->hz;

	report(diff <= s->resolution_hz,
	       "CPUID %s's %llu Hz agrees with %s's %llu Hz within its resolution of %llu Hz (off by %llu)",
	       s->leaf, s->hz, finest->leaf, finest->hz, s->resolution_hz, diff);
}

static void freq_test(void)
{
	struct tsc_freq_statement st[TSC_FREQ_MAX_STATEMENTS];
	size_t n = tsc_freq_statements(st);
	char name[64];
	struct ratecheck rc = {
		.clock = "tsc",
		.read = read_rdtsc,
		.window = 0,
		.tries = RATECHECK_TRIES,
		.windows = RATECHECK_WINDOWS,
		.usable_ppb = RATECHECK_USABLE_PPB,
	};

	report_prefix_push("freq");
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "tsc.freq.%s_hz", st[i].name);
		report_result(name, "Hz", "%llu", st[i].hz);
		report_info("CPUID %s states %llu Hz (resolution %llu Hz)", st[i].leaf,
			    st[i].hz, st[i].resolution_hz);
	}
	if (!n) {
		report_skip("CPUID states no TSC frequency (no leaf 0x15 crystal, 0x16 or 0x40000010)");
		report_prefix_pop();
		return;
	}
	if (ratecheck_set_refs(&rc, opt.refs))
		report_abort("bad refs argument '%s'", opt.refs);
	rc.hz = st[0].hz;
	if (opt.fault == FAULT_FREQ)
		rc.hz += rc.hz / PPM_PER_UNIT * FAULT_FREQ_PPM;
	rc.window = rc.hz / MSEC_PER_SEC * opt.window_ms;
	if (!rc.n) {
		report(false, "no reference clock to measure the TSC's rate against (refs=%s)", opt.refs);
	} else {
		report_info("measuring against CPUID %s's %llu Hz", st[0].leaf, rc.hz);
		ratecheck_run(&rc, 0);
		if (cpu_count() > 1)
			ratecheck_run(&rc, cpu_count() - 1);
	}
	for (size_t i = 1; i < n; i++)
		freq_check_coarser(&st[0], &st[i]);
	report_prefix_pop();
}

int main(int argc, char **argv)
{
	args_parse_or_abort(&arg_table, argc, argv);
	if (cpu_count() > MAX_CPUS)
		report_abort("%d vCPUs, this test keeps results for %d", cpu_count(), MAX_CPUS);
	if (!cpu_has(CPUID_FEATURES, 'd', CPUID_1_EDX_TSC)) {
		report_skip("CPUID offers no TSC");
		return report_summary();
	}
	if (arg_listed(opt.phases, PHASE_CPUID))
		cpuid_test();
	if (arg_listed(opt.phases, PHASE_WARPS))
		warp_test();
	if (arg_listed(opt.phases, PHASE_AUX))
		aux_test();
	if (arg_listed(opt.phases, PHASE_FREQ))
		freq_test();
	return report_summary();
}
