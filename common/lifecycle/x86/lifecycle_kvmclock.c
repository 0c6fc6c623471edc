/* SPDX-License-Identifier: GPL-2.0-only */
/* kvmclock as the lifecycle test's derived clock (struct lc_derived): each vCPU follows its pvclock parameters, and a change says how far kvmclock moved against the TSC. */
#include "x86/lifecycle_arch.h"
#include "arch.h"
#include "pvclock.h"
#include "x86/kvmclock.h"
#include "x86/processor.h"

/* Each vCPU's parameters as it last saw them. */
static struct {
	struct pvclock_vcpu_time_info ti;
	bool have;
} seen[LC_MAX_CPUS] __attribute__((aligned(64)));

/*
 * KVM bumps version by two at every update of the area. At a change,
 * kvmclock at one TSC value (read after the copy: never older than
 * either tsc_timestamp) by the new parameters less by the old is its move
 * against the TSC, exact to the arithmetic's rounding.
 */
static bool kvmclock_changed(s64 *moved_ns)
{
	struct pvclock_vcpu_time_info now;
	int me = smp_id();
	bool changed;
	u64 tsc;

	kvmclock_snapshot(&now);
	tsc = rdtsc_ordered();
	if (seen[me].have && now.version == seen[me].ti.version)
		return false;
	changed = seen[me].have;
	if (changed)
		*moved_ns = (s64)(pvclock_time_at(&now, tsc) - pvclock_time_at(&seen[me].ti, tsc));
	seen[me].ti = now;
	seen[me].have = true;
	return changed;
}

static void kvmclock_forget(void)
{
	seen[smp_id()].have = false;
}

const struct lc_derived lc_kvmclock_derived = {
	.clock = LC_X86_KVMCLOCK,
	.counter = LC_X86_TSC,
	.changed = kvmclock_changed,
	.forget = kvmclock_forget,
};
