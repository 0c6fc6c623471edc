/* SPDX-License-Identifier: GPL-2.0-only */
/* The spin-then-halt ticket lock: see turn_lock.h. */
#include "x86/turn_lock.h"
#include "alloc.h"
#include "x86/apic.h"
#include "arch.h"
#include "atomic.h"
#include "x86/processor.h"
#include "wait.h"

void turn_lock_init(struct turn_lock *l)
{
	l->next = l->owner = 0;
	l->sleeper = calloc((size_t)cpu_count(), sizeof(*l->sleeper));
}

/* A waiter for its turn: the ticket it holds, and where it says it halts. */
struct turn_wait {
	struct turn_lock *l;
	u32 ticket;
	u32 *slot, me;
};

static bool my_turn(void *arg)
{
	const struct turn_wait *w = arg;

	return atomic_load(&w->l->owner) == w->ticket;
}

/*
 * The halting half: true with interrupts off once the turn is ours, else
 * a halt until the unlocker's IPI (the wait asks again when it ends).
 */
static bool my_turn_else_halt(void *arg)
{
	struct turn_wait *w = arg;

	/* slot, then owner; the unlocker: owner, then slot - one of us sees the other */
	irq_disable();
	atomic_store(w->slot, w->me);
	smp_mb();
	if (my_turn(w))
		return true;
	safe_halt(); /* an IPI pending since the store ends the hlt at once */
	return false;
}

void turn_lock(struct turn_lock *l)
{
	u32 ticket = atomic_fetch_add(&l->next, 1);
	struct turn_wait w = {l, ticket, &l->sleeper[ticket % (u32)cpu_count()], (u32)smp_id() + 1};

	/* arch_counter() is the TSC, TURN_LOCK_SPIN_CYCLES's unit */
	if (!wait_cond_ticks(my_turn, &w, TURN_LOCK_SPIN_CYCLES))
		wait_cond(my_turn_else_halt, &w);
	/* only our own entry: an older ticket's holder never erases a newer one */
	atomic_cmpxchg(w.slot, &w.me, 0);
}

void turn_unlock(struct turn_lock *l)
{
	u32 next = l->owner + 1, sleeper;

	atomic_store(&l->owner, next);
	smp_mb();
	sleeper = atomic_load(&l->sleeper[next % (u32)cpu_count()]);
	if (sleeper)
		apic_send_ipi((int)sleeper - 1, IPI_WAKE_VECTOR);
}
