// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/host_evidence.c's parsing of the agent's answers (scripts/host_evidence.py
 * writes them): a parts answer and a windows answer read back to the figure,
 * and each way an answer can be wrong refused with its own message, so that
 * the timer-tick guest never judges by a half-read line.
 */
/* LIBSRC: lib/host_evidence.c lib/console_input.c lib/wait.c lib/stats.c lib/string.c lib/strto.c lib/printf.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../lib/host_evidence.h"
#include "../lib/units.h"

/* Not called by the parsers: the request side talks to the console. */
bool arch_host_evidence_offered(void)
{
	return false;
}

int arch_console_getc(void)
{
	return -1;
}

u64 arch_counter(void)
{
	return 0;
}

u64 arch_counter_hz(void)
{
	return NSEC_PER_SEC;
}

void cpu_relax(void)
{
}

void arch_console_write(const char *buf, size_t len)
{
}

static struct host_evidence ev;

static void test_parts(void **state)
{
	assert_null(host_evidence_parse("HOST-EVIDENCE-DONE parts=2 span_us=2000000 stamp_us=350 "
					"vcpu=10,0 other=5,2700 steal=0,10000",
					2, &ev));
	assert_int_equal(ev.nparts, 2);
	assert_int_equal(ev.span_us, 2000000);
	assert_int_equal(ev.stamp_us, 350);
	assert_int_equal(ev.part[0].vcpu_us, 10);
	assert_int_equal(ev.part[1].other_us, 2700);
	assert_int_equal(ev.part[1].steal_us, 10000);
}

static void test_windows(void **state)
{
	struct host_part w[3];
	u64 stamp;

	assert_null(host_evidence_parse_windows("HOST-EVIDENCE-DONE windows=3 stamp_us=201 "
						"vcpu=1,2,3 other=4,5,6 steal=0,0,9",
						3, w, &stamp));
	assert_int_equal(stamp, 201);
	assert_int_equal(w[2].vcpu_us, 3);
	assert_int_equal(w[0].other_us, 4);
	assert_int_equal(w[2].steal_us, 9);
}

static void test_bad_answers(void **state)
{
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "HOST-EVIDENCE-ERROR mark 1 was never stamped",
		  "the host's agent answered with an error" },
		{ "hello", "the answer is not HOST-EVIDENCE-DONE" },
		{ "HOST-EVIDENCE-DONE parts=3 span_us=1 stamp_us=1 vcpu=1,2 other=1,2 steal=1,2",
		  "the answer's parts= is not the number asked for" },
		{ "HOST-EVIDENCE-DONE parts=2 stamp_us=1 vcpu=1,2 other=1,2 steal=1,2",
		  "the answer lacks span_us= or stamp_us=" },
		{ "HOST-EVIDENCE-DONE parts=2 span_us=1 stamp_us=1 vcpu=1 other=1,2 steal=1,2",
		  "the answer's vcpu=, other= or steal= list is malformed" },
		{ "HOST-EVIDENCE-DONE parts=2 span_us=1 stamp_us=1 vcpu=1,2 other=1,x steal=1,2",
		  "the answer's vcpu=, other= or steal= list is malformed" },
		{ "HOST-EVIDENCE-DONE parts=2 span_us=1 stamp_us=1 vcpu=1,2 other=1,2 steal=1,99999999999",
		  "the answer's vcpu=, other= or steal= list is malformed" },
		{ "HOST-EVIDENCE-DONE parts=2 span_us=1 stamp_us=1 vcpu=1,2 other=1,2 steal=1,2 more",
		  "the answer has more after its steal= list" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = host_evidence_parse(cases[i].line, 2, &ev);

		if (!why || strcmp(why, cases[i].why))
			fail_msg("'%s': got '%s', want '%s'", cases[i].line, why ? why : "(accepted)",
				 cases[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_bad_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
