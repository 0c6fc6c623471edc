/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the lifecycle test (common/lifecycle/lifecycle.h), in common/lifecycle/x86/lifecycle_x86.c. */
#ifndef VMTICK_X86_LIFECYCLE_ARCH_H
#define VMTICK_X86_LIFECYCLE_ARCH_H

#include "lifecycle.h"

extern struct lc_arch lc_arch_x86;

/* Under KVM, the clocks' order in lc_arch_x86.clocks. */
enum { LC_X86_TSC, LC_X86_KVMCLOCK };

/* kvmclock against the TSC (common/lifecycle/x86/lifecycle_kvmclock.c). */
extern const struct lc_derived lc_kvmclock_derived;

#endif
