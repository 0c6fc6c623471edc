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
 * to the vCPU and phase it happens in; the checks are read back as entries
 * (lc_entries.h: each figure, its band, its outcome), each vCPU's move as
 * its RESULT.
 */
/* LIBSRC: common/lifecycle/lifecycle_derived.c common/lifecycle/lifecycle_derived_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/report.c lib/checks.c lib/fixed.c */
/* LIBSRC: lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"
#include "../lib/units.h"

#define NCPUS	      2
#include "fake_checks_arch.h"
#include "judged.h"
#include "lc_entries.h"
#define MS	      ((s64)NSEC_PER_MSEC)
#define PAUSE_STOP_NS (1000 * MS)
#define PAUSE_QEMU_NS (4 * MS)
#define MAX_MOVES     4
#define MAX_WANTS     4

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
	struct want want[MAX_WANTS];
};

static struct checks *play(const struct derived_case *c)
{
	struct checks *l = test_checks();

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
	lc_check_derived(l, &lc.rec);
	return l;
}

/*
 * The declared model for a pause: kvmclock frozen, the TSC running, so
 * -1000 ms; the boot vCPU's move is that many ns off it, bound 10 (the
 * stamps) + 50 (QEMU's unseen steps) + 4 ms. The vCPUs agree within 3 ns a
 * change on each side plus the largest move at a change before the event.
 * Each vCPU's move is its RESULT.
 */
#define DECLARED(verdict, off_ns) \
	{ verdict, FIGURE("e1.pause.kvmclock.declared_off_ns", "ns", off_ns, -64 * MS, 64 * MS) }
#define APART(verdict, ns, bound_ns) \
	{ verdict, FIGURE("e1.pause.kvmclock.vcpus_apart_ns", "ns", ns, 0, bound_ns) }
#define MOVED(cpu, ns) { RESULT_IS("e1.pause.kvmclock_vs_TSC.moved.cpu" #cpu, "ns", ns) }

static const struct derived_case cases[] = {
	{ "a clean pause: both vCPUs move by the stop, to the ns", LC_FAULT_NONE,
	  { { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500001 } }, 2,
	  { DECLARED(WANT_PASS, -500000), APART(WANT_PASS, 1, 6), MOVED(0, "-1000500000"),
	    MOVED(1, "-1000500001") } },
	{ "vCPU 1 takes its new parameters after the answer: still the event's", LC_FAULT_NONE,
	  { { 0, LC_DURING, -1000500000 }, { 1, LC_AFTER, -1000500000 } }, 2,
	  { DECLARED(WANT_PASS, -500000), APART(WANT_PASS, 0, 6), MOVED(1, "-1000500000") } },
	{ "vCPU 1's area restored 7 ns apart, beyond the rounding", LC_FAULT_NONE,
	  { { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000499993 } }, 2,
	  { APART(WANT_FAIL, 7, 6), MOVED(1, "-1000499993") } },
	{ "a host whose quiet updates move 40 ns allows that much apart", LC_FAULT_NONE,
	  { { 0, LC_BEFORE, 40 }, { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000499950 } }, 3,
	  { APART(WANT_PASS, 50, 86), { RESULT_IS("e1.pause.kvmclock_vs_TSC.quiet_move.cpu0", "ns",
						  "40") } } },
	{ "fault=skew: the last vCPU 1 ms ahead from its first change in the event", LC_FAULT_SKEW,
	  { { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500000 } }, 2,
	  { APART(WANT_FAIL, 1000000, 6), MOVED(1, "-999500000") } },
	{ "kvmclock that kept running with the TSC: fits no declared model", LC_FAULT_NONE,
	  { { 0, LC_DURING, -20 }, { 1, LC_DURING, -20 } }, 2,
	  { DECLARED(WANT_FAIL, 999999980), MOVED(0, "-20") } },
	/* declared: the first runs while the second stands still, +1000 ms */
	{ "fault=flip: the opposite semantics declared", LC_FAULT_FLIP,
	  { { 0, LC_DURING, -1000500000 }, { 1, LC_DURING, -1000500000 } }, 2,
	  { DECLARED(WANT_FAIL, -2000500000), MOVED(0, "-1000500000") } },
	{ "no change at all over a stop kvmclock is frozen in: a FAIL, not nothing", LC_FAULT_NONE,
	  { { 0, LC_BEFORE, 0 } }, 1, { DECLARED(WANT_FAIL, 1000000000), MOVED(0, "0") } },
};

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		LC_EXPECT(cases[i].what, play(&cases[i]), cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
