/* SPDX-License-Identifier: GPL-2.0-only */
/* Reads the TSC's CPUID features and frequency statements (tsc_cpuid.h). */
#include "x86/tsc_cpuid.h"
#include "x86/desc.h"
#include "x86/processor.h"
#include "x86/tsc.h"
#include "units.h"

/* The extended leaves' base: EAX = the highest extended leaf */
#define CPUID_EXT_BASE		0x80000000u
#define CPUID_16_EAX_BASE_MHZ	0xffffu

static u32 max_leaf(u32 base)
{
	return cpuid(base).a;
}

u32 tsc_features(void)
{
	u32 f = 0;

	if (max_leaf(CPUID_EXT_BASE) >= CPUID_POWER_MGMT &&
	    cpu_has(CPUID_POWER_MGMT, 'd', CPUID_80000007_EDX_INVTSC))
		f |= TSC_FEATURE_INVARIANT;
	if (max_leaf(CPUID_EXT_BASE) >= CPUID_EXT_FEATURES &&
	    cpu_has(CPUID_EXT_FEATURES, 'd', CPUID_80000001_EDX_RDTSCP))
		f |= TSC_FEATURE_RDTSCP;
	if (max_leaf(CPUID_VENDOR) >= CPUID_STRUCT_EXT_FEATURES) {
		struct cpuid c = cpuid_count(CPUID_STRUCT_EXT_FEATURES, 0);

		if (c.c & CPUID_7_0_ECX_RDPID)
			f |= TSC_FEATURE_RDPID;
		if (c.b & CPUID_7_0_EBX_TSC_ADJUST)
			f |= TSC_FEATURE_ADJUST;
	}
	return f;
}

const char *tsc_feature_word(u32 features, enum tsc_feature bit)
{
	static const struct {
		enum tsc_feature bit;
		const char *on, *off;
	} words[] = {
		{ TSC_FEATURE_INVARIANT, "+invtsc ", "-invtsc " },
		{ TSC_FEATURE_RDTSCP, "+rdtscp ", "-rdtscp " },
		{ TSC_FEATURE_RDPID, "+rdpid ", "-rdpid " },
		{ TSC_FEATURE_ADJUST, "+tsc_adjust ", "-tsc_adjust " },
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (words[i].bit == bit)
			return features & bit ? words[i].on : words[i].off;
	return "?";
}

size_t tsc_freq_statements(struct tsc_freq_statement st[TSC_FREQ_MAX_STATEMENTS])
{
	u32 max = max_leaf(CPUID_VENDOR);
	u64 crystal_hz = tsc_hz_from_crystal_leaf(), hv_hz = tsc_hz_from_hv_leaf();
	size_t n = 0;

	/* the two leaves lib/x86/tsc.c decodes for the TSC frequency, then 0x16 */
	if (crystal_hz)
		st[n++] = (struct tsc_freq_statement){ "leaf15", "0x15", crystal_hz, 1 };
	if (hv_hz)
		st[n++] = (struct tsc_freq_statement){ "leaf40000010", "0x40000010", hv_hz,
						       HZ_PER_KHZ };
	if (max >= CPUID_PROC_FREQ && (cpuid(CPUID_PROC_FREQ).a & CPUID_16_EAX_BASE_MHZ))
		st[n++] = (struct tsc_freq_statement){
			"leaf16", "0x16",
			(cpuid(CPUID_PROC_FREQ).a & CPUID_16_EAX_BASE_MHZ) * HZ_PER_MHZ,
			HZ_PER_MHZ };
	return n;
}

int rdpid_safe(u32 *aux)
{
	unsigned long v = 0;

	exception_clear();
	asm volatile(ASM_TRY("rdpid %0") : "+r"(v) : : "memory");
	*aux = (u32)v;
	return exception_vector();
}
