/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's derived clock (kvmclock) against its counter (the TSC) over each event: each vCPU's move to the nanosecond, whether the vCPUs moved alike, whether it fits what the host declares of the two. */
#include "lifecycle_state.h"
#include "report.h"

/*
 * A change of parameters that is no event's moves the clock by no more
 * than the arithmetic's rounding: a nanosecond for each of the two
 * products, and one for the host's own.
 */
#define LC_DERIVED_ROUNDING_NS 3

static u64 magnitude(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/*
 * The event's changes: from the request to the end of the window after
 * (a vCPU the host runs late after a resume takes its new parameters
 * after the boot vCPU has read the answer: seen under kvm-pvm).
 */
static s64 event_move(const struct lc_cpu *c)
{
	return c->moved_ns[LC_DURING] + c->moved_ns[LC_AFTER];
}

static u64 event_changes(const struct lc_cpu *c)
{
	return (u64)c->param_changes[LC_DURING] + c->param_changes[LC_AFTER];
}

/*
 * fault=skew on the last vCPU: its derived clock from its first change in
 * the event (an area restored apart); without a derived clock, the
 * counter from the answer on (an offset restored apart).
 */
bool lc_skewed(const struct lc_cpu *me, unsigned i)
{
	if (lc.fault != LC_FAULT_SKEW || me != &lc.cpu[cpu_count() - 1])
		return false;
	if (lc.arch->derived)
		return i == lc.arch->derived->clock && event_changes(me);
	return i == 0 && lc.phase >= LC_AFTER;
}

void lc_follow_derived(struct lc_cpu *me, enum lc_phase ph)
{
	const struct lc_derived *d = lc.arch->derived;
	s64 moved;

	if (!d || !d->changed(&moved))
		return;
	/* fault=skew: the area this vCPU's host restored says its clock is ahead */
	if (lc.fault == LC_FAULT_SKEW && ph != LC_BEFORE && !event_changes(me) &&
	    me == &lc.cpu[cpu_count() - 1])
		moved += (s64)LC_FAULT_SKEW_NS;
	me->moved_ns[ph] += moved;
	me->param_changes[ph]++;
	if (ph == LC_BEFORE)
		me->worst_quiet_move_ns = max(me->worst_quiet_move_ns, magnitude(moved));
}

/*
 * What the host declares the event does to the derived clock against the
 * counter (struct lc_clock's semantics): nothing when both run through a
 * stop or both stand still; the stop when one runs and the other not
 * (QEMU 7.2 under KVM: kvmclock frozen, the TSC running, minus the stop).
 */
static s64 declared_move(enum lc_event kind)
{
	const struct lc_derived *d = lc.arch->derived;
	enum lc_semantics clock = lc.arch->clocks[d->clock].during[kind],
			  counter = lc.arch->clocks[d->counter].during[kind];

	if (clock == counter)
		return 0;
	/* fault=flip: each clock's semantics the opposite way round */
	if (lc.fault == LC_FAULT_FLIP)
		clock = counter;
	return clock == LC_FROZEN ? -(s64)lc.done.duration_ns : (s64)lc.done.duration_ns;
}

static void result_move(const char *figure, int cpu, s64 ns)
{
	char name[80];

	snprintf(name, sizeof(name), "e%u.%s.%s_vs_%s.%s%d", lc.seq, lc_event_name(lc.done.kind),
		 lc.arch->clocks[lc.arch->derived->clock].name,
		 lc.arch->clocks[lc.arch->derived->counter].name, figure, cpu);
	report_result(name, "ns", "%lld", ns);
}

/*
 * Every vCPU's parameters come from the same host clock: at an event they
 * move alike, to the rounding of each change and what the host's quiet
 * changes moved (its evidence of how far two updates can differ).
 */
static void check_agree(const char *clock, const char *counter)
{
	s64 lo = event_move(&lc.cpu[0]), hi = lo;
	int cpu_lo = 0, cpu_hi = 0;
	u64 quiet = 0, changes = 0, bound;

	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		const struct lc_cpu *c = &lc.cpu[cpu];

		if (event_move(c) < lo)
			lo = event_move(c), cpu_lo = cpu;
		if (event_move(c) > hi)
			hi = event_move(c), cpu_hi = cpu;
		quiet = max(quiet, c->worst_quiet_move_ns);
		changes = max(changes, event_changes(c));
	}
	bound = 2 * (changes * LC_DERIVED_ROUNDING_NS + quiet);
	lc_bounded(clock, "vcpus_apart_ns",
		   &(struct bounded){.unit = "ns", .value = hi - lo, .nbands = 1,
				     .band = {{0, (s64)bound}}},
	       "%s moved alike against the %s on every vCPU over the event: %lld ns (vCPU %d) to "
	       "%lld ns (vCPU %d), %llu ns apart (bound %llu ns: on each side %u ns of rounding "
	       "for each of %llu changes and the largest move at a change in the window before, "
	       "%llu ns)",
	       clock, counter, lo, cpu_lo, hi, cpu_hi, (u64)(hi - lo), bound,
	       LC_DERIVED_ROUNDING_NS, changes, quiet);
}

/* The boot vCPU's move against the host's declaration, within what the host's stamps can say. */
static void check_declared(enum lc_event kind, const char *clock, const char *counter)
{
	s64 want = declared_move(kind), got = event_move(&lc.cpu[0]);
	u64 off = magnitude(got - want),
	    bound = want ? lc_stops() * (LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS) + lc.done.overhead_ns
			 : event_changes(&lc.cpu[0]) * LC_DERIVED_ROUNDING_NS +
				   lc.cpu[0].worst_quiet_move_ns;

	lc_bounded(clock, "declared_off_ns",
		   &(struct bounded){.unit = "ns", .value = got - want, .nbands = 1,
				     .band = {{-(s64)bound, (s64)bound}}},
	       "%s moved %lld ns against the %s over the event; the host declares %s (%lld ns): "
	       "%llu ns off (bound %llu ns)",
	       clock, got, counter,
	       !want	  ? "both run through a stop or both stand still"
	       : want < 0 ? "the first stands still while the second runs"
			  : "the first runs while the second stands still",
	       want, off, bound);
}

void lc_check_derived(enum lc_event kind)
{
	const struct lc_derived *d = lc.arch->derived;
	const char *clock = lc.arch->clocks[d->clock].name,
		   *counter = lc.arch->clocks[d->counter].name;

	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		result_move("moved.cpu", cpu, event_move(&lc.cpu[cpu]));
		result_move("quiet_move.cpu", cpu, (s64)lc.cpu[cpu].worst_quiet_move_ns);
	}
	if (!event_changes(&lc.cpu[0]) && !declared_move(kind)) {
		report_info("%s: its parameters did not change over the event: it moved 0 ns against "
			    "the %s, as the host declares",
			    clock, counter);
	} else {
		check_declared(kind, clock, counter);
	}
	if (cpu_count() > 1)
		check_agree(clock, counter);
}
