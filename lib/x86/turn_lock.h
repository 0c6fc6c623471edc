/* SPDX-License-Identifier: GPL-2.0-only */
/* A fair (ticket) lock whose waiters halt after a short spin, for vCPUs that outnumber host CPUs. */
#ifndef VMTICK_X86_TURN_LOCK_H
#define VMTICK_X86_TURN_LOCK_H

#include "libc.h"

/*
 * Waiters take tickets and are served in order. A waiter spins for
 * TURN_LOCK_SPIN_CYCLES, then halts until the unlocker's wake-up IPI.
 * Spinning keeps hand-offs tight when every vCPU has a host CPU; halting
 * gives the host CPU to the next ticket's vCPU when vCPUs outnumber host
 * CPUs, where a spinning waiter holds the next one off for a host time
 * slice per hand-off (2-5 ms measured at -smp 4 on 2 host CPUs).
 * Callers run with interrupts off (as on_cpu() functions do).
 */
#define TURN_LOCK_SPIN_CYCLES	100000

struct turn_lock {
	u32 next, owner;
	/* ticket % cpu_count() -> 1 + the CPU halted waiting for it, or 0 */
	u32 *sleeper;
};

/* Allocates the sleeper table for cpu_count() CPUs. */
void turn_lock_init(struct turn_lock *l);
void turn_lock(struct turn_lock *l);
void turn_unlock(struct turn_lock *l);

#endif
