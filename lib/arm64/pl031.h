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
/* Set the count (RTCLR): the guest's own time of day from now on. */
void pl031_load(u32 seconds);

/*
 * The match interrupt: raised (a level) when RTCDR reaches the match
 * value, let out to the GIC when unmasked, held until cleared.
 */
/* The INTID of its SPI, from the device tree; 0 when the tree names none. */
unsigned pl031_irq(void);
void pl031_set_match(u32 seconds);
void pl031_irq_unmask(void);
void pl031_irq_mask(void);
/* RTCRIS: the match happened (masked or not); RTCMIS: and it is let out. */
bool pl031_irq_raw(void);
bool pl031_irq_masked_status(void);
void pl031_irq_clear(void);

#endif
