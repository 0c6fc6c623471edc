// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/timer_tick.c's argument handling (tick_main's parse), on the
 * host, with the engine built unchanged.
 * What: source= is required and one of the arch's sources or none; hz=,
 * seconds=, fault=, miss_every= and record= land in the run (miss_every
 * defaults to 50); miss_every= without fault=miss, or below 2, and more
 * ticks than the kernel keeps (hz * seconds over 2^21) end the run with a
 * FAIL saying why; an arch with more than 8 sources is refused.
 * Why: unittests.cfg's timer sections and the tick-miss sweep write these
 * arguments; a guest run shows only the ones they use.
 * How: tick_main() runs in a child (child_capture.h) until the arch's
 * init(), which prints what the parse left in tick_run and ends the
 * child; a refused line ends it earlier, in report_abort().
 */
/* LIBSRC: common/timer_tick.c common/tick_math.c common/tick_judge.c common/tick_record.c */
/* LIBSRC: common/tick_report.c common/tick_ref.c lib/host_evidence.c lib/refclock.c */
/* LIBSRC: lib/report.c lib/stats.c lib/fixed.c lib/argv.c lib/wait.c lib/printf.c lib/string.c */
/* LIBSRC: lib/strto.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "child_capture.h"
#include "host_shim.h"
#include "../lib/report.h"
#include "../lib/units.h"
#include "../common/tick_engine.h"

#define STEP	  2
#define MAX_WORDS 8
/* the child's status once the arch's init() was reached: the arguments were taken */
#define PARSED 100

/* --- the arch's hooks -------------------------------------------------------------- */

static u64 counter;

u64 arch_counter(void)
{
	u64 now = counter;

	counter += STEP;
	return now;
}

u64 arch_counter_hz(void)
{
	return NSEC_PER_SEC;
}

void cpu_relax(void)
{
}

/* What the rest of the engine calls, never reached by these cases. */
static void unreached(const char *what)
{
	fail_msg("%s was called", what);
}

int arch_console_getc(void)
{
	unreached("arch_console_getc");
	return -1;
}

bool arch_host_evidence_offered(void)
{
	unreached("arch_host_evidence_offered");
	return false;
}

const struct refclock *const *refclock_table(size_t *n)
{
	unreached("refclock_table");
	*n = 0;
	return NULL;
}

const char *steal_init(void)
{
	unreached("steal_init");
	return "none";
}

u64 steal_ns(void)
{
	unreached("steal_ns");
	return 0;
}

/* --- the arch and its sources ------------------------------------------------------ */

static const char *const record_names[] = {"on-fail", "always"};

/* Reached once the arguments are parsed: what the parse left, then the child ends. */
static void init_reached(void)
{
	printf("parsed: source %s fault %u miss_every %llu record %s cal_window %llu\n",
	       tick_run.src->name, (unsigned)tick_run.fault, tick_run.miss_every,
	       record_names[tick_run.record], tick_run.cal_window);
	fflush(stdout);
	_exit(PARSED);
}

static const struct tick_arch arch = {.init = init_reached};
static const struct tick_source fake = {
	.name = "fake", .what = "a fake source", .kind = TICK_PERIODIC};
static const struct tick_source other = {.name = "other", .what = "another", .kind = TICK_ONESHOT};
static const struct tick_source *const sources[] = {&fake,  &other, &fake,  &other, &fake,
						    &other, &fake,  &other, &fake};

struct args_case {
	const char *line;
	size_t nsources;
	int want_code;
	const char *want_line;
};

/*
 * The counter runs at 1 GHz: the calibration window is the larger of
 * 200 ms and a tenth of the run, in counter ticks.
 */
static const struct args_case cases[] = {
	{"source=fake", 2, PARSED,
	 "parsed: source fake fault 0 miss_every 50 record on-fail cal_window 1000000000"},
	{"source=none seconds=60 record=always", 2, PARSED,
	 "parsed: source none fault 0 miss_every 50 record always cal_window 6000000000"},
	{"source=other seconds=1", 2, PARSED,
	 "parsed: source other fault 0 miss_every 50 record on-fail cal_window 200000000"},
	{"source=fake fault=miss miss_every=7", 2, PARSED,
	 "parsed: source fake fault 7 miss_every 7 record on-fail cal_window 1000000000"},
	{"source=fake fault=miss miss_every=2", 2, PARSED,
	 "parsed: source fake fault 7 miss_every 2 record on-fail cal_window 1000000000"},
	{"source=fake miss_every=7", 2, EXIT_FAIL,
	 "FAIL: miss_every=7: it sets fault=miss's interval, and fault=none was given"},
	{"source=fake fault=miss miss_every=1", 2, EXIT_FAIL,
	 "FAIL: miss_every=1 would mute every expiry: at least 2"},
	{"source=fake hz=10000 seconds=600", 2, EXIT_FAIL,
	 "FAIL: hz * seconds = 6000000 ticks: more than the 2097152 this kernel keeps"},
	{"source=fake hz=10000 seconds=209", 2, PARSED,
	 "parsed: source fake fault 0 miss_every 50 record on-fail cal_window 20900000000"},
	{"hz=100", 2, EXIT_FAIL, NULL},
	{"source=third", 2, EXIT_FAIL, NULL},
	{"source=fake", 9, EXIT_FAIL, "FAIL: 9 tick sources: at most 8"},
};

static void run_main(const void *arg)
{
	const struct args_case *c = arg;
	char buf[160], *argv[MAX_WORDS] = {"timer-tick"};
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", c->line);
	for (char *w = strtok(buf, " "); w && argc < MAX_WORDS; w = strtok(NULL, " "))
		argv[argc++] = w;
	counter = 0;
	tick_main(argc, argv, &arch, sources, c->nsources);
}

static void test_args_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct args_case *c = &cases[i];
		struct child_outcome o;

		child_run(run_main, c, &o);
		if (o.code != c->want_code)
			fail_msg("'%s': exit status %d, want %d; printed:\n%s", c->line, o.code,
				 c->want_code, o.out);
		if (c->want_line)
			has_line(o.out, c->want_line);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
