/* SPDX-License-Identifier: GPL-2.0-only */
/* Hyper-V interface detection through CPUID 0x40000000 up (constants: lib/x86/hyperv.h). */
#include "x86/hyperv.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/processor.h"
#include "report.h"

static const struct {
	u32 eax, edx;
	const char *what;
} feature_names[] = {
	{ HV_MSR_TIME_REF_COUNT_AVAILABLE, 0, "TIME_REF_COUNT (hv-time)" },
	{ HV_MSR_REFERENCE_TSC_AVAILABLE, 0, "reference TSC page (hv-time)" },
	{ HV_MSR_SYNIC_AVAILABLE, 0, "SynIC (hv-synic)" },
	{ HV_MSR_SYNTIMER_AVAILABLE, 0, "synthetic timers (hv-stimer)" },
	{ HYPERV_FREQUENCIES_EAX, HYPERV_FREQUENCIES_EDX, "frequency MSRs (hv-frequencies)" },
};

const char *hyperv_probe(struct hyperv_info *hv)
{
	static char why[96];

	memset(hv, 0, sizeof(*hv));
	hv->max_leaf = hypervisor_signature(hv->vendor);
	if (!hv->max_leaf)
		return "not under a hypervisor (CPUID.1:ECX[31] clear)";
	if (hv->max_leaf < HYPERV_CPUID_FEATURES ||
	    cpuid(HYPERV_CPUID_INTERFACE).a != HYPERV_INTERFACE_HV1) {
		snprintf(why, sizeof(why), "the hypervisor ('%s', leaves to %#x) offers no Hyper-V interface",
			 hv->vendor, hv->max_leaf);
		return why;
	}
	hv->features_eax = cpuid(HYPERV_CPUID_FEATURES).a;
	hv->features_edx = cpuid(HYPERV_CPUID_FEATURES).d;
	return NULL;
}

void hyperv_print_features(const struct hyperv_info *hv)
{
	report_info("Hyper-V interface from '%s', leaves to %#x, features EAX %#x EDX %#x", hv->vendor,
		    hv->max_leaf, hv->features_eax, hv->features_edx);
	for (unsigned i = 0; i < ARRAY_SIZE(feature_names); i++)
		report_info("  %s: %s", feature_names[i].what,
			    hyperv_offers(hv, feature_names[i].eax, feature_names[i].edx) ? "offered" : "not offered");
}

bool hyperv_ref_tsc_enable(struct hv_ref_tsc_page *page)
{
	/* identity-mapped: the virtual address is the guest-physical one */
	u64 val = (uintptr_t)page | HV_X64_MSR_REFERENCE_TSC_ENABLE;

	u64 back;

	return wrmsr_safe(HV_X64_MSR_REFERENCE_TSC, val) == EXC_NONE &&
	       rdmsr_safe(HV_X64_MSR_REFERENCE_TSC, &back) == EXC_NONE && back == val;
}

bool hyperv_offers(const struct hyperv_info *hv, u32 eax, u32 edx)
{
	return (hv->features_eax & eax) == eax && (hv->features_edx & edx) == edx;
}

bool hyperv_frequencies(u64 *tsc_hz, u64 *apic_hz)
{
	if (rdmsr_safe(HV_X64_MSR_TSC_FREQUENCY, tsc_hz) == EXC_NONE &&
	    rdmsr_safe(HV_X64_MSR_APIC_FREQUENCY, apic_hz) == EXC_NONE)
		return true;
	*tsc_hz = *apic_hz = 0;
	return false;
}
