// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/argv.c: splitting the command line (runs of spaces and tabs, the
 * argv[0] and NULL slots, too many words, a line past 4 KiB), the whole-string
 * number parsers with the exact messages they print for garbage and for
 * values out of range, seconds with a fraction as nanoseconds, and key=value
 * arguments. lib/argv.c prints through the host's printf; the messages are
 * read back by pointing stdout at a temporary file.
 */
/* LIBSRC: lib/argv.c lib/strto.c lib/string.c lib/printf.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "host_shim.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ARGS 64
#define CMDLINE_MAX 4096
#define UNTOUCHED 0xdeadbeefULL

/* Output the code under test printed to stdout. */
static char captured[8192];
static FILE *capture_file;
static int saved_stdout;

static void capture_start(void)
{
	fflush(stdout);
	capture_file = tmpfile();
	assert_non_null(capture_file);
	saved_stdout = dup(STDOUT_FILENO);
	dup2(fileno(capture_file), STDOUT_FILENO);
}

static const char *capture_end(void)
{
	size_t n;

	fflush(stdout);
	dup2(saved_stdout, STDOUT_FILENO);
	close(saved_stdout);
	rewind(capture_file);
	n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	return captured;
}

struct u64_case {
	const char *text;
	int ret;
	u64 value;
	const char *message;
};

static void test_parse_u64(void **state)
{
	static const struct u64_case cases[] = {
		{ "0", 0, 0, "" },
		{ "42", 0, 42, "" },
		{ "0x10", 0, 16, "" },
		{ "0X1f", 0, 31, "" },
		{ "010", 0, 8, "" },
		{ "18446744073709551615", 0, UINT64_MAX, "" },
		{ "0xffffffffffffffff", 0, UINT64_MAX, "" },
		{ "18446744073709551616", -1, 0, "n: '18446744073709551616' is out of range\n" },
		{ "0x10000000000000000", -1, 0, "n: '0x10000000000000000' is out of range\n" },
		{ "-1", -1, 0, "n: '-1' is not a number\n" },
		{ "+1", -1, 0, "n: '+1' is not a number\n" },
		{ "", -1, 0, "n: '' is not a number\n" },
		{ "12abc", -1, 0, "n: '12abc' is not a number\n" },
		{ " 12", -1, 0, "n: ' 12' is not a number\n" },
		{ "12 ", -1, 0, "n: '12 ' is not a number\n" },
		{ "0x", -1, 0, "n: '0x' is not a number\n" },
		{ "08", -1, 0, "n: '08' is not a number\n" },
		{ "abc", -1, 0, "n: 'abc' is not a number\n" },
		{ "99999999999999999999x", -1, 0, "n: '99999999999999999999x' is not a number\n" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		u64 v = UNTOUCHED;

		capture_start();
		int ret = parse_u64("n", cases[i].text, &v);

		assert_string_equal(capture_end(), cases[i].message);
		assert_int_equal(ret, cases[i].ret);
		assert_true(v == (cases[i].ret ? UNTOUCHED : cases[i].value));
	}
}

struct s64_case {
	const char *text;
	int ret;
	s64 value;
	const char *message;
};

static void test_parse_s64(void **state)
{
	static const struct s64_case cases[] = {
		{ "0", 0, 0, "" },
		{ "-42", 0, -42, "" },
		{ "+7", 0, 7, "" },
		{ "-0x10", 0, -16, "" },
		{ "-010", 0, -8, "" },
		{ "9223372036854775807", 0, INT64_MAX, "" },
		{ "-9223372036854775808", 0, INT64_MIN, "" },
		{ "9223372036854775808", -1, 0, "delta: '9223372036854775808' is out of range\n" },
		{ "-9223372036854775809", -1, 0, "delta: '-9223372036854775809' is out of range\n" },
		{ "-", -1, 0, "delta: '-' is not a number\n" },
		{ "--1", -1, 0, "delta: '--1' is not a number\n" },
		{ "- 1", -1, 0, "delta: '- 1' is not a number\n" },
		{ "", -1, 0, "delta: '' is not a number\n" },
		{ "1.5", -1, 0, "delta: '1.5' is not a number\n" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		s64 v = (s64)UNTOUCHED;

		capture_start();
		int ret = parse_s64("delta", cases[i].text, &v);

		assert_string_equal(capture_end(), cases[i].message);
		assert_int_equal(ret, cases[i].ret);
		assert_true(v == (cases[i].ret ? (s64)UNTOUCHED : cases[i].value));
	}
}

struct seconds_case {
	const char *text;
	int ret;		/* 0, or -1 with a message */
	u64 ns;
	bool fraction;
	const char *problem;	/* "not a number" or "out of range" */
};

static void test_parse_seconds(void **state)
{
	static const struct seconds_case cases[] = {
		{ "12", 0, 12000000000ULL, false },
		{ "0", 0, 0, false },
		{ "010", 0, 10000000000ULL, false },
		{ "1.5", 0, 1500000000ULL, true },
		{ "0.000000001", 0, 1, true },
		{ "1.0", 0, 1000000000ULL, true },
		{ "1700000000.123456789", 0, 1700000000123456789ULL, true },
		{ "18446744073.709551615", 0, UINT64_MAX, true },
		{ "18446744073", 0, 18446744073000000000ULL, false },
		{ "18446744073.709551616", -1, 0, false, "out of range" },
		{ "18446744074", -1, 0, false, "out of range" },
		{ "99999999999999999999999", -1, 0, false, "out of range" },
		{ "1.1234567891", -1, 0, false, "out of range" },
		{ "", -1, 0, false, "not a number" },
		{ ".", -1, 0, false, "not a number" },
		{ "1.", -1, 0, false, "not a number" },
		{ ".5", -1, 0, false, "not a number" },
		{ "1.5x", -1, 0, false, "not a number" },
		{ "-1", -1, 0, false, "not a number" },
		{ "+1", -1, 0, false, "not a number" },
		{ "1e9", -1, 0, false, "not a number" },
		{ "0x10", -1, 0, false, "not a number" },
		{ "1..5", -1, 0, false, "not a number" },
		{ " 1", -1, 0, false, "not a number" },
		{ "99999999999999999999999x", -1, 0, false, "not a number" },
	};
	char want[128];

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct seconds_case *c = &cases[i];
		u64 ns = UNTOUCHED;
		bool fraction = !c->fraction;

		capture_start();
		int ret = parse_seconds_ns("time", c->text, &ns, &fraction);

		snprintf(want, sizeof(want), c->ret ? "time: '%s' is %s\n" : "", c->text, c->problem);
		assert_string_equal(capture_end(), want);
		assert_int_equal(ret, c->ret);
		if (!ret) {
			assert_true(ns == c->ns);
			assert_int_equal(fraction, c->fraction);
			assert_int_equal(parse_seconds_ns("time", c->text, &ns, NULL), 0);
		} else {
			assert_true(ns == UNTOUCHED);
		}
	}
}

static void test_keyvalue(void **state)
{
	assert_string_equal(arg_value("loops=5", "loops"), "5");
	assert_string_equal(arg_value("loops=", "loops"), "");
	assert_string_equal(arg_value("a=b=c", "a"), "b=c");
	assert_null(arg_value("loops=5", "loop"));
	assert_null(arg_value("loop=5", "loops"));
	assert_null(arg_value("loops", "loops"));
	assert_null(arg_value("=5", ""));
	assert_null(arg_value("x=5", ""));

	static const char *const yes[] = { "loops=5", "_x=1", "a-b=1", "a_b9=", "Z=z" };
	static const char *const no[] = { "9a=1", "=5", "-a=1", "abc", "a b=1", "a.b=1", "", "5" };

	for (size_t i = 0; i < ARRAY_LEN(yes); i++)
		assert_true(arg_is_keyvalue(yes[i]));
	for (size_t i = 0; i < ARRAY_LEN(no); i++)
		assert_false(arg_is_keyvalue(no[i]));
}

/* argv[0], the words, then NULL; returns argc after checking the words. */
static void check_split(const char *cmdline, int max, const char *const *want, int nwant)
{
	char *argv[MAX_ARGS];

	assert_int_equal(setup_args("prog", cmdline, argv, max), nwant + 1);
	assert_string_equal(argv[0], "prog");
	for (int i = 0; i < nwant; i++)
		assert_string_equal(argv[i + 1], want[i]);
	assert_null(argv[nwant + 1]);
}

static void test_setup_args(void **state)
{
	static const char *const three[] = { "a", "bb", "c=1" };
	char *argv[4] = { (char *)"x", (char *)"x", (char *)"x", (char *)"x" };

	check_split("a bb c=1", MAX_ARGS, three, 3);
	check_split("  a \t\tbb   c=1 \t", MAX_ARGS, three, 3);
	check_split("a bb c=1\n", MAX_ARGS, three, 3);
	check_split("", MAX_ARGS, NULL, 0);
	check_split(" \t ", MAX_ARGS, NULL, 0);
	check_split(NULL, MAX_ARGS, NULL, 0);
	check_split("a bb c=1", 5, three, 3);

	/* max slots in all: max - 1 entries and the NULL; the rest is dropped with a warning. */
	capture_start();
	check_split("a bb c=1", 3, three, 1);
	assert_string_equal(capture_end(), "setup_args: only 1 arguments fit, the rest is ignored\n");
	assert_int_equal(setup_args("prog", "a b", argv, 1), 0);
	assert_null(argv[0]);
	assert_int_equal(setup_args("prog", "a b", argv, 0), 0);
	assert_string_equal(argv[1], "x");
}

/* A line past 4 KiB is cut at 4096 bytes, with a warning. */
static void test_long_cmdline(void **state)
{
	size_t len = CMDLINE_MAX + 100;
	char *line = malloc(len + 1);
	char *argv[MAX_ARGS];

	memset(line, 'x', len);
	line[len] = '\0';
	line[10] = ' ';
	capture_start();
	assert_int_equal(setup_args("prog", line, argv, MAX_ARGS), 3);
	assert_string_equal(capture_end(),
			    "setup_args: command line longer than 4096 bytes, truncated\n");
	assert_int_equal(strlen(argv[1]), 10);
	assert_int_equal(strlen(argv[2]), CMDLINE_MAX - 11);

	/* Exactly 4096 bytes is fine. */
	line[CMDLINE_MAX] = '\0';
	capture_start();
	assert_int_equal(setup_args("prog", line, argv, MAX_ARGS), 3);
	assert_string_equal(capture_end(), "");
	assert_int_equal(strlen(argv[2]), CMDLINE_MAX - 11);
	free(line);
}

/* Lists of names: bits by position, one wording for an unknown word and an empty list. */
/* A number in a range: the value, or one message naming the argument and the range. */
static void test_u64_in(void **state)
{
	u64 v = UNTOUCHED;

	capture_start();
	assert_int_equal(parse_u64_in("loops", "5", 1, 10, &v), 0);
	assert_string_equal(capture_end(), "");
	assert_int_equal(v, 5);
	capture_start();
	assert_int_equal(parse_u64_in("loops", "10", 1, 10, &v), 0);
	assert_int_equal(parse_u64_in("loops", "1", 1, 10, &v), 0);
	assert_string_equal(capture_end(), "");
	assert_int_equal(v, 1);
	capture_start();
	assert_int_equal(parse_u64_in("loops", "0", 1, 10, &v), -1);
	assert_string_equal(capture_end(), "loops: '0' must be 1 to 10\n");
	capture_start();
	assert_int_equal(parse_u64_in("loops", "11", 1, 10, &v), -1);
	assert_string_equal(capture_end(), "loops: '11' must be 1 to 10\n");
	capture_start();
	assert_int_equal(parse_u64_in("loops", "x", 1, 10, &v), -1);
	assert_string_equal(capture_end(), "loops: 'x' is not a number\n");
	assert_int_equal(v, 1);
}

static void test_word_list(void **state)
{
	static const char *const names[] = { "regs", "counter", "freq" };
	unsigned bits = 99;

	assert_null(arg_word_list("phases", "freq,regs", names, 3, &bits));
	assert_int_equal(bits, 5);
	assert_null(arg_word_list("phases", "counter", names, 3, &bits));
	assert_int_equal(bits, 2);
	assert_string_equal(arg_word_list("phases", "regs,count", names, 3, &bits),
			    "phases: 'count' is not one of regs, counter, freq");
	assert_string_equal(arg_word_list("phases", "", names, 3, &bits), "phases: empty list");
	assert_string_equal(arg_word_list("phases", ",", names, 3, &bits),
			    "phases: '' is not one of regs, counter, freq");
	assert_int_equal(arg_word_index(names, 3, "counterx", 7), 1);
	assert_int_equal(arg_word_index(names, 3, "count", 5), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word_list),
		cmocka_unit_test(test_u64_in),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_s64),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_keyvalue),
		cmocka_unit_test(test_setup_args),
		cmocka_unit_test(test_long_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
