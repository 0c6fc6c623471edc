// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/printf.c checked against the host's glibc snprintf: every length
 * modifier, conversion, flag set, width and precision over edge values,
 * strings, characters, pointers, '*' arguments, and truncation at every
 * buffer size with a guard byte behind the buffer.
 *
 * The one deliberate difference from glibc: %p of NULL prints "0x0" (glibc
 * prints "(nil)"), since address 0 is an ordinary address on bare metal;
 * NULL pointers are left out of the comparisons and checked on their own.
 */
/* LIBSRC: lib/printf.c lib/string.c */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "mismatches.h"

#define OUT_MAX 512
#define GUARD 0xa5
#define GUARD_LEN 16
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Both engines on the same arguments: return value and every byte up to the terminator. */
static void compare_v(const char *fmt, va_list ap)
{
	char want[OUT_MAX], got[OUT_MAX];
	int w, g;
	va_list copy;

	va_copy(copy, ap);
	w = vsnprintf(want, sizeof(want), fmt, ap);
	g = vt_vsnprintf(got, sizeof(got), fmt, copy);
	va_end(copy);
	if (w == g && w >= 0 && w < OUT_MAX && !memcmp(want, got, w + 1))
		return;
	if (failures++ < 20)
		print_error("\"%s\": glibc %d \"%s\", vmtick %d \"%s\"\n", fmt, w, want, g, got);
}

static __attribute__((format(printf, 1, 2))) void compare(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	compare_v(fmt, ap);
	va_end(ap);
}

/* For formats the compiler would rightly warn about (they are there to be odd). */
static void compare_odd(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	compare_v(fmt, ap);
	va_end(ap);
}

/* Our engine alone, against a fixed expectation (where glibc differs or C leaves it open). */
static void expect(const char *want, const char *fmt, ...)
{
	char got[OUT_MAX];
	va_list ap;
	int g;

	va_start(ap, fmt);
	g = vt_vsnprintf(got, sizeof(got), fmt, ap);
	va_end(ap);
	if (g == (int)strlen(want) && !strcmp(got, want))
		return;
	if (failures++ < 20)
		print_error("\"%s\": want \"%s\", vmtick %d \"%s\"\n", fmt, want, g, got);
}

static const uint64_t int_values[] = {
	0, 1, 5, 9, 10, 42, 99, 100, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 1000000000000ULL,
	0x123456789abcdef0ULL, INT64_MAX, (uint64_t)INT64_MIN, UINT64_MAX,
	(uint64_t)-1, (uint64_t)-5, (uint64_t)-128, (uint64_t)-129, (uint64_t)INT_MIN,
	(uint64_t)INT_MIN - 1, 01234567, 0xdeadbeef,
};

enum length { L_NONE, L_HH, L_H, L_L, L_LL, L_J, L_Z, L_T, L_COUNT };
static const char *const length_names[L_COUNT] = { "", "hh", "h", "l", "ll", "j", "z", "t" };

/*
 * Passes v as the argument type the length modifier names (hh and h as
 * int), after any '*' arguments given before it.
 */
#define COMPARE_TYPED(len, v, ...)                                          \
	do {                                                                \
		switch (len) {                                              \
		case L_L:                                                   \
			compare_odd(__VA_ARGS__, (unsigned long)(v));       \
			break;                                              \
		case L_LL:                                                  \
			compare_odd(__VA_ARGS__, (unsigned long long)(v));  \
			break;                                              \
		case L_J:                                                   \
			compare_odd(__VA_ARGS__, (uintmax_t)(v));           \
			break;                                              \
		case L_Z:                                                   \
			compare_odd(__VA_ARGS__, (size_t)(v));              \
			break;                                              \
		case L_T:                                                   \
			compare_odd(__VA_ARGS__, (ptrdiff_t)(v));           \
			break;                                              \
		default:                                                    \
			compare_odd(__VA_ARGS__, (unsigned int)(v));        \
			break;                                              \
		}                                                           \
	} while (0)

static const char *const widths[] = { "", "1", "3", "22", "*", "*" };
static const int star_widths[] = { 0, 0, 0, 0, 7, -9 };
static const char *const precisions[] = { "", ".", ".0", ".1", ".3", ".21", ".*", ".*" };
static const int star_precs[] = { 0, 0, 0, 0, 0, 0, 4, -2 };
#define FLAG_SETS 32	/* every subset of "-+ #0" */

/* "%" + the flags in mask (bits in "-+ #0" order) + width + precision + rest. */
static void build_format(char *fmt, size_t size, unsigned int mask, const char *width,
			 const char *prec, const char *rest)
{
	static const char flag_chars[] = "-+ #0";
	char flags[sizeof(flag_chars)] = "";
	size_t n = 0;

	for (unsigned int i = 0; i < sizeof(flag_chars) - 1; i++) {
		if (mask & (1u << i))
			flags[n++] = flag_chars[i];
	}
	snprintf(fmt, size, "%%%s%s%s%s", flags, width, prec, rest);
}

/* One format shape over every value; '*' arguments come first, as C orders them. */
static void compare_shape(unsigned int mask, size_t w, size_t p, enum length len,
			  const char *rest, const uint64_t *values, size_t count)
{
	bool sw = !strcmp(widths[w], "*"), sp = !strcmp(precisions[p], ".*");
	char fmt[32];

	build_format(fmt, sizeof(fmt), mask, widths[w], precisions[p], rest);
	for (size_t i = 0; i < count; i++) {
		if (sw && sp)
			COMPARE_TYPED(len, values[i], fmt, star_widths[w], star_precs[p]);
		else if (sw)
			COMPARE_TYPED(len, values[i], fmt, star_widths[w]);
		else if (sp)
			COMPARE_TYPED(len, values[i], fmt, star_precs[p]);
		else
			COMPARE_TYPED(len, values[i], fmt);
	}
}

/* Shapes numbered in mixed radix: flags, width, precision. */
static void compare_all_shapes(enum length len, const char *rest, const uint64_t *values,
			       size_t count)
{
	size_t nw = ARRAY_LEN(widths), np = ARRAY_LEN(precisions);

	for (size_t i = 0; i < FLAG_SETS * nw * np; i++)
		compare_shape(i / (nw * np), i / np % nw, i % np, len, rest, values, count);
}

static void test_integers(void **state)
{
	static const char convs[] = "diouxX";
	char rest[8];

	for (unsigned int len = 0; len < L_COUNT; len++) {
		for (const char *c = convs; *c; c++) {
			snprintf(rest, sizeof(rest), "%s%c", length_names[len], *c);
			compare_all_shapes(len, rest, int_values, ARRAY_LEN(int_values));
		}
	}
	assert_clean();
}

/* Non-NULL pointers only: glibc prints NULL as "(nil)" (see the header comment). */
static void test_pointers(void **state)
{
	static const uint64_t pointers[] = {
		1, 0x10, 0xfff, 0xdeadbeef, 0x7fffffffffffULL, 0xffff800000001000ULL, UINT64_MAX,
	};

	compare_all_shapes(L_L, "p", pointers, ARRAY_LEN(pointers));
	expect("0x0", "%p", NULL);
	expect("       0x0", "%10p", NULL);
	expect("0x0       |", "%-10p|", NULL);
	expect("0x00000000", "%010p", NULL);
	assert_clean();
}

static void test_strings(void **state)
{
	static const char *const strings[] = { "", "a", "hello", "hello, world", "(null)", NULL };
	static const char *const shapes[] = {
		"%s", "[%s]", "%10s", "%-10s|", "%010s", "%.0s", "%.1s", "%.5s", "%.6s", "%.20s",
		"%3.1s", "%-8.3s|", "%+s", "% s", "%#s", "%*s", "%-*s|", "%.*s", "%*.*s",
	};
	const char *unterminated = "abcdefgh";

	for (size_t i = 0; i < ARRAY_LEN(shapes); i++) {
		for (size_t j = 0; j < ARRAY_LEN(strings); j++) {
			if (strstr(shapes[i], "*.*"))
				compare_odd(shapes[i], 12, 3, strings[j]);
			else if (strchr(shapes[i], '*'))
				compare_odd(shapes[i], -7, strings[j]);
			else
				compare_odd(shapes[i], strings[j]);
		}
	}
	/* A precision means the string need not be terminated: ASan catches a read past it. */
	char *exact = malloc(3);

	memcpy(exact, unterminated, 3);
	compare("%.3s|%.2s", exact, exact);
	free(exact);
	assert_clean();
}

static void test_chars_and_percent(void **state)
{
	static const int chars[] = { 'a', 'Z', ' ', '%', 0x7f, 0xe9, 0x141, 0 };

	for (size_t i = 0; i < ARRAY_LEN(chars); i++) {
		compare("%c", chars[i]);
		compare("[%5c]", chars[i]);
		compare("[%-5c]", chars[i]);
		compare_odd("[%05c]", chars[i]);
		compare_odd("[%.0c]", chars[i]);
		compare("[%*c]", -3, chars[i]);
	}
	compare("%%");
	compare("100%% sure");
	compare("%%%d%%", 5);
	compare_odd("%5%|%-5%|%05%");
	compare("");
	compare("no conversions at all");
	assert_clean();
}

static void test_stars(void **state)
{
	compare("%*d|", -5, 42);
	compare("%-*d|", -5, 42);
	compare("%*s|", -6, "ab");
	compare("%.*d|", -1, 0);
	compare("%.*d|", 0, 0);
	compare("%.*s|", -3, "abcdef");
	compare("%*.*x|", 10, 4, 0xab);
	compare("%0*d|", 6, -42);
	compare("%0*d|", -6, -42);
	compare("%*d%*d|", 3, 1, 4, 2);
	compare("%*c|", 0, 'q');
	assert_clean();
}

/* Unknown or unfinished conversions print as written, and later ones still get their arguments. */
static void test_unknown(void **state)
{
	expect("%y", "%y");
	expect("a%yb", "a%yb");
	expect("%-5y", "%-5y");
	expect("%", "%");
	expect("ab%", "ab%");
	expect("%5", "%5");
	expect("%-08.3l", "%-08.3l");
	expect("%n", "%n");
	expect("%y7", "%y%d", 7);
	expect("%*y7", "%*y%d", 3, 7);
	expect("%Lf|%qd", "%Lf|%qd");
	assert_clean();
}

/*
 * An engine's snprintf (vt_vsnprintf, ours; vsnprintf, glibc's) without
 * the format attribute, for formats gcc proves overflow int.
 */
static int snprintf_unchecked(int (*engine)(char *, size_t, const char *, va_list), char *buf,
			      size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = engine(buf, size, fmt, ap);
	va_end(ap);
	return ret;
}

static void test_sprintf_and_huge(void **state)
{
	char buf[16];

	assert_int_equal(vt_sprintf(buf, "%d-%s", 42, "x"), 4);
	assert_string_equal(buf, "42-x");
	/* Huge widths cost nothing beyond the buffer, and the length is still exact. */
	assert_int_equal(vt_snprintf(buf, 8, "%1000000d", 5), 1000000);
	assert_string_equal(buf, "       ");
	assert_int_equal(vt_snprintf(NULL, 0, "%.1000000d", 5), 1000000);
	/* A width past INT_MAX is an error, as in glibc (test_huge_width_like_glibc). */
	assert_int_equal(snprintf_unchecked(vt_vsnprintf, buf, sizeof(buf), "%99999999999d", 5), -1);
	/* A length past INT_MAX is an error, yet the buffer is still terminated. */
	assert_int_equal(snprintf_unchecked(vt_vsnprintf, buf, sizeof(buf),
					    "%2147483647d%2147483647d", 1, 2), -1);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

/*
 * Widths and precisions written in the format past INT_MAX, as glibc does
 * them: (however many digits) an error: -1, the output before that
 * conversion kept and terminated. The parse must not overflow an int on the
 * way (UBSan would stop the test). Up to INT_MAX exactly they are valid (no
 * clamping of 2147483640 to INT_MAX): huge_valid below.
 */
static const char *const huge_specs[] = {
	"%2147483648d",	 "ab%2147483648dcd", "%99999999999999999999d", "%.2147483648d",
	"ab%5dcd%.2147483648d", "%-2147483648c",    "%02147483649x",	"%21474836470d",
};

/*
 * The valid ones near INT_MAX, with what C's snprintf must give (7.21.6.5:
 * the length that would have been written; the buffer holds its start):
 * not asked of glibc, which pads all 2^31 characters (7.4 s each here).
 */
static const struct {
	const char *spec;
	int ret;
	char fill; /* the first sizeof(buf) - 1 characters */
} huge_valid[] = {
	{ "%2147483640d", 2147483640, ' ' },
	{ "%2147483647d", 2147483647, ' ' },
	{ "%.2147483640d", 2147483640, '0' },
};

static void test_huge_width_like_glibc(void **state)
{
	char want[16], got[16];

	for (size_t i = 0; i < ARRAY_LEN(huge_specs); i++) {
		int w, g;

		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		w = snprintf_unchecked(vsnprintf, want, sizeof(want), huge_specs[i], 7, 8);
		g = snprintf_unchecked(vt_vsnprintf, got, sizeof(got), huge_specs[i], 7, 8);
		if (w != g || strcmp(want, got))
			print_error("\"%s\": glibc %d \"%s\", vmtick %d \"%s\"\n", huge_specs[i], w, want,
				    g, got), failures++;
	}
	for (size_t i = 0; i < ARRAY_LEN(huge_valid); i++) {
		int g;

		memset(want, huge_valid[i].fill, sizeof(want) - 1);
		want[sizeof(want) - 1] = '\0';
		memset(got, 'x', sizeof(got));
		g = snprintf_unchecked(vt_vsnprintf, got, sizeof(got), huge_valid[i].spec, 7);
		if (g != huge_valid[i].ret || strcmp(want, got))
			print_error("\"%s\": want %d \"%s\", vmtick %d \"%s\"\n", huge_valid[i].spec,
				    huge_valid[i].ret, want, g, got), failures++;
	}
	assert_clean();
}

/* Every buffer size from 0 to len + 2: same return, same bytes, nothing written past size. */
static void compare_truncation(const char *fmt, ...)
{
	char want[OUT_MAX + GUARD_LEN], got[OUT_MAX + GUARD_LEN];
	va_list ap, a1, a2;
	int len;

	va_start(ap, fmt);
	va_copy(a1, ap);
	len = vsnprintf(NULL, 0, fmt, a1);
	va_end(a1);
	assert_true(len >= 0 && len + 2 < OUT_MAX);
	for (size_t size = 0; size <= (size_t)len + 2; size++) {
		memset(want, GUARD, sizeof(want));
		memset(got, GUARD, sizeof(got));
		va_copy(a1, ap);
		va_copy(a2, ap);
		assert_int_equal(vsnprintf(size ? want : NULL, size, fmt, a1), len);
		assert_int_equal(vt_vsnprintf(size ? got : NULL, size, fmt, a2), len);
		va_end(a1);
		va_end(a2);
		assert_memory_equal(want, got, size + GUARD_LEN);
		/* size 0 with a real buffer: nothing at all is written. */
		va_copy(a2, ap);
		assert_int_equal(vt_vsnprintf(got, 0, fmt, a2), len);
		va_end(a2);
		assert_memory_equal(want, got, size + GUARD_LEN);
	}
	va_end(ap);
}

static void test_truncation(void **state)
{
	compare_truncation("");
	compare_truncation("x");
	compare_truncation("hello, world");
	compare_truncation("%d", INT_MIN);
	compare_truncation("%lld|%llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
	compare_truncation("%-12s|%12s", "left", "right");
	compare_truncation("%#018llx", 0x1234ULL);
	compare_truncation("%+.10d %c%c", 77, 'a', 0);
	compare_truncation("%.3s%%%5.1s", "abcdef", "xyz");
	compare_truncation("%p %s", (void *)0xabcdef, (char *)NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_chars_and_percent),
		cmocka_unit_test(test_stars),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_sprintf_and_huge),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_huge_width_like_glibc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
