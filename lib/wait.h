/* SPDX-License-Identifier: GPL-2.0-only */
/* Bounded waits on a counter another CPU or an interrupt handler advances. */
#ifndef VMTICK_WAIT_H
#define VMTICK_WAIT_H

#include "libc.h"

/*
 * Spin until *counter >= target; false once timeout_ms of the arch
 * counter have passed. The clock is read only every WAIT_SPINS_PER_CLOCK
 * spins, since on some hosts each read traps to the hypervisor.
 */
#define WAIT_SPINS_PER_CLOCK	1024
bool wait_at_least(const volatile unsigned long *counter, unsigned long target, u64 timeout_ms);

/*
 * Spin on arch_counter() alone until it reaches until, or for ns of it: no
 * device is read, so no exit and no lock is taken in the VMM (a poll that
 * must leave the VMM's main loop room spins between its reads).
 */
void spin_until(u64 until);
void spin_ns(u64 ns);

#endif
