/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether the host left a window quiet enough to time a periodic source's period by: one rule for every test that times one. */
#ifndef VMTICK_BUSY_H
#define VMTICK_BUSY_H

#include "libc.h"

/*
 * A window in which the host kept the vCPU (steal time) or any vCPU (the
 * runner's measure of QEMU's threads) from running for more than this
 * percent of it is a busy host's: a period timed over it says more about
 * the host than about the timer (the RTC's periodic interrupt beside two
 * busy loops: its least delayed interrupts 2 ms late together).
 */
#define QUIET_HOST_PCT 5

/* NULL, or why a window of window_ns with steal_ns of the vCPU's steal time in it is too busy. */
const char *busy_by_steal(u64 steal_ns, u64 window_ns);
/* NULL, or why a window of window_ns in which a vCPU waited wait_ns for a host CPU is too busy. */
const char *busy_by_wait(u64 wait_ns, u64 window_ns);

/*
 * NULL, or why a window of window_ns in which the host took delay_ns from
 * QEMU (its threads' waits for a CPU and the steal, by the runner's agent)
 * is too busy.
 */
const char *busy_by_host(u64 delay_ns, u64 window_ns);

#endif
