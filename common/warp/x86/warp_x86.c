/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 half of the warp check: turns under lib/x86/turn_lock.c, whose
 * waiters halt after a short spin, so that a run with more vCPUs than
 * host CPUs (kvm-pvm, -smp 4 on 2 CPUs) hands over without waiting out a
 * host time slice per turn.
 */
#include "x86/warp_arch.h"
#include "alloc.h"
#include "x86/turn_lock.h"

static void *turns_new(void)
{
	struct turn_lock *l = malloc(sizeof(*l));

	turn_lock_init(l);
	return l;
}

static void turn_take(void *turns)
{
	turn_lock(turns);
}

static void turn_give(void *turns)
{
	turn_unlock(turns);
}

const struct warp_arch warp_arch_x86 = {
	.turns_new = turns_new,
	.turn_take = turn_take,
	.turn_give = turn_give,
};
