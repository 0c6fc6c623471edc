/* SPDX-License-Identifier: GPL-2.0-only */
/* The CMOS real-time clock (MC146818): its time of day, read consistently. */
#ifndef VMTICK_X86_RTC_H
#define VMTICK_X86_RTC_H

#include "libc.h"

#define RTC_SECONDS_PER_DAY 86400

/*
 * The RTC's time of day in seconds since midnight (0..86399), read with
 * the update-in-progress protocol: NULL, or why it could not be read
 * (an RTC that is always updating, or whose registers make no sense).
 */
const char *rtc_seconds_of_day(u32 *seconds);

#endif
