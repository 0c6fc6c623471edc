/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tick catch-up under a clock setting (x86/catchup): what a periodic tick
 * source did across one disturbance (interrupts masked, a pause, a save and
 * restore), judged against the declared model of the setting it ran with.
 *
 * The record is plain data: the ticks' times in ns since the anchor (the
 * last tick before the disturbance), the disturbance's edges on the same
 * clock and what the host said of it. cu_figures() and cu_judge() are pure
 * functions of it (host-tests/test_catchup.c).
 */
#ifndef VMTICK_CATCHUP_H
#define VMTICK_CATCHUP_H

#include "libc.h"
#include "checks.h"

/* The ticks one disturbance's record holds: a 30 s backlog at 64 Hz and its observation. */
#define CU_MAX_TICKS 8192

enum cu_kind {
	CU_CLI,	  /* the guest masks its interrupts for a stretch */
	CU_PAUSE, /* QMP stop, a wait, cont */
	CU_SAVE,  /* migrate to a file, a fresh QEMU restores it */
	CU_NR_KINDS,
};

/* The clock the source's periods are counted by. */
enum cu_follows {
	/* the host's (QEMU_CLOCK_HOST or _REALTIME): it runs while the guest is stopped */
	CU_FOLLOWS_HOST,
	/* the VM's (QEMU_CLOCK_VIRTUAL): it stops with the guest */
	CU_FOLLOWS_VM,
};

/* What becomes of the periods the guest could not take. */
enum cu_fate {
	/* delivered later, faster than nominal, until the count agrees again */
	CU_CAUGHT_UP,
	/* one stays pending and comes at once; the rest are gone for good */
	CU_DROPPED,
};

/* A setting's declared behaviour: what its implementation does, and what its documentation says. */
struct cu_model {
	const char *name;    /* test_args' model= */
	const char *setting; /* the QEMU options it stands for */
	const char *source;  /* rtc or pit */
	enum cu_follows follows;
	enum cu_fate fate[CU_NR_KINDS];
	/* a save whose stop is longer than this re-bases the source: its backlog is dropped (0:
	 * never) */
	u64 rebase_after_ns;
	/* the most ticks its catch-up delivers within one nominal period by its implementation, on
	 * a quiet host (0: no bound), a figure shown beside the measured peak */
	unsigned peak_per_period;
	/* what its documentation says becomes of them (delay's "time stays behind": dropped, by
	 * count) */
	enum cu_fate doc_fate[CU_NR_KINDS];
	const char *implemented; /* what its source code does, with where */
	const char *documented;	 /* what its documentation says it does */
};

const struct cu_model *cu_model_find(const char *name);
/* The declared models in order, NULL after the last. */
const struct cu_model *cu_model_at(unsigned i);
const char *cu_kind_name(enum cu_kind kind);

/* One disturbance as the guest saw it, and the ticks around it. */
struct cu_record {
	enum cu_kind kind;
	/* the source's nominal period */
	u64 period_ns;
	/* the disturbance began (masked, or the request's newline), in ns since the anchor */
	u64 start_ns;
	/* it ended (unmasked, or the answer read) */
	u64 end_ns;
	/* how long the host said the guest was stopped (0 for cli) */
	u64 stop_ns;
	/* how long the entry says the disturbance lasts (cli_ms=; 0: not judged) */
	u64 declared_ns;
	/* of a mask: how long the host kept the vCPU from running meanwhile (it lengthens the mask)
	 */
	u64 held_ns;
	/* of a stop: what the VM's clock moved beyond the guest's counter over it, when measured */
	s64 vm_extra_ns;
	bool vm_extra_known;
	/* ticks, the anchor first */
	unsigned n;
	u64 at_ns[CU_MAX_TICKS];
};

/* What the record shows, in periods of the source's own clock. */
struct cu_figures {
	u64 span_ns;	 /* the disturbance by the source's clock */
	s64 extra_ns;	 /* what that clock counted beyond the guest's over it */
	unsigned missed; /* periods due by that clock while masked, or while QEMU had the guest
			    stopped */
	s64 dropped;	 /* periods the count stayed behind after it, at least (negative: ahead) */
	s64 host_lost;	/* periods it fell further behind by the end (the host's delays, a setting's
			   losses) */
	s64 made_up;	/* missed periods delivered later: the catch-up's burst (none: 0) */
	s64 lag_first;	/* periods behind at the first tick after the disturbance */
	unsigned peak;	/* the most ticks in one nominal period from its start on: the catch-up's
			   rate, x nominal */
	u64 agree_ns;	/* from its end (unmasked, answered) until the count was within a period
			   again, or CU_NEVER */
	unsigned after; /* ticks after the disturbance */
	unsigned pre_late; /* ticks before it more than a period behind (the host's own losses) */
};

#define CU_NEVER (~0ull)
/* Ticks at the end whose median lag says how far behind the count ended. */
#define CU_TAIL_TICKS 8
/* Periods either way a count may be off by its phase: the anchor's, the last tick's. */
#define CU_PHASE_PERIODS 1

void cu_figures(const struct cu_record *r, const struct cu_model *m, struct cu_figures *f);

/*
 * Periods the count was behind the source's clock after_ns after the
 * disturbance ended (negative: ahead): the catch-up over time, as the
 * report draws it. Steady ticks read 0 or 1 (a tick due not yet come).
 */
s64 cu_behind_at(const struct cu_record *r, const struct cu_figures *f, u64 after_ns);

/* A sentence of the judgment at most this long. */
#define CU_LINE_MAX 512
/* The list entries one disturbance's judgment makes: six figures and two checks. */
#define CU_ENTRIES 8

/*
 * The judgment of one disturbance, appended to out in the order the guest
 * prints them (report_checks()): RESULT catchup.KIND.{missed, made_up,
 * dropped, host_lost, peak, agree_ms}, each figure a check bounds left to
 * its BOUND line, then the checks, at most one per figure: no tick after
 * it ("after", and nothing else judged); else a mask longer than declared
 * ("missed", where the entry declares how long) and the model's fate
 * (caught up: "dropped" within +-CU_PHASE_PERIODS; dropped: "made_up" at
 * most the one pending and CU_PHASE_PERIODS). True when every check holds.
 */
bool cu_judge(const struct cu_record *r, const struct cu_model *m, const struct cu_figures *f,
	      struct checks *out);

#endif
