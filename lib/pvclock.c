// SPDX-License-Identifier: GPL-2.0-only
/* pvclock arithmetic with no arch code in it, so the host unit tests build it as it is (tests/test_pvclock.c). */
#include "pvclock.h"

u64 pvclock_scale_delta(u64 delta, u32 mul, s8 shift)
{
	u64 lo_product, hi_product;

	/* s8 shifts reach 127: shifting a u64 by 64 or more is undefined in C, and 0 in arithmetic */
	if (shift >= 64 || shift <= -64)
		return 0;
	if (shift >= 0)
		delta <<= shift;
	else
		delta >>= -shift;
	/*
	 * (hi * 2^32 + lo) * mul / 2^32 = hi * mul + lo * mul / 2^32: each
	 * product fits 64 bits, and only the second one loses bits, which
	 * the floor of the exact quotient loses as well.
	 */
	lo_product = (u64)(u32)delta * mul;
	hi_product = (u64)(u32)(delta >> 32) * mul;
	return hi_product + (lo_product >> 32);
}

u64 pvclock_tsc_khz(u32 mul, s8 shift)
{
	/* cycles per ms = 10^6 ns / (mul / 2^32 * 2^shift ns per cycle); 10^6 * 2^32 fits 53 bits */
	u64 khz;

	if (!mul || shift >= 64 || shift <= -64)
		return 0;
	khz = (PVCLOCK_NSEC_PER_MSEC << 32) / mul;
	return shift >= 0 ? khz >> shift : khz << -shift;
}

u64 pvclock_time_at(const struct pvclock_vcpu_time_info *ti, u64 tsc)
{
	/* tsc must not be older than tsc_timestamp: the reader takes it after copying ti */
	return ti->system_time + pvclock_scale_delta(tsc - ti->tsc_timestamp, ti->tsc_to_system_mul,
						     ti->tsc_shift);
}

u64 pvclock_wall_ns(const struct pvclock_wall_clock *wc, u64 system_ns)
{
	return (u64)wc->sec * PVCLOCK_NSEC_PER_SEC + wc->nsec + system_ns;
}
