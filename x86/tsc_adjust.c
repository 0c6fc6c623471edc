/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tsc_adjust: IA32_TSC_ADJUST and the TSC moving together on every vCPU,
 * as the SDM defines them.
 *
 * Why: firmware and guest kernels use IA32_TSC_ADJUST to line up the TSCs
 * of all CPUs (Linux checks and rewrites it at boot and on CPU hotplug).
 * The architecture couples the two MSRs both ways: writing IA32_TSC
 * adds (new - old) to IA32_TSC_ADJUST, and writing IA32_TSC_ADJUST moves
 * the TSC by the change. A hypervisor that stores the MSR without moving
 * the TSC lets the guest believe it corrected an offset it did not.
 *
 * What it checks, where CPUID.7.0:EBX[1] says the MSR exists (else SKIP),
 * on each vCPU in turn, with D = 2^36 cycles (about half a minute: larger
 * than any delay a descheduled vCPU adds, so "moved by D" is told apart
 * from "did not move" and "moved twice" on a loaded host):
 *  1. adjust: IA32_TSC_ADJUST += D reads back exactly; rdtsc moved forward
 *     by D plus the write's own time (less than D/16); writing the old
 *     value back moves rdtsc back by D (within D/16 again).
 *  2. tsc: IA32_TSC = rdtsc + D moves IA32_TSC_ADJUST by D less the time
 *     between the rdtsc and the write (within D/16), and rdtsc then reads
 *     the written value plus the time since; writing rdtsc - D restores
 *     IA32_TSC_ADJUST to its old value (within D/16).
 * Each vCPU's IA32_TSC_ADJUST is left as it was found.
 *
 * A known host defect: on kvm-pvm (docs/host-quirks.md) writing
 * IA32_TSC_ADJUST or IA32_TSC does not move rdtsc (IA32_TSC_ADJUST itself
 * reads back and follows IA32_TSC writes). The three checks on rdtsc
 * moving are report_kfail("kvm-pvm/tsc-adjust"): a KFAIL when the runner
 * says the host is kvm-pvm (host=kvm-pvm) and the test runs under KVM, a
 * FAIL anywhere else. The checks on IA32_TSC_ADJUST's value are plain
 * checks everywhere, so a different fault on such a host still fails.
 *
 * Arguments, key=value:
 *   host=KIND     the host kind whose known defects apply: kvm-pvm or
 *                 none (the runner's {host_kind}; default none)
 *   fault=half    test-only: write D/2 where D is expected, as a
 *                 hypervisor applying half the change would; the
 *                 read-back and IA32_TSC -> IA32_TSC_ADJUST checks then
 *                 FAIL even with host=kvm-pvm
 * Anything else is a failure.
 */
#include "libc.h"
#include "arch.h"
#include "argv.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/processor.h"
#include "report.h"
#include "x86/tsc_cpuid.h"

#define DELTA			(1ull << 36)
/* what a delay (the write's own exit, a descheduled vCPU) may add to or take from D */
#define SLACK			(DELTA / 16)
#define PVM_DEFECT		"kvm-pvm/tsc-adjust"

enum fault { FAULT_NONE, FAULT_HALF };

static struct {
	unsigned host;		/* index in host_kinds[] */
	unsigned fault;		/* enum fault */
} opt;

static const char *const host_kinds[] = { "none", "kvm-pvm" };

/* What the test writes for a change of DELTA. */
static u64 written_delta(void)
{
	return opt.fault == FAULT_HALF ? DELTA / 2 : DELTA;
}

static const char *const fault_names[] = { "none", "half" };

static const struct arg args[] = {
	ARG_ONE_OF("host", &opt.host, host_kinds, "none", "a host kind with known defects"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* Whether got is want plus something in [0, SLACK). */
static bool within_after(u64 got, u64 want)
{
	return got - want < SLACK;
}

/* ---- 1. writing IA32_TSC_ADJUST ----------------------------------------- */

struct adjust_seen {
	u64 adjust0, adjust1;		/* before, after the write */
	u64 t0, t1;			/* rdtsc around the write */
	u64 t2, t3;			/* rdtsc around the write back */
	int vector;
};

static void adjust_on(void *arg)
{
	struct adjust_seen *s = arg;

	s->vector = rdmsr_safe(MSR_IA32_TSC_ADJUST, &s->adjust0);
	if (s->vector != EXC_NONE)
		return;
	s->t0 = rdtsc_ordered();
	wrmsr(MSR_IA32_TSC_ADJUST, s->adjust0 + written_delta());
	s->t1 = rdtsc_ordered();
	s->adjust1 = rdmsr(MSR_IA32_TSC_ADJUST);
	s->t2 = rdtsc_ordered();
	wrmsr(MSR_IA32_TSC_ADJUST, s->adjust0);
	s->t3 = rdtsc_ordered();
}

static void adjust_test(int cpu)
{
	struct adjust_seen s;

	on_cpu(cpu, adjust_on, &s);
	if (s.vector != EXC_NONE) {
		report(false, "vCPU %d: RDMSR IA32_TSC_ADJUST raised vector %d though CPUID says it exists", cpu,
		       s.vector);
		return;
	}
	report(s.adjust1 == s.adjust0 + DELTA, "vCPU %d: IA32_TSC_ADJUST reads back %#llx after adding %#llx to %#llx",
	       cpu, s.adjust1, DELTA, s.adjust0);
	report_kfail(within_after(s.t1 - s.t0, DELTA), PVM_DEFECT,
		     "vCPU %d: rdtsc follows IA32_TSC_ADJUST += %llu: it moved by %lld cycles (must be %llu plus "
		     "under %llu)", cpu, DELTA, (s64)(s.t1 - s.t0),
		     DELTA, SLACK);
	report_kfail(within_after(s.t3 - s.t2 + DELTA, 0), PVM_DEFECT,
		     "vCPU %d: rdtsc follows IA32_TSC_ADJUST -= %llu: it moved by %lld cycles (must be -%llu plus "
		     "under %llu)", cpu, DELTA, (s64)(s.t3 - s.t2),
		     DELTA, SLACK);
}

/* ---- 2. writing IA32_TSC -------------------------------------------------- */

struct tsc_seen {
	u64 adjust0, adjust1, adjust2;	/* before, after the write, after the write back */
	u64 t0, t1;			/* rdtsc before the write, after it */
};

static void tsc_on(void *arg)
{
	struct tsc_seen *s = arg;

	s->adjust0 = rdmsr(MSR_IA32_TSC_ADJUST);
	s->t0 = rdtsc_ordered();
	wrmsr(MSR_IA32_TSC, s->t0 + written_delta());
	s->t1 = rdtsc_ordered();
	s->adjust1 = rdmsr(MSR_IA32_TSC_ADJUST);
	wrmsr(MSR_IA32_TSC, rdtsc_ordered() - written_delta());
	s->adjust2 = rdmsr(MSR_IA32_TSC_ADJUST);
	/* whatever the host did, leave IA32_TSC_ADJUST as found */
	wrmsr(MSR_IA32_TSC_ADJUST, s->adjust0);
}

static void tsc_test(int cpu)
{
	struct tsc_seen s;

	on_cpu(cpu, tsc_on, &s);
	/* the TSC ran on between t0 and the write, so IA32_TSC_ADJUST moved by a little less than D */
	report(within_after(s.adjust0 + DELTA, s.adjust1),
	       "vCPU %d: IA32_TSC = rdtsc + %llu moved IA32_TSC_ADJUST by %lld (want %llu less under %llu)", cpu,
	       DELTA, (s64)(s.adjust1 - s.adjust0), DELTA, SLACK);
	report_kfail(within_after(s.t1, s.t0 + DELTA), PVM_DEFECT,
		     "vCPU %d: rdtsc follows IA32_TSC = rdtsc + %llu: it moved by %lld cycles (must be %llu plus "
		     "under %llu)", cpu, DELTA, (s64)(s.t1 - s.t0),
		     DELTA, SLACK);
	report(within_after(s.adjust0, s.adjust2) || within_after(s.adjust2, s.adjust0),
	       "vCPU %d: IA32_TSC = rdtsc - %llu brought IA32_TSC_ADJUST back to %#llx (was %#llx, within %llu)", cpu,
	       DELTA, s.adjust2, s.adjust0, SLACK);
}

int main(int argc, char **argv)
{
	args_parse_or_abort(&arg_table, argc, argv);
	/* kvm-pvm's defects are KVM's: a TCG run on the same host has none of them */
	if (opt.host && !on_kvm())
		report_info("host=%s, but not running under KVM: its known defects do not apply",
			    host_kinds[opt.host]);
	else
		report_known_defects(host_kinds[opt.host]);
	if (!(tsc_features() & TSC_FEATURE_ADJUST)) {
		report_skip("CPUID.7.0:EBX[1] says there is no IA32_TSC_ADJUST");
		return report_summary();
	}
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		report_prefix_push("adjust");
		adjust_test(cpu);
		report_prefix_pop();
		report_prefix_push("tsc");
		tsc_test(cpu);
		report_prefix_pop();
	}
	return report_summary();
}
