// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/argv.c: splitting the command line (runs of spaces and tabs, the
 * argv[0] and NULL slots, too many words, a line past 4 KiB), the quiet
 * number readers under the table (whole numbers, seconds with a fraction as
 * nanoseconds), and the table-driven parser: each kind at both ends of its
 * range, defaults, unknown and duplicate keys, positional arguments and too
 * many of them, bad numbers, lists with an unknown name, flags, checked
 * text, a required key left out, with the one message and the usage it
 * prints, and "help", which prints the usage and ends the test as a SKIP
 * through args_parse_or_abort() (its report_* calls are stubbed here).
 * lib/argv.c prints through the host's printf; the output is read back by
 * pointing stdout at a temporary file.
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
#include "../lib/argv.h"
#include "../lib/units.h"

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
};

static void test_parse_u64(void **state)
{
	static const struct u64_case cases[] = {
		{ "0", 0, 0 },
		{ "42", 0, 42 },
		{ "0x10", 0, 16 },
		{ "0X1f", 0, 31 },
		{ "010", 0, 8 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX },
		{ "18446744073709551616", -1, 0 },
		{ "0x10000000000000000", -1, 0 },
		{ "-1", -1, 0 },
		{ "+1", -1, 0 },
		{ "", -1, 0 },
		{ "12abc", -1, 0 },
		{ " 12", -1, 0 },
		{ "12 ", -1, 0 },
		{ "0x", -1, 0 },
		{ "08", -1, 0 },
		{ "abc", -1, 0 },
		{ "99999999999999999999x", -1, 0 },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		u64 v = UNTOUCHED;

		capture_start();
		int ret = parse_u64(cases[i].text, &v);

		assert_string_equal(capture_end(), "");
		assert_int_equal(ret, cases[i].ret);
		assert_true(v == (cases[i].ret ? UNTOUCHED : cases[i].value));
	}
}

struct seconds_case {
	const char *text;
	int ret;
	u64 ns;
	bool fraction;
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
		{ "18446744073.709551616", -1, 0, false },
		{ "18446744074", -1, 0, false },
		{ "99999999999999999999999", -1, 0, false },
		{ "1.1234567891", -1, 0, false },
		{ "", -1, 0, false },
		{ ".", -1, 0, false },
		{ "1.", -1, 0, false },
		{ ".5", -1, 0, false },
		{ "1.5x", -1, 0, false },
		{ "-1", -1, 0, false },
		{ "+1", -1, 0, false },
		{ "1e9", -1, 0, false },
		{ "0x10", -1, 0, false },
		{ "1..5", -1, 0, false },
		{ " 1", -1, 0, false },
		{ "99999999999999999999999x", -1, 0, false },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct seconds_case *c = &cases[i];
		u64 ns = UNTOUCHED;
		bool fraction = !c->fraction;

		capture_start();
		int ret = parse_seconds_ns(c->text, &ns, &fraction);

		assert_string_equal(capture_end(), "");
		assert_int_equal(ret, c->ret);
		if (!ret) {
			assert_true(ns == c->ns);
			assert_int_equal(fraction, c->fraction);
			assert_int_equal(parse_seconds_ns(c->text, &ns, NULL), 0);
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
	assert_true(arg_in_list("b", "a,b,c"));
	assert_true(arg_in_list("a", "a"));
	assert_false(arg_in_list("b", "a,bb"));
	assert_false(arg_in_list("", "a,b"));
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

/* ---- the table-driven parser ---------------------------------------------- */

#define THRESHOLD_MAX_NS (5 * NSEC_PER_SEC)
/* what parse_line() fills o with first: a key without a default keeps it */
#define UNSET 0xa5a5a5a5a5a5a5a5ULL
#define PHASES_MUST "phases must be a comma-separated list of regs, counter, freq"

static struct {
	u64 loops, host_ns, threshold_ns;
	bool host_fraction, verbose;
	unsigned phases, fault;
	const char *refs;
} o;

static const char *const phase_names[] = { "regs", "counter", "freq" };
static const char *const fault_names[] = { "none", "warp", "freq" };

static const char *refs_check(const char *text)
{
	return strchr(text, 'x') ? "a list without x" : NULL;
}

static const struct arg args[] = {
	ARG_UINT("loops", &o.loops, 1, 1000, "100", "reads per run"),
	{ .key = "host_time", .kind = ARG_KIND_SECONDS, .to.u64 = &o.host_ns, .hi = UINT64_MAX,
	  .fraction = &o.host_fraction, .help = "the host's time of day" },
	ARG_SECONDS("threshold", &o.threshold_ns, 1, THRESHOLD_MAX_NS, "0.5", "the allowance"),
	ARG_LIST("phases", &o.phases, phase_names, "regs,counter,freq", "steps to run"),
	ARG_ONE_OF("fault", &o.fault, fault_names, "none", "the fault"),
	ARG_TEXT("refs", &o.refs, refs_check, "a,b", "references"),
	ARG_FLAG("verbose", &o.verbose, "say more"),
};
static const char *const positional[] = { "loops", "host_time", "threshold" };
static const struct arg_table table = ARG_TABLE_POSITIONAL(args, positional);

/* Parse cmdline with the table above, stdout captured; the message, or NULL. */
static const char *parse_line(const struct arg_table *t, const char *cmdline)
{
	static char why[512];
	char *argv[MAX_ARGS];
	int argc = setup_args("prog", cmdline, argv, MAX_ARGS);
	const char *ret;

	memset(&o, 0xa5, sizeof(o));
	capture_start();
	ret = args_parse(t, argc, argv);
	capture_end();
	if (!ret)
		return NULL;
	snprintf(why, sizeof(why), "%s", ret);
	return why;
}

/* Good command lines, what lands where. */
struct ok_case {
	const char *line;
	u64 loops, host_ns, threshold_ns;
	bool host_fraction;
	unsigned phases, fault;
	const char *refs;
	bool verbose;
};

static void test_table_ok(void **state)
{
	static const struct ok_case cases[] = {
		/* defaults; host_time has none: left as the caller set it */
		{ "", 100, UNSET, NSEC_PER_SEC / 2, true, 7, 0, "a,b", false },
		/* each end of each range */
		{ "loops=1", 1, UNSET, NSEC_PER_SEC / 2, true, 7, 0, "a,b", false },
		{ "loops=1000 threshold=0.000000001", 1000, UNSET, 1, true, 7, 0, "a,b" },
		{ "threshold=5", 100, UNSET, THRESHOLD_MAX_NS, true, 7, 0, "a,b" },
		{ "loops=0x10", 16, UNSET, NSEC_PER_SEC / 2, true, 7, 0, "a,b" },
		/* positional in order, with a fraction or without */
		{ "7 1700000000.25 2", 7, 1700000000250000000ULL, 2 * NSEC_PER_SEC, true, 7, 0, "a,b" },
		{ "7 1700000000", 7, 1700000000 * NSEC_PER_SEC, NSEC_PER_SEC / 2, false, 7, 0, "a,b" },
		/* a key given by name is skipped by the positional ones */
		{ "loops=9 5 1.5", 9, 5 * NSEC_PER_SEC, 3 * NSEC_PER_SEC / 2, false, 7, 0, "a,b" },
		{ "host_time=0 3 4", 3, 0, 4 * NSEC_PER_SEC, false, 7, 0, "a,b" },
		/* lists, names, text, flag */
		{ "phases=freq,regs fault=warp refs=c verbose", 100, UNSET, NSEC_PER_SEC / 2,
		  true, 5, 1, "c", true },
		/* a trailing comma ends the list, as it always did */
		{ "phases=regs,", 100, UNSET, NSEC_PER_SEC / 2, true, 1, 0, "a,b" },
		{ "phases=counter fault=freq", 100, UNSET, NSEC_PER_SEC / 2, true, 2, 2, "a,b" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct ok_case *c = &cases[i];

		assert_null(parse_line(&table, c->line));
		assert_true(o.loops == c->loops);
		assert_true(o.host_ns == c->host_ns);
		assert_true(o.threshold_ns == c->threshold_ns);
		if (c->host_ns != UNSET)
			assert_int_equal(o.host_fraction, c->host_fraction);
		assert_int_equal(o.phases, c->phases);
		assert_int_equal(o.fault, c->fault);
		assert_string_equal(o.refs, c->refs);
		assert_int_equal(o.verbose, c->verbose);
	}
}

#define LOOPS_MUST	"loops must be a whole number from 1 to 1000"
#define THRESHOLD_MUST	"threshold must be seconds from 0.000000001 to 5"
#define HOST_TIME_MUST	"host_time must be seconds from 0 to 18446744073.709551615"
#define TOO_MANY	"more than 3 positional arguments"

/* Bad command lines: the one message, naming the argument (word) and what is wrong. */
static void test_table_bad(void **state)
{
	static const struct {
		const char *line, *word, *problem;
	} cases[] = {
		{ "loops=0", "loops=0", LOOPS_MUST },
		{ "loops=1001", "loops=1001", LOOPS_MUST },
		{ "loops=12x", "loops=12x", LOOPS_MUST },
		{ "loops=", "loops=", LOOPS_MUST },
		{ "loops=-1", "loops=-1", LOOPS_MUST },
		{ "x", "x", LOOPS_MUST },
		{ "threshold=0", "threshold=0", THRESHOLD_MUST },
		{ "threshold=5.000000001", "threshold=5.000000001", THRESHOLD_MUST },
		{ "threshold=1.0000000001", "threshold=1.0000000001", THRESHOLD_MUST },
		{ "host_time=1e9", "host_time=1e9", HOST_TIME_MUST },
		{ "size=3", "size=3", "unknown key" },
		{ "Loops=3", "Loops=3", "unknown key" },
		{ "loops=3 loops=4", "loops=4", "loops is given twice" },
		{ "5 loops=4", "loops=4", "loops is given twice" },
		{ "fault=warp fault=warp", "fault=warp", "fault is given twice" },
		{ "verbose verbose", "verbose", "verbose is given twice" },
		{ "1 2 3 4", "4", TOO_MANY },
		{ "host_time=1 threshold=1 5 6", "6", TOO_MANY },
		{ "phases=regs,count", "phases=regs,count", PHASES_MUST },
		{ "phases=", "phases=", PHASES_MUST },
		{ "phases=,regs", "phases=,regs", PHASES_MUST },
		{ "fault=warpx", "fault=warpx", "fault must be one of none, warp, freq" },
		{ "fault=", "fault=", "fault must be one of none, warp, freq" },
		{ "refs=axb", "refs=axb", "refs must be a list without x" },
		{ "refs=", "refs=", "refs must be not empty" },
		{ "verbose=1", "verbose=1", "verbose must be given alone, without '='" },
	};
	char want[256];

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const char *why = parse_line(&table, cases[i].line);

		if (!why)
			fail_msg("'%s' was taken", cases[i].line);
		snprintf(want, sizeof(want), "bad argument '%s': %s", cases[i].word,
			 cases[i].problem);
		assert_string_equal(why, want);
	}
}

/* A check after a number: what it says is the message (lib's mmio_addr= is one). */
static const char *even_check(const char *text)
{
	return o.loops % 2 ? "an even number" : NULL;
}

/* Without positional keys a bare word is refused; a required key must be there. */
static void test_table_keys_only(void **state)
{
	const struct arg some[] = {
		{ .key = "source", .kind = ARG_KIND_ONE_OF, .to.index = &o.fault,
		  .names = fault_names, .nnames = ARRAY_LEN(fault_names), .required = true,
		  .help = "the source" },
		{ .key = "loops", .kind = ARG_KIND_UINT, .to.u64 = &o.loops, .lo = 1, .hi = 1000,
		  .check = even_check, .help = "reads" },
	};
	const struct arg_table t = ARG_TABLE(some);

	assert_string_equal(parse_line(&t, "source=warp 7"), "bad argument '7': not key=value");
	assert_string_equal(parse_line(&t, "loops=8"),
			    "missing source=: source is required (one of none, warp, freq)");
	assert_null(parse_line(&t, "source=freq"));
	assert_int_equal(o.fault, 2);
	assert_true(o.loops == UNSET);
	assert_string_equal(parse_line(&t, "source=none loops=7"),
			    "bad argument 'loops=7': loops must be an even number");
	assert_string_equal(parse_line(&t, "source=none loops=1001"),
			    "bad argument 'loops=1001': loops must be a whole number from 1 to 1000");
	assert_null(parse_line(&t, "source=none loops=8"));
	assert_true(o.loops == 8);
}

/* What a bad argument prints: the usage, from the table. */
static void test_table_usage(void **state)
{
	char *argv[] = { "prog", "bogus=1", NULL };
	const char *why;

	capture_start();
	why = args_parse(&table, 2, argv);
	assert_string_equal(
		capture_end(),
		"usage: prog [loops [host_time [threshold]]] [key=value ...]\n"
		"  loops=N          reads per run: a whole number from 1 to 1000, default 100\n"
		"  host_time=S      the host's time of day: "
		"seconds from 0 to 18446744073.709551615\n"
		"  threshold=S      the allowance: seconds from 0.000000001 to 5, default 0.5\n"
		"  phases=LIST      steps to run: a comma-separated list of regs, counter, freq, "
		"default regs,counter,freq\n"
		"  fault=NAME       the fault: one of none, warp, freq, default none\n"
		"  refs=TEXT        references: not empty, default a,b\n"
		"  verbose          say more: given alone, without '='\n");
	assert_string_equal(why, "bad argument 'bogus=1': unknown key");
	/* all is well: nothing printed */
	argv[1] = "loops=3";
	capture_start();
	assert_null(args_parse(&table, 2, argv));
	assert_string_equal(capture_end(), "");
	test_table_keys_only(state);
}

/* args_parse_or_abort() ends the test through these: each records, then leaves by ended. */
static jmp_buf ended;
static char outcome[512];

void report_skip(const char *fmt, ...)
{
	va_list ap;
	size_t at = (size_t)snprintf(outcome, sizeof(outcome), "SKIP: ");

	va_start(ap, fmt);
	vsnprintf(outcome + at, sizeof(outcome) - at, fmt, ap);
	va_end(ap);
}

void report_abort(const char *fmt, ...)
{
	va_list ap;
	size_t at = (size_t)snprintf(outcome, sizeof(outcome), "FAIL: ");

	va_start(ap, fmt);
	vsnprintf(outcome + at, sizeof(outcome) - at, fmt, ap);
	va_end(ap);
	longjmp(ended, 1);
}

void report_exit(void)
{
	longjmp(ended, 1);
}

/* cmdline through args_parse_or_abort(), stdout captured: the outcome line, "" when it returned. */
static const char *parse_or_abort(const struct arg_table *t, const char *cmdline)
{
	char *argv[MAX_ARGS];
	int argc = setup_args("prog", cmdline, argv, MAX_ARGS);

	outcome[0] = '\0';
	capture_start();
	if (!setjmp(ended))
		args_parse_or_abort(t, argc, argv);
	capture_end();
	return outcome;
}

/* "help" anywhere prints the usage and ends as a SKIP; a word like it is a bad argument. */
static void test_table_help(void **state)
{
	static const char *const help_lines[] = { "help", "loops=3 help", "help bogus=1", "--help", "-h" };
	static const struct {
		const char *line, *outcome;
	} not_help[] = {
		{ "loops=3", "" },
		{ "help=1", "FAIL: bad argument 'help=1': unknown key" },
		{ "helpme", "FAIL: bad argument 'helpme': loops must be a whole number from 1 to 1000" },
	};
	bool asked = false;
	const struct arg with_help_key[] = { ARG_FLAG("help", &asked, "a key of this test") };
	const struct arg_table t = ARG_TABLE(with_help_key);

	for (size_t i = 0; i < ARRAY_LEN(help_lines); i++) {
		assert_string_equal(parse_or_abort(&table, help_lines[i]),
				    "SKIP: usage printed, nothing run");
		assert_non_null(strstr(captured, "usage: prog [loops [host_time [threshold]]]"));
		assert_null(strstr(captured, "bad argument"));
	}
	for (size_t i = 0; i < ARRAY_LEN(not_help); i++)
		assert_string_equal(parse_or_abort(&table, not_help[i].line), not_help[i].outcome);
	/* a test whose own key is "help" keeps it */
	assert_string_equal(parse_or_abort(&t, "help"), "");
	assert_true(asked);
}

/* A default the table itself gets wrong is the test author's bug, named as such. */
static void test_table_bad_default(void **state)
{
	const struct arg wrong[] = { ARG_UINT("loops", &o.loops, 1, 10, "11", "reads") };
	const struct arg_table t = ARG_TABLE(wrong);

	assert_string_equal(parse_line(&t, ""),
			    "bad argument 'loops=11 (its default)': "
			    "loops must be a whole number from 1 to 10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_ok),
		cmocka_unit_test(test_table_bad),
		cmocka_unit_test(test_table_usage),
		cmocka_unit_test(test_table_bad_default),
		cmocka_unit_test(test_table_help),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_keyvalue),
		cmocka_unit_test(test_setup_args),
		cmocka_unit_test(test_long_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
