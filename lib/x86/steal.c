// SPDX-License-Identifier: GPL-2.0-only
/* KVM steal time: one 64-byte area per vCPU registered by MSR_KVM_STEAL_TIME, read with its version
 * protocol. */
#include "x86/steal.h"
#include "alloc.h"
#include "arch.h"
#include "atomic.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/kvmclock.h"
#include "x86/processor.h"

#define STEAL_AREA_ALIGN 64

/*
 * The layout KVM writes (Documentation/virt/kvm/x86/msr.rst): the host
 * makes version odd, updates steal, makes it even again. The area must be
 * 64-byte aligned (the MSR's low bits are flags).
 */
struct kvm_steal_time {
	u64 steal;
	u32 version;
	u32 flags;
	u8 preempted;
	u8 pad8[3];
	u32 pad[11];
} __aligned(STEAL_AREA_ALIGN);
static_assert(sizeof(struct kvm_steal_time) == STEAL_AREA_ALIGN, "one area per cache line");

static struct kvm_steal_time *areas;
static volatile u32 failures;

static void register_this_cpu(void *unused)
{
	struct kvm_steal_time *a = &areas[smp_id()];

	/* identity-mapped: the virtual address is the guest-physical one */
	if (wrmsr_safe(MSR_KVM_STEAL_TIME, (uintptr_t)a | KVM_MSR_ENABLED) != EXC_NONE)
		atomic_inc((u32 *)&failures);
}

/* A consistent read: the same even version before and after. */
static u64 read_area(volatile struct kvm_steal_time *a)
{
	u32 v;
	u64 steal;

	do {
		v = a->version;
		smp_rmb();
		steal = a->steal;
		smp_rmb();
	} while ((v & 1) || v != a->version);
	return steal;
}

const char *steal_init(void)
{
	static char why[96];

	if (!kvm_cpuid_base())
		return "not running on KVM";
	if (!(kvmclock_kvm_features() & BIT(KVM_FEATURE_STEAL_TIME))) {
		snprintf(why, sizeof(why), "KVM_FEATURE_STEAL_TIME clear in CPUID %#x EAX %#x",
			 kvm_cpuid_base() + KVM_CPUID_FEATURES_OFFSET, kvmclock_kvm_features());
		return why;
	}
	if (!areas)
		areas = memalign(STEAL_AREA_ALIGN, sizeof(*areas) * (size_t)cpu_count());
	failures = 0;
	on_cpus(register_this_cpu, NULL);
	if (failures) {
		snprintf(why, sizeof(why), "wrmsr MSR_KVM_STEAL_TIME faulted on %u vCPU(s)",
			 failures);
		return why;
	}
	return NULL;
}

u64 steal_ns(void)
{
	return read_area(&areas[smp_id()]);
}
