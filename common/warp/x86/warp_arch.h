/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the warp check (common/warp/warp.h): the vCPUs take turns under the spin-then-halt
 * ticket lock. */
#ifndef VMTICK_X86_WARP_ARCH_H
#define VMTICK_X86_WARP_ARCH_H

#include "warp.h"

extern const struct warp_arch warp_arch_x86;

#endif
