// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/console_input.c, the one reader of the runner's answer lines (the
 * lifecycle's, the host's evidence, catchup's): characters polled one at
 * a time come together into a line at its newline, carriage returns
 * dropped, nothing while no input waits, a line longer than the buffer
 * cut to it (the rest of it still read and dropped), the next line started
 * afresh, and the time its first character came in kept.
 */
/* LIBSRC: lib/console_input.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "host_shim.h"
#include "../lib/console_input.h"

static const char *input;
static u64 now;

int arch_console_getc(void)
{
	now++;
	if (!input || !*input)
		return -1;
	return (unsigned char)*input++;
}

u64 arch_counter(void)
{
	return now;
}

/* Poll until a line is in or the input ran out: how many polls it took (0: none came). */
static unsigned take(struct console_line *l)
{
	for (unsigned polls = 1; polls < 1000; polls++) {
		if (console_line_take(l))
			return polls;
		if (!*input)
			return 0;
	}
	return 0;
}

static void test_lines(void **state)
{
	char buf[32];
	struct console_line l = {buf, sizeof(buf)};

	input = "LIFECYCLE-DONE pause 1 a=1\r\nsecond\n";
	now = 100;
	assert_int_equal(take(&l), 28);
	assert_string_equal(buf, "LIFECYCLE-DONE pause 1 a=1");
	assert_int_equal(l.first_at, 101);
	assert_int_equal(take(&l), 7);
	assert_string_equal(buf, "second");
	assert_int_equal(l.first_at, 129);
	assert_int_equal(take(&l), 0);
}

static void test_nothing_waiting(void **state)
{
	char buf[8] = "old";
	struct console_line l = {buf, sizeof(buf)};

	input = "";
	assert_false(console_line_take(&l));
	assert_int_equal(l.len, 0);
	assert_string_equal(buf, "old");
}

static void test_long_line_cut(void **state)
{
	char buf[8];
	struct console_line l = {buf, sizeof(buf)};

	input = "0123456789abcdef\nok\n";
	assert_true(take(&l));
	assert_string_equal(buf, "0123456");
	assert_true(take(&l));
	assert_string_equal(buf, "ok");
}

static void test_empty_line(void **state)
{
	char buf[8] = "old";
	struct console_line l = {buf, sizeof(buf)};

	input = "\r\n";
	assert_true(take(&l));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_nothing_waiting),
		cmocka_unit_test(test_long_line_cut),
		cmocka_unit_test(test_empty_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
