// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/pvclock.c, the TSC-to-ns arithmetic of kvmclock, checked on the host
 * against a 128-bit reference: edge deltas, multipliers and shifts (the
 * whole s8 range, where shifts of 64 or more must give 0, not undefined
 * behaviour) crossed with each other, then pseudo-random operands of every
 * bit length. The guest's version splits the 64x32-bit product in two
 * 32x32-bit halves so that i386 needs no 128-bit type; this is the proof
 * that the split loses nothing. Also the TSC frequency the parameters
 * stand for, the clock and wall clock sums, and the ABI layout of the
 * structures as lib/pvclock.h declares them.
 */
/* LIBSRC: lib/pvclock.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/pvclock.h"
#include "../lib/units.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define RANDOM_ROUNDS 2000000


/* The definition: shift in 64 bits (0 once the shift reaches 64), multiply exactly, keep the low 64 bits of / 2^32. */
static uint64_t scale_reference(uint64_t delta, uint32_t mul, int8_t shift)
{
	uint64_t x;

	if (shift >= 64 || shift <= -64)
		x = 0;
	else if (shift >= 0)
		x = delta << shift;
	else
		x = delta >> -shift;
	return (uint64_t)(((unsigned __int128)x * mul) >> 32);
}

static const uint64_t deltas[] = {
	0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0x100000001ULL,
	0x1ffffffffULL, 2596126000ULL, 0x123456789abcdefULL, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, 0xfffffffeffffffffULL, 0xffffffff00000000ULL, UINT64_MAX - 1, UINT64_MAX,
};

static const uint32_t muls[] = {
	0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xc53788bb, 0xfffffffe, 0xffffffff,
};

static const int8_t shifts[] = {
	-128, -127, -65, -64, -63, -33, -32, -31, -2, -1, 0, 1, 2, 31, 32, 33, 63, 64, 65, 126, 127,
};

static void test_edges(void **state)
{
	for (size_t d = 0; d < ARRAY_LEN(deltas); d++)
		for (size_t m = 0; m < ARRAY_LEN(muls); m++)
			for (size_t s = 0; s < ARRAY_LEN(shifts); s++)
				assert_true(pvclock_scale_delta(deltas[d], muls[m], shifts[s]) ==
					    scale_reference(deltas[d], muls[m], shifts[s]));
}

static void test_random(void **state)
{
	u64 seed = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		/* a random bit length too, so small deltas are as common as huge ones */
		uint64_t r = next_random(&seed);
		uint64_t delta = next_random(&seed) >> (r & 63);
		uint32_t mul = (uint32_t)(next_random(&seed) >> ((r >> 6) & 31));
		int8_t shift = (int8_t)((int)((r >> 11) % 81) - 40);

		assert_true(pvclock_scale_delta(delta, mul, shift) == scale_reference(delta, mul, shift));
	}
}

/* What the numbers mean: a 2596.126 MHz TSC as KVM described it, one second of cycles is 1e9 ns. */
static void test_one_second(void **state)
{
	uint64_t ns = pvclock_scale_delta(2596126000ULL, 0xc53788bb, -1);

	assert_true(ns > NSEC_PER_SEC - 1000 && ns < NSEC_PER_SEC + 1000);
	/* mul 2^31 with shift 0 halves; shift 1 makes it the identity */
	assert_true(pvclock_scale_delta(1000, 0x80000000, 0) == 500);
	assert_true(pvclock_scale_delta(1000, 0x80000000, 1) == 1000);
	assert_true(pvclock_scale_delta(1001, 0x80000000, -1) == 250);
}

/* The frequency printed beside the parameters: 2596126 kHz is what KVM meant by 0xc53788bb >> 1. */
static void test_tsc_khz(void **state)
{
	assert_true(pvclock_tsc_khz(0xc53788bb, -1) == 2596126);
	assert_true(pvclock_tsc_khz(0x80000000, 1) == 1000000);
	assert_true(pvclock_tsc_khz(0x80000000, 0) == 2000000);
	assert_true(pvclock_tsc_khz(0, 0) == 0);
	assert_true(pvclock_tsc_khz(1, 64) == 0);
	assert_true(pvclock_tsc_khz(1, -64) == 0);
}

static void test_time_at(void **state)
{
	struct pvclock_vcpu_time_info ti = {
		.version = 2, .tsc_timestamp = 5000000000ULL, .system_time = 123456789,
		.tsc_to_system_mul = 0x80000000, .tsc_shift = 1,
	};

	assert_true(pvclock_time_at(&ti, ti.tsc_timestamp) == 123456789);
	assert_true(pvclock_time_at(&ti, ti.tsc_timestamp + 1000) == 123456789 + 1000);
	ti.tsc_to_system_mul = 0xc53788bb;
	ti.tsc_shift = -1;
	assert_true(pvclock_time_at(&ti, ti.tsc_timestamp + 0xdeadbeefcafeULL) ==
		    123456789 + scale_reference(0xdeadbeefcafeULL, 0xc53788bb, -1));
}

static void test_wall(void **state)
{
	struct pvclock_wall_clock wc = { .version = 2, .sec = 0xffffffff, .nsec = 999999999 };

	/* sec * 1e9 must be taken in 64 bits */
	assert_true(pvclock_wall_ns(&wc, 1) == 0xffffffffULL * NSEC_PER_SEC + 999999999 + 1);
	wc.sec = 1700000000;
	wc.nsec = 250000000;
	assert_true(pvclock_wall_ns(&wc, 3 * NSEC_PER_SEC) == 1700000003250000000ULL);
}

static void test_layout(void **state)
{
	assert_int_equal(sizeof(struct pvclock_vcpu_time_info), 32);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, tsc_timestamp), 8);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, system_time), 16);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, tsc_to_system_mul), 24);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, tsc_shift), 28);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, flags), 29);
	assert_int_equal(sizeof(struct pvclock_wall_clock), 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_one_second),
		cmocka_unit_test(test_tsc_khz),
		cmocka_unit_test(test_time_at),
		cmocka_unit_test(test_wall),
		cmocka_unit_test(test_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
