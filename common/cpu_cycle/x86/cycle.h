/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the cpu-off-on engine (common/cpu_cycle/cpu_cycle.h): the TSC, and an IPI to show the restarted AP takes interrupts. */
#ifndef VMTICK_X86_CYCLE_H
#define VMTICK_X86_CYCLE_H

#include "cpu_cycle.h"

extern const struct cpu_cycle_arch cpu_cycle_arch_x86;

#endif
