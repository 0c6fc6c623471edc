/* SPDX-License-Identifier: GPL-2.0-only */
/* A fair ticket spinlock: CPUs get the lock in the order they asked for it. */
#ifndef VMTICK_SPINLOCK_H
#define VMTICK_SPINLOCK_H

#include "atomic.h"
#include "arch.h"
#include "wait.h"

struct spinlock {
	u32 next;	/* next ticket to hand out */
	u32 owner;	/* ticket now being served */
};

struct spin_turn {
	struct spinlock *l;
	u32 ticket;
};

static inline bool spin_turn_came(void *arg)
{
	const struct spin_turn *t = arg;

	return __atomic_load_n(&t->l->owner, __ATOMIC_ACQUIRE) == t->ticket;
}

static inline void spin_lock(struct spinlock *l)
{
	struct spin_turn t = {l, __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED)};

	wait_cond(spin_turn_came, &t);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif
