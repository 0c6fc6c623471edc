/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Waits on a condition, a counter another CPU or an interrupt handler advances, or the clock: the
 * tree's only wait loops. A wait that halts or sleeps (hlt, WFE, WFI) does so in its condition.
 */
#ifndef VMTICK_WAIT_H
#define VMTICK_WAIT_H

#include "libc.h"
#include "arch.h"

/*
 * Spin until *counter >= target; false once timeout_ms of the arch
 * counter have passed. The clock is read only every WAIT_SPINS_PER_CLOCK
 * spins, since on some hosts each read traps to the hypervisor.
 */
#define WAIT_SPINS_PER_CLOCK	1024
bool wait_at_least(const volatile unsigned long *counter, unsigned long target, u64 timeout_ms);

/*
 * What a wait waits for: true ends it. It is asked before each look at
 * the clock, and its last answer is the wait's.
 */
typedef bool wait_cond_fn(void *arg);
/* ticks (or until) for a wait that only its condition ends */
#define WAIT_FOREVER		(~0ull)

/*
 * Spin (cpu_relax()) until cond(arg) or ticks of arch_counter() have
 * passed since its first answer; cond's last answer. The clock is read
 * every round: a wait that must see its deadline to the tick; but not
 * at all when cond holds at once (a console's transmitter, nearly always
 * ready, costs no clock read a character).
 */
bool wait_cond_ticks(wait_cond_fn *cond, void *arg, u64 ticks);
/*
 * The same, asking cond(arg) only every poll_ns (spin_ns() between): a
 * condition that reads a device, whose every read exits to the VMM.
 */
bool poll_cond_ticks(wait_cond_fn *cond, void *arg, u64 ticks, u64 poll_ns);
/*
 * Spin (cpu_relax()), with no deadline and no clock read, until cond(arg):
 * a handshake whose other side may take as long as it likes (a call
 * another CPU runs for its caller), a lock's turn. Inline, so that
 * spinlock.h takes its turns with it and what links the lock (report,
 * alloc, console; host tests with no clock) needs no more than before.
 */
static inline void wait_cond(wait_cond_fn *cond, void *arg)
{
	while (!cond(arg))
		cpu_relax();
}
/*
 * Spin, with no deadline, until *counter >= target: a turn another CPU
 * hands over with a release store, read with acquire.
 */
void wait_reached(const volatile unsigned long *counter, unsigned long target);

/*
 * One round of a wait that works while it waits (reads a device to keep
 * it busy, takes a byte of input, times a bracket, halts until an
 * interrupt): now is the arch_counter() read that began the round, so a
 * step that brackets a read with the clock needs no read of its own
 * before it. true ends the wait.
 */
typedef bool wait_step_fn(void *arg, u64 now);
/*
 * Read arch_counter(); at or past until, false; else step(arg, now),
 * and true if it says so; again, with nothing between (no cpu_relax():
 * the step is the round's work, or its pause). The clock is read once a
 * round, never twice; WAIT_FOREVER as until: only the step ends it.
 */
bool work_until(wait_step_fn *step, void *arg, u64 until);
/*
 * The same, timed by clock instead of arch_counter(): a measurement whose
 * brackets are the clock under test's own reads (refclock_mark(), where a
 * second clock's read each round would widen every bracket by it).
 */
bool work_until_by(u64 (*clock)(void), wait_step_fn *step, void *arg, u64 until);

/*
 * Spin on arch_counter() alone until it reaches until, or for ns of it: no
 * device is read, so no exit and no lock is taken in the VMM (a poll that
 * must leave the VMM's main loop room spins between its reads).
 */
void spin_until(u64 until);
void spin_ns(u64 ns);

#endif
