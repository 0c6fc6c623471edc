// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/div64.c, the i386 guests' 64-bit division helpers, checked on the host
 * (where host-tests/host_rename.h lets it build) against the native 64-bit '/'
 * and '%': edge values crossed with each other, then pseudo-random operands
 * of every bit length. INT64_MIN / -1, undefined in C, must give INT64_MIN
 * remainder 0 rather than fault.
 */
/* LIBSRC: lib/div64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define RANDOM_ROUNDS 200000

static const uint64_t edges[] = {
	0, 1, 2, 3, 7, 10, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 0x1ffffffffULL, 1000000000ULL, 0x123456789abcdefULL,
	INT64_MAX, (uint64_t)INT64_MIN, UINT64_MAX, UINT64_MAX - 1, (uint64_t)-2,
	(uint64_t)-3, (uint64_t)-10, (uint64_t)INT32_MIN,
};

static void check_pair(uint64_t n, uint64_t d)
{
	s64 sn = (s64)n, sd = (s64)d, srem;
	u64 rem;

	if (d == 0)
		return;
	assert_true(vt_udivdi3(n, d) == n / d);
	assert_true(vt_umoddi3(n, d) == n % d);
	assert_true(vt_udivmoddi4(n, d, &rem) == n / d && rem == n % d);
	assert_true(vt_udivmoddi4(n, d, NULL) == n / d);
	if (sn == INT64_MIN && sd == -1) {
		assert_true(vt_divdi3(sn, sd) == INT64_MIN);
		assert_true(vt_moddi3(sn, sd) == 0);
		assert_true(vt_divmoddi4(sn, sd, &srem) == INT64_MIN && srem == 0);
		return;
	}
	assert_true(vt_divdi3(sn, sd) == sn / sd);
	assert_true(vt_moddi3(sn, sd) == sn % sd);
	assert_true(vt_divmoddi4(sn, sd, &srem) == sn / sd && srem == sn % sd);
	assert_true(vt_divmoddi4(sn, sd, NULL) == sn / sd);
}

static void test_edges(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(edges); i++) {
		for (size_t j = 0; j < ARRAY_LEN(edges); j++)
			check_pair(edges[i], edges[j]);
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Operands of random bit lengths, so that every shift distance of the long division is used. */
static void test_random(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		uint64_t n = xorshift(&seed) >> (xorshift(&seed) % 64);
		uint64_t d = xorshift(&seed) >> (xorshift(&seed) % 64);

		check_pair(n, d);
		check_pair(n, d | 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
