/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch hooks a host test of the lifecycle's checks links against but never drives: NCPUS vCPUs, a counter at 2 GHz, a spin that does nothing. */
/*
 * What: cpu_relax() does nothing, cpu_count() is NCPUS (the test defines
 * it before including this), arch_counter_hz() is COUNTER_HZ, 2 GHz, so a
 * counter tick is never a ns by accident.
 * Why: every test of code that judges what the sampling left asks the
 * same three things; each had spelled them again.
 * How: header-only, included once by a test, after host_shim.h.
 */
#ifndef VMTICK_FAKE_CHECKS_ARCH_H
#define VMTICK_FAKE_CHECKS_ARCH_H

#ifndef NCPUS
#error "define NCPUS (the vCPUs the test plays) before including fake_checks_arch.h"
#endif

#define COUNTER_HZ 2000000000ull /* counter ticks per second: 2 per ns */

void cpu_relax(void);
int cpu_count(void);
u64 arch_counter_hz(void);

void cpu_relax(void)
{
}

int cpu_count(void)
{
	return NCPUS;
}

u64 arch_counter_hz(void)
{
	return COUNTER_HZ;
}

#endif
