/* SPDX-License-Identifier: GPL-2.0-only */
/* The tick judgment's workspace for n ticks on the host (calloc), with the resolution's copies. */
#ifndef VMTICK_TICK_WORK_HOST_H
#define VMTICK_TICK_WORK_HOST_H

#include <stdlib.h>
#include "../common/tick/tick_judge.h"

static inline struct tick_work tick_work_host(u64 n)
{
	struct tick_work w = {0};
	u64 **arrays[] = {&w.late, &w.own, &w.lost, &w.early, &w.scratch, &w.sim_at, &w.sim_steal};

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		*arrays[i] = calloc(n + 1, sizeof(u64));
	return w;
}

static inline void tick_work_host_free(struct tick_work *w)
{
	u64 *arrays[] = {w->late, w->own, w->lost, w->early, w->scratch, w->sim_at, w->sim_steal};

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
}

#endif
