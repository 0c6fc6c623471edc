// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_reset.c, the lifecycle test's reset event, on the
 * host, with the real answer parser (common/lifecycle/lifecycle_proto.c) and
 * lib/report.c under it.
 * What: the boot handshake of a new life - "reset 0" starts at event 1
 * with nothing checked; an answer that is no answer, one for an event
 * that is not a reset, or none at all ends the life with a FAIL naming
 * it; "reset N" carries the report counts over and checks the counter
 * the arch's way: on x86 it started again from zero (below what it read
 * as the reset was asked for, and within the host's time since the reset
 * plus the rate tolerance and slack), on arm64 it went on (forward, by no
 * more than the host saw pass); fault=reset_counter makes a good counter
 * fail. lc_has_reset() finds a reset among the events.
 * Why: the reset check runs once per life on a real host, where it
 * passes; each bound is hit here from both sides.
 * How: the counter ticks in ns (fake_counter.h) and reads what each case sets;
 * lc_read_answer() (common/lifecycle/lifecycle_engine.c, the console) is played here and
 * hands back the case's line; each case runs in a child
 * (child_capture.h), as an abort ends the life, and judges into a list in
 * memory it shares with the test, whose entries the test reads once the
 * child is gone (lc_entries.h: each figure, each check's outcome and the
 * numbers its sentence carries, never the sentence's words). The bounds
 * below are worked out beside the cases.
 */
/* LIBSRC: common/lifecycle/lifecycle_reset.c common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/busy.c lib/period.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c lib/wait.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/mman.h>
#include "console_capture.h"
#include "child_capture.h"
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/lifecycle/lifecycle_state.h"
#include "../lib/report.h"
#include "judged.h"
#include "lc_entries.h"

#define MS NSEC_PER_MSEC
/* the host's facts of a reset: 1001.216 ms from system_reset to the boot request, 1002.114 in all
 */
#define FACTS                                                                          \
	" duration_ns=1001216000 qmp_downtime_ns=0 total_ns=1002114000 overhead_ns=0 " \
	"host_req_ns=1796094540152458000 host_ns=1796094541154572000"
/* what the guest sent with its reset request: the counter at 5 s, and its counts */
#define CARRIED " counter=5000000000 tests=3 failures=0 skipped=1"
/* a reset asked for at 500 ms (shorter than a life may be: a counter that went on then reads more)
 */
#define CARRIED_EARLY " counter=500000000 tests=3 failures=0 skipped=1"

/* --- the arch's hooks and the sampling half's state ------------------------------- */

struct lc_state lc;
static const char *answer; /* NULL: none comes */

/*
 * The engine's list (lifecycle_engine.c, not linked here), in memory shared
 * with the children (share_list): what a case's child judged stays for the
 * test to read.
 */
static struct checks *life;

struct checks *lc_checks(void)
{
	checks_clear(life);
	return life;
}

static int share_list(void **state)
{
	struct shared {
		struct checks l;
		struct check c[TEST_CHECKS_MAX];
		char text[TEST_CHECKS_TEXT];
	} *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	checks_init(&m->l, m->c, TEST_CHECKS_MAX, m->text, sizeof(m->text));
	life = &m->l;
	return 0;
}

void cpu_relax(void)
{
}

int cpu_count(void)
{
	return 1;
}

bool lc_read_answer(struct lc_cpu *me, struct lc_answer *a, u64 give_up)
{
	if (!answer)
		return false;
	snprintf(a->line, sizeof(a->line), "%s", answer);
	return true;
}

static const struct lc_arch x86_like = {.counter_at_reset = LC_COUNTER_RESTARTS};
static const struct lc_arch arm_like = {.counter_at_reset = LC_COUNTER_GOES_ON};

/* --- the handshake ---------------------------------------------------------------- */

struct boot_case {
	const char *what;
	const struct lc_arch *arch;
	enum lc_fault fault;
	const char *answer;
	u64 counter_ms; /* the counter at the boot request */
	int want_code;
	const char *shows; /* what the child printed holds this (the answer quoted back) */
	struct want want[4]; /* the judgment, exactly; none where the life ends before it */
};

/*
 * The bound on the counter's time since the reset, from the host's
 * 1001.216 ms (duration_ns): + 20 ppt = 1021.240, + 50 ms slack = 1071.240
 * ms. On arm64 from total_ns, 1002.114 ms: 1072.156 ms. The host's figures
 * first, then the counter's check (x86's fails naming the host kind's
 * defect, none here) and its figure: x86's value at the boot request,
 * arm64's move forward (0 when it went back).
 */
#define JUDGED(figure, ms, ...)                                                                    \
	{ { RESULT_IS("e1.reset.host.down", "ms", "1001.216") },                                   \
	  { RESULT_IS("e1.reset.host.total", "ms", "1002.114") }, { __VA_ARGS__ },                 \
	  { RESULT_IS("e1.reset.counter." figure, "ms", ms) } }
#define RESTARTED(ms, ...) JUDGED("at_boot", ms, __VA_ARGS__)
#define WENT_ON(ms, ...)   JUDGED("moved", ms, __VA_ARGS__)
#define KFAILED		   WANT_KFAIL, .defect = "none/tsc-reset"
/* the check's sentence: x86's counter as the reset was asked for, and its bound */
#define X86_SAYS(at_request_ms) .mentions = { at_request_ms, "1071.240" }
/* arm64's move from the reset request (back: negative), and its bound */
#define ARM_SAYS(moved_ms)	.mentions = { moved_ms, "1072.156" }
#define BOOT_1		       "LIFECYCLE-DONE reset 1" FACTS

static const struct boot_case boot_cases[] = {
	/* nothing checked in the first life's handshake: its summary fails for that alone */
	{"the first life", &x86_like, LC_FAULT_NONE, "LIFECYCLE-DONE reset 0" FACTS, 10, EXIT_FAIL,
	 "first event 1"},
	{"no answer", &x86_like, LC_FAULT_NONE, NULL, 10, EXIT_FAIL, "FAIL: "},
	{"not an answer", &x86_like, LC_FAULT_NONE, "hello", 10, EXIT_FAIL, "'hello'"},
	{"an answer for a pause", &x86_like, LC_FAULT_NONE, "LIFECYCLE-DONE pause 1" FACTS, 10,
	 EXIT_FAIL, "'LIFECYCLE-DONE pause 1" FACTS "'"},
	{"a reset the events do not have there", &x86_like, LC_FAULT_NONE,
	 "LIFECYCLE-DONE reset 2" FACTS CARRIED, 10, EXIT_FAIL,
	 "'LIFECYCLE-DONE reset 2" FACTS CARRIED "'"},
	{"x86: restarted, 800 ms at the boot request", &x86_like, LC_FAULT_NONE, BOOT_1 CARRIED,
	 800, EXIT_PASS, "first event 2", RESTARTED("800.000", WANT_PASS, X86_SAYS("5000.000"))},
	{"x86: 1071.240 ms is the bound itself", &x86_like, LC_FAULT_NONE, BOOT_1 CARRIED, 1071,
	 EXIT_PASS, "first event 2", RESTARTED("1071.000", WANT_PASS, X86_SAYS("5000.000"))},
	{"x86: more than the host saw", &x86_like, LC_FAULT_NONE, BOOT_1 CARRIED, 1072, EXIT_FAIL,
	 "first event 2", RESTARTED("1072.000", KFAILED, X86_SAYS("5000.000"))},
	{"x86: within the host's time, but above the counter at the request: it went on", &x86_like,
	 LC_FAULT_NONE, BOOT_1 CARRIED_EARLY, 800, EXIT_FAIL, "first event 2",
	 RESTARTED("800.000", KFAILED, X86_SAYS("500.000"))},
	{"x86: fault=reset_counter, the counter went on", &x86_like, LC_FAULT_RESET_COUNTER,
	 BOOT_1 CARRIED, 800, EXIT_FAIL, "first event 2",
	 RESTARTED("5800.000", KFAILED, X86_SAYS("5000.000"))},
	{"arm64: went on by 900 ms", &arm_like, LC_FAULT_NONE, BOOT_1 CARRIED, 5900, EXIT_PASS,
	 "first event 2", WENT_ON("900.000", WANT_PASS, ARM_SAYS("+900.000"))},
	{"arm64: further than the host saw", &arm_like, LC_FAULT_NONE, BOOT_1 CARRIED, 6073,
	 EXIT_FAIL, "first event 2", WENT_ON("1073.000", WANT_FAIL, ARM_SAYS("+1073.000"))},
	/* back by 4200 ms, then 4100 ms: the figure 0, the sentence the move back */
	{"arm64: restarted", &arm_like, LC_FAULT_NONE, BOOT_1 CARRIED, 800, EXIT_FAIL,
	 "first event 2", WENT_ON("0.000", WANT_FAIL, ARM_SAYS("-4200.000"))},
	{"arm64: fault=reset_counter", &arm_like, LC_FAULT_RESET_COUNTER, BOOT_1 CARRIED, 5900,
	 EXIT_FAIL, "first event 2", WENT_ON("0.000", WANT_FAIL, ARM_SAYS("-4100.000"))},
};

static void setup_life(const struct boot_case *c)
{
	memset(&lc, 0, sizeof(lc));
	lc.rec.arch = c->arch;
	lc.rec.fault = c->fault;
	lc.host_kind = "none";
	lc.events[0] = LC_RESET;
	lc.events[1] = LC_PAUSE;
	lc.nevents = 2;
	fake_counter = c->counter_ms * MS; /* and it stands still */
	fake_counter_step = 0;
	answer = c->answer;
}

static void boot(const void *arg)
{
	unsigned first;

	setup_life(arg);
	first = lc_boot_handshake();
	printf("first event %u\n", first);
}

/* A case in its child: its exit status, what it printed, and exactly the judgment it wants. */
static void expect_boot(const struct boot_case *c, struct child_outcome *o)
{
	checks_clear(life);
	child_run(boot, c, o);
	if (o->code != c->want_code)
		fail_msg("%s: exit status %d, want %d; printed:\n%s", c->what, o->code,
			 c->want_code, o->out);
	if (!strstr(o->out, c->shows))
		fail_msg("%s: no '%s' in what it printed:\n%s", c->what, c->shows, o->out);
	LC_EXPECT_EXACTLY(c->what, life, c->want);
}

static void test_boot_table(void **state)
{
	struct child_outcome o;

	for (size_t i = 0; i < sizeof(boot_cases) / sizeof(boot_cases[0]); i++)
		expect_boot(&boot_cases[i], &o);
}

/* A new life: the boot request, the counts carried over and said, and the next event. */
static void test_new_life_lines(void **state)
{
	struct child_outcome o;

	expect_boot(&boot_cases[5], &o);
	has_line(o.out, "LIFECYCLE-REQUEST: boot 0");
	/* said: 3 checks, 0 failed, 1 skipped before it */
	HAS_LINE_WITH(o.out, "INFO: ", " 3 ", " 0 ", " 1 ");
	/* the 3 carried, one skipped, and this life's check */
	has_line(o.out, "SUMMARY: 4 tests, 0 unexpected failures, 1 skipped");
}

static void test_has_reset(void **state)
{
	memset(&lc, 0, sizeof(lc));
	lc.events[0] = LC_PAUSE;
	lc.events[1] = LC_MIGRATE;
	lc.nevents = 2;
	assert_false(lc_has_reset());
	lc.events[2] = LC_RESET;
	assert_false(lc_has_reset());
	lc.nevents = 3;
	assert_true(lc_has_reset());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_table),
		cmocka_unit_test(test_new_life_lines),
		cmocka_unit_test(test_has_reset),
	};

	return cmocka_run_group_tests(tests, share_list, NULL);
}
