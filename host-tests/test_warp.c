// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/warp/warp.c, the cross-vCPU warp check, on the host, with the real
 * lib/report.c under it.
 * What: the counting of every read against the one before it (a warp, a
 * stall, progress, a hand-off from another vCPU), the largest step back,
 * the quickest hand-off, the clock's width (a wrap of a 24-bit counter is
 * progress, not a warp), fault_skew on the last vCPU only, the RESULT
 * and INFO lines a test's table asks for, and the check's BOUND line.
 * Why: on a host the check runs on, the vCPUs' clocks agree, so a guest
 * run shows the counting only through fault=warp; here each figure is hit
 * with reads chosen for it.
 * How: the arch's hooks are played here: on_cpus() runs the vCPUs one
 * after the other (every turn of vCPU 0, then of vCPU 1, ...), so the
 * reads come in a known order, and the clock returns a scripted list of
 * reads; the turns are the engine's, the fake arch's take and give only
 * count themselves.
 */
/* LIBSRC: common/warp/warp.c lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/warp/warp.h"

#define MAX_READS 16
#define MASK_24	  ((1ull << 24) - 1)

/* --- the arch's hooks ---------------------------------------------------------------- */

static int ncpus, current_cpu;
static u64 script[MAX_READS];
static unsigned script_n, script_at, turns_taken, turns_given;

void cpu_relax(void)
{
}

int smp_id(void)
{
	return current_cpu;
}

int cpu_count(void)
{
	return ncpus;
}

void on_cpus(void (*fn)(void *), void *arg)
{
	for (current_cpu = 0; current_cpu < ncpus; current_cpu++)
		fn(arg);
	current_cpu = 0;
}

static u64 scripted_read(void)
{
	if (script_at >= script_n)
		fail_msg("read %u of a script of %u", script_at + 1, script_n);
	return script[script_at++];
}

static void *fake_turns_new(void)
{
	return &turns_taken;
}

static void fake_turn_take(void *turns)
{
	assert_ptr_equal(turns, &turns_taken);
	turns_taken++;
}

static void fake_turn_give(void *turns)
{
	turns_given++;
}

static const struct warp_arch fake_arch = {
	.turns_new = fake_turns_new,
	.turn_take = fake_turn_take,
	.turn_give = fake_turn_give,
};

/* --- the cases: the first read is warp_run()'s own, then each vCPU's loops in order ------ */

struct warp_case {
	const char *what;
	int cpus;
	u64 mask, loops, fault_skew;
	u64 reads[MAX_READS];
	struct warp_findings want; /* the totals */
};

static const struct warp_case cases[] = {
	{"steady progress, one hand-off",
	 2,
	 WARP_MASK_64,
	 2,
	 0,
	 {100, 110, 120, 150, 160},
	 {.handoffs = 1, .min_handoff = 30, .max_step = 30}},
	{"vCPU 1 behind vCPU 0: one warp, then its own progress",
	 2,
	 WARP_MASK_64,
	 2,
	 0,
	 {100, 110, 120, 115, 125},
	 {.warps = 1, .worst = 5, .min_handoff = WARP_NO_HANDOFF, .max_step = 10}},
	{"equal reads are stalls, a stall from another vCPU no hand-off",
	 2,
	 WARP_MASK_64,
	 2,
	 0,
	 {100, 100, 110, 110, 111},
	 {.stalls = 2, .min_handoff = WARP_NO_HANDOFF, .max_step = 10}},
	{"a 24-bit counter's wrap is progress",
	 2,
	 MASK_24,
	 2,
	 0,
	 {MASK_24 - 5, MASK_24 - 1, 2, 4, 9},
	 {.handoffs = 1, .min_handoff = 2, .max_step = 5}},
	{"a 24-bit counter: a step back over half its range is a warp",
	 2,
	 MASK_24,
	 1,
	 0,
	 {1000, 1010, 990},
	 {.warps = 1, .worst = 20, .handoffs = 0, .min_handoff = WARP_NO_HANDOFF, .max_step = 10}},
	{"fault_skew moves the last vCPU's reads back",
	 3,
	 WARP_MASK_64,
	 1,
	 50,
	 {100, 110, 120, 150},
	 {.warps = 1, .worst = 20, .handoffs = 1, .min_handoff = 10, .max_step = 10}},
	{"the quickest and the largest steps over three vCPUs",
	 3,
	 WARP_MASK_64,
	 1,
	 0,
	 {100, 107, 110, 200},
	 {.handoffs = 2, .min_handoff = 3, .max_step = 90}},
};

static void load(const struct warp_case *c)
{
	ncpus = c->cpus;
	script_n = (unsigned)(1 + c->loops * (u64)c->cpus);
	script_at = turns_taken = turns_given = 0;
	memcpy(script, c->reads, sizeof(script));
}

static void run_case(const struct warp_case *c, struct warp_findings *total)
{
	struct warp_check check = {
		.arch = &fake_arch,
		.read = scripted_read,
		.mask = c->mask,
		.loops = c->loops,
		.fault_skew = c->fault_skew,
	};
	u64 warps;

	load(c);
	warps = warp_run(&check, total);
	assert_int_equal(warps, total->warps);
	assert_int_equal(script_at, script_n);
	assert_int_equal(turns_taken, c->loops * (u64)c->cpus);
	assert_int_equal(turns_given, turns_taken);
}

#define EXPECT(c, got, field)                                                 \
	do {                                                                  \
		if ((got).field != (c)->want.field)                           \
			fail_msg("%s: " #field " %llu, want %llu", (c)->what, \
				 (unsigned long long)(got).field,             \
				 (unsigned long long)(c)->want.field);        \
	} while (0)

static void test_counting_table(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct warp_case *c = &cases[i];
		struct warp_findings t;

		run_case(c, &t);
		EXPECT(c, t, warps);
		EXPECT(c, t, stalls);
		EXPECT(c, t, handoffs);
		EXPECT(c, t, worst);
		EXPECT(c, t, min_handoff);
		EXPECT(c, t, max_step);
	}
}

/* Per vCPU: the warp is the reading vCPU's, the hand-off the vCPU's that read after another. */
static void test_per_vcpu(void **state)
{
	struct warp_findings t;

	run_case(&cases[1], &t);
	assert_int_equal(warp_vcpu(0)->warps, 0);
	assert_int_equal(warp_vcpu(1)->warps, 1);
	assert_int_equal(warp_vcpu(1)->worst, 5);
	run_case(&cases[0], &t);
	assert_int_equal(warp_vcpu(0)->handoffs, 0);
	assert_int_equal(warp_vcpu(1)->handoffs, 1);
	assert_int_equal(warp_vcpu(1)->min_handoff, 30);
}

static const struct warp_result vcpu_rows[] = {
	{WARP_WARPS, "warps", "count"},
	{WARP_WORST_STEP, "worst_warp_ticks", "ticks"},
	{WARP_MIN_HANDOFF, "min_handoff_ticks", "ticks"},
};
static const struct warp_result total_rows[] = {
	{WARP_WARPS, "warps", "count"},
	{WARP_WORST_BACK, "worst_back_ticks", "ticks"},
	{WARP_STALLS, "stalls", "count"},
	{WARP_HANDOFFS, "handoffs", "count"},
	{WARP_MAX_STEP, "max_step_ticks", "ticks"},
};
static const struct warp_report rows = {vcpu_rows, 3, total_rows, 5};

static void report_warp_case(const void *arg)
{
	struct warp_findings t;

	run_case(arg, &t);
	warp_report_vcpus(&rows, "t.");
	warp_report_handoff(&t, "clk: ", "ticks");
	warp_report_totals(&rows, "t.", &t);
}

/* vCPU 0 had no hand-off: its min_handoff row is left out; a worst step is negative. */
static void test_report_lines(void **state)
{
	char out[CAPTURE_MAX];

	capture(report_warp_case, &cases[5], out, sizeof(out));
	EXACTLY(out, "RESULT: t.vcpu0.warps 0 count", "RESULT: t.vcpu0.worst_warp_ticks 0 ticks",
		"RESULT: t.vcpu1.warps 0 count", "RESULT: t.vcpu1.worst_warp_ticks 0 ticks",
		"RESULT: t.vcpu1.min_handoff_ticks 10 ticks", "RESULT: t.vcpu2.warps 1 count",
		"RESULT: t.vcpu2.worst_warp_ticks -20 ticks",
		"INFO: clk: quickest hand-off 10 ticks: smaller offsets between vCPUs cannot show",
		"RESULT: t.warps 1 count", "RESULT: t.worst_back_ticks 20 ticks",
		"RESULT: t.stalls 0 count", "RESULT: t.handoffs 1 count",
		"RESULT: t.max_step_ticks 10 ticks");
}

/* No hand-off at all: no INFO line. */
static void test_report_no_handoff(void **state)
{
	char out[CAPTURE_MAX];

	capture(report_warp_case, &cases[1], out, sizeof(out));
	lacks(out, "quickest hand-off");
}

static void check_warp_case(const void *arg)
{
	struct warp_findings t;

	run_case(arg, &t);
	warp_report_check("t.", &t, "clk never goes backwards (%llu warps)",
			  (unsigned long long)t.warps);
}

/* The check: the total warps a BOUND line within 0..0, the outcome the band's. */
static void test_check_bound(void **state)
{
	char out[CAPTURE_MAX];

	capture(check_warp_case, &cases[0], out, sizeof(out));
	EXACTLY(out, "BOUND: t.warps 0 count 0..0", "PASS: clk never goes backwards (0 warps)");
	/* fault_skew's warp, as fault=warp makes one */
	capture(check_warp_case, &cases[5], out, sizeof(out));
	EXACTLY(out, "BOUND: t.warps 1 count 0..0", "FAIL: clk never goes backwards (1 warps)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting_table),
		cmocka_unit_test(test_per_vcpu),
		cmocka_unit_test(test_report_lines),
		cmocka_unit_test(test_report_no_handoff),
		cmocka_unit_test(test_check_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
