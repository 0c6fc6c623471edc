/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle engine's state: the record of the event under way (lifecycle_judge.h) and what runs
 * across events, and the engine's functions (common/lifecycle/lifecycle_engine.c,
 * lifecycle_sample.c, lifecycle_run.c). */
#ifndef VMTICK_LIFECYCLE_STATE_H
#define VMTICK_LIFECYCLE_STATE_H

#include "lifecycle_judge.h"
#include "report.h"

/* The engine's state: the record of the event under way, and what runs across events. */
struct lc_state {
	struct lc_record rec;
	const char *host_kind;	/* host=: whose known defects apply */
	bool rtc_ref_taken;
	enum lc_event events[64];
	unsigned run_len[64];	/* per event: N for migrate=N, 0 for an event alone */
	unsigned nevents;
	volatile enum lc_phase phase;
	enum record_when record; /* record=: when each event's record is printed */
};

extern struct lc_state lc;

/* The engine's list for a judgment (lifecycle_judge.h), emptied: one event's, or a start-up
 * check's. */
struct checks *lc_checks(void);

/* The engine's own counter in ns (arch_counter_hz()). */
static inline u64 counter_ns(u64 ticks)
{
	return ticks_to_ns(ticks, arch_counter_hz());
}

/*
 * Read the runner's answer line from the console, polled one character at
 * a time, until give_up (counter); me, when not NULL, samples its clocks
 * meanwhile. False when no whole line came.
 */
bool lc_read_answer(struct lc_cpu *me, struct lc_answer *a, u64 give_up);
/*
 * The arguments (common/lifecycle/lifecycle_args.c): whether they are valid (what is
 * wrong printed if not), lc.events, lc.rec.fault, lc.host_kind and
 * lc.rec.catchup_max set; the arch's seconds clock found (lc.rec.rtc, or an INFO
 * why not); a fault= with nothing here to break a SKIP, another an INFO.
 */
bool lc_parse_args(int argc, char **argv);
void lc_find_rtc(const struct lc_arch *arch);
/* rtc_set=: the guest's own time of day in its seconds clock, read back (a check). */
void lc_set_rtc(void);
void lc_announce_fault(const struct lc_arch *arch);
/* Reset events (common/lifecycle/lifecycle_reset.c): this life's end, and the next one's first check. */
void lc_request_reset(void) __noreturn;
/* The first sequence number to run in this life: 1, or the one after the reset it follows. */
unsigned lc_boot_handshake(void);
bool lc_has_reset(void);

/*
 * The sampling (common/lifecycle/lifecycle_sample.c): a secondary vCPU's whole event,
 * from on_cpu_async() until the boot vCPU says it is over, and the parts
 * the boot vCPU's windows and a run of migrations drive.
 */
void lc_ap_sampler(void *arg);
void lc_start_sampling(struct lc_cpu *me);
void lc_stop_sampling(const struct lc_cpu *me);
u64 lc_oneshot_deadline(void);
void lc_step(struct lc_cpu *me, enum lc_phase ph);
void lc_arm_oneshots(struct lc_cpu *me, u64 deadline);
/* The request and its answer (common/lifecycle/lifecycle_request.c). */
bool lc_request(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a);
/*
 * A run of migrations (events=migrate=N, common/lifecycle/lifecycle_run.c): whether
 * the events hold one; in a vCPU's step, its one-shots for the migration
 * asked for last and the run's faults; on the boot vCPU, the requests of
 * migrations 1..N with the vCPUs sampling between them (false when an
 * answer did not come; a holds the last request and answer); once the
 * last answer is parsed, the run's facts made the event's and the vCPUs'
 * sampling on past it as after the others; the checks of each migration.
 */
bool lc_has_run(void);
void lc_run_step(struct lc_cpu *me);
bool lc_run_requests(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a);
void lc_run_done(struct lc_cpu *me);

/* Wait for the seconds clock's next edge (lc.rec.rtc), on the boot vCPU. */
void lc_rtc_edge(struct lc_edge *e);
/* counter_set=: every vCPU's register the write moved, and the counters' view of it, now (into lc.rec.counter_now). */
void lc_counter_read_all(void);

#endif
