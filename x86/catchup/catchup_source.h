/* SPDX-License-Identifier: GPL-2.0-only */
/* catchup's tick source: the RTC's periodic interrupt or the PIT's channel 0, each tick stamped
 * with the TSC. */
#ifndef VMTICK_CATCHUP_SOURCE_H
#define VMTICK_CATCHUP_SOURCE_H

#include "libc.h"

/* Say which periodic tick sources this machine offers (-machine hpet=off takes one away). */
void source_list_offered(void);
/* Route the source ("rtc" or "pit") through the IOAPIC and start it ticking at hz; interrupts on.
 */
void source_start(const char *source, unsigned hz);
void source_stop(void);
/* Forget the stamps taken so far: the next disturbance's record starts. */
void source_restart_record(void);
/* Ticks stamped since, tick i's TSC, and whether the stamps ran out of room. */
unsigned source_ticks(void);
u64 source_stamp(unsigned i);
bool source_full(void);

#endif
