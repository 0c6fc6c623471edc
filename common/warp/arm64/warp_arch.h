/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the warp check (common/warp/warp.h): the vCPUs take strict turns. */
#ifndef VMTICK_ARM64_WARP_ARCH_H
#define VMTICK_ARM64_WARP_ARCH_H

#include "warp.h"

extern const struct warp_arch warp_arch_arm64;

#endif
