/* SPDX-License-Identifier: GPL-2.0-only */
/* A literal timer-tick record for the host tests of the judgment and its report: a clean run. */
#ifndef VMTICK_TICK_FIXTURE_H
#define VMTICK_TICK_FIXTURE_H

#include <string.h>
#include "../common/tick/tick_judge.h"

/* 1 kHz at a 2 GHz counter, so a tick is never a ns by accident; 1000 slots, 100 parts */
#define HZ     2000000000ull
#define PERIOD (HZ / 1000)
#define N      1000
#define NPARTS 100

/*
 * 1000 slots at 1 kHz, every tick 20 us after its slot, ratio 1 (a count
 * is a counter tick), and the host's evidence that it did nothing: at[]
 * and parts[] are the test's (N and NPARTS long).
 */
static inline struct tick_record tick_clean_run(u64 *at, struct host_part *parts)
{
	struct tick_record r = {
		.source = "fake",
		.kind = TICK_REC_PERIODIC,
		.counter_hz = HZ,
		.want_hz = 1000,
		.expected = N,
		.period_counts = PERIOD,
		.cal = { .ratio_fx = TICK_FX_ONE, .err_ppb = 0 },
		.n = N,
		.at = at,
		.host = { .from = 0, .to = N * PERIOD, .nparts = NPARTS, .part = parts },
	};

	memset(parts, 0, NPARTS * sizeof(*parts));
	for (u64 j = 0; j < N; j++)
		at[j] = (j + 1) * PERIOD + PERIOD / 50;
	r.end_at = at[N - 1];
	return r;
}

#endif
