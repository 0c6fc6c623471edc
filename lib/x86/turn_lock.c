/* SPDX-License-Identifier: GPL-2.0-only */
/* The spin-then-halt ticket lock: see turn_lock.h. */
#include "x86/turn_lock.h"
#include "alloc.h"
#include "x86/apic.h"
#include "arch.h"
#include "atomic.h"
#include "x86/processor.h"

void turn_lock_init(struct turn_lock *l)
{
	l->next = l->owner = 0;
	l->sleeper = calloc((size_t)cpu_count(), sizeof(*l->sleeper));
}

void turn_lock(struct turn_lock *l)
{
	u32 ticket = atomic_fetch_add(&l->next, 1);
	u32 *slot = &l->sleeper[ticket % (u32)cpu_count()], me = (u32)smp_id() + 1;
	u64 start = rdtsc();

	while (atomic_load(&l->owner) != ticket) {
		if (rdtsc() - start < TURN_LOCK_SPIN_CYCLES) {
			pause();
			continue;
		}
		/* slot, then owner; the unlocker: owner, then slot - one of us sees the other */
		irq_disable();
		atomic_store(slot, me);
		smp_mb();
		if (atomic_load(&l->owner) != ticket)
			safe_halt();	/* an IPI pending since the store ends the hlt at once */
		irq_disable();
	}
	/* only our own entry: an older ticket's holder never erases a newer one */
	atomic_cmpxchg(slot, &me, 0);
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
