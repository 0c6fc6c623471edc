// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_engine.c and lifecycle_sample.c, the lifecycle test's events
 * and sampling, on the host:
 * reading the runner's answer and stamping the timers' interrupts, with
 * the engine built unchanged.
 * What: lc_read_answer() takes one line from the console, skipping CRs and
 * the polls that find nothing, stamps the counter at its first character,
 * cuts a line longer than LC_LINE_MAX, and gives up (false) when no whole
 * line came by give_up. lc_timer_fired() stamps a one-shot once, counts a
 * periodic timer's ticks per phase, stamps them in the windows (not
 * during the event) up to LC_STAMPS, follows the steal time at the first
 * and the latest, and counts a tick less than half a period after the one
 * before as early.
 * Why: the checks (test_lifecycle_check.c) start from what these leave;
 * a wrong stamp or count would have them judge the wrong thing.
 * How: the console is a script of characters (-1: nothing yet), the
 * counter moves STEP at every read (fake_counter.h); lc is set by hand.
 */
/* LIBSRC: common/lifecycle/lifecycle_engine.c common/lifecycle/lifecycle_sample.c common/lifecycle/lifecycle_args.c */
/* LIBSRC: common/lifecycle/lifecycle_reset.c lib/busy.c lib/period.c */
/* LIBSRC: common/lifecycle/lifecycle_tod.c common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/argv.c lib/wait.c lib/printf.c lib/string.c */
/* LIBSRC: lib/strto.c common/lifecycle/lifecycle_derived.c common/lifecycle/lifecycle_agree.c common/lifecycle/lifecycle_counter.c */
/* LIBSRC: lib/handoff.c common/lifecycle/lifecycle_run.c common/lifecycle/lifecycle_run_check.c lib/console_input.c */
/* LIBSRC: common/lifecycle/lifecycle_judge.c common/lifecycle/lifecycle_derived_check.c common/lifecycle/lifecycle_counter_check.c */
/* LIBSRC: common/lifecycle/lifecycle_rtc_edge.c common/lifecycle/lifecycle_record.c common/lifecycle/lifecycle_request.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/lifecycle/lifecycle_state.h"

#define STEP	10
#define NOTHING (-1)
#define PERIOD	1000
#define SLOT	0

/* --- the arch's hooks ---------------------------------------------------------------- */

static u64 steal;
static const int *script;
static size_t script_n, script_at;

int arch_console_getc(void)
{
	return script_at < script_n ? script[script_at++] : NOTHING;
}

u64 steal_ns(void)
{
	return steal;
}

int smp_id(void)
{
	return 0;
}

int cpu_count(void)
{
	return 1;
}

void cpu_relax(void)
{
}

/* What the sampling half calls around an event, never reached by these cases. */
void on_cpus(void (*fn)(void *), void *arg)
{
	unreached("on_cpus");
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	unreached("on_cpu_async");
}

void on_cpu_wait(int cpu)
{
	unreached("on_cpu_wait");
}

const char *steal_init(void)
{
	unreached("steal_init");
	return "none";
}

/* --- lc_read_answer ------------------------------------------------------------------ */

static void set_script(const int *chars, size_t n)
{
	script = chars;
	script_n = n;
	script_at = 0;
	fake_counter = 0;
	fake_counter_step = STEP;
}

static void test_read_line(void **state)
{
	/* nothing twice, then the line, a CR before its newline */
	static const int chars[] = {NOTHING, NOTHING, 'o', 'k', ' ', '1', '\r', '\n', 'x'};
	struct lc_answer a = {0};

	set_script(chars, sizeof(chars) / sizeof(chars[0]));
	assert_true(lc_read_answer(NULL, &a, 1000));
	if (strcmp(a.line, "ok 1"))
		fail_msg("read '%s' (%zu characters) from 'ok 1\\r\\n', want 'ok 1' (4)", a.line,
			 strlen(a.line));
	/* three counter reads per poll before it: the deadline's, and the stamp after 'o' came */
	assert_int_equal(a.first_at, 3 * STEP);
	assert_int_equal(script_at, 8);
}

static void test_read_long_line(void **state)
{
	static int chars[LC_LINE_MAX + 11];
	struct lc_answer a = {0};
	size_t n = sizeof(chars) / sizeof(chars[0]);

	for (size_t i = 0; i < n - 1; i++)
		chars[i] = 'a' + (int)(i % 26);
	chars[n - 1] = '\n';
	set_script(chars, n);
	assert_true(lc_read_answer(NULL, &a, ~0ull));
	if (strlen(a.line) != LC_LINE_MAX - 1)
		fail_msg("a %zu-character line read as %zu characters, want it cut to %d", n - 1,
			 strlen(a.line), LC_LINE_MAX - 1);
	assert_int_equal(a.line[LC_LINE_MAX - 2], 'a' + (LC_LINE_MAX - 2) % 26);
}

static void test_read_gives_up(void **state)
{
	static const int chars[] = {'n', 'o', ' ', 'e', 'n', 'd'};
	struct lc_answer a = {0};

	set_script(chars, sizeof(chars) / sizeof(chars[0]));
	assert_false(lc_read_answer(NULL, &a, 500));
	/* no more than the deadline's polls */
	if (fake_counter > 500 + 2 * STEP)
		fail_msg("read on to counter %llu past give_up 500",
			 (unsigned long long)fake_counter);
}

/* --- lc_timer_fired -------------------------------------------------------------------- */

static struct lc_timer *timer(enum lc_role role)
{
	memset(&lc, 0, sizeof(lc));
	lc.rec.cpu[0].t[SLOT].role = role;
	lc.rec.cpu[0].t[SLOT].period = PERIOD;
	lc.rec.has_steal = true;
	return &lc.rec.cpu[0].t[SLOT];
}

static void test_oneshot(void **state)
{
	struct lc_timer *t = timer(LC_ROLE_ONESHOT);

	assert_int_equal(lc_timer_fired(SLOT, 5000), LC_ROLE_ONESHOT);
	assert_int_equal(lc_timer_fired(SLOT, 6000), LC_ROLE_ONESHOT);
	if (t->fired_at != 5000)
		fail_msg("a one-shot firing at 5000, then 6000: stamped %llu, want the first",
			 t->fired_at);
	assert_int_equal(t->ticks[LC_BEFORE], 0);
}

static void test_periodic_phases(void **state)
{
	struct lc_timer *t = timer(LC_ROLE_PERIODIC);

	lc.phase = LC_BEFORE;
	steal = 7;
	lc_timer_fired(SLOT, 1000);
	steal = 9;
	lc_timer_fired(SLOT, 2000);
	lc.phase = LC_DURING;
	lc_timer_fired(SLOT, 3000);
	lc.phase = LC_AFTER;
	lc_timer_fired(SLOT, 4000);
	/* after the run, as the window after it */
	lc.phase = LC_FINISHED;
	lc_timer_fired(SLOT, 5000);
	assert_int_equal(t->ticks[LC_BEFORE], 2);
	assert_int_equal(t->ticks[LC_DURING], 1);
	assert_int_equal(t->ticks[LC_AFTER], 2);
	if (t->nstamps[0] != 2 || t->nstamps[1] != 2)
		fail_msg("2 ticks in each window, 1 during the event: stamped %u before, %u after",
			 t->nstamps[0], t->nstamps[1]);
	assert_int_equal(t->stamps[0][1], 2000);
	assert_int_equal(t->stamps[1][0], 4000);
	assert_int_equal(t->steal_first[0], 7);
	assert_int_equal(t->steal_last[0], 9);
	assert_int_equal(t->early[LC_BEFORE] + t->early[LC_DURING] + t->early[LC_AFTER], 0);
}

/* A tick less than half a period after the one before is early; half a period is not. */
static void test_periodic_early(void **state)
{
	struct lc_timer *t = timer(LC_ROLE_PERIODIC);

	lc.phase = LC_BEFORE;
	lc_timer_fired(SLOT, 1000);
	lc_timer_fired(SLOT, 1000 + PERIOD / 2);
	lc_timer_fired(SLOT, 1000 + PERIOD / 2 + PERIOD / 2 - 1);
	if (t->early[LC_BEFORE] != 1)
		fail_msg("ticks half a period, then half a period less one apart: %u early, want 1",
			 t->early[LC_BEFORE]);
}

static void test_periodic_stamps_cap(void **state)
{
	struct lc_timer *t = timer(LC_ROLE_PERIODIC);

	lc.phase = LC_AFTER;
	for (u64 i = 1; i <= LC_STAMPS + 5; i++)
		lc_timer_fired(SLOT, i * PERIOD);
	assert_int_equal(t->nstamps[1], LC_STAMPS);
	assert_int_equal(t->ticks[LC_AFTER], LC_STAMPS + 5);
	assert_int_equal(t->stamps[1][LC_STAMPS - 1], LC_STAMPS * PERIOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_line),	    cmocka_unit_test(test_read_long_line),
		cmocka_unit_test(test_read_gives_up),	    cmocka_unit_test(test_oneshot),
		cmocka_unit_test(test_periodic_phases),	    cmocka_unit_test(test_periodic_early),
		cmocka_unit_test(test_periodic_stamps_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
