// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/string.c checked against glibc: memory functions at every alignment
 * and length around the word size (memmove with overlap both ways), the
 * string functions on edge cases, and the ctype functions on EOF and every
 * byte value in the "C" locale.
 */
/* LIBSRC: lib/string.c */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define AREA 160
#define OFFSETS 17	/* 0..16: every misalignment against an 8-byte word, twice */
#define LENGTHS 70

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void fill_pattern(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 37 + 11);
}

static void test_memmove_overlap(void **state)
{
	unsigned char want[AREA], got[AREA];

	for (size_t src = 0; src < OFFSETS; src++) {
		for (size_t dst = 0; dst < OFFSETS; dst++) {
			for (size_t n = 0; n < LENGTHS; n++) {
				fill_pattern(want, AREA);
				fill_pattern(got, AREA);
				memmove(want + dst, want + src, n);
				assert_ptr_equal(vt_memmove(got + dst, got + src, n), got + dst);
				assert_memory_equal(want, got, AREA);
			}
		}
	}
}

static void test_memcpy_memset(void **state)
{
	unsigned char src[AREA], want[AREA], got[AREA];

	fill_pattern(src, AREA);
	for (size_t s = 0; s < OFFSETS; s++) {
		for (size_t d = 0; d < OFFSETS; d++) {
			for (size_t n = 0; n < LENGTHS; n++) {
				memset(want, 0x5a, AREA);
				memset(got, 0x5a, AREA);
				memcpy(want + d, src + s, n);
				assert_ptr_equal(vt_memcpy(got + d, src + s, n), got + d);
				assert_memory_equal(want, got, AREA);
				/* The value is converted to unsigned char: 0x1ff sets 0xff. */
				memset(want + d, 0x1ff, n);
				assert_ptr_equal(vt_memset(got + d, 0x1ff, n), got + d);
				assert_memory_equal(want, got, AREA);
			}
		}
	}
}

static void test_memcmp_memchr(void **state)
{
	static const unsigned char a[] = { 1, 2, 0x80, 0xff, 0, 5 };
	static const unsigned char b[] = { 1, 2, 0x80, 0x7f, 0, 5 };

	for (size_t n = 0; n <= sizeof(a); n++) {
		assert_int_equal(sign(vt_memcmp(a, b, n)), sign(memcmp(a, b, n)));
		assert_int_equal(sign(vt_memcmp(b, a, n)), sign(memcmp(b, a, n)));
		assert_int_equal(vt_memcmp(a, a, n), 0);
		assert_ptr_equal(vt_memchr(a, 0xff, n), memchr(a, 0xff, n));
		assert_ptr_equal(vt_memchr(a, 0x100 + 0xff, n), memchr(a, 0x1ff, n));
		assert_ptr_equal(vt_memchr(a, -1, n), memchr(a, -1, n));
		assert_ptr_equal(vt_memchr(a, 0, n), memchr(a, 0, n));
		assert_ptr_equal(vt_memchr(a, 9, n), memchr(a, 9, n));
	}
}

static const char *const strings[] = {
	"", "a", "ab", "abc", "abd", "abcd", "b", "\xe9", "\xe9t\xe9", "a\x80", "a\x7f",
	"hello, world", "aaab", "aab",
};

static void test_compare_and_length(void **state)
{
	for (size_t i = 0; i < ARRAY_LEN(strings); i++) {
		const char *a = strings[i];

		assert_int_equal(vt_strlen(a), strlen(a));
		for (size_t n = 0; n < 6; n++)
			assert_int_equal(vt_strnlen(a, n), strnlen(a, n));
		for (size_t j = 0; j < ARRAY_LEN(strings); j++) {
			const char *b = strings[j];

			assert_int_equal(sign(vt_strcmp(a, b)), sign(strcmp(a, b)));
			for (size_t n = 0; n < 6; n++)
				assert_int_equal(sign(vt_strncmp(a, b, n)), sign(strncmp(a, b, n)));
			assert_ptr_equal(vt_strstr(a, b), strstr(a, b));
		}
	}
}

static void test_search(void **state)
{
	static const int chars[] = { 'a', 'b', 'l', 'o', 't', 0, 0xe9, (char)0xe9, 'z', 0x100 + 'a' };

	for (size_t i = 0; i < ARRAY_LEN(strings); i++) {
		for (size_t c = 0; c < ARRAY_LEN(chars); c++) {
			assert_ptr_equal(vt_strchr(strings[i], chars[c]), strchr(strings[i], chars[c]));
			assert_ptr_equal(vt_strrchr(strings[i], chars[c]),
					 strrchr(strings[i], chars[c]));
		}
	}
}

static void test_copy(void **state)
{
	char want[32], got[32];

	for (size_t i = 0; i < ARRAY_LEN(strings); i++) {
		memset(want, '#', sizeof(want));
		memset(got, '#', sizeof(got));
		assert_ptr_equal(vt_strcpy(got, strings[i]), got);
		strcpy(want, strings[i]);
		assert_memory_equal(want, got, sizeof(want));
		assert_ptr_equal(vt_strcat(got, "xyz"), got);
		strcat(want, "xyz");
		assert_memory_equal(want, got, sizeof(want));
		/* strncpy pads with NULs up to n and leaves the rest alone. */
		for (size_t n = 0; n < 16; n++) {
			memset(want, '#', sizeof(want));
			memset(got, '#', sizeof(got));
			assert_ptr_equal(vt_strncpy(got, strings[i], n), got);
			strncpy(want, strings[i], n);
			assert_memory_equal(want, got, sizeof(want));
		}
	}
}

/* Every byte value and EOF: glibc's tables in the "C" locale are the reference. */
static void test_ctype(void **state)
{
	for (int c = -1; c < 256; c++) {
		assert_int_equal(!!vt_isdigit(c), !!isdigit(c));
		assert_int_equal(!!vt_isxdigit(c), !!isxdigit(c));
		assert_int_equal(!!vt_isalpha(c), !!isalpha(c));
		assert_int_equal(!!vt_isalnum(c), !!isalnum(c));
		assert_int_equal(!!vt_isspace(c), !!isspace(c));
		assert_int_equal(!!vt_isupper(c), !!isupper(c));
		assert_int_equal(!!vt_islower(c), !!islower(c));
		assert_int_equal(!!vt_isprint(c), !!isprint(c));
		assert_int_equal(vt_toupper(c), toupper(c));
		assert_int_equal(vt_tolower(c), tolower(c));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_memcpy_memset),
		cmocka_unit_test(test_memcmp_memchr),
		cmocka_unit_test(test_compare_and_length),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_ctype),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
