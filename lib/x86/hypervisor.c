/* SPDX-License-Identifier: GPL-2.0-only */
/* Hypervisor detection through the CPUID leaves from 0x40000000 up. */
#include "x86/hypervisor.h"
#include "x86/processor.h"

/* Hypervisors may offer several interfaces, 0x100 leaves apart (e.g. Hyper-V first, KVM next). */
#define CPUID_HYPERVISOR_STRIDE	0x100
#define CPUID_HYPERVISOR_LAST	0x40010000

static void leaf_signature(u32 leaf, char sig[13])
{
	struct cpuid r = cpuid(leaf);

	memcpy(sig, &r.b, 4);
	memcpy(sig + 4, &r.c, 4);
	memcpy(sig + 8, &r.d, 4);
	sig[12] = '\0';
}

u32 hypervisor_signature(char sig[13])
{
	sig[0] = '\0';
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return 0;
	leaf_signature(CPUID_HYPERVISOR_BASE, sig);
	return cpuid(CPUID_HYPERVISOR_BASE).a;
}

u32 kvm_cpuid_base(void)
{
	char sig[13];

	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return 0;
	for (u32 leaf = CPUID_HYPERVISOR_BASE; leaf < CPUID_HYPERVISOR_LAST;
	     leaf += CPUID_HYPERVISOR_STRIDE) {
		leaf_signature(leaf, sig);
		if (!memcmp(sig, KVM_CPUID_SIGNATURE, 12))
			return leaf;
	}
	return 0;
}
