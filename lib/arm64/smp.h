/* SPDX-License-Identifier: GPL-2.0-only */
/* arm64 SMP beyond arch.h: which MPIDR each dense CPU id has. */
#ifndef VMTICK_ARM64_SMP_H
#define VMTICK_ARM64_SMP_H

#include "libc.h"

/* The MPIDR affinity (MPIDR_HWID_MASK bits) of CPU cpu; -1 when no such CPU. */
u64 cpu_mpidr(int cpu);
int mpidr_to_cpu(u64 mpidr);

#endif
