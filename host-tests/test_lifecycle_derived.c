// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_derived.c, the lifecycle test's derived clock (kvmclock)
 * against its counter (the TSC), on the host with the real lib/report.c.
 * What: each vCPU's parameter changes are fed through lc_follow_derived()
 * by phase, as the sampling half does, with a fake arch whose changed()
 * hands out the moves of a script; lc_check_derived() then judges the
 * event: the boot vCPU's move against what the clocks' declared semantics
 * make of the stop, and every vCPU's move against the others'.
 * Why: a host that restores the vCPUs' pvclock areas apart, or whose
 * kvmclock moves against the TSC by other than its declared model, shows
 * only on such a host (or with fault=skew, fault=flip); here each bound is
 * hit from both sides, the skew fault included.
 * How: two vCPUs, a 1000 ms pause (QEMU's own work 4 ms); a move is given
 * to the vCPU and phase it happens in; the PASS/FAIL/INFO lines are read
 * back (console_capture.h).
 */
/* LIBSRC: common/lifecycle/lifecycle_derived.c common/lifecycle/lifecycle_derived_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/report.c lib/checks.c lib/fixed.c */
/* LIBSRC: lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"
#include "../lib/units.h"

#define NCPUS	      2
#include "fake_checks_arch.h"
#include "judged.h"
#define MS	      ((s64)NSEC_PER_MSEC)
#define PAUSE_STOP_NS (1000 * MS)
#define PAUSE_QEMU_NS (4 * MS)
#define MAX_MOVES     4

struct lc_state lc;
static int current_cpu;
/* the move the fake changed() hands out next, and whether there is one */
static s64 next_move;
static bool has_move;

int smp_id(void)
{
	return current_cpu;
}

static u64 never_read(void)
{
	fail_msg("a check read a clock");
	return 0;
}

static bool fake_changed(s64 *moved_ns)
{
	if (!has_move)
		return false;
	*moved_ns = next_move;
	has_move = false;
	return true;
}

static void fake_forget(void)
{
}

enum { CLOCK_TSC, CLOCK_KVMCLOCK, NCLOCKS };

static const struct lc_clock clocks[NCLOCKS] = {
	[CLOCK_TSC] = { .name = "TSC", .read = never_read, .during = { LC_RUNS, LC_RUNS, LC_RUNS } },
	[CLOCK_KVMCLOCK] = { .name = "kvmclock", .read = never_read, .hz = NSEC_PER_SEC,
			     .during = { LC_FROZEN, LC_FROZEN, LC_FROZEN } },
};
static const struct lc_derived derived = { CLOCK_KVMCLOCK, CLOCK_TSC, fake_changed, fake_forget };
static const struct lc_arch arch = { .clocks = clocks, .nclocks = NCLOCKS, .derived = &derived };

/* One parameter change on a vCPU in a phase, as the sampling half's step() sees it. */
struct move {
	int cpu;
	enum lc_phase ph;
	s64 ns;
};

struct derived_case {
	const char *what;
	enum lc_fault fault;
	struct move moves[MAX_MOVES];
	unsigned nmoves;
	const char *lines[3];
};

static void play(const void *arg)
{
	const struct derived_case *c = arg;

	fresh_event(&arch, NCPUS, COUNTER_HZ, LC_PAUSE);
	lc.rec.fault = c->fault;
	lc.rec.done = (struct lc_done){ .kind = LC_PAUSE, .seq = 1, .duration_ns = PAUSE_STOP_NS,
				    .overhead_ns = PAUSE_QEMU_NS };
	for (unsigned i = 0; i < c->nmoves; i++) {
		current_cpu = c->moves[i].cpu;
		next_move = c->moves[i].ns;
		has_move = true;
		lc_follow_derived(&lc.rec.cpu[current_cpu], c->moves[i].ph);
	}
	current_cpu = 0;
	PRINTED(lc_check_derived(J, &lc.rec));
}

/*
 * The declared model for a pause: kvmclock frozen, the TSC running, so
 * -1000 ms; bound 10 (the stamps) + 50 (QEMU's unseen steps) + 4 ms. The
 * vCPUs agree within 3 ns a change on each side plus the largest move at a
 * change before the event.
 */
#define DECLARED(got, off)                                                                         \
	"PASS: kvmclock moved " got " ns against the TSC over the event; the host declares the "   \
	"first stands still while the second runs (-1000000000 ns): " off " ns off (bound "       \
	"64000000 ns)"

static const struct derived_case cases[] = {
	{
		"a clean pause: both vCPUs move by the stop, to the ns",
		LC_FAULT_NONE,
		{ { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500001 } }, 2,
		{ DECLARED("-1000500000", "500000"),
		  "PASS: kvmclock moved alike against the TSC on every vCPU over the event: "
		  "-1000500001 ns (vCPU 1) to -1000500000 ns (vCPU 0), 1 ns apart (bound 6 ns: on "
		  "each side 3 ns of rounding for each of 1 changes and the largest move at a change "
		  "in the window before, 0 ns)" },
	},
	{
		"vCPU 1 takes its new parameters after the answer: still the event's",
		LC_FAULT_NONE,
		{ { 0, LC_DURING, -1000500000 }, { 1, LC_AFTER, -1000500000 } }, 2,
		{ DECLARED("-1000500000", "500000"),
		  "PASS: kvmclock moved alike against the TSC on every vCPU over the event: "
		  "-1000500000 ns (vCPU 0) to -1000500000 ns (vCPU 0), 0 ns apart (bound 6 ns: on "
		  "each side 3 ns of rounding for each of 1 changes and the largest move at a change "
		  "in the window before, 0 ns)" },
	},
	{
		"vCPU 1's area restored 7 ns apart, beyond the rounding",
		LC_FAULT_NONE,
		{ { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000499993 } }, 2,
		{ "FAIL: kvmclock moved alike against the TSC on every vCPU over the event: "
		  "-1000500000 ns (vCPU 0) to -1000499993 ns (vCPU 1), 7 ns apart (bound 6 ns: on "
		  "each side 3 ns of rounding for each of 1 changes and the largest move at a change "
		  "in the window before, 0 ns)" },
	},
	{
		"a host whose quiet updates move 40 ns allows that much apart",
		LC_FAULT_NONE,
		{ { 0, LC_BEFORE, 40 }, { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000499950 } },
		3,
		{ "PASS: kvmclock moved alike against the TSC on every vCPU over the event: "
		  "-1000500000 ns (vCPU 0) to -1000499950 ns (vCPU 1), 50 ns apart (bound 86 ns: on "
		  "each side 3 ns of rounding for each of 1 changes and the largest move at a change "
		  "in the window before, 40 ns)" },
	},
	{
		"fault=skew: the last vCPU 1 ms ahead from its first change in the event",
		LC_FAULT_SKEW,
		{ { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500000 } }, 2,
		{ "FAIL: kvmclock moved alike against the TSC on every vCPU over the event: "
		  "-1000500000 ns (vCPU 0) to -999500000 ns (vCPU 1), 1000000 ns apart (bound 6 ns: "
		  "on each side 3 ns of rounding for each of 1 changes and the largest move at a "
		  "change in the window before, 0 ns)" },
	},
	{
		"kvmclock that kept running with the TSC: fits no declared model",
		LC_FAULT_NONE,
		{ { 0, LC_DURING, -20 }, { 1, LC_DURING, -20 } }, 2,
		{ "FAIL: kvmclock moved -20 ns against the TSC over the event; the host declares the "
		  "first stands still while the second runs (-1000000000 ns): 999999980 ns off "
		  "(bound 64000000 ns)" },
	},
	{
		"fault=flip: the opposite semantics declared",
		LC_FAULT_FLIP,
		{ { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500000 } }, 2,
		{ "FAIL: kvmclock moved -1000500000 ns against the TSC over the event; the host "
		  "declares the first runs while the second stands still (1000000000 ns): "
		  "2000500000 ns off (bound 64000000 ns)" },
	},
	{
		"no change at all over a stop kvmclock is frozen in: a FAIL, not nothing",
		LC_FAULT_NONE,
		{ { 0, LC_BEFORE, 0 } }, 1,
		{ "FAIL: kvmclock moved 0 ns against the TSC over the event; the host declares the "
		  "first stands still while the second runs (-1000000000 ns): 1000000000 ns off "
		  "(bound 64000000 ns)" },
	},
};

static void test_cases(void **state)
{
	static char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		printf("case: %s\n", cases[i].what);
		capture(play, &cases[i], out, sizeof(out));
		for (size_t l = 0; l < 3 && cases[i].lines[l]; l++)
			has_line(out, cases[i].lines[l]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
