/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the lifecycle test (common/lifecycle.h), in common/x86/lifecycle.c. */
#ifndef VMTICK_X86_LIFECYCLE_ARCH_H
#define VMTICK_X86_LIFECYCLE_ARCH_H

#include "lifecycle.h"

extern struct lc_arch lc_arch_x86;

#endif
