// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/timer_tick.c's planning, on the host: the calibration of a
 * source's clock against the counter (tick_calibrate) and the schedule
 * built from it (tick_slot), with the engine's own sources built
 * unchanged.
 * What: a source counting at half the counter's rate is measured as 2
 * counter ticks per count, within the error the calibration states, which
 * covers the truth; the window between the two samples is waited out; of
 * a sample's tries the narrowest bracket is used, so a read the host
 * delayed does not widen the error; slot i of the schedule is the anchor
 * plus i + 1 periods, in counter ticks.
 * Why: every tick's lateness is measured from these slots; a guest run
 * shows them only through the judgment that uses them.
 * How: the counter moves STEP ticks at every read; the source's count is
 * half the counter at its read, and a scripted read can stall the
 * counter; tick_run is set by hand. The rest of the engine is linked but
 * not run.
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
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/tick_engine.h"

#define STEP   2
#define WINDOW 100000
/* the calibration reads: 16 tries per sample */
#define STALL_READ	 3
#define STALL_TICKS	 5000
#define PPB_OF_TRUTH_MAX 1000

/* --- the arch's hooks -------------------------------------------------------------- */

static u64 counter, reads;
static unsigned stall_at; /* the source read that stalls the counter, 0: none */

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

/* A source at half the counter's rate; its read number stall_at takes STALL_TICKS. */
static u64 half_rate(void)
{
	if (++reads == stall_at)
		counter += STALL_TICKS;
	return counter / 2;
}

static void calibrate(struct tick_cal *cal, unsigned stall)
{
	counter = 1000;
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
	if (counter - start < WINDOW)
		fail_msg("the samples %llu ticks apart, the window is %d", counter - start, WINDOW);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_half_rate),
		cmocka_unit_test(test_calibrate_narrowest),
		cmocka_unit_test(test_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
