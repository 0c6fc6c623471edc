// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/mul64.c, the one 64x64-bit multiply (Hyper-V's TSC scale, the
 * reference clocks' ratios, the tick engine's 32.32 factors and pvclock's
 * scale all take it), checked on the host against unsigned __int128: the
 * full product and both views of it (the high half; the product >> 32,
 * modulo 2^64). First named cases that each carry between the 32-bit
 * partial products in their own way, then edge operands crossed with each
 * other, then pseudo-random operands of every bit length. A carry lost
 * between the halves fails test_named with the case's name and both
 * products in hex; seen failing:
 *   make -C host-tests check LIB_DEFS=-DMUL64_FAULT_NO_CARRY
 */
/* LIBSRC: lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/mul64.h"

#define ARRAY_LEN(a)  (sizeof(a) / sizeof((a)[0]))
#define RANDOM_ROUNDS 1000000

typedef unsigned __int128 ref_u128;

struct named_case {
	const char *what;
	u64 a, b;
};

static const struct named_case named[] = {
	{"zero", 0, 0xffffffffffffffffull},
	{"one", 1, 0xffffffffffffffffull},
	{"low halves only, no cross terms", 0xffffffffull, 0xffffffffull},
	{"2^32 * 2^32, one high-half product", 0x100000000ull, 0x100000000ull},
	{"low by high, a cross term alone", 0xffffffffull, 0xffffffff00000000ull},
	{"max * max, middle column carries 1", 0xffffffffffffffffull, 0xffffffffffffffffull},
	{"middle column carries 2", 0x1ffffffffull, 0x1ffffffffull},
	{"cross terms carry, ll adds nothing", 0x8000000000000001ull, 0xffffffff00000001ull},
	{"top bits: 2^63 * 2^63", 0x8000000000000000ull, 0x8000000000000000ull},
	{"max * 2, a shift by one", 0xffffffffffffffffull, 2},
};

static const u64 edges[] = {
	0,
	1,
	2,
	3,
	0x7fffffff,
	0x80000000,
	0xffffffff,
	0x100000000ull,
	0x100000001ull,
	0x1ffffffffull,
	0x123456789abcdef0ull,
	0x8000000000000000ull,
	0xfffffffeffffffffull,
	0xffffffff00000000ull,
	0xffffffffffffffffull - 1,
	0xffffffffffffffffull,
};

/* One view of the product of a and b: got from lib/mul64.c, want from unsigned __int128. */
static void check_view(const char *what, const char *view, u64 a, u64 b, u64 got, u64 want)
{
	if (got != want)
		fail_msg("%s: %#llx * %#llx: %s = %#llx, want %#llx (unsigned __int128)", what,
			 (unsigned long long)a, (unsigned long long)b, view,
			 (unsigned long long)got, (unsigned long long)want);
}

/* Every view of the product of a and b against the host's 128-bit one; what names the case. */
static void check(const char *what, u64 a, u64 b)
{
	ref_u128 want = (ref_u128)a * b;
	struct u128 got = mul_u64_u64(a, b);

	check_view(what, "mul_u64_u64().hi", a, b, got.hi, (u64)(want >> 64));
	check_view(what, "mul_u64_u64().lo", a, b, got.lo, (u64)want);
	check_view(what, "mul_u64_u64_hi()", a, b, mul_u64_u64_hi(a, b), (u64)(want >> 64));
	check_view(what, "mul_u64_u64_shr32()", a, b, mul_u64_u64_shr32(a, b), (u64)(want >> 32));
}

static void test_named(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(named); i++) {
		check(named[i].what, named[i].a, named[i].b);
		check(named[i].what, named[i].b, named[i].a);
	}
}

static void test_edges(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(edges); i++)
		for (size_t j = 0; j < ARRAY_LEN(edges); j++)
			check("edge operands", edges[i], edges[j]);
}

static void test_random(void **state)
{
	u64 seed = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		/* a random bit length for each, so small operands are as common as huge ones */
		u64 r = next_random(&seed);
		u64 a = next_random(&seed) >> (r & 63), b = next_random(&seed) >> ((r >> 6) & 63);

		check("random operands", a, b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
