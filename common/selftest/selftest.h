/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch-neutral half of the selftest kernels: arguments, the checks every arch shares, the runner's misbehaving modes. */
#ifndef VMTICK_SELFTEST_H
#define VMTICK_SELFTEST_H

#include "libc.h"
#include "argv.h"

#define SELFTEST_ARCH_ARGS_MAX 4

/* What an arch's selftest adds to the common half. */
struct selftest_arch {
	/* arch-specific arguments, after smp=, mem= and mode= (at most SELFTEST_ARCH_ARGS_MAX) */
	const struct arg *args;
	size_t nargs;
	/* how far below -m the memory the platform reports may be, in percent (firmware's share) */
	unsigned mem_slack_pct;
	/* mode=crash: stop the machine without a summary */
	void (*crash)(void) __noreturn;
	/* mode=fault: raise an exception no handler expects */
	void (*fault)(void);
	/* mode=hang: wait for an interrupt that never comes, interrupts off */
	void (*idle)(void);
};

struct selftest_args {
	u64 smp;	/* expected vCPU count, 0 when not given */
	u64 mem_mib;	/* expected memory, 0 when not given */
	unsigned mode;	/* index in mode=: 0 is pass */
};

/*
 * Parse smp=N mem=MiB mode=M and the arch's own arguments; an unknown or
 * bad one is a failure naming it. A mode other than "pass" misbehaves
 * here and never returns.
 */
void selftest_begin(int argc, char **argv, const struct selftest_arch *arch,
		    struct selftest_args *args);

/* The checks every arch shares. */
void selftest_check_argv(int argc, char **argv);
void selftest_check_cpu_count(const struct selftest_args *args);
void selftest_check_on_cpu(void);
void selftest_check_64bit(void);
void selftest_check_memory(const struct selftest_arch *arch, const struct selftest_args *args);

#endif
