/* SPDX-License-Identifier: GPL-2.0-only */
/* The 64x64-bit multiply, exact to 128 bits, and the views of it the clocks' arithmetic takes. */
#ifndef VMTICK_MUL64_H
#define VMTICK_MUL64_H

#include "libc.h"

/* An unsigned 128-bit value as two halves: i386 has no 128-bit type. */
struct u128 {
	u64 hi, lo;
};

/*
 * a * b, all 128 bits, from four 32x32-bit products: one portable form
 * for every arch, the one the host tests check against unsigned __int128
 * (host-tests/test_mul64.c). Test-only build flag: -DMUL64_FAULT_NO_CARRY
 * drops the carry out of the middle column; test_mul64.c must fail.
 */
struct u128 mul_u64_u64(u64 a, u64 b);

/* (a * b) >> 64: a 0.64 fixed-point factor applied to a 64-bit count (Hyper-V's TSC scale). */
u64 mul_u64_u64_hi(u64 a, u64 b);

/*
 * (a * b) >> 32, its low 64 bits (exact while a * b < 2^96): a 32.32
 * factor applied to a 64-bit count, and a 64x32-bit product over 2^32
 * (pvclock's scale).
 */
u64 mul_u64_u64_shr32(u64 a, u64 b);

#endif
