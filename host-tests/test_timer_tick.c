// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick/timer_tick.c's planning and arguments, on the host, the engine built unchanged.
 * What: tick_calibrate measures a source at half the counter's rate as 2 counter ticks per
 * count, within the error it states; it waits the window out and keeps a sample's narrowest
 * bracket, so a read the host delayed does not widen the error. tick_slot: slot i is the
 * anchor plus i + 1 periods. tick_main's arguments: source= required, one of the arch's or
 * none; hz=, seconds=, fault=, miss_every= (default 50), record= land in the run;
 * miss_every= without fault=miss or below 2, more than 2^21 ticks, more than 16 sources: a
 * FAIL saying why.
 * Why: every tick's lateness is measured from these slots, and unittests.cfg writes these
 * arguments; a guest run shows them only through the judgment and the arguments it uses.
 * How: the counter moves STEP at every read (fake_counter.h); a scripted source read can
 * stall it; tick_run is set by hand. tick_main() runs in a child (child_capture.h) up to the
 * arch's init(), which prints what the parse left in tick_run and ends the child; a refused
 * line ends it in report_abort(). The rest of the engine is linked but not run.
 */
/* LIBSRC: common/tick/timer_tick.c common/tick/timer_tick_args.c common/tick/tick_host.c common/tick/tick_math.c */
/* LIBSRC: common/tick/tick_judge.c common/tick/tick_record.c */
/* LIBSRC: lib/period.c lib/busy.c */
/* LIBSRC: common/tick/tick_checks.c common/tick/tick_ref.c common/tick/tick_figure.c */
/* LIBSRC: lib/host_evidence.c lib/console_input.c lib/refclock.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/argv.c lib/wait.c lib/printf.c */
/* LIBSRC: lib/string.c */
/* LIBSRC: lib/strto.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "child_capture.h"
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/report.h"
#include "../lib/units.h"
#include "../common/tick/tick_engine.h"

#define STEP	  2
#define MAX_WORDS 8
/* the child's status once the arch's init() was reached: the arguments were taken */
#define PARSED 100
#define WINDOW 100000
/* the calibration reads: 16 tries per sample */
#define STALL_READ	 3
#define STALL_TICKS	 5000
#define PPB_OF_TRUTH_MAX 1000

/* --- the arch's hooks -------------------------------------------------------------- */

static u64 reads;
static unsigned stall_at; /* the source read that stalls the counter, 0: none */

void cpu_relax(void)
{
}

/* What the rest of the engine calls, never reached by these cases. */
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

/* A source at half the counter's rate; its read number stall_at takes STALL_TICKS. */
static u64 half_rate(void)
{
	if (++reads == stall_at)
		fake_counter += STALL_TICKS;
	return fake_counter / 2;
}

static void calibrate(struct tick_cal *cal, unsigned stall)
{
	fake_counter = 1000;
	fake_counter_step = STEP;
	reads = 0;
	stall_at = stall;
	tick_run.cal_window = WINDOW;
	assert_true(tick_calibrate(half_rate, cal));
}

/* The ratio's distance from 2.0, in ppb of it. */
static u64 ppb_off_two(const struct tick_cal *cal)
{
	u64 two = 2 * TICK_FX_ONE;
	u64 d = cal->ratio_fx > two ? cal->ratio_fx - two : two - cal->ratio_fx;

	return d * PPB_PER_UNIT / two;
}

static void test_calibrate_half_rate(void **state)
{
	struct tick_cal cal;
	u64 start = 1000;

	calibrate(&cal, 0);
	if (ppb_off_two(&cal) > cal.err_ppb)
		fail_msg("ratio %#llx is %llu ppb off 2.0, outside its stated error %llu ppb",
			 cal.ratio_fx, ppb_off_two(&cal), cal.err_ppb);
	if (ppb_off_two(&cal) > PPB_OF_TRUTH_MAX)
		fail_msg("ratio %llu ppb off 2.0", ppb_off_two(&cal));
	if (fake_counter - start < WINDOW)
		fail_msg("the samples %llu ticks apart, the window is %d", fake_counter - start,
			 WINDOW);
}

/* A stalled read in the first sample: its bracket is wide, and the narrow ones are used. */
static void test_calibrate_narrowest(void **state)
{
	struct tick_cal clean, stalled;

	calibrate(&clean, 0);
	calibrate(&stalled, STALL_READ);
	if (stalled.err_ppb > clean.err_ppb)
		fail_msg("a stalled read widened the error from %llu to %llu ppb", clean.err_ppb,
			 stalled.err_ppb);
	if (ppb_off_two(&stalled) > stalled.err_ppb)
		fail_msg("with a stalled read the ratio is %llu ppb off 2.0, outside its error "
			 "%llu ppb",
			 ppb_off_two(&stalled), stalled.err_ppb);
}

/* Slot i: the anchor, 50000, plus i + 1 periods of 1000 counts at the ratio. */
static const struct slot_case {
	u64 ratio_fx, i, want;
} slots[] = {
	{2 * TICK_FX_ONE, 0, 52000},
	{2 * TICK_FX_ONE, 1, 54000},
	{2 * TICK_FX_ONE, 9, 70000},
	{TICK_FX_ONE + TICK_FX_ONE / 2, 3, 56000}, /* 1.5: 1500 ticks a period */
};

static void test_slots(void **state)
{
	tick_run.anchor = 50000;
	tick_run.plan.period_counts = 1000;
	tick_run.plan.cal.err_ppb = 0;
	for (size_t k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		u64 got;

		tick_run.plan.cal.ratio_fx = slots[k].ratio_fx;
		got = tick_slot(slots[k].i);
		if (got != slots[k].want)
			fail_msg("ratio %#llx: slot %llu at %llu, want %llu", slots[k].ratio_fx,
				 slots[k].i, got, slots[k].want);
	}
}

/* --- the arch and its sources ------------------------------------------------------ */

static const char *const record_names[] = {"fail", "always", "never"};

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
/* 17: one more than an arch may list (TICK_SOURCES_MAX) */
static const struct tick_source *const sources[] = {&fake, &other, &fake, &other, &fake, &other,
						    &fake, &other, &fake, &other, &fake, &other,
						    &fake, &other, &fake, &other, &fake};

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
	 "parsed: source fake fault 0 miss_every 50 record fail cal_window 1000000000"},
	{"source=none seconds=60 record=always", 2, PARSED,
	 "parsed: source none fault 0 miss_every 50 record always cal_window 6000000000"},
	{"source=other seconds=1", 2, PARSED,
	 "parsed: source other fault 0 miss_every 50 record fail cal_window 200000000"},
	{"source=fake fault=miss miss_every=7", 2, PARSED,
	 "parsed: source fake fault 7 miss_every 7 record fail cal_window 1000000000"},
	{"source=fake fault=miss miss_every=2", 2, PARSED,
	 "parsed: source fake fault 7 miss_every 2 record fail cal_window 1000000000"},
	{"source=fake miss_every=7", 2, EXIT_FAIL,
	 "FAIL: miss_every=7: it sets fault=miss's interval, and fault=none was given"},
	{"source=fake fault=miss miss_every=1", 2, EXIT_FAIL,
	 "FAIL: miss_every=1 would mute every expiry: at least 2"},
	{"source=fake hz=10000 seconds=600", 2, EXIT_FAIL,
	 "FAIL: hz * seconds = 6000000 ticks: more than the 2097152 this kernel keeps"},
	{"source=fake hz=10000 seconds=209", 2, PARSED,
	 "parsed: source fake fault 0 miss_every 50 record fail cal_window 20900000000"},
	{"hz=100", 2, EXIT_FAIL, NULL},
	{"source=third", 2, EXIT_FAIL, NULL},
	/* x86 lists 9 since pit-oneshot, which the old bound of 8 refused */
	{"source=fake", 9, PARSED,
	 "parsed: source fake fault 0 miss_every 50 record fail cal_window 1000000000"},
	{"source=fake", 17, EXIT_FAIL, "FAIL: 17 tick sources: at most 16"},
};

static void run_main(const void *arg)
{
	const struct args_case *c = arg;
	char buf[160], *argv[MAX_WORDS] = {"timer-tick"};
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", c->line);
	for (char *w = strtok(buf, " "); w && argc < MAX_WORDS; w = strtok(NULL, " "))
		argv[argc++] = w;
	fake_counter = 0;
	fake_counter_step = STEP;
	tick_main(argc, argv, &arch, sources, c->nsources);
}

static void test_args_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		child_expect(run_main, &cases[i], cases[i].line, cases[i].want_code,
			     cases[i].want_line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_half_rate),
		cmocka_unit_test(test_calibrate_narrowest),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_args_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
