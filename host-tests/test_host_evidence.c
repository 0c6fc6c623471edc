// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/host_evidence.c, the one client of the host's evidence that the
 * timer-tick engine and rtc_test share.
 * What: the agent's answers (scripts/host_evidence.py writes them) parsed:
 * a parts answer and a windows answer read back to the figure, each way an
 * answer can be wrong refused with its own message; the client: a span's
 * marks, its parts request and its windows request printed exactly as the
 * agent reads them, the answers handed to each window in order, and an
 * answer that never comes given up after HOST_EVIDENCE_ANSWER_MS as a FAIL
 * that says so; by hand, nothing asked.
 * Why: both engines judge by these figures: a half-read line, a vCPU's wait
 * read as another thread's or a wait that never ends would mislead or hang
 * both at once.
 * How: the counter is fake_counter.h's (1 GHz, a step a read); the console's
 * input is a scripted string; what the client prints is captured.
 */
/* LIBSRC: lib/host_evidence.c lib/console_input.c lib/wait.c lib/stats.c lib/string.c lib/strto.c lib/printf.c */
/* LIBSRC: lib/report.c lib/checks.c lib/fixed.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "console_capture.h"
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/host_evidence.h"
#include "../lib/units.h"

/* 1 ms of the fake counter a read: the 20-s wait is 20000 reads */
#define STEP_TICKS 1000000

static bool offered;
static const char *input; /* what the agent has written on the serial input, not yet read */

bool arch_host_evidence_offered(void)
{
	return offered;
}

int arch_console_getc(void)
{
	return input && *input ? (unsigned char)*input++ : -1;
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

/* ---- the client -------------------------------------------------------------- */

/* A span of the fake counter: marks at 1 s and 3.5 s (us after its first mark: 2500000). */
static struct host_span span;
static u64 span_clock;

static u64 read_span_clock(void)
{
	return span_clock;
}

static void mark_span(const void *unused)
{
	span_clock = NSEC_PER_SEC;
	host_span_begin(&span, read_span_clock, NSEC_PER_SEC);
	span_clock = 3500 * NSEC_PER_MSEC;
	host_span_end(&span);
}

/* Three windows: [1.5 s, 1.6 s], [2 s, 3.5 s], and one before the first mark. */
static const u64 window_at[][2] = {
	{ 1500 * NSEC_PER_MSEC, 1600 * NSEC_PER_MSEC },
	{ 2 * NSEC_PER_SEC, 3500 * NSEC_PER_MSEC },
	{ 0, NSEC_PER_SEC / 2 },
};
static struct host_part answered[3];
static u32 answers;
static u64 stamp;
static const char *why;

static void window_at_i(void *unused, u32 i, u64 *from, u64 *to)
{
	*from = window_at[i][0];
	*to = window_at[i][1];
}

static void window_answer(void *unused, u32 i, const struct host_part *p)
{
	assert_int_equal(i, answers);
	answered[answers++] = *p;
}

static void ask_windows(const void *unused)
{
	struct host_ask q = {3, window_at_i, window_answer, NULL};

	why = host_span_windows(&span, &q, &stamp);
}

static void ask_parts(const void *unused)
{
	why = host_span_parts(&span, 1000, &ev);
}

/* A span marked and asked about, the agent's input set first. */
static void client(bool agent, const char *agent_writes)
{
	char out[CAPTURE_MAX];

	offered = agent;
	input = agent_writes;
	answers = 0;
	fake_counter_step = STEP_TICKS;
	memset(answered, 0, sizeof(answered));
	capture(mark_span, NULL, out, sizeof(out));
}

static void test_client_marks(void **state)
{
	char out[CAPTURE_MAX];

	offered = true;
	capture(mark_span, NULL, out, sizeof(out));
	assert_int_equal(span.a % 2, 0);
	assert_int_equal(host_span_us(&span, span.at_b), 2500000);
	assert_int_equal(host_span_us(&span, NSEC_PER_SEC / 2), 0);
	capture(mark_span, NULL, out, sizeof(out));
	/* each span its own pair of marks, the next after the last */
	if (span.a < 2)
		fail_msg("a second span reused marks %u and %u", span.a, span.a + 1);
}

static void test_client_parts(void **state)
{
	char out[CAPTURE_MAX], request[64];

	client(true, "noise\nHOST-EVIDENCE-DONE parts=2 span_us=2500100 stamp_us=300 "
		     "vcpu=10,20 other=30,40 steal=0,50\n");
	capture(ask_parts, NULL, out, sizeof(out));
	snprintf(request, sizeof(request), "HOST-EVIDENCE: request %u %u 2", span.a, span.a + 1);
	exactly(out, (const char *const[]){request}, 1);
	assert_null(why);
	assert_int_equal(ev.nparts, 2);
	assert_int_equal(ev.span_us, 2500100);
	assert_int_equal(ev.part[0].vcpu_us, 10);
	assert_int_equal(ev.part[1].other_us, 40);
	assert_int_equal(ev.part[1].steal_us, 50);
}

static void test_client_windows(void **state)
{
	char out[CAPTURE_MAX], request[128];

	client(true, "HOST-EVIDENCE-DONE windows=3 stamp_us=250 vcpu=1,2,3 other=4,5,6 "
		     "steal=7,8,9\n");
	capture(ask_windows, NULL, out, sizeof(out));
	snprintf(request, sizeof(request),
		 "HOST-EVIDENCE: windows %u %u 2500000 500000:600000 1000000:2500000 0:0", span.a,
		 span.a + 1);
	exactly(out, (const char *const[]){request}, 1);
	assert_null(why);
	assert_int_equal(answers, 3);
	assert_int_equal(stamp, 250);
	assert_int_equal(answered[0].vcpu_us, 1);
	assert_int_equal(answered[1].other_us, 5);
	assert_int_equal(answered[2].steal_us, 9);
}

/* No answer: given up once HOST_EVIDENCE_ANSWER_MS of the counter passed, and a FAIL says so. */
static void test_client_no_answer(void **state)
{
	char out[CAPTURE_MAX];
	u64 asked;

	client(true, NULL);
	asked = fake_counter;
	capture(ask_windows, NULL, out, sizeof(out));
	assert_string_equal(why, "the host's agent did not answer in time");
	has_line(out, "FAIL: the host's evidence was offered and could not be had: the host's "
		      "agent did not answer in time");
	assert_int_equal(answers, 0);
	if (fake_counter - asked < HOST_EVIDENCE_ANSWER_MS * NSEC_PER_MSEC ||
	    fake_counter - asked > (HOST_EVIDENCE_ANSWER_MS + 1) * NSEC_PER_MSEC)
		fail_msg("gave up after %llu ns, the wait is %d ms", fake_counter - asked,
			 HOST_EVIDENCE_ANSWER_MS);
	client(true, NULL);
	capture(ask_parts, NULL, out, sizeof(out));
	assert_string_equal(why, "the host's agent did not answer in time");
}

/* An error line: its own message, quoted, and a FAIL. */
static void test_client_error(void **state)
{
	char out[CAPTURE_MAX];

	client(true, "HOST-EVIDENCE-ERROR mark 7 was never stamped\n");
	capture(ask_parts, NULL, out, sizeof(out));
	assert_string_equal(why, "the host's agent answered with an error: 'HOST-EVIDENCE-ERROR "
				 "mark 7 was never stamped'");
	HAS_LINE_WITH(out, "FAIL: the host's evidence was offered and could not be had: ",
		      "answered with an error");
}

/* By hand: nothing asked, no FAIL, the reason said. */
static void test_client_by_hand(void **state)
{
	char out[CAPTURE_MAX];

	client(false, NULL);
	capture(ask_windows, NULL, out, sizeof(out));
	assert_string_equal(out, "");
	assert_non_null(why);
	assert_non_null(strstr(why, "no host-evidence agent"));
	capture(ask_parts, NULL, out, sizeof(out));
	lacks(out, "HOST-EVIDENCE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_client_marks),
		cmocka_unit_test(test_client_parts),
		cmocka_unit_test(test_client_windows),
		cmocka_unit_test(test_client_no_answer),
		cmocka_unit_test(test_client_error),
		cmocka_unit_test(test_client_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
