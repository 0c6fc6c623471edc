/* SPDX-License-Identifier: GPL-2.0-only */
/* arm64 SMP beyond arch.h: which MPIDR each dense CPU id has, a CPU kept busy taking interrupts. */
#ifndef VMTICK_ARM64_SMP_H
#define VMTICK_ARM64_SMP_H

#include "libc.h"

/* The MPIDR affinity (MPIDR_HWID_MASK bits) of CPU cpu; -1 when no such CPU. */
u64 cpu_mpidr(int cpu);
int mpidr_to_cpu(u64 mpidr);

/*
 * Keep cpu (not the caller) running with IRQs unmasked until
 * cpu_spin_stop(cpu): interrupts reach it while it runs, with no wake-up
 * from WFI in their path. Returns once the CPU has unmasked them.
 */
void cpu_spin_irqs_on(int cpu);
void cpu_spin_stop(int cpu);

#endif
