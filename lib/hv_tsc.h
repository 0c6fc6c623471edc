/* SPDX-License-Identifier: GPL-2.0-only */
/* The Hyper-V reference TSC page: its layout, its reader protocol and its arithmetic, arch-neutral. */
#ifndef VMTICK_HV_TSC_H
#define VMTICK_HV_TSC_H

#include "libc.h"

/*
 * The page the hypervisor keeps for the whole partition once the guest
 * writes its address to HV_X64_MSR_REFERENCE_TSC (Hyper-V TLFS, "Partition
 * Reference TSC Mechanism"). Reference time, in 100 ns units, is
 * ((tsc * tsc_scale) >> 64) + tsc_offset. The hypervisor changes
 * tsc_sequence whenever it changes the other fields; a sequence of
 * HV_TSC_SEQUENCE_INVALID means the page must not be used, and the
 * guest reads HV_X64_MSR_TIME_REF_COUNT instead. The rest of the 4 KiB
 * page is reserved.
 */
struct hv_ref_tsc_page {
	u32 tsc_sequence;
	u32 reserved1;
	u64 tsc_scale;		/* 100 ns units per TSC cycle, 0.64 fixed point */
	s64 tsc_offset;		/* 100 ns units */
};

static_assert(offsetof(struct hv_ref_tsc_page, tsc_scale) == 8, "TLFS offset");
static_assert(offsetof(struct hv_ref_tsc_page, tsc_offset) == 16, "TLFS offset");

#define HV_TSC_SEQUENCE_INVALID	0u
#define HV_REF_TIME_HZ		10000000ull	/* reference time counts 100 ns units */
#define HV_NS_PER_REF_UNIT	100ull

/* A consistent copy of the page's fields and the counter value read under them. */
struct hv_tsc_copy {
	u32 sequence;
	u64 scale;
	s64 offset;
	u64 tsc;
};

/* Reference time at counter value tsc: ((tsc * scale) >> 64) + offset. */
u64 hv_tsc_time(u64 tsc, u64 scale, s64 offset);

/*
 * The sequence protocol, reader side: read the sequence, the scale and
 * offset and the counter (the TSC, fenced), then the sequence again, and
 * try again when it changed. Returns false, with copy->sequence 0, when
 * the page says it is invalid: the caller falls back to the MSR.
 * Test-only build flags: -DHV_TSC_FAULT_NO_RECHECK drops the second read
 * of the sequence (a torn copy is then accepted), -DHV_TSC_FAULT_USE_INVALID
 * uses a page whose sequence is 0; host-tests/test_hv_tsc.c must fail.
 */
bool hv_tsc_read(const struct hv_ref_tsc_page *page, u64 (*counter)(void), struct hv_tsc_copy *copy);

/*
 * What KVM puts in the page, built from a pvclock (kvmclock) time info:
 * the scale of mul and shift divided by 100, and the offset that makes
 * the page read system_time / 100 at tsc_timestamp. Returns false when
 * the scale does not fit 64 bits (a TSC slower than 10 MHz).
 */
bool hv_tsc_from_pvclock(u32 mul, s8 shift, u64 tsc_timestamp, u64 system_time, u64 *scale, s64 *offset);

#endif
