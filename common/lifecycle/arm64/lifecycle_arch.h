/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the lifecycle test (common/lifecycle/lifecycle.h), in common/lifecycle/arm64/lifecycle_arm64.c. */
#ifndef VMTICK_ARM64_LIFECYCLE_ARCH_H
#define VMTICK_ARM64_LIFECYCLE_ARCH_H

#include "lifecycle.h"

extern const struct lc_arch lc_arch_arm64;

#endif
