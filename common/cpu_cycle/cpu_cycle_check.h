/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on engine's arguments (cpu_cycle_args.c) and judgments (cpu_cycle_check.c): what the
 * cycles collected, checked and reported, apart from the hardware so the host tests build them. */
#ifndef VMTICK_CPU_CYCLE_CHECK_H
#define VMTICK_CPU_CYCLE_CHECK_H

#include "libc.h"
#include "handoff.h"
#include "cpu_cycle.h"

#define CC_MAX_CPUS	  16
#define CC_CYCLES_DEFAULT 3
#define CC_CYCLES_MAX	  1000
/* How long the restarted vCPU waits for its interrupt. */
#define CC_IRQ_WAIT_MS 1000
/* Counter granularity: two brackets of one offset may miss each other by this much. */
#define GRAIN_TICKS 1

enum cc_fault { FAULT_NONE, FAULT_OFFSET, FAULT_BACK, FAULT_RESET, FAULT_NOIRQ, NR_FAULTS };

/* The test's arguments (the test's header comment says what they mean). */
struct cc_args {
	u64 cycles;
	unsigned fault; /* enum cc_fault */
};

/*
 * The arguments into *a, as args_parse_or_abort() takes them: "help" prints
 * the usage and ends the test as a SKIP, a bad argument ends it as a FAIL
 * that says why.
 */
void cc_parse_args(struct cc_args *a, int argc, char **argv);
/* fault='s word for f. */
const char *cc_fault_name(unsigned f);

/* What one vCPU showed in one hand-off (before or after a cycle). */
struct cc_view {
	u64 first, last;     /* its first and last read */
	struct bracket off;  /* its counter minus the boot vCPU's (the boot vCPU: 0) */
	struct bracket phys; /* counter minus arch->phys_read() */
};

/* One cycle as the checks see it: what every vCPU showed before it and after it. */
struct cc_cycle {
	unsigned n; /* the cycle's number, from 1 */
	int ncpus;
	struct cc_view before[CC_MAX_CPUS], after[CC_MAX_CPUS];
};

/* views[] gets what the hand-off ho, between the boot vCPU and cpu, showed of each. */
void cc_take_handoff(struct cc_view *views, int cpu, const struct handoff *ho);

enum cc_check { CHECK_HANDOFF, CHECK_OWN, CHECK_STEP, CHECK_OFFSET, CHECK_IRQ, NR_CHECKS };

/* Each check over all cycles: how many cycles failed it, and what the first failure was. */
struct cc_check_state {
	unsigned failed;     /* cycles */
	unsigned last_cycle; /* the last cycle counted in failed */
	char first[200];
};

/* The checks' tally over a run (zeroed at its start), and the arch their messages name. */
struct cc_checks {
	const struct cpu_cycle_arch *arch;
	struct cc_check_state state[NR_CHECKS];
};

/* "N ticks (X ns)", or "N ticks" where the counter's frequency is unknown. */
const char *cc_fmt_ticks(char *buf, size_t size, u64 ticks);

/* Check c failed in cycle: counted once per cycle, the first failure's message kept. */
void cc_fail(struct cc_checks *k, enum cc_check c, unsigned cycle, const char *fmt, ...)
	__printf(4, 5);

/* Every read of hand-off ho with peer at least the one before it, made by the other vCPU. */
void cc_check_order(struct cc_checks *k, unsigned cycle, const char *when, int peer,
		    const struct handoff *ho);
/* Each vCPU's first read after the cycle at least its last one before; no offset to cpu 0 moved. */
void cc_check_views(struct cc_checks *k, const struct cc_cycle *c);
/* Every vCPU's counter - physical count, before and after, against the boot vCPU's before. */
void cc_check_phys(struct cc_checks *k, const struct cc_cycle *c);
/* The restarted vCPU (target) counted seen interrupts while it waited after its restart. */
void cc_check_irq(struct cc_checks *k, unsigned cycle, int target, u32 seen);

/* One outcome line per check over cycles; irq_skip: NULL, or why the interrupt check is a SKIP. */
void cc_report_checks(const struct cc_checks *k, u64 cycles, const char *irq_skip);

#endif
