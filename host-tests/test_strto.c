// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/strto.c checked against glibc's strtol, strtoul, strtoll and strtoull:
 * valid, invalid, overflowing and oddly spaced inputs in every base, comparing
 * the value, where endptr stops and errno. atoi and atol too.
 */
/* LIBSRC: lib/strto.c lib/string.c */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "mismatches.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define ERRNO_UNTOUCHED 12345

static const char *const inputs[] = {
	"", " ", "+", "-", "0x", "0X", "0x ", "abc", "12abc", "0", "-0", "+0", "  42",
	"\t\n\v\f\r 7", "-42", "+42", "077", "08", "0x1f", "0X1F", "-0x10", "+0x10", "0xg",
	"0x 1", "0x-1", "z", "Z", "zz", "1z", "0b101", "101", "- 5", "+-5", "--5", "1 2",
	"\xc3\xa9", "7\xff", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809", "18446744073709551615",
	"18446744073709551616", "-18446744073709551615", "-18446744073709551616",
	"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
	"4294967296", "-4294967296", "-1", "99999999999999999999999999999999",
	"-99999999999999999999999999999999", "0x7fffffffffffffff", "0x8000000000000000",
	"0xffffffffffffffff", "0x10000000000000000", "-0xffffffffffffffff",
	"1111111111111111111111111111111111111111111111111111111111111111",
	"11111111111111111111111111111111111111111111111111111111111111111",
	"3w5e11264sgsf", "3w5e11264sgsg", "1y2p0ij32e8e7", "1y2p0ij32e8e8",
	"-1y2p0ij32e8e8", "0000000000000000000000000000000000000000001",
	"777777777777777777777", "1777777777777777777777", "2000000000000000000000",
	"0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF0", "123456789012345678901234567890",
};

static const int bases[] = { 0, 2, 3, 8, 10, 16, 36 };


static void report_mismatch(const char *fn, const char *s, int base, unsigned long long want,
			    unsigned long long got, long want_end, long got_end, int want_err,
			    int got_err)
{
	if (failures++ < 20)
		print_error("%s(\"%s\", %d): glibc %llu end %ld errno %d, vmtick %llu end %ld errno %d\n",
			    fn, s, base, want, want_end, want_err, got, got_end, got_err);
}

/*
 * One function on one input: errno starts at a marker so that "left
 * alone" is checked as well as ERANGE.
 */
#define COMPARE_ONE(fn, s, base)                                                     \
	do {                                                                         \
		char *we, *ge;                                                       \
		unsigned long long w, g;                                             \
		int werr, gerr;                                                      \
		errno = ERRNO_UNTOUCHED;                                             \
		w = fn(s, &we, base);                                                \
		werr = errno;                                                        \
		vt_errno = ERRNO_UNTOUCHED;                                          \
		g = vt_##fn(s, &ge, base);                                           \
		gerr = vt_errno;                                                     \
		if (w != g || we != ge || werr != gerr)                              \
			report_mismatch(#fn, s, base, w, g, we - s, ge - s, werr, gerr); \
	} while (0)

static void compare_input(const char *s, int base)
{
	COMPARE_ONE(strtol, s, base);
	COMPARE_ONE(strtoul, s, base);
	COMPARE_ONE(strtoll, s, base);
	COMPARE_ONE(strtoull, s, base);
}

static void test_against_glibc(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(inputs); i++) {
		for (size_t b = 0; b < ARRAY_LEN(bases); b++)
			compare_input(inputs[i], bases[b]);
	}
	assert_clean();
}

/* Every base 2..36 on inputs built from each base's own digits. */
static void test_every_base(void **state)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	char s[80];

	for (int base = 2; base <= 36; base++) {
		for (size_t len = 1; len < 70; len += 3) {
			for (size_t i = 0; i < len; i++)
				s[i] = digits[(i * 7 + len) % base];
			s[len] = '\0';
			compare_input(s, base);
			s[0] = '-';
			compare_input(s, base);
			/* The base's first non-digit stops the scan. */
			s[0] = '1';
			s[len / 2] = base < 36 ? digits[base] : '!';
			compare_input(s, base);
		}
	}
	assert_clean();
}

static void test_exact_values(void **state)
{
	char *end;

	assert_int_equal(vt_strtoul("-1", &end, 10), ULONG_MAX);
	assert_true(vt_strtoll("-9223372036854775808", NULL, 0) == LLONG_MIN);
	vt_errno = 0;
	assert_true(vt_strtoull("-18446744073709551616", &end, 10) == ULLONG_MAX);
	assert_int_equal(vt_errno, ERANGE);
	vt_errno = 0;
	assert_int_equal(vt_strtol("0x", &end, 16), 0);
	assert_string_equal(end, "x");
	assert_int_equal(vt_errno, 0);
	/* A bad base: EINVAL and nothing parsed. */
	for (int base = -1; base <= 40; base += 1) {
		if (base == 0 || (base >= 2 && base <= 36))
			continue;
		vt_errno = 0;
		assert_int_equal(vt_strtol("12", &end, base), 0);
		assert_int_equal(vt_errno, EINVAL);
		assert_string_equal(end, "12");
	}
	assert_int_equal(vt_strtoll("77", NULL, 8), 077);
}

static void test_atoi_atol(void **state)
{
	static const char *const cases[] = { "0", "42", "  -17x", "+5", "abc", "", "2147483647",
					     "-2147483648", "123456789012" };

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		assert_int_equal(vt_atol(cases[i]), atol(cases[i]));
		if (labs(atol(cases[i])) <= INT_MAX)
			assert_int_equal(vt_atoi(cases[i]), atoi(cases[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_glibc),
		cmocka_unit_test(test_every_base),
		cmocka_unit_test(test_exact_values),
		cmocka_unit_test(test_atoi_atol),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
