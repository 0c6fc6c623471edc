/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's inside, shared by its run and its reports. */
#ifndef VMTICK_TICK_ENGINE_H
#define VMTICK_TICK_ENGINE_H

#include "timer_tick.h"
#include "tick_judge.h"
#include "units.h"

struct tick_ref;

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
	FAULT_EARLY10, /* one one-shot arming in ten followed at once by the tick's vector */
};

struct tick_run {
	const struct tick_arch *arch;
	enum record_when record; /* record=: when the run's record is printed */
	const struct tick_source *src;
	enum tick_fault fault;
	struct tick_plan plan;
	u64 err_fx; /* plan.cal.err_ppb as a 0.32 fraction */
	u64 *at;    /* counter value of each tick received */
	u64 *steal; /* steal time since the start at each tick received, ns */
	u64 *open;  /* counter value when interrupts were let in after each tick (0: not yet) */
	u64 expected;
	volatile u64 received;
	u64 interrupts; /* taken during the run, counted or not (drop10) */
	u64 end_at;	/* counter value the run ended at */
	u64 miss_every; /* fault=miss: one expiry in this many muted */
	u64 needs_one_in; /* resolution=: the rarest loss the lost-tick check must catch (0: any) */
	u64 missed;	/* expiries fault=miss muted */
	u64 last_at;	/* counter value of the last tick counted */
	u64 period;	/* counter ticks */
	bool has_steal;
	u64 steal_start;
	u64 anchor;   /* counter value the schedule starts from */
	u64 stop_at;
	u64 cal_window; /* counter ticks */
	u64 counter_hz;
	u64 next_slot; /* periodic: the first slot not yet passed */
	u64 stray;
	u64 stale;	 /* interrupts the source's stale() gave to abandoned armings */
	u64 slow_arm_ns; /* slow_arm=: the pause between an arming's write and read-back */
	u64 armings;	 /* one-shot armings made: slow_arm= stretches one in 8 */
	volatile u64 woke_at;
	enum { GUARD_NONE, GUARD_WAKE, GUARD_OTHER } guard;
	volatile bool running, done;
};

/* The one run this kernel makes. */
extern struct tick_run tick_run;

/* Counter value of slot i of the schedule. */
u64 tick_slot(u64 i);

/* The idle baseline's source (source=none), after an arch's own. */
extern const struct tick_source tick_source_none;

/* ---- the arguments (common/tick/timer_tick_args.c) ---- */

/* An arch's table of sources (x86 has 9); a longer one aborts the run, naming this bound. */
#define TICK_SOURCES_MAX 16

struct tick_args {
	const char *sources[TICK_SOURCES_MAX + 1]; /* srcs' names, then "none" */
	unsigned source, fault, record;
	u64 hz, seconds, miss_every, resolution, slow_arm_us;
};

/*
 * The source a run ticks with, one of srcs or tick_source_none; every
 * other argument into a (miss_every's default filled in). It writes
 * nothing else: the engine takes a into tick_run.
 */
const struct tick_source *tick_parse_args(int argc, char **argv, const struct tick_source *const *srcs,
					 size_t n, struct tick_args *a);
/* fault='s name of tick_run.fault */
const char *tick_fault_name(void);

/* ---- the host's evidence (common/tick/tick_host.c) ---- */

/* The judgment's workspace for n ticks, once per run. */
struct tick_work *tick_work(u64 n);
/*
 * The host's evidence over the run, the span between its two marks
 * (lib/host_evidence.h), and over each stretch the judgment asks about,
 * into r->host; r->host.why_none when none.
 */
void tick_ask_host(struct tick_record *r, const struct host_span *s);

#endif
