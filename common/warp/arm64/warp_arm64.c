/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arm64 half of the warp check: strict turns, vCPU 0, 1, ..., n-1,
 * 0, ..., so that every read but the first follows another vCPU's (a
 * ticket lock under round-robin TCG was seen handing over twice in 2000
 * reads: one vCPU's time slice covered all its turns). The turn is handed
 * over with release/acquire, so each read is ordered after the previous
 * vCPU's.
 */
#include "arm64/warp_arch.h"
#include "alloc.h"
#include "arch.h"
#include "wait.h"

struct strict_turns {
	unsigned long turn;  /* whose: turn % cpu_count() */
	unsigned long *next; /* per vCPU: the turn it takes next */
};

static void *turns_new(void)
{
	struct strict_turns *t = malloc(sizeof(*t));

	t->turn = 0;
	t->next = calloc((size_t)cpu_count(), sizeof(*t->next));
	for (int i = 0; i < cpu_count(); i++)
		t->next[i] = (unsigned long)i;
	return t;
}

static void turn_take(void *turns)
{
	struct strict_turns *t = turns;

	/* the turn only passes this vCPU's after this vCPU gives it */
	wait_reached(&t->turn, t->next[smp_id()]);
}

static void turn_give(void *turns)
{
	struct strict_turns *t = turns;

	t->next[smp_id()] += (unsigned long)cpu_count();
	__atomic_store_n(&t->turn, t->turn + 1, __ATOMIC_RELEASE);
}

const struct warp_arch warp_arch_arm64 = {
	.turns_new = turns_new,
	.turn_take = turn_take,
	.turn_give = turn_give,
};
