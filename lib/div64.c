// SPDX-License-Identifier: GPL-2.0-only
/* The 64-bit division helpers gcc and clang call on i386, where -nostdlib leaves out libgcc. */
#include "libc.h"

/*
 * Built for i386 guests only. The host unit tests (host-tests/test_div64.c)
 * compile it on x86_64 too, with the names renamed by host-tests/host_rename.h,
 * which defines VMTICK_HOST_TEST.
 */
#if defined(__i386__) || defined(VMTICK_HOST_TEST)

#define WORD_BITS 32

/* The compilers' names and signatures; declared here since no header should call them. */
u64 __udivdi3(u64 n, u64 d);
u64 __umoddi3(u64 n, u64 d);
u64 __udivmoddi4(u64 n, u64 d, u64 *rem);
s64 __divdi3(s64 n, s64 d);
s64 __moddi3(s64 n, s64 d);
s64 __divmoddi4(s64 n, s64 d, s64 *rem);

/* Leading zero bits of a non-zero v, from the 32-bit builtin (the 64-bit one may be a call). */
static unsigned int clz64(u64 v)
{
	u32 hi = v >> WORD_BITS;

	return hi ? (unsigned int)__builtin_clz(hi) : WORD_BITS + (unsigned int)__builtin_clz((u32)v);
}

/*
 * The core: n / d with the remainder in *rem. Nothing in here may use
 * 64-bit '/' or '%', which would call back into this file.
 * Division by zero is undefined in C; here it stops the guest with a trap.
 */
static u64 udivmod64(u64 n, u64 d, u64 *rem)
{
	u64 q = 0;
	int shift;

	if (d == 0)
		__builtin_trap();
	if ((n >> WORD_BITS) == 0 && (d >> WORD_BITS) == 0) {
		*rem = (u32)n % (u32)d;
		return (u32)n / (u32)d;
	}
	if (n < d) {
		*rem = n;
		return 0;
	}
	/* Shift-subtract long division: align d's top bit with n's, then one quotient bit a step. */
	shift = clz64(d) - clz64(n);
	d <<= shift;
	for (; shift >= 0; shift--, d >>= 1) {
		q <<= 1;
		if (n >= d) {
			n -= d;
			q |= 1;
		}
	}
	*rem = n;
	return q;
}

/* |v| as u64: right for INT64_MIN too. */
static u64 magnitude(s64 v)
{
	return v < 0 ? 0 - (u64)v : (u64)v;
}

/* Two's complement negation in u64, back to s64 (INT64_MIN / -1 wraps to INT64_MIN). */
static s64 apply_sign(u64 v, bool negative)
{
	return (s64)(negative ? 0 - v : v);
}

u64 __udivmoddi4(u64 n, u64 d, u64 *rem)
{
	u64 r;
	u64 q = udivmod64(n, d, &r);

	if (rem)
		*rem = r;
	return q;
}

u64 __udivdi3(u64 n, u64 d)
{
	u64 r;

	return udivmod64(n, d, &r);
}

u64 __umoddi3(u64 n, u64 d)
{
	u64 r;

	udivmod64(n, d, &r);
	return r;
}

/*
 * The signed ones divide the magnitudes and give each result its sign, as
 * C truncates toward zero: the quotient is negative when the signs differ,
 * the remainder takes the dividend's sign. INT64_MIN / -1 is undefined in
 * C; here it gives INT64_MIN with remainder 0 instead of a fault.
 */
s64 __divmoddi4(s64 n, s64 d, s64 *rem)
{
	u64 r;
	u64 q = udivmod64(magnitude(n), magnitude(d), &r);

	if (rem)
		*rem = apply_sign(r, n < 0);
	return apply_sign(q, (n < 0) != (d < 0));
}

s64 __divdi3(s64 n, s64 d)
{
	return apply_sign(__udivdi3(magnitude(n), magnitude(d)), (n < 0) != (d < 0));
}

s64 __moddi3(s64 n, s64 d)
{
	return apply_sign(__umoddi3(magnitude(n), magnitude(d)), n < 0);
}

#endif
