/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lifecycle test's record of an event, its bounds and its judgment:
 * what the engine fills (common/lifecycle/lifecycle_state.h) and the checks
 * judge (common/lifecycle/lifecycle_judge.c and the files it calls). A
 * judge includes this header alone: the engine's state and the printer
 * (report.h) are out of its reach, so a judge that touches them does not
 * compile.
 */
#ifndef VMTICK_LIFECYCLE_JUDGE_H
#define VMTICK_LIFECYCLE_JUDGE_H

#include "lifecycle.h"
#include "checks.h"
#include "arch.h"
#include "handoff.h"
#include "stats.h"
#include "units.h"

/* Each window (before the event, after it) lasts this long, by the counter. */
#define LC_WINDOW_NS 500000000ull
/* A one-shot timer is armed for this long after the request: inside a pause. */
#define LC_ONESHOT_NS 50000000ull
/* The periodic timers' period: 100 Hz. */
#define LC_PERIOD_NS 10000000ull
/* A tick this much closer than a period to the one before is a catch-up tick. */
#define LC_EARLY_DIV 2
/*
 * Default bound on catch-up ticks beyond those the vCPU's own delays
 * explain. kvm-pvm replays up to 8 of the 100 periods a 1 s pause misses
 * (measured, docs/lifecycle.md); a storm replays them all.
 */
#define LC_CATCHUP_MAX 16
/* Periodic rate after the event against nominal or the rate before it, parts per thousand. */
#define LC_RATE_TOL_PPT 100
/* Tick times kept per window for the periods before and after the event: 0.5 s at 100 Hz is 50. */
#define LC_STAMPS 64
/* A window's period is timed from this many ticks at least (marks on its quarters). */
#define LC_STAMPS_MIN 16
/*
 * A vCPU kept from running (the runner measures it: docs/lifecycle.md, "A
 * busy host") for more than this percent of a window: the periodic rate
 * over it is not judged, said in an INFO line. A periodic timer loses the
 * periods its vCPU waits through (QEMU coalesces them), so below this the
 * rate is judged against nominal less the periods waited; above it the
 * counts would say more about the host than the timer (fault=rate, half
 * the rate, stays far outside what 20% of waiting explains). Likewise a
 * search for the seconds clock's edge that found none while a vCPU waited
 * more than this percent of it is not judged.
 */
#define LC_JUDGE_WAIT_PCT 20
/* Test-only: fault=rate5 reprograms the periodic timer this many parts per thousand slow. */
#define LC_FAULT_RATE5_PPT 50
/*
 * Slack on the time stamps the host gives: QEMU stamps STOP after the
 * vCPUs have stopped and RESUME before they run, each within this.
 */
#define LC_STAMP_SLACK_NS 10000000ull
/*
 * A frozen clock still moves by the time QEMU takes between stopping the
 * vCPUs and reading it, and between writing it back and restarting them.
 * For a pause the runner measures that (overhead_ns: stop command to STOP
 * event plus the cont command's round trip) and it is added; this is the
 * rest, and the whole of it for save/restore and migration, where the
 * runner cannot see those steps (7-28 ms measured, docs/lifecycle.md).
 */
#define LC_FROZEN_SLACK_NS 50000000ull
/* The time of day moves against the host's by at most this much over an event. */
#define LC_TOD_SLACK_NS 50000000ull
/*
 * The seconds clock (RTC, PL031) is timed at one of its edges before the
 * event and one after: it is polled for up to this long for each.
 */
#define LC_RTC_EDGE_WAIT_NS 1500000000ull
/* Between two polls of it, and from its edge to reading its time of day (lc_rtc_edge). */
#define LC_RTC_POLL_NS	 100000ull
#define LC_RTC_SETTLE_NS 2000000ull
/*
 * Its offset to the host's time of day (the host's stamps on the request
 * and the answer, carried to the edges by the counter) is off by a
 * stamp's delay, the console's, and moves over an event by the two
 * stamps' delays (0-14 ms measured); this, plus the edges' own
 * uncertainty (the poll), bounds both.
 */
#define LC_RTC_SLACK_NS 50000000ull
/* rtc_set=: read back at most this many seconds after the value written */
#define LC_RTC_SET_READ_S 2
/* How long the guest waits for the runner's answer. */
#define LC_ANSWER_WAIT_NS 300000000000ull
#define LC_LINE_MAX	  384
/* Test-only faults: how far back (fault=back) or ahead (fault=jump) clocks are set. */
#define LC_FAULT_BACK_NS  20000000ull
#define LC_FAULT_JUMP_NS  3000000000ull
#define LC_FAULT_TOD_NS	  NSEC_PER_SEC
#define LC_FAULT_REARM_NS (3600 * NSEC_PER_SEC)
/*
 * events=migrate=N: one event, a run of N live migrations back to back
 * (common/lifecycle/lifecycle_run.c), N at most this. After each migration's answer
 * the vCPUs sample on for LC_RUN_DWELL_NS past it and past the one-shots'
 * deadline (10 periods of the periodic timers) before the next is asked
 * for; for up to LC_RUN_ONESHOT_WAIT_NS while a one-shot has not fired.
 */
#define LC_RUN_MAX	       16
#define LC_RUN_DWELL_NS	       100000000ull
#define LC_RUN_ONESHOT_WAIT_NS (2 * NSEC_PER_SEC)
/*
 * A run's one-shots are due at most this long after their request: the
 * x86 LAPIC's one-shot under TCG counts 32 bits at QEMU's 1 GHz (4.29 s,
 * capped there: common/lifecycle/x86/lifecycle_x86.c). Beside two busy loops
 * a migration of 5.9 s put the next even one's deadline 7.3 s out; the
 * capped LAPIC fired at 4.3 s, "-3028438 us from the deadline", a FAIL of
 * the engine's making.
 */
#define LC_RUN_DEADLINE_MAX_NS (4 * NSEC_PER_SEC)
/* fault=run_lost: the last vCPU's periodic timers stay silent this long from the middle migration's
 * answer */
#define LC_FAULT_RUN_LOST_NS 500000000ull
/* fault=run_twice: the boot vCPU's one-shot of the middle migration is armed again this long after
 * it fired */
#define LC_FAULT_RUN_TWICE_NS NSEC_PER_MSEC
/* fault=skew: how far the last vCPU's clock reads ahead after the event (lc_skewed) */
#define LC_FAULT_SKEW_NS NSEC_PER_MSEC

enum lc_phase {
	LC_BEFORE, /* the window before the request: the baseline */
	LC_DURING, /* request sent, answer not yet read */
	LC_AFTER,  /* the window after the answer */
	LC_FINISHED,
	LC_NR_PHASES = LC_FINISHED,
};

enum lc_fault {
	LC_FAULT_NONE,
	LC_FAULT_BACK,	       /* after the event, every clock reads 20 ms behind */
	LC_FAULT_JUMP,	       /* after the event, every clock reads 3 s ahead */
	LC_FAULT_FLIP,	       /* expect the opposite of each clock's measured semantics */
	LC_FAULT_REARM,	       /* the one-shot is re-armed an hour later as the request goes out */
	LC_FAULT_RATE,	       /* after the event the periodic timer is reprogrammed at half rate */
	LC_FAULT_RATE5,	       /* after the event the periodic timer is reprogrammed 5% slow */
	LC_FAULT_STORM,	       /* after the event, one tick per period the stop lasted, at once */
	LC_FAULT_TOD,	       /* the time of day after the event is 1 s ahead */
	LC_FAULT_STOPPED_FLAG, /* the stopped flag cleared unseen from the request on: a VMM that
				  never sets it */
	LC_FAULT_STOPPED_RESET, /* the stopped flag set again once after the guest cleared it */
	LC_FAULT_RTC_BEHIND, /* the seconds clock read after the event less the time the guest was
				stopped */
	LC_FAULT_RESET_COUNTER, /* after a reset the counter does the opposite of what its arch says
				 */
	LC_FAULT_SILENT, /* after the event the periodic timers deliver nothing: not re-armed on
			    restore */
	LC_FAULT_SKEW,	 /* the last vCPU's derived clock (kvmclock), else its counter, ahead after
			    the event */
	LC_FAULT_RTC_REBASED, /* the seconds clock the guest set reads the host's time of day after
				 the event */
	LC_FAULT_COUNTER_RESET, /* after the event the last vCPU's write of its counter is undone */
	LC_FAULT_COUNTER_TICK,	/* after the event the last vCPU's counter is one tick behind the
				   write */
	LC_FAULT_COUNTER_STALE, /* after the event the last vCPU's counter runs without the write,
				   its register reads it */
	LC_FAULT_RUN_LOST,  /* a run's middle migration: the last vCPU's periodic ticks stop for a
			       while */
	LC_FAULT_RUN_TWICE, /* a run's middle migration: the boot vCPU's one-shot fires again */
};

struct lc_timer {
	enum lc_role role;
	u64 period; /* counter ticks */
	u64 deadline;
	u64 fired_at; /* one-shot: 0 until it fired */
	u64 last_tick;
	u32 ticks[LC_NR_PHASES];
	u32 early[LC_NR_PHASES];
	/*
	 * the tick times of the window before the event [0] and after it
	 * [1], and the steal time at the first and at the latest
	 */
	u64 stamps[2][LC_STAMPS];
	u32 nstamps[2];
	u64 steal_first[2], steal_last[2];
	/* the wrongly reprogrammed rate of fault=rate and the ticks of fault=storm are in place */
	bool faulted;
	/*
	 * A run of migrations, per migration k (1..N) asked for last when the
	 * interrupt came: periodic, the ticks and the longest time from the
	 * tick before; one-shot, how often the one armed with request k fired
	 * and when first.
	 */
	u32 run_ticks[LC_RUN_MAX + 1];
	u64 run_gap[LC_RUN_MAX + 1];
	u32 run_fires[LC_RUN_MAX + 1];
	u64 run_fired_at[LC_RUN_MAX + 1];
};

struct lc_cpu {
	u64 last[LC_MAX_CLOCKS];
	u64 reads[LC_MAX_CLOCKS];
	u64 backwards[LC_MAX_CLOCKS];
	u64 worst_back[LC_MAX_CLOCKS];
	u64 step[LC_NR_PHASES][LC_MAX_CLOCKS]; /* largest step between two reads */
	struct lc_timer t[LC_MAX_SLOTS];
	/* times the vCPU found (and cleared) its stopped flag set, per phase */
	u32 stopped_seen[LC_NR_PHASES];
	bool stopped_reset;  /* fault=stopped_reset: the flag was set again */
	bool counter_undone; /* fault=counter_*: the counter write was undone (in part) */
	/* the derived clock's moves against the counter at parameter changes, per phase (struct
	 * lc_derived) */
	s64 moved_ns[LC_NR_PHASES];
	u32 param_changes[LC_NR_PHASES];
	u64 worst_quiet_move_ns; /* the largest |move| at one change in LC_BEFORE */
	/* each clock minus the boot vCPU's, by a hand-off before the event [0] and after it [1] */
	struct bracket agree[2][LC_MAX_CLOCKS];
	bool oneshot_armed;
	/* a run: the migration whose one-shots this vCPU armed last; the faults' state */
	unsigned run_armed;
	u64 run_silent_since;
	bool run_faulted;
} __attribute__((aligned(64)));

static inline u64 lc_magnitude(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/*
 * The derived clock's moves over the event: from the request to the end
 * of the window after (a vCPU the host runs late after a resume takes its
 * new parameters after the boot vCPU has read the answer: seen under
 * kvm-pvm), and its parameters' changes then.
 */
static inline s64 lc_event_move(const struct lc_cpu *c)
{
	return c->moved_ns[LC_DURING] + c->moved_ns[LC_AFTER];
}

static inline u64 lc_event_changes(const struct lc_cpu *c)
{
	return (u64)c->param_changes[LC_DURING] + c->param_changes[LC_AFTER];
}

/* The derived clock's moves on this vCPU (struct lc_derived), in step(). */
void lc_follow_derived(struct lc_cpu *me, enum lc_phase ph);
/* fault=skew: whether clock i reads ahead on this vCPU now (the last vCPU's derived clock, once
 * changed in the event). */
bool lc_skewed(const struct lc_cpu *me, unsigned i);
/* counter_set=: the guest's counter write before the first event
 * (common/lifecycle/lifecycle_counter.c). */
void lc_counter_set(void);
void lc_counter_fault(struct lc_cpu *me);

/* The boot vCPU's record of a run of migrations (events=migrate=N), one event. */
struct lc_run {
	unsigned n;		      /* migrations in the run; 0: the event is no run */
	volatile unsigned k;	      /* the migration asked for last (0: none yet) */
	u64 deadline;		      /* the one-shots' deadline for migration k, counter */
	u64 req_at[LC_RUN_MAX + 2];   /* counter as request k went out; [n + 1] the run's end */
	u64 answered[LC_RUN_MAX + 1]; /* counter once answer k was in */
	u64 deadlines[LC_RUN_MAX + 1];
	struct lc_done done[LC_RUN_MAX + 1]; /* the runner's facts of each migration */
	u64 stop_max_ns, wait_max_ns; /* the longest stop, the longest a vCPU waited in one */
};

/* The register the guest's counter write moved, and the counters' own view of it (struct
 * lc_counter_write), on one vCPU. */
struct lc_counter_now {
	u64 reg;
	s64 view_lo, view_hi;
};

/*
 * The seconds clock at one of its edges: its time of day then (seconds
 * since the epoch) and the counter at the edge, to within +-half_width.
 */
struct lc_edge {
	u64 secs;
	u64 at;
	u64 half_width;
	const char *why_not; /* NULL, or why there is no edge */
	/*
	 * the longest any thread of QEMU's (its main loop runs the clock's
	 * updates) or the runner's waited for a host CPU while it was searched
	 * for, as the runner measured it
	 */
	u64 wait_ns;
};

/* The boot vCPU's view of one request and its answer. */
struct lc_answer {
	char line[LC_LINE_MAX];
	u64 nl_at;	       /* counter as the request's newline went out */
	u64 first_at;	       /* counter as the answer's first character came in */
	u64 answered;	       /* counter once the whole answer was in */
	u64 tod_req, tod_done; /* the arch's time of day (ns), if it has one */
	struct lc_edge rtc_before, rtc_after;
};

/*
 * One event's record: everything its checks judge, and nothing else. The
 * engine fills it as the event goes (common/lifecycle/lifecycle_engine.c,
 * lifecycle_sample.c, lifecycle_run.c); the checks are functions of it,
 * const (common/lifecycle/lifecycle_judge.c); LC-RECORD lines carry it to
 * the host, where scripts/lifecycle-judge judges it again with the same code
 * (common/lifecycle/lifecycle_record.c).
 */
struct lc_record {
	/* the plan: the arch's clocks, timers and seconds clock, the arguments, the machine */
	const struct lc_arch *arch;
	const struct lc_rtc *rtc; /* the arch's seconds clock, when it was found */
	unsigned seq;
	unsigned ncpus;
	u64 counter_hz;
	enum lc_fault fault;
	bool has_steal; /* the arch follows steal time (x86 under KVM) */
	bool has_tod;	/* the arch has a time of day (lc_arch's tod_ns) */
	bool has_flag;	/* ... and a stopped flag (take_stopped_flag) */
	u64 catchup_max;
	u64 counter_set; /* counter_set=: how far each vCPU wrote its counter ahead (0: not) */
	u64 rtc_set;	 /* rtc_set=: the time of day the guest set it to (0: the host's) */
	/* with rtc_set: its offset to the host's time of day at the first event's edge before */
	s64 rtc_ref_ns;
	/* the samples: each vCPU's clocks and timers per phase, the hand-offs, a run's migrations
	 */
	u64 phase_start[LC_FINISHED + 1]; /* counter */
	struct lc_cpu cpu[LC_MAX_CPUS];
	struct lc_run run; /* the event's run of migrations, if it is one */
	/* counter_set: what the write left in the register it moved, and the register after the
	 * event */
	u64 counter_reg[LC_MAX_CPUS];
	struct lc_counter_now counter_now[LC_MAX_CPUS];
	/* the host's answers and evidence: the runner's facts, the request and answer as the guest
	 * saw them */
	struct lc_done done;
	struct lc_answer answer;
};

/* Counter granularity: two brackets of one offset across vCPUs may miss each other by this much. */
#define LC_AGREE_GRAIN_TICKS 1

/* The record's counter ticks in ns, and back. */
static inline u64 lc_ns(const struct lc_record *r, u64 ticks)
{
	return ticks_to_ns(ticks, r->counter_hz);
}

static inline u64 lc_ticks(const struct lc_record *r, u64 ns)
{
	return ns_to_ticks(ns, r->counter_hz);
}

/* A clock's ticks per second: its own, or the counter's. */
static inline u64 lc_clock_hz(const struct lc_record *r, const struct lc_clock *c)
{
	return c->hz ? c->hz : r->counter_hz;
}

/*
 * ---- the judgment: functions of one event's const record -------------------
 * (common/lifecycle/lifecycle_judge.c and the check files it calls; none of
 * them reads the engine's state, a clock or a register)
 */

/*
 * Room for one event's judgment: a run of 16 migrations on 8 vCPUs with
 * every slot's checks (each entry's sentence at most CHECK_TEXT_MAX).
 */
#define LC_CHECKS_MAX	  1024
#define LC_CHECKS_TEXT_KB 256

/*
 * Every check of the event, in order, appended to out: its figures,
 * bounded checks, plain ones, skips and the context a reader needs. The
 * caller prints them (report_checks(), under the prefix "event SEQ KIND").
 */
void lc_judge(struct checks *out, const struct lc_record *r);

/* The stops the event held (1, or a run's N), the longest of them and the longest a vCPU waited in
 * one. */
static inline unsigned lc_stops(const struct lc_record *r)
{
	return r->run.n ? r->run.n : 1;
}

static inline u64 lc_one_stop_ns(const struct lc_record *r)
{
	return r->run.n ? r->run.stop_max_ns : r->done.duration_ns;
}

static inline u64 lc_one_stop_wait_ns(const struct lc_record *r)
{
	return r->run.n ? r->run.wait_max_ns : r->done.vcpu_wait_ns;
}

/*
 * How late the host's time stamps of the request and the answer can be for
 * its threads (the runner's reader, QEMU's) waiting for a CPU around them:
 * the runner's measure over the window before, the event and the window
 * after.
 */
static inline u64 lc_stamp_wait_ns(const struct lc_record *r)
{
	return r->done.stamp_wait_ns + r->done.after_stamp_wait_ns;
}

/* The slots every vCPU has (LC_SLOT_EVERY_CPU). */
unsigned lc_every_cpu_slots(const struct lc_arch *arch);

void lc_check_clock(struct checks *out, const struct lc_record *r, unsigned i);
void lc_check_timers(struct checks *out, const struct lc_record *r);
void lc_check_stopped_flag(struct checks *out, const struct lc_record *r);
void lc_check_run(struct checks *out, const struct lc_record *r);
void lc_check_tod(struct checks *out, const struct lc_record *r);
void lc_check_rtc(struct checks *out, const struct lc_record *r);
/* The seconds clock's offset to the host's time of day at the edge before the event (ns). */
s64 lc_rtc_offset_before(const struct lc_record *r);
void lc_check_derived(struct checks *out, const struct lc_record *r);
void lc_check_agree(struct checks *out, const struct lc_record *r);
void lc_check_counter_kept(struct checks *out, const struct lc_record *r);
/* Where the counters show the register the write moved themselves, they show what it reads. */
void lc_check_counter_view(struct checks *out, const struct lc_counter_write *w, int cpu,
			   const struct lc_counter_now *n);

/* RESULT eSEQ.EVENT.WHAT.FIGURE in ms with 3 decimals; ns may be negative (an early one-shot). */
void lc_result_ms(struct checks *out, const struct lc_record *r, const char *what,
		  const char *figure, s64 ns);
/* RESULT eSEQ.EVENT.WHAT.FIGURE, a count in unit. */
void lc_result_count(struct checks *out, const struct lc_record *r, const char *what,
		     const char *figure, u64 n, const char *unit);
/*
 * A bounded check of this event's figure e<seq>.<event>.<what>.<figure>
 * (report_bounded: its BOUND line is the figure's RESULT); b's name is
 * set here.
 */
bool lc_bounded(struct checks *out, const struct lc_record *r, const char *what, const char *figure,
		struct bounded *b, const char *fmt, ...) __printf(6, 7);
bool lc_vbounded(struct checks *out, const struct lc_record *r, const char *what,
		 const char *figure, struct bounded *b, const char *fmt, va_list ap);
/* The same for a figure in ns, printed in ms with 6 decimals (exactly as checked). */
bool lc_bounded_ms(struct checks *out, const struct lc_record *r, const char *what,
		   const char *figure, s64 ns, s64 lo_ns, s64 hi_ns, const char *fmt, ...)
	__printf(8, 9);

#endif
