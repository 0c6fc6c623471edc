/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's derived clock (kvmclock) against its counter (the TSC) over each event, judged from the record: each vCPU's move to the nanosecond, whether the vCPUs moved alike, whether it fits what the host declares of the two. */
#include "lifecycle_judge.h"

/*
 * A change of parameters that is no event's moves the clock by no more
 * than the arithmetic's rounding: a nanosecond for each of the two
 * products, and one for the host's own.
 */
#define LC_DERIVED_ROUNDING_NS 3

/*
 * What the host declares the event does to the derived clock against the
 * counter (struct lc_clock's semantics): nothing when both run through a
 * stop or both stand still; the stop when one runs and the other not
 * (QEMU 7.2 under KVM: kvmclock frozen, the TSC running, minus the stop).
 */
static s64 declared_move(const struct lc_record *r)
{
	enum lc_event kind = r->done.kind;
	const struct lc_derived *d = r->arch->derived;
	enum lc_semantics clock = r->arch->clocks[d->clock].during[kind],
			  counter = r->arch->clocks[d->counter].during[kind];

	if (clock == counter)
		return 0;
	/* fault=flip: each clock's semantics the opposite way round */
	if (r->fault == LC_FAULT_FLIP)
		clock = counter;
	return clock == LC_FROZEN ? -(s64)r->done.duration_ns : (s64)r->done.duration_ns;
}

static void result_move(struct checks *out, const struct lc_record *r, const char *figure, int cpu,
			s64 ns)
{
	char name[80];

	snprintf(name, sizeof(name), "e%u.%s.%s_vs_%s.%s%d", r->seq, lc_event_name(r->done.kind),
		 r->arch->clocks[r->arch->derived->clock].name,
		 r->arch->clocks[r->arch->derived->counter].name, figure, cpu);
	checks_result(out, name, "ns", "%lld", ns);
}

/*
 * Every vCPU's parameters come from the same host clock: at an event they
 * move alike, to the rounding of each change and what the host's quiet
 * changes moved (its evidence of how far two updates can differ).
 */
static void check_agree(struct checks *out, const struct lc_record *r, const char *clock,
			const char *counter)
{
	s64 lo = lc_event_move(&r->cpu[0]), hi = lo;
	int cpu_lo = 0, cpu_hi = 0;
	u64 quiet = 0, changes = 0, bound;

	for (int cpu = 0; cpu < (int)r->ncpus; cpu++) {
		const struct lc_cpu *c = &r->cpu[cpu];

		if (lc_event_move(c) < lo)
			lo = lc_event_move(c), cpu_lo = cpu;
		if (lc_event_move(c) > hi)
			hi = lc_event_move(c), cpu_hi = cpu;
		quiet = max(quiet, c->worst_quiet_move_ns);
		changes = max(changes, lc_event_changes(c));
	}
	bound = 2 * (changes * LC_DERIVED_ROUNDING_NS + quiet);
	lc_bounded(
		out, r, clock, "vcpus_apart_ns",
		&(struct bounded){
			.unit = "ns", .value = hi - lo, .nbands = 1, .band = {{0, (s64)bound}}},
		"%s moved alike against the %s on every vCPU over the event: %lld ns (vCPU %d) to "
		"%lld ns (vCPU %d), %llu ns apart (bound %llu ns: on each side %u ns of rounding "
		"for each of %llu changes and the largest move at a change in the window before, "
		"%llu ns)",
		clock, counter, lo, cpu_lo, hi, cpu_hi, (u64)(hi - lo), bound,
		LC_DERIVED_ROUNDING_NS, changes, quiet);
}

/* The boot vCPU's move against the host's declaration, within what the host's stamps can say. */
static void check_declared(struct checks *out, const struct lc_record *r, const char *clock,
			   const char *counter)
{
	s64 want = declared_move(r), got = lc_event_move(&r->cpu[0]);
	u64 off = lc_magnitude(got - want),
	    bound = want ? lc_stops(r) * (LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS) + r->done.overhead_ns
			 : lc_event_changes(&r->cpu[0]) * LC_DERIVED_ROUNDING_NS +
				   r->cpu[0].worst_quiet_move_ns;

	lc_bounded(
		out, r, clock, "declared_off_ns",
		&(struct bounded){.unit = "ns",
				  .value = got - want,
				  .nbands = 1,
				  .band = {{-(s64)bound, (s64)bound}}},
		"%s moved %lld ns against the %s over the event; the host declares %s (%lld ns): "
		"%llu ns off (bound %llu ns)",
		clock, got, counter,
		!want	   ? "both run through a stop or both stand still"
		: want < 0 ? "the first stands still while the second runs"
			   : "the first runs while the second stands still",
		want, off, bound);
}

void lc_check_derived(struct checks *out, const struct lc_record *r)
{
	const struct lc_derived *d = r->arch->derived;
	const char *clock = r->arch->clocks[d->clock].name,
		   *counter = r->arch->clocks[d->counter].name;

	for (int cpu = 0; cpu < (int)r->ncpus; cpu++) {
		result_move(out, r, "moved.cpu", cpu, lc_event_move(&r->cpu[cpu]));
		result_move(out, r, "quiet_move.cpu", cpu, (s64)r->cpu[cpu].worst_quiet_move_ns);
	}
	if (!lc_event_changes(&r->cpu[0]) && !declared_move(r)) {
		checks_info(
			out,
			"%s: its parameters did not change over the event: it moved 0 ns against "
			"the %s, as the host declares",
			clock, counter);
	} else {
		check_declared(out, r, clock, counter);
	}
	if (r->ncpus > 1)
		check_agree(out, r, clock, counter);
}
