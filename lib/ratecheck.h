/* SPDX-License-Identifier: GPL-2.0-only */
/* A clock's rate checked against reference clocks on one vCPU, reported as checks and RESULT lines. */
#ifndef VMTICK_RATECHECK_H
#define VMTICK_RATECHECK_H

#include "refclock.h"

#define RATECHECK_MAX_REFS 4
/*
 * What every kernel measures a rate with: each end of a window the
 * narrowest of RATECHECK_TRIES marks, up to RATECHECK_WINDOWS windows
 * while a bound is wider than RATECHECK_USABLE_PPB (4000 ppm: the host
 * disturbed every bracket kept).
 */
#define RATECHECK_TRIES	     5
#define RATECHECK_WINDOWS    3
#define RATECHECK_USABLE_PPB 4000000

struct ratecheck {
	const char *clock;	/* for RESULT names and messages: "kvmclock" */
	u64 (*read)(void);	/* the clock under test */
	u64 hz;			/* its nominal rate */
	u64 window;		/* the measurement window, in its ticks */
	unsigned tries;		/* marks per end, the narrowest kept */
	unsigned windows;	/* measurements at most, while a bound is wider than usable_ppb */
	/*
	 * A bound wider than this means the host disturbed every bracket
	 * kept (a descheduled vCPU): measure again rather than accept it.
	 * When even the last window's bound is wider, the check fails.
	 */
	u64 usable_ppb;
	const struct refclock *refs[RATECHECK_MAX_REFS];
	size_t n;
};

/*
 * Fill rc's references from a comma-separated list of refclock names,
 * probing each: 0, or -1 after printing which name is unknown. A
 * reference the machine lacks is left out after a SKIP line saying why.
 */
int ratecheck_set_refs(struct ratecheck *rc, const char *list);
/*
 * The check of a refs= argument (struct arg's check): NULL when list is
 * at most RATECHECK_MAX_REFS refclock names, else what it must be.
 */
const char *ratecheck_refs_arg(const char *list);

/*
 * Measure on vCPU cpu (all references in one window) and report, per
 * reference, one bounded check that |err| <= bound: BOUND
 * <clock>.rate.vcpu<cpu>.<ref>.err_ppm with its band (a RESULT of err when
 * every window was disturbed). Returns the number of failed checks.
 */
unsigned ratecheck_run(const struct ratecheck *rc, int cpu);

#endif
