/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on test's engine (a vCPU turned off and on, the counter checked across vCPUs around it) and the hooks each arch gives it. */
#ifndef VMTICK_CPU_CYCLE_H
#define VMTICK_CPU_CYCLE_H

#include "libc.h"

/*
 * What each arch gives the engine: common/cpu_cycle/x86/cpu_cycle_x86.c's
 * cpu_cycle_arch_x86, common/cpu_cycle/arm64/cpu_cycle_arm64.c's cpu_cycle_arch_arm64.
 * Turning a vCPU off and on is lib's (smp_cpu_off(), smp_cpu_restart() in
 * lib/arch.h); the counter is arch_counter().
 */
struct cpu_cycle_arch {
	/* The counter's name in messages: "TSC", "CNTVCT". */
	const char *counter;
	/*
	 * The count the counter is an offset view of (arm64: CNTPCT, as
	 * CNTVCT = CNTPCT - CNTVOFF) and its name, or NULL: no offset check.
	 */
	u64 (*phys_read)(void);
	const char *phys_counter;
	/* Install the handler of what irq_send() raises: NULL, or why not (that check is a SKIP). */
	const char *(*irq_setup)(void);
	/* Raise it on cpu (a dense id); the handler calls cpu_cycle_irq_taken() there. */
	void (*irq_send)(int cpu);
	/* What irq_send() raises, for messages: "IPI vector 0xe8", "SGI 3". */
	const char *irq_name;
};

/* The arch's handler, on the CPU that took the interrupt. */
void cpu_cycle_irq_taken(void);

/* The whole test: arguments, the cycles and their checks; main() returns what it returns. */
int cpu_cycle_main(int argc, char **argv, const struct cpu_cycle_arch *arch);

#endif
