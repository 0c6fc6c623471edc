/* SPDX-License-Identifier: GPL-2.0-only */
/* The PL031 real-time clock: its seconds counter, found through the device tree. */
#ifndef VMTICK_ARM64_PL031_H
#define VMTICK_ARM64_PL031_H

#include "libc.h"

/*
 * Find the PL031 (compatible "arm,pl031") and check that it answers as
 * one (its PrimeCell ID). Returns NULL, or why there is none.
 */
const char *pl031_find(void);
/* RTCDR: seconds, counting up from whatever QEMU set it to (the host's time). */
u32 pl031_seconds(void);

#endif
