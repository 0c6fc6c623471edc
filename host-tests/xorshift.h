/* SPDX-License-Identifier: GPL-2.0-only */
/* The host tests' random numbers: xorshift64*, reproducible from a seed and reaching every bit pattern. */
#ifndef VMTICK_XORSHIFT_H
#define VMTICK_XORSHIFT_H

#include "host_shim.h"

/* xorshift64*'s shifts and multiplier (Vigna, "An experimental exploration of Marsaglia's
 * xorshift generators", 2016) */
#define XORSHIFT_A    12
#define XORSHIFT_B    25
#define XORSHIFT_C    27
#define XORSHIFT_MULT 0x2545f4914f6cdd1dULL

/* The next number from the state *s, which a test seeds (any value but 0) and this moves on. */
static inline u64 next_random(u64 *s)
{
	*s ^= *s >> XORSHIFT_A;
	*s ^= *s << XORSHIFT_B;
	*s ^= *s >> XORSHIFT_C;
	return *s * XORSHIFT_MULT;
}

#endif
