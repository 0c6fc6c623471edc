/* SPDX-License-Identifier: GPL-2.0-only */
/* What CPUID says about the TSC (invariance, RDTSCP, RDPID, TSC_ADJUST, stated frequency), and RDPID itself. */
#ifndef VMTICK_X86_TSC_CPUID_H
#define VMTICK_X86_TSC_CPUID_H

#include "libc.h"

#define MSR_IA32_TSC_ADJUST		0x0000003b
#define MSR_TSC_AUX			0xc0000103

#define CPUID_80000001_EDX_RDTSCP	BIT(27)
#define CPUID_STRUCT_EXT_FEATURES	0x00000007
#define CPUID_7_0_EBX_TSC_ADJUST	BIT(1)
#define CPUID_7_0_ECX_RDPID		BIT(22)
/* Processor Frequency Information: EAX = base frequency, MHz */
#define CPUID_PROC_FREQ			0x00000016

enum tsc_feature {
	TSC_FEATURE_INVARIANT = 1 << 0,
	TSC_FEATURE_RDTSCP = 1 << 1,
	TSC_FEATURE_RDPID = 1 << 2,
	TSC_FEATURE_ADJUST = 1 << 3,
};

/* This CPU's TSC_FEATURE_* bits, from CPUID. */
u32 tsc_features(void);
/* "+name " or "-name " for one bit of features, for messages. */
const char *tsc_feature_word(u32 features, enum tsc_feature bit);

/* One CPUID leaf's statement of the TSC frequency. */
struct tsc_freq_statement {
	const char *name;	/* for RESULT names: "leaf15" */
	const char *leaf;	/* for messages: "0x15" */
	u64 hz;
	u64 resolution_hz;	/* what the leaf's unit can express: 1 Hz, 1 kHz, 1 MHz */
};

#define TSC_FREQ_MAX_STATEMENTS 3
/* The leaves that state a frequency here, finest resolution first; returns how many. */
size_t tsc_freq_statements(struct tsc_freq_statement st[TSC_FREQ_MAX_STATEMENTS]);

/* RDPID into *aux; returns the vector it raised, or EXC_NONE. */
int rdpid_safe(u32 *aux);

#endif
