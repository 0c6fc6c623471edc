/* SPDX-License-Identifier: GPL-2.0-only */
/* A fair ticket spinlock: CPUs get the lock in the order they asked for it. */
#ifndef VMTICK_SPINLOCK_H
#define VMTICK_SPINLOCK_H

#include "atomic.h"
#include "arch.h"

struct spinlock {
	u32 next;	/* next ticket to hand out */
	u32 owner;	/* ticket now being served */
};

static inline void spin_lock(struct spinlock *l)
{
	u32 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif
