/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hyperv_clock: the Hyper-V clocks KVM offers a guest (QEMU's hv-time and
 * hv-frequencies) - the partition reference counter, the reference TSC
 * page and the frequency MSRs - on every vCPU.
 *
 * Why: guests with Hyper-V enlightenments (Windows, Linux on Hyper-V)
 * take their time from the reference TSC page, not from kvmclock. KVM
 * builds the page from kvmclock's parameters and serves
 * HV_X64_MSR_TIME_REF_COUNT as kvmclock / 100: a wrong scale or offset,
 * an untrustworthy sequence or a stated frequency the counters do not
 * keep breaks those guests while kvmclock_test stays green.
 *
 * What it checks, in order (phases=):
 *  1. agree: on every vCPU, loops times: TIME_REF_COUNT r0, kvmclock k0,
 *     the page's time p, kvmclock k1, TIME_REF_COUNT r1 (100 ns units).
 *     TIME_REF_COUNT never goes backwards, and p lies in [r0 - 2, r1 + 1]
 *     and [k0 - 2, k1 + 1]. The bound: the page is kvmclock / 100 through
 *     a floored scale and a floored offset (up to 2 units below), and a
 *     difference of two floored products may exceed the floor of the
 *     difference by 1 (host-tests/test_hv_tsc.c checks this bound against
 *     kvmclock's arithmetic). A page 1 ms off misses by 10,000 units; a
 *     descheduled vCPU only widens a bracket.
 *  2. warps: the warp check of common/warp/warp.c, the vCPUs taking turns
 *     under a fair lock reading TIME_REF_COUNT, then the page:
 *     reference time is partition-wide, so any step back fails.
 *  3. rate: TIME_REF_COUNT and the page count 10 MHz against refs=
 *     (lib/ratecheck.c), on vCPU 0 and the last vCPU.
 *  4. freq (hv-frequencies): the TSC at HV_X64_MSR_TSC_FREQUENCY and the
 *     LAPIC timer (divide by 16) at HV_X64_MSR_APIC_FREQUENCY / 16, the same way.
 *  5. invalid: a page whose sequence is 0 (TLFS: do not use it) is not
 *     used: the read falls back to TIME_REF_COUNT, within two reads of it.
 * Page reads that find sequence 0 take TIME_REF_COUNT and are counted and
 * reported; a page invalid from the start leaves TIME_REF_COUNT alone in
 * steps 1-3, said in a SKIP. No Hyper-V interface (no hv-* flags, or a
 * host KVM without KVM_CAP_HYPERV, where QEMU 7.2 drops the leaves): SKIP.
 * RESULT lines: hyperv.agree.vcpuN.<clock>.{after_start,before_end}_units,
 * hyperv.<clock>.vcpuN.{warps,handoffs} (hyperv.<clock>.warps, their total,
 * a BOUND line: 0..0), hyperv.<clock>.rate.vcpuN.<ref>.
 * {err,bound}_ppm, hyperv.{tsc,apic}_frequency, hyperv.page.vcpuN.fallbacks.
 *
 * backend=model (test-only), for hosts whose KVM has no Hyper-V: the guest
 * plays the hypervisor, building the page from vCPU 0's kvmclock as KVM
 * does (lib/hv_tsc.c), TIME_REF_COUNT as kvmclock / 100, frequencies from
 * CPUID 0x40000010 (TSC, LAPIC bus kHz). It checks kvmclock and this
 * test's checks (each fault below fails under it), not KVM's Hyper-V code.
 *
 * Arguments, key=value:
 *   loops=N       samples per vCPU in steps 1 and 2 (default 200)
 *   refs=LIST     reference clocks for steps 3 and 4 (default hpet,pmtimer)
 *   window_ms=N   rate window (default 150)
 *   phases=LIST   agree,warps,rate,freq,invalid (default all)
 *   backend=NAME  hv (default) or model
 *   fault=NAME    test-only, makes a check fail: scale (the page's scale
 *                 1% high), offset (its offset 1 ms high), warp (the last
 *                 vCPU's page reads 1 ms early), refrate (TIME_REF_COUNT
 *                 1% fast), freq (both stated frequencies 0.5% high),
 *                 noseq (the reader uses a page whose sequence is 0)
 * Anything else is a failure. Example: -append "loops=500 refs=hpet"
 */
#include "libc.h"
#include "alloc.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "argv.h"
#include "x86/desc.h"
#include "hv_tsc.h"
#include "x86/hyperv.h"
#include "x86/kvmclock.h"
#include "x86/layout.h"
#include "x86/processor.h"
#include "ratecheck.h"
#include "report.h"
#include "units.h"
#include "x86/tsc.h"
#include "x86/warp_arch.h"

#define MAX_LOOPS		10000000ull
#define MAX_WINDOW_MS		10000
#define CACHE_LINE_SIZE		64
/* step 1's bound, in 100 ns units (derivation in the header) */
#define AGREE_BELOW_UNITS	2
#define AGREE_ABOVE_UNITS	1
#define CPUID_HV_TIMING_LEAF	0x40000010	/* EAX TSC kHz, EBX LAPIC bus kHz (KVM, QEMU) */
/* the LAPIC timer's vector while it only counts (masked: never delivered) */
#define APIC_COUNT_VECTOR	0x40
#define APIC_TIMER_DIVIDER	16
#define FAULT_UNITS		10000	/* fault=offset, warp: 1 ms */
#define FAULT_RATE_DIV		100	/* fault=scale, refrate: 1% */
#define FAULT_FREQ_PPM		5000	/* fault=freq: 0.5%, beyond the references' 0.1% */

enum phase { PH_AGREE = 1, PH_WARPS = 2, PH_RATE = 4, PH_FREQ = 8, PH_INVALID = 16, PH_ALL = (1 << 5) - 1 };
enum backend { BACKEND_HV, BACKEND_MODEL };
enum fault { F_NONE, F_SCALE, F_OFFSET, F_WARP, F_REFRATE, F_FREQ, F_NOSEQ };

static const char *const phase_names[] = { "agree", "warps", "rate", "freq", "invalid" };
static const char *const backend_names[] = { "hv", "model" };
static const char *const fault_names[] = { "none", "scale", "offset", "warp", "refrate", "freq", "noseq" };

static struct {
	u64 loops, window_ms;
	const char *refs;
	unsigned phases;
	unsigned backend;	/* enum backend */
	unsigned fault;		/* enum fault */
} opt;

/* The clocks under test, from the hypervisor or the model. */
static struct {
	u64 (*ref_count)(void);		/* TIME_REF_COUNT */
	struct hv_ref_tsc_page *page;	/* NULL: not offered */
	bool page_valid;		/* its sequence was not 0 at the start */
	u64 tsc_hz, apic_hz;		/* stated frequencies, 0: not offered */
	bool kvmclock;
} src;

struct vcpu_result {
	u64 fallbacks;			/* page reads that found sequence 0 */
	u64 ref_back;			/* TIME_REF_COUNT steps backwards on this vCPU */
	s64 ref_start, ref_end, kvm_start, kvm_end;	/* least p - r0, r1 - p, p - k0, k1 - p (step 1) */
} __aligned(CACHE_LINE_SIZE);

static struct vcpu_result results[MAX_CPUS];

/* ---- arguments ----------------------------------------------------------- */

static const struct arg args[] = {
	ARG_UINT("loops", &opt.loops, 1, MAX_LOOPS, "200", "samples per vCPU in steps 1 and 2"),
	ARG_TEXT("refs", &opt.refs, ratecheck_refs_arg, "hpet,pmtimer",
		 "reference clocks for steps 3 and 4"),
	ARG_UINT("window_ms", &opt.window_ms, 1, MAX_WINDOW_MS, "150", "rate window"),
	ARG_LIST("phases", &opt.phases, phase_names, "agree,warps,rate,freq,invalid",
		 "steps to run"),
	ARG_ONE_OF("backend", &opt.backend, backend_names, "hv", "hv, or model (test-only)"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* ---- the clocks ---------------------------------------------------------- */

static u64 read_tsc(void)
{
	return rdtsc_ordered();
}

static u64 ref_count(void)
{
	u64 v = src.ref_count();

	return opt.fault == F_REFRATE ? v + v / FAULT_RATE_DIV : v;
}

/* The page's time, or TIME_REF_COUNT (counted) when its sequence says not to use it. */
static u64 page_time(const struct hv_ref_tsc_page *page)
{
	struct hv_tsc_copy c;
	u64 t;

	if (!hv_tsc_read(page, read_tsc, &c)) {
		if (opt.fault != F_NOSEQ) {
			results[smp_id()].fallbacks++;
			return ref_count();
		}
		c = (struct hv_tsc_copy){ 0, READ_ONCE(page->tsc_scale), READ_ONCE(page->tsc_offset), read_tsc() };
	}
	if (opt.fault == F_SCALE)
		c.scale += c.scale / FAULT_RATE_DIV;
	if (opt.fault == F_OFFSET)
		c.offset += FAULT_UNITS;
	t = hv_tsc_time(c.tsc, c.scale, c.offset);
	if (opt.fault == F_WARP && smp_id() == cpu_count() - 1)
		t -= FAULT_UNITS;
	return t;
}

static u64 page_read(void)
{
	return page_time(src.page);
}

static u64 hv_ref_count(void)
{
	return rdmsr(HV_X64_MSR_TIME_REF_COUNT);
}

static u64 model_ref_count(void)
{
	return kvmclock_read_raw() / HV_NS_PER_REF_UNIT;
}

/* Hyper-V's clocks: NULL, or why there are none to test. */
static const char *hv_setup(void)
{
	struct hyperv_info hv;
	const char *why = hyperv_probe(&hv);
	u64 v;

	if (why)
		return why;
	hyperv_print_features(&hv);
	if (!hyperv_offers(&hv, HV_MSR_TIME_REF_COUNT_AVAILABLE, 0))
		return "Hyper-V offers no TIME_REF_COUNT (QEMU's hv-time)";
	if (!report(rdmsr_safe(HV_X64_MSR_TIME_REF_COUNT, &v) == EXC_NONE,
		    "HV_X64_MSR_TIME_REF_COUNT reads without a fault, as CPUID promises"))
		return "TIME_REF_COUNT cannot be read";
	src.ref_count = hv_ref_count;
	if (hyperv_offers(&hv, HV_MSR_REFERENCE_TSC_AVAILABLE, 0)) {
		src.page = memalign(PAGE_SIZE, PAGE_SIZE);
		if (!report(hyperv_ref_tsc_enable(src.page), "HV_X64_MSR_REFERENCE_TSC takes the page's "
			    "address %#lx with the enable bit and reads it back", (unsigned long)(uintptr_t)src.page))
			src.page = NULL;
	}
	if (hyperv_offers(&hv, HYPERV_FREQUENCIES_EAX, HYPERV_FREQUENCIES_EDX))
		report(hyperv_frequencies(&src.tsc_hz, &src.apic_hz),
		       "the frequency MSRs read without a fault, as CPUID promises");
	return NULL;
}

/* The model: KVM's Hyper-V clocks rebuilt in the guest from kvmclock (see the header). */
static const char *model_setup(void)
{
	struct pvclock_vcpu_time_info ti;

	if (!src.kvmclock)
		return kvmclock_unavailable() ? kvmclock_unavailable() : "kvmclock could not be registered";
	report_info("backend=model: the guest builds the page from kvmclock; Hyper-V itself is not tested");
	src.ref_count = model_ref_count;
	src.page = memalign(PAGE_SIZE, PAGE_SIZE);
	kvmclock_snapshot(&ti);
	if (!hv_tsc_from_pvclock(ti.tsc_to_system_mul, ti.tsc_shift, ti.tsc_timestamp, ti.system_time,
				 &src.page->tsc_scale, &src.page->tsc_offset))
		return "kvmclock's parameters give a TSC under 10 MHz";
	src.page->tsc_sequence = 1;
	src.tsc_hz = tsc_hz_from_hv_leaf();
	if (src.tsc_hz)
		src.apic_hz = cpuid(CPUID_HV_TIMING_LEAF).b * HZ_PER_KHZ;
	return NULL;
}

/* ---- 1. agreement -------------------------------------------------------- */

static void agree_on(void *unused)
{
	struct vcpu_result *r = &results[smp_id()];
	u64 prev = 0;

	r->ref_start = r->ref_end = r->kvm_start = r->kvm_end = INT64_MAX;
	for (u64 i = 0; i < opt.loops; i++) {
		u64 r0 = ref_count(), k0 = src.kvmclock ? kvmclock_read_raw() / HV_NS_PER_REF_UNIT : 0;
		u64 p = page_read();
		u64 k1 = src.kvmclock ? kvmclock_read_raw() / HV_NS_PER_REF_UNIT : 0, r1 = ref_count();

		r->ref_back += r0 < prev || r1 < r0;
		prev = r1;
		r->ref_start = min(r->ref_start, (s64)(p - r0));
		r->ref_end = min(r->ref_end, (s64)(r1 - p));
		r->kvm_start = min(r->kvm_start, (s64)(p - k0));
		r->kvm_end = min(r->kvm_end, (s64)(k1 - p));
	}
}

/* start: the least p - (bracket's start), end: the least (bracket's end) - p, over all samples */
static void agree_report(int cpu, const char *what, const char *key, s64 start, s64 end)
{
	char name[64];

	snprintf(name, sizeof(name), "hyperv.agree.vcpu%d.%s.after_start_units", cpu, key);
	report_result(name, "100ns", "%lld", start);
	snprintf(name, sizeof(name), "hyperv.agree.vcpu%d.%s.before_end_units", cpu, key);
	report_result(name, "100ns", "%lld", end);
	report(start >= -AGREE_BELOW_UNITS && end >= -AGREE_ABOVE_UNITS,
	       "vCPU %d: the page's time lies in %s's bracket widened by %d units below, %d above (closest: "
	       "%lld units after its start, %lld before its end)", cpu, what, AGREE_BELOW_UNITS, AGREE_ABOVE_UNITS,
	       start, end);
}

static void agree_test(void)
{
	report_prefix_push("agree");
	on_cpus(agree_on, NULL);
	for (int i = 0; i < cpu_count(); i++) {
		const struct vcpu_result *r = &results[i];

		report(!r->ref_back, "vCPU %d: TIME_REF_COUNT never goes backwards (%llu steps back in %llu reads)", i,
		       r->ref_back, opt.loops * 2);
		if (!src.page_valid)
			continue;
		agree_report(i, "TIME_REF_COUNT", "time_ref_count", r->ref_start, r->ref_end);
		if (src.kvmclock)
			agree_report(i, "kvmclock", "kvmclock", r->kvm_start, r->kvm_end);
	}
	if (!src.kvmclock)
		report_skip("no kvmclock: the page is compared with TIME_REF_COUNT only");
	report_prefix_pop();
}

/* ---- 2. warps across vCPUs ----------------------------------------------- */

static const struct {
	const char *name, *key;	/* for messages, for RESULT names */
	u64 (*read)(void);
} clocks[] = { { "TIME_REF_COUNT", "time_ref_count", ref_count }, { "the page", "page", page_read } };

/* RESULT lines hyperv.<clock>.vcpuN.<figure> */
static const struct warp_result warp_vcpu_results[] = {
	{ WARP_WARPS, "warps", "count" },
	{ WARP_HANDOFFS, "handoffs", "count" },
};
static const struct warp_report warp_results = {
	warp_vcpu_results, ARRAY_SIZE(warp_vcpu_results), NULL, 0,
};

static void warp_test(void)
{
	char prefix[32];

	report_prefix_push("warps");
	for (unsigned c = 0; c < ARRAY_SIZE(clocks); c++) {
		struct warp_check check = {
			.arch = &warp_arch_x86,
			.read = clocks[c].read,
			.mask = WARP_MASK_64,
			.loops = opt.loops,
		};
		struct warp_findings t;

		if (c == 1 && !src.page_valid)
			break;
		warp_run(&check, &t);
		snprintf(prefix, sizeof(prefix), "hyperv.%s.", clocks[c].key);
		warp_report_vcpus(&warp_results, prefix);
		warp_report_check(prefix, &t, "%s never goes backwards across %d vCPUs (%llu warps, "
				  "worst %lld units)", clocks[c].name, cpu_count(), t.warps,
				  -(s64)t.worst);
	}
	if (cpu_count() == 1)
		report_info("one vCPU: no hand-offs between vCPUs to check");
	report_prefix_pop();
}

/* ---- 3. and 4. rates ----------------------------------------------------- */

static void rate_run(const char *clock, u64 (*read)(void), u64 hz, void (*start)(void *))
{
	struct ratecheck rc = {
		.clock = clock,
		.read = read,
		.hz = hz,
		.window = hz / MSEC_PER_SEC * opt.window_ms,
		.tries = RATECHECK_TRIES,
		.windows = RATECHECK_WINDOWS,
		.usable_ppb = RATECHECK_USABLE_PPB,
	};

	if (ratecheck_set_refs(&rc, opt.refs))
		report_abort("bad refs argument '%s'", opt.refs);
	if (!rc.n) {
		report(false, "no reference clock to measure %s against (refs=%s)", clock, opt.refs);
		return;
	}
	for (int cpu = 0; cpu < cpu_count(); cpu += max(cpu_count() - 1, 1)) {
		if (start)
			on_cpu(cpu, start, NULL);
		ratecheck_run(&rc, cpu);
	}
}

static void rate_test(void)
{
	report_prefix_push("rate");
	rate_run("hyperv.time_ref_count", ref_count, HV_REF_TIME_HZ, NULL);
	if (src.page_valid)
		rate_run("hyperv.page", page_read, HV_REF_TIME_HZ, NULL);
	report_prefix_pop();
}

/* LAPIC timer counts since apic_count_start(), one-shot from the largest count (68 s at 1 GHz / 16). */
static u64 apic_elapsed(void)
{
	return apic_timer_elapsed();
}

static void apic_count_start(void *unused)
{
	apic_timer_run_free_divided(APIC_COUNT_VECTOR, APIC_TDCR_DIV_16);
}

static u64 stated(u64 hz)
{
	return opt.fault == F_FREQ ? hz + hz / PPM_PER_UNIT * FAULT_FREQ_PPM : hz;
}

static void freq_test(void)
{
	report_prefix_push("freq");
	report_result("hyperv.tsc_frequency", "Hz", "%llu", src.tsc_hz);
	report_result("hyperv.apic_frequency", "Hz", "%llu", src.apic_hz);
	if (!src.tsc_hz || !src.apic_hz) {
		report_skip("%s", opt.backend == BACKEND_MODEL
					  ? "model: no CPUID 0x40000010 frequencies (QEMU offers them with +invtsc)"
					  : "no frequency MSRs (QEMU's hv-frequencies)");
	} else {
		rate_run("hyperv.tsc", read_tsc, stated(src.tsc_hz), NULL);
		rate_run("hyperv.lapic", apic_elapsed, stated(src.apic_hz) / APIC_TIMER_DIVIDER, apic_count_start);
	}
	report_prefix_pop();
}

/* ---- 5. a page marked invalid -------------------------------------------- */

static void invalid_test(void)
{
	/* the live page's fields, scale doubled, under sequence 0: using them is 2x off */
	struct hv_ref_tsc_page bad = { .tsc_sequence = HV_TSC_SEQUENCE_INVALID };
	u64 before = results[0].fallbacks, r0, t, r1;
	bool counted;

	report_prefix_push("invalid");
	if (src.page) {
		bad.tsc_scale = READ_ONCE(src.page->tsc_scale) * 2;
		bad.tsc_offset = READ_ONCE(src.page->tsc_offset);
	}
	r0 = ref_count();
	t = page_time(&bad);
	r1 = ref_count();
	counted = results[0].fallbacks == before + 1;
	report(counted && t >= r0 && t <= r1,
	       "a page whose sequence is 0 is not used: the read fell back to TIME_REF_COUNT (%s) and gave %llu "
	       "(TIME_REF_COUNT before and after: %llu, %llu)", counted ? "counted" : "not counted",
	       t, r0, r1);
	/* the deliberate fallback is not the hypervisor's: only those are reported below */
	results[0].fallbacks = before;
	report_prefix_pop();
}

static void report_fallbacks(void)
{
	char name[64];
	u64 total = 0;

	for (int i = 0; i < cpu_count(); i++) {
		snprintf(name, sizeof(name), "hyperv.page.vcpu%d.fallbacks", i);
		report_result(name, "count", "%llu", results[i].fallbacks);
		total += results[i].fallbacks;
	}
	if (total)
		report_info("%llu page reads found sequence 0 and used TIME_REF_COUNT instead",
			    total);
}

int main(int argc, char **argv)
{
	const char *why;

	args_parse_or_abort(&arg_table, argc, argv);
	if (cpu_count() > MAX_CPUS)
		report_abort("%d vCPUs, this test keeps results for %d", cpu_count(), MAX_CPUS);
	src.kvmclock = !kvmclock_unavailable() && !kvmclock_init();
	why = opt.backend == BACKEND_MODEL ? model_setup() : hv_setup();
	if (why) {
		report_skip("%s", why);
		return report_summary();
	}
	src.page_valid = src.page && READ_ONCE(src.page->tsc_sequence) != HV_TSC_SEQUENCE_INVALID;
	if (!src.page)
		report_skip("no usable reference TSC page (QEMU's hv-time): TIME_REF_COUNT alone");
	else if (!src.page_valid)
		report_skip("the reference TSC page's sequence is 0 (invalid): TIME_REF_COUNT alone");
	if (opt.phases & PH_AGREE)
		agree_test();
	if (opt.phases & PH_WARPS)
		warp_test();
	if (opt.phases & PH_RATE)
		rate_test();
	if (opt.phases & PH_FREQ)
		freq_test();
	if (opt.phases & PH_INVALID)
		invalid_test();
	report_fallbacks();
	return report_summary();
}
