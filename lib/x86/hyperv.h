/* SPDX-License-Identifier: GPL-2.0-only */
/* The Hyper-V interface a hypervisor may offer (KVM through QEMU's hv-* flags): CPUID leaves and time MSRs. */
#ifndef VMTICK_X86_HYPERV_H
#define VMTICK_X86_HYPERV_H

#include "libc.h"

/* CPUID leaves (Hyper-V TLFS); the interface signature "Hv#1" says the rest follow the TLFS. */
#define HYPERV_CPUID_VENDOR_AND_MAX_FUNCTIONS	0x40000000
#define HYPERV_CPUID_INTERFACE			0x40000001
#define HYPERV_CPUID_FEATURES			0x40000003
#define HYPERV_INTERFACE_HV1			0x31237648	/* "Hv#1" */

/* HYPERV_CPUID_FEATURES EAX: the partition's MSR access privileges (QEMU flag that sets each). */
#define HV_MSR_TIME_REF_COUNT_AVAILABLE		(1u << 1)	/* hv-time */
#define HV_MSR_SYNIC_AVAILABLE			(1u << 2)	/* hv-synic */
#define HV_MSR_SYNTIMER_AVAILABLE		(1u << 3)	/* hv-stimer */
#define HV_MSR_REFERENCE_TSC_AVAILABLE		(1u << 9)	/* hv-time */
#define HV_ACCESS_FREQUENCY_MSRS		(1u << 11)	/* hv-frequencies */
/* HYPERV_CPUID_FEATURES EDX */
#define HV_FEATURE_FREQUENCY_MSRS_AVAILABLE	(1u << 8)	/* hv-frequencies */

#define HV_X64_MSR_TIME_REF_COUNT		0x40000020	/* partition reference time, 100 ns units */
#define HV_X64_MSR_REFERENCE_TSC		0x40000021	/* GPA of the reference TSC page | enable */
#define HV_X64_MSR_TSC_FREQUENCY		0x40000022	/* Hz */
#define HV_X64_MSR_APIC_FREQUENCY		0x40000023	/* Hz */
#define HV_X64_MSR_REFERENCE_TSC_ENABLE		(1ull << 0)
#define HV_X64_MSR_REFERENCE_TSC_PAGE_SHIFT	12

/* What the hypervisor offers through the Hyper-V leaves. */
struct hyperv_info {
	char vendor[13];	/* leaf 0x40000000's signature ("Microsoft Hv" from QEMU) */
	u32 max_leaf;
	u32 features_eax, features_edx;	/* HYPERV_CPUID_FEATURES */
};

/*
 * Fill *hv and return NULL when the CPU offers the Hyper-V interface
 * ("Hv#1" at 0x40000001); otherwise the reason it does not, for a SKIP.
 */
const char *hyperv_probe(struct hyperv_info *hv);

/* INFO lines: the vendor, the feature words and which time features (and QEMU flags) they offer. */
void hyperv_print_features(const struct hyperv_info *hv);

struct hv_ref_tsc_page;
/*
 * Point HV_X64_MSR_REFERENCE_TSC at page (4 KiB aligned, identity-mapped)
 * with the enable bit; true when neither access faults and the MSR reads
 * that value back.
 */
bool hyperv_ref_tsc_enable(struct hv_ref_tsc_page *page);
/* CPUID offers every bit of eax in HYPERV_CPUID_FEATURES EAX and of edx in its EDX. */
bool hyperv_offers(const struct hyperv_info *hv, u32 eax, u32 edx);
#define HYPERV_FREQUENCIES_EAX	HV_ACCESS_FREQUENCY_MSRS
#define HYPERV_FREQUENCIES_EDX	HV_FEATURE_FREQUENCY_MSRS_AVAILABLE
/* HV_X64_MSR_TSC_FREQUENCY and HV_X64_MSR_APIC_FREQUENCY; false (both 0) when either read faults. */
bool hyperv_frequencies(u64 *tsc_hz, u64 *apic_hz);

#endif
