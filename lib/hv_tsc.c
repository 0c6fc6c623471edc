/* SPDX-License-Identifier: GPL-2.0-only */
/* The Hyper-V reference TSC page's reader protocol and arithmetic (layout and contract: lib/hv_tsc.h). */
#include "hv_tsc.h"
#include "atomic.h"
#include "mul64.h"

u64 hv_tsc_time(u64 tsc, u64 scale, s64 offset)
{
	return mul_u64_u64_hi(tsc, scale) + (u64)offset;
}

bool hv_tsc_read(const struct hv_ref_tsc_page *page, u64 (*counter)(void), struct hv_tsc_copy *copy)
{
	u32 seq;

	do {
		seq = READ_ONCE(page->tsc_sequence);
		copy->sequence = seq;
#ifndef HV_TSC_FAULT_USE_INVALID
		if (seq == HV_TSC_SEQUENCE_INVALID)
			return false;
#endif
		smp_rmb();
		copy->scale = READ_ONCE(page->tsc_scale);
		copy->offset = READ_ONCE(page->tsc_offset);
		copy->tsc = counter();
		smp_rmb();
#ifdef HV_TSC_FAULT_NO_RECHECK
	} while (0);
#else
	} while (READ_ONCE(page->tsc_sequence) != seq);
#endif
	return true;
}

bool hv_tsc_from_pvclock(u32 mul, s8 shift, u64 tsc_timestamp, u64 system_time, u64 *scale, s64 *offset)
{
	/* ns per cycle is mul * 2^(shift - 32); 100 ns units per cycle * 2^64 is mul * 2^(32 + shift) / 100 */
	u64 s = ((u64)mul << 32) / HV_NS_PER_REF_UNIT;

	if (shift > 0) {
		if (s >> (64 - shift))
			return false;
		s <<= shift;
	} else if (shift < 0) {
		s = shift > -64 ? s >> -shift : 0;
	}
	*scale = s;
	*offset = (s64)(system_time / HV_NS_PER_REF_UNIT - mul_u64_u64_hi(tsc_timestamp, s));
	return true;
}
