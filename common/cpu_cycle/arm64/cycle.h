/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the cpu-off-on engine (common/cpu_cycle/cpu_cycle.h): CNTVCT against CNTPCT, and an SGI to show the restarted CPU takes interrupts. */
#ifndef VMTICK_ARM64_CYCLE_H
#define VMTICK_ARM64_CYCLE_H

#include "cpu_cycle.h"

extern const struct cpu_cycle_arch cpu_cycle_arch_arm64;

#endif
