/* SPDX-License-Identifier: GPL-2.0-only */
/* The warp check: vCPUs take turns reading one clock, and every step back between two reads is counted. */
#ifndef VMTICK_WARP_H
#define VMTICK_WARP_H

#include "libc.h"

/*
 * The vCPUs take turns, the arch's way (struct warp_arch); each
 * read is compared with the one just before it, made by whichever vCPU
 * had the turn last. The step is taken modulo the clock's width (mask):
 * a step in the upper half of the range is a warp (the read went
 * backwards), zero a stall, one in the lower half progress. A forward
 * step from another vCPU's read is a hand-off: the quickest one is the
 * check's resolution, as an offset between two vCPUs smaller than it
 * cannot show.
 */
#define WARP_MASK_64		(~0ull)
/* min_handoff when no read followed another vCPU's */
#define WARP_NO_HANDOFF		(~0ull)

/*
 * How the vCPUs take turns: the arch half (common/warp/x86/warp_x86.c,
 * common/warp/arm64/warp_arm64.c), handed over by the test in struct warp_check.
 * turns_new() makes one run's turns for cpu_count() vCPUs; turn_take()
 * returns once it is the calling vCPU's turn, which turn_give() ends.
 * Every read but the first must follow the previous turn's, with
 * acquire/release ordering between them.
 */
struct warp_arch {
	void *(*turns_new)(void);
	void (*turn_take)(void *turns);
	void (*turn_give)(void *turns);
};

struct warp_check {
	const struct warp_arch *arch;
	u64 (*read)(void);
	u64 mask;		/* the clock's width: WARP_MASK_64, or (1 << bits) - 1 */
	u64 loops;		/* reads per vCPU */
	/* test-only (fault=warp): subtracted from the last vCPU's reads, as an offset would */
	u64 fault_skew;
};

/* What one vCPU found, or (warp_run()'s totals) all of them together. */
struct warp_findings {
	u64 warps, stalls, handoffs;
	u64 worst;		/* the largest step back */
	u64 min_handoff;	/* the smallest forward step from another vCPU's read, or WARP_NO_HANDOFF */
	u64 max_step;		/* the largest forward step */
};

/* Runs the check on every vCPU, fills *total and returns the total warps; warp_vcpu() has the rest. */
u64 warp_run(const struct warp_check *check, struct warp_findings *total);
/* What vCPU cpu found in the last warp_run(). */
const struct warp_findings *warp_vcpu(int cpu);

/* A figure of struct warp_findings, as RESULT lines print it. */
enum warp_figure {
	WARP_WARPS,
	WARP_STALLS,
	WARP_HANDOFFS,
	WARP_WORST_BACK,	/* the largest step back, a positive count */
	WARP_WORST_STEP,	/* the same as a step, zero or negative */
	WARP_MIN_HANDOFF,	/* left out where there was no hand-off */
	WARP_MAX_STEP,
};

/* One RESULT line: <prefix><suffix> (totals) or <prefix>vcpuN.<suffix> (per vCPU). */
struct warp_result {
	enum warp_figure figure;
	const char *suffix;
	const char *unit;
};

/* The RESULT lines one test prints, in its order, with its names. */
struct warp_report {
	const struct warp_result *vcpu;
	size_t vcpu_n;
	const struct warp_result *total;
	size_t total_n;
};

/* The report's RESULT lines for the last warp_run(): <prefix>vcpuN.<suffix> for every vCPU. */
void warp_report_vcpus(const struct warp_report *rep, const char *prefix);
/* The report's RESULT lines for warp_run()'s totals: <prefix><suffix>. */
void warp_report_totals(const struct warp_report *rep, const char *prefix, const struct warp_findings *total);
/*
 * The check that the clock never went backwards across the vCPUs: the
 * total warps bounded by 0, BOUND <prefix>warps N count 0..0, then the
 * sentence fmt. The BOUND line is the figure's RESULT: a test's total
 * table leaves WARP_WARPS out where it makes this check.
 */
bool warp_report_check(const char *prefix, const struct warp_findings *total, const char *fmt, ...)
	__printf(3, 4);
/* "<lead>quickest hand-off N <unit>: smaller offsets between vCPUs cannot show", where there was one. */
void warp_report_handoff(const struct warp_findings *total, const char *lead, const char *unit);

#endif
