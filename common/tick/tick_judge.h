/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's judgment: a pure function of a record of one run, so the host can replay
 * it. */
#ifndef VMTICK_TICK_JUDGE_H
#define VMTICK_TICK_JUDGE_H

#include "libc.h"
#include "host_evidence.h"
#include "tick_math.h"
#include "checks.h"

/* Which kinds of source the judgment knows (struct tick_source's kind, common/tick/timer_tick.h). */
enum tick_record_kind {
	TICK_REC_PERIODIC,
	TICK_REC_ONESHOT,
};

/* The host's evidence over one stretch of the run (a gap), asked for it alone. */
struct tick_window {
	u64 a, b; /* counter ticks after the anchor */
	struct host_part ev;
};

/*
 * A tick that has not come this long after its slot is counted lost: the
 * run ends then, even for a periodic source that still owes ticks (the
 * judgment tells a run ended that way by it: common/tick/tick_judge.c).
 */
#define TICK_GRACE_MS 50

/*
 * The host's evidence over the run, cut into equal parts between two
 * marks (what share of each part the host took), and over the stretches
 * the judgment asked about (tick_judge_asks()).
 */
struct tick_host {
	/* NULL: the parts below hold the host's evidence; else why there is none */
	const char *why_none;
	/* the marks, in counter ticks after the anchor (the first may be before it: wrapped) */
	u64 from, to;
	/* how late the host may have stamped either mark, us */
	u64 stamp_us;
	u32 nparts;
	const struct host_part *part; /* lib/host_evidence.h */
	u32 nwin;
	/*
	 * In the order tick_judge_asks() gave them; a stretch no window was
	 * asked about is explained by the waits of the parts it overlaps (as
	 * far as they are not spent)
	 */
	const struct tick_window *win;
};

/* One run as it happened: the plan, every tick that came, the guest's steal time, the host's
 * evidence. */
struct tick_record {
	const char *source;
	enum tick_record_kind kind;
	u64 counter_hz, want_hz;
	u64 expected;	     /* slots in the schedule */
	u64 period_counts;   /* the source's period in its own counts... */
	struct tick_cal cal; /* ...and its clock against the counter */
	u64 end_at;	     /* counter ticks after the anchor at which the run ended */
	u64 n;		     /* ticks received */
	const u64 *at;	     /* when each came, counter ticks after the anchor, in order */
	/* steal time since the start at each tick and at the end, ns; NULL: none here */
	const u64 *steal_ns;
	u64 steal_end_ns;
	/*
	 * The anchor's own counter value (arch_counter() when the schedule
	 * began): with the guest's TSC offset from the host's trace
	 * (kvm_write_tsc_offset), it puts every tick on the host's timeline.
	 * 0 in records from before it was kept. The judgment does not read it.
	 */
	u64 anchor;
	/*
	 * For each tick, counter ticks from its arrival until the guest let
	 * interrupts in again (its handler and the engine's work after it run
	 * with them off; an interrupt accepted meanwhile waits, and a second
	 * one merges with it); 0 where not seen (the run ended). NULL: not
	 * recorded. The judgment does not read it; scripts/tick-trace does.
	 */
	const u64 *open;
	struct tick_host host;
};

/*
 * Lost ticks beyond what the evidence explains that a sound run may still
 * show: the last tick, late across a slot's edge as the run ends.
 */
#define TICK_UNEXPLAINED_LOST_MAX 1
/* A part of the run the host took more than this share of is not judged. */
#define TICK_HOST_SWAMPED_PCT 50
/*
 * A run more than this share of whose parts the host swamped is not
 * judged at all (a SKIP): the ticks lost or late in the rest are too few
 * to tell a fault from the load. Beside a host's hypervisor that stole
 * 2670 ms, 14 of 20 parts of a fault=drop10 run were swamped, and the
 * 6 left showed none of its losses: a PASS by what was never looked at.
 */
#define TICK_JUDGED_MIN_PCT 50
/*
 * The run's normal delivery latency is this percentile of the lateness
 * of the ticks that closed no gap (a gap: slots passed without a tick).
 */
#define TICK_NORMAL_LATE_PCTILE 90

/*
 * What the judgment found: every figure a check needs. Whether a check
 * holds is decided once, where its band is set: tick_checks() (below).
 */
struct tick_verdict {
	u64 period; /* counter ticks */
	u64 owed;   /* slots passed by the end, at least the schedule's */
	u64 lost;   /* owed - n */
	/* lost ticks explained: by steal time, by the host's evidence, by a late delivery */
	u64 lost_steal, lost_host, lost_late;
	u64 lost_pool;	   /* by the host's hypervisor's steal over the part (10 ms grain) */
	u64 lost_unjudged; /* in parts of the run the host swamped */
	u64 unexplained;
	u64 gaps_late;	 /* gaps closed late (the chance allowance's base) */
	u64 normal_late; /* counter ticks: the run's normal delivery latency */
	/* counter ticks: a gap's closing tick up to this late is on time (the latency and a period's uncertainty) */
	u64 on_time;
	u64 chance;	 /* gaps closed within it by chance, allowed */
	u64 allowed;	 /* TICK_UNEXPLAINED_LOST_MAX + chance */
	/*
	 * How far the calibrated schedule may have drifted from the source by
	 * the end (its error over the run); beyond half a period a tick's slot
	 * is unsure, and lost ticks cannot be counted by the schedule.
	 */
	u64 schedule_drift;
	bool schedule_unsure;
	/* lateness beyond the evidence */
	u64 over_late, worst_unexplained, worst_unexplained_tick;
	/* early */
	u64 early, worst_early, ahead;
	/* the arrival rate over the run's real length, thousandths of a tick / of a Hz */
	u64 rate_mhz, sched_mhz, off_milli, bound_milli;
	bool rate_short;
	/* the band the count had to lie in, thousandths of a tick: short by up to, over by up to */
	u64 short_milli, over_milli;
	/* one-shot: ticks still owed at the end, and whether the run ended catching up */
	u64 backlog, catchup_us;
	bool ended_catching_up;
	/* the host's evidence */
	bool host;
	u64 host_us, parts_swamped;
	bool too_little_judged; /* more than TICK_JUDGED_MIN_PCT of the parts swamped: a SKIP */
	/*
	 * Set by the caller after the judgment, not by it: the lost-tick
	 * check's resolution on this run (tick_resolution: catches 1 in K,
	 * 0 none; taken where the check passed), and the resolution the entry
	 * declares it needs (resolution=N; 0: none declared).
	 */
	u64 catches_one_in, needs_one_in;
	bool resolution_taken;
};

/* Counter value (after the anchor) of slot i of the schedule. */
u64 tick_rec_slot(const struct tick_record *r, u64 i);
/* The period, in counter ticks (at least 1). */
u64 tick_rec_period(const struct tick_record *r);
/* What a planned period may be off by: a whole count, and the calibration's error (ppb). */
u64 tick_rec_slack_ppb(const struct tick_record *r);

/*
 * The judgment's workspace, n entries each (the caller's: the guest has
 * no room to spare on its stack). Afterwards late[] holds each tick's
 * lateness against its slot (counter ticks), for the statistics.
 */
struct tick_work {
	u64 *late, *own, *lost, *early, *scratch;
	u64 ahead, passed;
	/* tick_resolution's copy of the record's ticks and steal (n each; NULL: none taken) */
	u64 *sim_at, *sim_steal;
};

/*
 * The stretches of the run the judgment needs the host's evidence over,
 * in order: gaps whose lost ticks the guest's steal time does not explain,
 * and ticks later than the bound beyond it. Fills w[0..max-1] (.ev left
 * zero); returns how many there are (more than max: the rest are not
 * asked, and a gap not asked about is explained by its parts' waits).
 */
u64 tick_judge_asks(const struct tick_record *r, struct tick_window *out, u64 max,
		    struct tick_work *w);

/* Judge a run. */
void tick_judge(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w);

/*
 * The lost-tick check's resolution on this run: the rarest rate of
 * never-delivered interrupts it would still have caught, as K of "1 in K"
 * (TICK_RESOLUTION_LADDER, the rates scripts/tick-miss-sweep tries); 0
 * when not even the most often is caught, or the check is not judged here
 * (a one-shot source: one lost stops it, a check of its own). Each rate is
 * the run again with every K-th of its ticks taken out (as fault=miss
 * mutes the source), judged by the same judgment: the run's own noise and
 * the host's waits, a stretch not asked about explained by its parts'
 * waits (as every stretch without a window is: a real loss would have
 * been asked about). Uses w->sim_at and w->sim_steal (n each).
 */
#define TICK_RESOLUTION_LADDER 2000, 1000, 500, 200, 100, 50, 20, 12, 10, 5, 2
u64 tick_resolution(const struct tick_record *r, struct tick_work *w);

/*
 * ---- the judgment's words (common/tick/tick_checks.c) ----------------------
 * Each appends to out what the guest prints of the run, in order: figures
 * (RESULT), the context a reader needs (INFO), and checks, bounded
 * (BOUND, then PASS/FAIL) or not judged (SKIP). Pure functions of the
 * record and the verdict; the engine prints the list (report_checks()).
 */

/* Room for one run's list: its figures, lateness buckets, context and checks. */
#define TICK_CHECKS_MAX	    128
#define TICK_CHECKS_TEXT_KB 48
/* The lost-tick check alone: a SKIP, or its allowance (INFO) and its BOUND. */
#define TICK_LOST_ENTRIES 2

/* The source's clock as measured, against its period: what the schedule is built from. */
void tick_note_plan(struct checks *out, const struct tick_record *r);
/* Counts, and the rate over the schedule's span (not the wait for lost ticks at the end). */
void tick_note_counts(struct checks *out, const char *source, u64 expected, u64 received, u64 span,
		      u64 phase, u64 counter_hz);
/* The lateness of each tick against its slot (late[], counter ticks, sorted here): its
 * distribution. */
void tick_note_lateness(struct checks *out, const struct tick_record *r, u64 *late);
/* The evidence the run was judged with: the guest's steal time, the host's. */
void tick_note_host(struct checks *out, const struct tick_record *r, const struct tick_verdict *v);
/* A source that stopped: a failure of its own, with the last tick seen. */
void tick_check_stopped(struct checks *out, const struct tick_record *r, u64 interrupts);
/* Lost, late and early ticks against their bounds; the rate of those that came. */
void tick_checks(struct checks *out, const struct tick_record *r, const struct tick_verdict *v);
/*
 * The lost-tick check alone, as tick_checks() makes it: not judged (a
 * SKIP, and why), or the allowance's derivation and the bounded check
 * timer_tick.SOURCE.lost_unexplained. The one place it is decided.
 */
void tick_check_lost(struct checks *out, const struct tick_record *r, const struct tick_verdict *v);
/*
 * Whether a list holds a failed bounded check of figure NAME of the
 * run's source (timer_tick.SOURCE.NAME); false when it was not judged.
 */
bool tick_check_failed(const struct checks *l, const struct tick_record *r, const char *name);
/* Whether the lost-tick check, made by tick_check_lost() into a list of its own, fails. */
bool tick_lost_fails(const struct tick_record *r, const struct tick_verdict *v);
/* The lost-tick check's resolution on this run where it passed (tick_resolution), into v. */
void tick_take_resolution(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w,
			  u64 needs_one_in);

#endif
