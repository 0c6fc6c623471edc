/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle engine's derived clock (kvmclock): each vCPU's moves against its counter (the TSC) as its parameters change, per phase (judged in lifecycle_derived_check.c). */
#include "lifecycle_state.h"

/*
 * fault=skew on the last vCPU: its derived clock from its first change in
 * the event (an area restored apart); without a derived clock, the
 * counter from the answer on (an offset restored apart).
 */
bool lc_skewed(const struct lc_cpu *me, unsigned i)
{
	if (lc.rec.fault != LC_FAULT_SKEW || me != &lc.rec.cpu[cpu_count() - 1])
		return false;
	if (lc.rec.arch->derived)
		return i == lc.rec.arch->derived->clock && lc_event_changes(me);
	return i == 0 && lc.phase >= LC_AFTER;
}

void lc_follow_derived(struct lc_cpu *me, enum lc_phase ph)
{
	const struct lc_derived *d = lc.rec.arch->derived;
	s64 moved;

	if (!d || !d->changed(&moved))
		return;
	/* fault=skew: the area this vCPU's host restored says its clock is ahead */
	if (lc.rec.fault == LC_FAULT_SKEW && ph != LC_BEFORE && !lc_event_changes(me) &&
	    me == &lc.rec.cpu[cpu_count() - 1])
		moved += (s64)LC_FAULT_SKEW_NS;
	me->moved_ns[ph] += moved;
	me->param_changes[ph]++;
	if (ph == LC_BEFORE)
		me->worst_quiet_move_ns = max(me->worst_quiet_move_ns, lc_magnitude(moved));
}
