/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's cross-check: the counter's frequency and the tick rate against a
 * reference clock. */
#ifndef VMTICK_TICK_REF_H
#define VMTICK_TICK_REF_H

#include "refclock.h"
#include "checks.h"

/* A reference marked before and after a run. */
struct tick_ref {
	const struct refclock *ref;
	struct refclock_mark m0, m1;
	const char *why; /* NULL while the marks are good, else why there is no check */
};

/*
 * Pick the first reference of the arch's table the machine has, other
 * than the one called avoid (the device under test), and mark it.
 */
void tick_ref_begin(struct tick_ref *r, const char *avoid, u64 counter_hz);
/* The second mark, after the run. */
void tick_ref_end(struct tick_ref *r, u64 counter_hz);

/* What the run planned: the schedule it kept and the rounding its period needed. */
struct tick_ref_plan {
	const char *source; /* for RESULT names */
	u64 counter_hz;	    /* the frequency the engine used */
	u64 want_hz;	    /* the rate asked for */
	u64 slots;	    /* slots in the schedule... */
	u64 span;	    /* ...over this many counter ticks */
	u64 received;	    /* ticks that came */
	u64 slack_ppb;	    /* the period's rounding and calibration error */
};

/*
 * Check that the counter runs at counter_hz and the schedule at want_hz,
 * both against the reference, each within the measurement's bound plus
 * what the plan allows; report ticks per second in the reference's time.
 */
void tick_ref_check(struct checks *out, const struct tick_ref *r, const struct tick_ref_plan *p);

struct tick_record;
/* The counter's frequency and the record's schedule against the reference (tick_ref_check()). */
void tick_check_rates(struct checks *out, const struct tick_record *r, const struct tick_ref *ref);

#endif
