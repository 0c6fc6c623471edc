// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/fixed.c, the one fixed-point formatter: value / 10^scale with a
 * number of decimals, truncated toward zero, the sign the value's own.
 * Checks: a table of cases (values in (-1, 0) keep their minus, which the
 * tree's older "%lld.%03lld" of value / 1000 and |value| % 1000 lost;
 * INT64_MIN and UINT64_MAX; fewer decimals than the scale truncate, more
 * pad zeros; no point without decimals; FIXED_SIGN_PLUS); the output cut
 * to the buffer as snprintf cuts it; and a million pseudo-random values
 * against a second formatter written another way (the magnitude's digits
 * from glibc, the point put in by position), which also says how long
 * the text may be.
 */
/* LIBSRC: lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/fixed.h"

#define RANDOM_CASES 1000000

struct signed_case {
	int64_t value;
	unsigned scale, decimals;
	enum fixed_sign sign;
	const char *want;
};

static const struct signed_case signed_cases[] = {
	/* issue #24: -500 ppb as ppm */
	{ -500, 3, 3, FIXED_SIGN_MINUS, "-0.500" },
	{ -1, 3, 3, FIXED_SIGN_MINUS, "-0.001" },
	{ -999, 3, 3, FIXED_SIGN_MINUS, "-0.999" },
	{ -1000, 3, 3, FIXED_SIGN_MINUS, "-1.000" },
	{ -1500, 3, 3, FIXED_SIGN_MINUS, "-1.500" },
	{ 0, 3, 3, FIXED_SIGN_MINUS, "0.000" },
	{ 500, 3, 3, FIXED_SIGN_MINUS, "0.500" },
	{ 1500, 3, 3, FIXED_SIGN_MINUS, "1.500" },
	{ 12345, 3, 3, FIXED_SIGN_MINUS, "12.345" },
	{ 0, 3, 3, FIXED_SIGN_PLUS, "+0.000" },
	{ 1, 3, 3, FIXED_SIGN_PLUS, "+0.001" },
	{ -1, 3, 3, FIXED_SIGN_PLUS, "-0.001" },
	{ 1234567, 3, 3, FIXED_SIGN_PLUS, "+1234.567" },
	{ INT64_MAX, 3, 3, FIXED_SIGN_MINUS, "9223372036854775.807" },
	{ INT64_MIN, 3, 3, FIXED_SIGN_MINUS, "-9223372036854775.808" },
	{ INT64_MIN, 3, 3, FIXED_SIGN_PLUS, "-9223372036854775.808" },
	{ INT64_MIN, 0, 0, FIXED_SIGN_MINUS, "-9223372036854775808" },
	{ INT64_MIN, 19, 19, FIXED_SIGN_MINUS, "-0.9223372036854775808" },
	{ INT64_MIN, 18, 2, FIXED_SIGN_MINUS, "-9.22" },
	/* truncated toward zero, never rounded, either sign */
	{ 1999, 3, 1, FIXED_SIGN_MINUS, "1.9" },
	{ -1999, 3, 1, FIXED_SIGN_MINUS, "-1.9" },
	{ 1234567, 6, 3, FIXED_SIGN_MINUS, "1.234" },
	{ -1234567, 6, 3, FIXED_SIGN_PLUS, "-1.234" },
	{ 999999, 6, 0, FIXED_SIGN_MINUS, "0" },
	/* the value's sign even when every digit shown is zero, as printf("%.2f", -0.004) */
	{ -4, 3, 2, FIXED_SIGN_MINUS, "-0.00" },
	{ -999999, 6, 0, FIXED_SIGN_MINUS, "-0" },
	/* more decimals than the scale: zeros */
	{ 12, 0, 3, FIXED_SIGN_MINUS, "12.000" },
	{ -125, 2, 4, FIXED_SIGN_MINUS, "-1.2500" },
	/* no decimals, no point */
	{ 12, 0, 0, FIXED_SIGN_MINUS, "12" },
	{ -12, 0, 0, FIXED_SIGN_PLUS, "-12" },
	{ 12, 0, 0, FIXED_SIGN_PLUS, "+12" },
	/* a leading zero of the fraction is kept */
	{ 1005, 3, 3, FIXED_SIGN_MINUS, "1.005" },
	{ 100000005, 9, 9, FIXED_SIGN_MINUS, "0.100000005" },
	/* scale and decimals beyond 19 are taken as 19 */
	{ 5, 25, 25, FIXED_SIGN_MINUS, "0.0000000000000000005" },
};

static void test_signed_table(void **state)
{
	char buf[FIXED_BUF_SIZE];

	for (size_t i = 0; i < sizeof(signed_cases) / sizeof(signed_cases[0]); i++) {
		const struct signed_case *c = &signed_cases[i];
		const char *got =
			fmt_fixed(buf, sizeof(buf), c->value, c->scale, c->decimals, c->sign);

		assert_ptr_equal(got, buf);
		if (strcmp(got, c->want))
			fail_msg("case %zu: %lld at scale %u, %u decimals: \"%s\", want \"%s\"", i,
				 (long long)c->value, c->scale, c->decimals, got, c->want);
	}
}

struct unsigned_case {
	uint64_t value;
	unsigned scale, decimals;
	const char *want;
};

static const struct unsigned_case unsigned_cases[] = {
	{ 0, 3, 3, "0.000" },
	{ 12345, 3, 3, "12.345" },
	{ 1000500000, 6, 3, "1000.500" },
	{ UINT64_MAX, 3, 3, "18446744073709551.615" },
	{ UINT64_MAX, 0, 0, "18446744073709551615" },
	{ UINT64_MAX, 19, 19, "1.8446744073709551615" },
	/* the longest text: 20 digits, the point, 19 zeros */
	{ UINT64_MAX, 0, 19, "18446744073709551615.0000000000000000000" },
	/* values above INT64_MAX stay unsigned */
	{ (uint64_t)INT64_MAX + 1, 3, 3, "9223372036854775.808" },
};

static void test_unsigned_table(void **state)
{
	char buf[FIXED_BUF_SIZE];

	for (size_t i = 0; i < sizeof(unsigned_cases) / sizeof(unsigned_cases[0]); i++) {
		const struct unsigned_case *c = &unsigned_cases[i];

		assert_string_equal(fmt_ufixed(buf, sizeof(buf), c->value, c->scale, c->decimals),
				    c->want);
	}
}

/* Cut as snprintf cuts: size - 1 characters and a NUL; size 0 writes nothing. */
static void test_short_buffer(void **state)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	assert_string_equal(fmt_fixed(buf, 5, -1234567, 3, 3, FIXED_SIGN_MINUS), "-123");
	assert_int_equal(buf[5], 'x');
	assert_string_equal(fmt_ufixed(buf, 1, 5, 3, 3), "");
	memset(buf, 'x', sizeof(buf));
	fmt_fixed(buf, 0, -500, 3, 3, FIXED_SIGN_MINUS);
	assert_int_equal(buf[0], 'x');
}

/*
 * How ppb was printed as ppm before lib/fixed.c (common/tick/tick_ref.c): the
 * whole part with its sign, then the magnitude's thousandths. Kept here
 * to show what the table's first case catches.
 */
static void old_tick_ref_ppm(char *buf, size_t size, int64_t ppb)
{
	snprintf(buf, size, "%lld.%03lld", (long long)(ppb / 1000),
		 (long long)((ppb < 0 ? -ppb : ppb) % 1000));
}

static void test_old_expression_lost_the_sign(void **state)
{
	char old[FIXED_BUF_SIZE], new[FIXED_BUF_SIZE];

	old_tick_ref_ppm(old, sizeof(old), -500);
	fmt_fixed(new, sizeof(new), -500, 3, 3, FIXED_SIGN_MINUS);
	assert_string_equal(old, "0.500");
	assert_string_equal(new, "-0.500");
	/* everywhere else the two agree: the sign fix is the only change in RESULT lines */
	for (int64_t ppb = -3000; ppb <= 3000; ppb++) {
		old_tick_ref_ppm(old, sizeof(old), ppb);
		fmt_fixed(new, sizeof(new), ppb, 3, 3, FIXED_SIGN_MINUS);
		if (ppb > -1000 && ppb < 0)
			assert_string_equal(new + 1, old);
		else
			assert_string_equal(new, old);
	}
}

/* The reference: glibc's digits of |value|, zero-padded, the point put in by position. */
static void reference(char *out, size_t size, const char *sign, uint64_t magnitude, unsigned scale,
		      unsigned decimals)
{
	char digits[64];
	size_t n, whole;

	snprintf(digits, sizeof(digits), "%0*llu", (int)scale + 1, (unsigned long long)magnitude);
	n = strlen(digits);
	whole = n - scale;
	/* the fraction: scale digits, cut to decimals or padded with zeros */
	snprintf(out, size, "%s%.*s%s%.*s%.*s", sign, (int)whole, digits, decimals ? "." : "",
		 (int)(decimals < scale ? decimals : scale), digits + whole,
		 (int)(decimals > scale ? decimals - scale : 0), "0000000000000000000");
}

static void test_random_against_reference(void **state)
{
	char got[FIXED_BUF_SIZE], want[2 * FIXED_BUF_SIZE];
	u64 seed = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < RANDOM_CASES; i++) {
		uint64_t r = next_random(&seed);
		/* small values as often as large ones: (-1, 0) is where signs went wrong */
		int64_t v = (int64_t)(r >> (next_random(&seed) % 64));
		unsigned scale = next_random(&seed) % (FIXED_DIGITS_MAX + 1);
		unsigned decimals = next_random(&seed) % (FIXED_DIGITS_MAX + 1);
		enum fixed_sign sign = i & 1 ? FIXED_SIGN_PLUS : FIXED_SIGN_MINUS;
		uint64_t mag;

		if (r & 1)
			v = ~v; /* -v - 1, and INT64_MAX to INT64_MIN */
		mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
		reference(want, sizeof(want), v < 0 ? "-" : sign == FIXED_SIGN_PLUS ? "+" : "", mag,
			  scale, decimals);
		assert_true(strlen(want) < FIXED_BUF_SIZE);
		fmt_fixed(got, sizeof(got), v, scale, decimals, sign);
		if (strcmp(got, want))
			fail_msg("%lld at scale %u, %u decimals: \"%s\", want \"%s\"", (long long)v,
				 scale, decimals, got, want);
		reference(want, sizeof(want), "", (uint64_t)v, scale, decimals);
		assert_string_equal(fmt_ufixed(got, sizeof(got), (uint64_t)v, scale, decimals),
				    want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_table),
		cmocka_unit_test(test_unsigned_table),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_old_expression_lost_the_sign),
		cmocka_unit_test(test_random_against_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
