// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/cpu_cycle/cpu_cycle_args.c, the cpu-off-on test's arguments, on the host,
 * with the real lib/argv.c and lib/report.c under it.
 * What: cycles= takes 1..1000 (default 3) and fault= its five names, in
 * any order; a bad word (a number out of range or not a number, an
 * unknown fault, an empty one, an unknown key) ends the test as a FAIL
 * that says why, "help" as a SKIP after the usage; each fault's name.
 * Why: unittests.cfg and the docs write these arguments; a guest run shows
 * one line taken.
 * How: each line is split as the guest splits its command line
 * (setup_args) and parsed into a struct filled with garbage first; a
 * refusal ends the process, so it runs in a child (child_capture.h).
 */
/* LIBSRC: common/cpu_cycle/cpu_cycle_args.c lib/argv.c lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "child_capture.h"
#include "host_shim.h"
#include "../common/cpu_cycle/cpu_cycle_check.h"
#include "../lib/report.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_WORDS    8

/* lib/report.c's lock spins on it; one thread here never waits */
void cpu_relax(void);
void cpu_relax(void)
{
}

static struct cc_args parsed;

static void parse_line(const void *line)
{
	char *argv[MAX_WORDS];
	int argc = setup_args("cpu_off_on", line, argv, MAX_WORDS);

	memset(&parsed, 0xff, sizeof(parsed));
	cc_parse_args(&parsed, argc, argv);
}

/* enum cc_fault's words, in its order (the docs and unittests.cfg spell them) */
static const char *const fault_words[NR_FAULTS] = {"none", "offset", "back", "reset", "noirq"};

struct args_case {
	const char *line;
	u64 cycles;
	enum cc_fault fault;
};

static const struct args_case good_args[] = {
	{"", CC_CYCLES_DEFAULT, FAULT_NONE},
	{"cycles=1", 1, FAULT_NONE},
	{"cycles=1000 fault=noirq", 1000, FAULT_NOIRQ},
	{"fault=offset", CC_CYCLES_DEFAULT, FAULT_OFFSET},
	{"fault=back cycles=7", 7, FAULT_BACK},
	{"fault=reset", CC_CYCLES_DEFAULT, FAULT_RESET},
	{"fault=none", CC_CYCLES_DEFAULT, FAULT_NONE},
};

static void test_args_taken(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < ARRAY_LEN(good_args); i++) {
		const struct args_case *c = &good_args[i];

		capture(parse_line, c->line, out, sizeof(out));
		if (parsed.cycles != c->cycles || parsed.fault != c->fault)
			fail_msg("'%s': cycles %llu fault %u, want cycles %llu fault %u (%s)",
				 c->line, parsed.cycles, parsed.fault, c->cycles, c->fault,
				 fault_words[c->fault]);
		if (out[0])
			fail_msg("'%s' is good, yet the parser printed:\n%s", c->line, out);
	}
}

#define CYCLES_MUST "cycles must be a whole number from 1 to 1000"
#define FAULT_MUST  "fault must be one of none, offset, back, reset, noirq"

struct refusal {
	const char *line;
	int code;
	const char *line_out; /* a whole line it must print */
};

static const struct refusal refusals[] = {
	{"cycles=0", EXIT_FAIL, "FAIL: bad argument 'cycles=0': " CYCLES_MUST},
	{"cycles=1001", EXIT_FAIL, "FAIL: bad argument 'cycles=1001': " CYCLES_MUST},
	{"cycles=x", EXIT_FAIL, "FAIL: bad argument 'cycles=x': " CYCLES_MUST},
	{"cycles=-1", EXIT_FAIL, "FAIL: bad argument 'cycles=-1': " CYCLES_MUST},
	{"fault=bogus", EXIT_FAIL, "FAIL: bad argument 'fault=bogus': " FAULT_MUST},
	{"cycles=2 fault=", EXIT_FAIL, "FAIL: bad argument 'fault=': " FAULT_MUST},
	{"help", EXIT_SKIP, "SKIP: usage printed, nothing run"},
};

/* What a child printed, on one line: its lines joined by '|'. */
static const char *one_line(char *out)
{
	for (char *nl; (nl = strchr(out, '\n'));)
		*nl = nl[1] ? '|' : '\0';
	return out;
}

static void test_args_refused(void **state)
{
	static struct child_outcome o;

	for (size_t i = 0; i < ARRAY_LEN(refusals); i++) {
		const struct refusal *r = &refusals[i];

		child_run(parse_line, r->line, &o);
		if (o.code != r->code || !strstr(o.out, r->line_out))
			fail_msg("'%s' must end the test with status %d and the line '%s' (cycles= "
				 "takes 1..%d, fault= one of its %d words); it exited %d and "
				 "printed: %s",
				 r->line, r->code, r->line_out, CC_CYCLES_MAX, NR_FAULTS, o.code,
				 one_line(o.out));
	}
	/* a word the table does not know: refused, whatever the parser's wording */
	child_expect(parse_line, "cycle=3", "cycle=3", EXIT_FAIL, NULL);
}

static void test_fault_names(void **state)
{
	for (unsigned f = 0; f < NR_FAULTS; f++)
		if (strcmp(cc_fault_name(f), fault_words[f]))
			fail_msg("fault %u is named '%s', want '%s'", f, cc_fault_name(f),
				 fault_words[f]);
	assert_string_equal(cc_fault_name(NR_FAULTS), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_taken),
		cmocka_unit_test(test_args_refused),
		cmocka_unit_test(test_fault_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
