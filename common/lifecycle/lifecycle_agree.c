/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's clocks across vCPUs: each vCPU's offset to the boot vCPU's, by hand-offs before and after the event, must not move. */
#include "lifecycle_judge.h"

/* A signed count of clock ticks in ns. */
static s64 signed_ns(s64 ticks, u64 hz)
{
	return ticks < 0 ? -(s64)ticks_to_ns(-(u64)ticks, hz) : (s64)ticks_to_ns((u64)ticks, hz);
}

static void result_moved(struct checks *out, const struct lc_record *r, const struct lc_clock *c,
			 int cpu, s64 ns)
{
	char name[80];

	snprintf(name, sizeof(name), "e%u.%s.%s.offset_moved.cpu%d", r->seq,
		 lc_event_name(r->done.kind), c->name, cpu);
	checks_result(out, name, "ns", "%lld", ns);
}

/*
 * One clock on one vCPU: its offset to the boot vCPU's, bracketed before
 * and after the event, must lie in both brackets at once (to the grain):
 * a host that restores the vCPUs' clocks at different moments moves it,
 * and a task moved between them sees time go back or leap.
 */
static void check_one(struct checks *out, const struct lc_record *r, unsigned i, int cpu)
{
	const struct lc_clock *c = &r->arch->clocks[i];
	struct bracket b = r->cpu[cpu].agree[0][i], a = r->cpu[cpu].agree[1][i];
	s64 gap = bracket_gap(a, b), moved = (a.lo + a.hi) / 2 - (b.lo + b.hi) / 2;
	u64 hz = lc_clock_hz(r, c);
	char figure[32];

	result_moved(out, r, c, cpu, signed_ns(moved, hz));
	snprintf(figure, sizeof(figure), "offset_gap.cpu%d", cpu);
	/* the brackets' gap in the clock's own ticks, exactly as checked (negative: they overlap) */
	lc_bounded(out, r, c->name, figure,
		   &(struct bounded){.unit = "ticks",
				     .value = gap,
				     .nbands = 1,
				     .band = {{BOUND_OPEN_LO, LC_AGREE_GRAIN_TICKS}}},
		   "vCPU %d's %s against vCPU 0's kept its offset over the event: %lld..%lld ns "
		   "before, %lld..%lld ns after (moved %lld ns; bound: the brackets overlap, to %u "
		   "tick)",
		   cpu, c->name, signed_ns(b.lo, hz), signed_ns(b.hi, hz), signed_ns(a.lo, hz),
		   signed_ns(a.hi, hz), signed_ns(moved, hz), LC_AGREE_GRAIN_TICKS);
}

void lc_check_agree(struct checks *out, const struct lc_record *r)
{
	for (unsigned i = 0; i < r->arch->nclocks; i++)
		for (int cpu = 1; cpu < (int)r->ncpus; cpu++)
			check_one(out, r, i, cpu);
}
