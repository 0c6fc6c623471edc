// SPDX-License-Identifier: GPL-2.0-only
/* The 64x64-bit multiply, exact to 128 bits from 32-bit halves (contract: lib/mul64.h). */
#include "mul64.h"

#define HALF_BITS 32

struct u128 mul_u64_u64(u64 a, u64 b)
{
	u64 a_lo = (u32)a, a_hi = a >> HALF_BITS, b_lo = (u32)b, b_hi = b >> HALF_BITS;
	u64 ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
	/*
	 * Bits 32 to 63 of the product: the top of ll and the bottoms of the
	 * cross terms, each below 2^32, so the column stays below 3 * 2^32 and
	 * what stands above its bit 32 (0, 1 or 2) carries into the high half.
	 */
	u64 mid = (ll >> HALF_BITS) + (u32)lh + (u32)hl;

#ifdef MUL64_FAULT_NO_CARRY
	mid = (u32)mid;
#endif
	return (struct u128){
		.hi = hh + (lh >> HALF_BITS) + (hl >> HALF_BITS) + (mid >> HALF_BITS),
		.lo = (mid << HALF_BITS) | (u32)ll,
	};
}

u64 mul_u64_u64_hi(u64 a, u64 b)
{
	return mul_u64_u64(a, b).hi;
}

u64 mul_u64_u64_shr32(u64 a, u64 b)
{
	struct u128 p = mul_u64_u64(a, b);

	return (p.hi << HALF_BITS) | (p.lo >> HALF_BITS);
}
