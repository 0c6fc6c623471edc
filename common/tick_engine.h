/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's inside, shared by its run and its reports. */
#ifndef VMTICK_TICK_ENGINE_H
#define VMTICK_TICK_ENGINE_H

#include "timer_tick.h"
#include "units.h"

struct tick_ref;

/*
 * Lost ticks the host's scheduling does not explain. A tick is owed for
 * every slot of the schedule the counter passed (tick_slots_owed()), so an
 * interrupt that never comes is lost however the run ends. Periodic
 * sources coalesce expiries their vCPU was not running for (QEMU's HPET
 * and the LAPIC timer skip missed periods); steal time says how long that
 * was, and every period it covers may cost one tick (see account_host()).
 * What is left must be none but the odd one: the last tick, late across
 * a slot's edge; where the host's delays are unseen, tick_report.c allows
 * what one delay as long as TICK_UNEXPLAINED_LATE_MS coalesces.
 */
#define TICK_UNEXPLAINED_LOST_MAX 1
/*
 * Lateness the host's scheduling does not explain, per tick. A tick's
 * lateness is the handler's own time (tens of microseconds under this
 * nested KVM) plus the emulation's latency plus whatever time the vCPU
 * was runnable but not run (steal time, subtracted). The bound is set by
 * what must fail: a tick delayed 20 ms by the guest or the emulation
 * (fault=hold20), on an idle host or a busy one; the handler's own time
 * puts such a tick above 19 ms. What was left over measured about 2 ms on
 * an idle host and at worst 16.3 ms in 60 runs beside two busy loops: the
 * host is itself a guest, and time its own vCPUs lose is nobody's steal
 * time here (docs/timers.md).
 */
#define TICK_UNEXPLAINED_LATE_MS 19
/*
 * A tick that has not come this long after its slot is counted lost: the
 * run ends then, even for a periodic source that still owes ticks.
 */
#define TICK_GRACE_MS 50

/*
 * Faults the checks exist to catch, injected on purpose so that anyone can
 * watch each check fail (docs/timers.md). Never in unittests.cfg's defaults.
 */
enum tick_fault {
	FAULT_NONE,
	FAULT_DROP10,  /* one interrupt in ten not counted */
	FAULT_HOLD20,  /* the interrupt halfway through held 20 ms */
	FAULT_HOLD50,  /* the interrupt halfway through held 50 ms */
	FAULT_FREQ1,   /* the counter's frequency taken 1 % high */
	FAULT_FREQ5,   /* the counter's frequency taken 5 % high */
	FAULT_STOP100, /* a one-shot source not re-armed after 100 ticks */
	FAULT_MISS,    /* a periodic source muted over one expiry in miss_every */
};

struct tick_run {
	const struct tick_arch *arch;
	const struct tick_source *src;
	enum tick_fault fault;
	struct tick_plan plan;
	u64 err_fx; /* plan.cal.err_ppb as a 0.32 fraction */
	u64 *late;  /* counter ticks, one per received tick */
	u64 expected;
	volatile u64 received;
	u64 interrupts; /* taken during the run, counted or not (drop10) */
	/*
	 * Slots of the schedule passed by the last interrupt, by the counter:
	 * what the ticks received are judged against (tick_slots_owed()).
	 */
	u64 slots_passed;
	u64 end_at;	/* counter value the run ended at */
	u64 miss_every; /* fault=miss: one expiry in this many muted */
	u64 missed;	/* expiries fault=miss muted */
	/* the guest's clock advances by its instructions (-icount): the host delays no tick */
	bool clock_by_instructions;
	u64 last_at;	/* counter value of the last tick counted */
	u64 period;	/* counter ticks, for the host accounting */
	/* host accounting (steal time), see account_host() */
	bool has_steal;
	u64 steal_start, steal_prev, steal_lost;
	u64 steal_carry; /* steal time beyond the time between ticks, for the next interval */
	/* the tick whose lateness waits for the steal time published by the next one */
	bool pend_valid;
	u64 pend_tick, pend_late, pend_stolen;
	u64 prev_at; /* counter value of the previous interrupt (the anchor at first) */
	u64 worst_unexplained, worst_unexplained_tick, over_late;
	u64 anchor;   /* counter value the schedule starts from */
	u64 armed_at; /* one-shot: when the pending slot was armed */
	u64 stop_at;
	u64 cal_window; /* counter ticks */
	u64 counter_hz;
	u64 next_slot; /* periodic: the first slot not yet passed */
	u64 early, worst_early, ahead, stray;
	volatile u64 woke_at;
	enum { GUARD_NONE, GUARD_WAKE, GUARD_OTHER } guard;
	volatile bool running, done;
};

/* The one run this kernel makes. */
extern struct tick_run tick_run;

/* Counter value of slot i of the schedule. */
u64 tick_slot(u64 i);
/*
 * The ticks the run owed: the slots passed by its end, by the counter (a
 * clock the source is not derived from), at least every slot of the
 * schedule; a tick that never came is owed however the run ended.
 */
u64 tick_slots_owed(void);

/* ---- the reports (common/tick_report.c) ---- */

/* The source's clock as measured, against its period: what the schedule is built from. */
void tick_report_plan(u64 hz, u64 want_hz);
/* Counts, and the rate over the schedule's span (not the wait for lost ticks at the end). */
void tick_report_counts(u64 span, u64 phase, u64 hz);
void tick_report_lateness(u64 hz);
/* What the host's scheduling explains: steal time over the run, and the ticks it may have cost. */
void tick_report_host(u64 hz);
/* A source that stopped: a failure of its own, with the last tick seen. */
void tick_report_stopped(u64 end, u64 hz);
/* Lost (counted from time), late and early ticks against their bounds; the rate of those that came. */
void tick_report_checks(u64 hz, u64 want_hz);
/* The counter's frequency and the schedule's rate against the reference clock. */
void tick_check_rates(const struct tick_ref *ref, u64 want_hz, u64 hz);
/* RESULT: timer_tick.SOURCE.NAME value unit */
void tick_result(const char *name, const char *unit, u64 value);

#endif
