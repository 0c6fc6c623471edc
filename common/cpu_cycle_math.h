/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on engine's brackets: offsets between counters known to lie in a range, pure, so the
 * host tests build them too. */
#ifndef VMTICK_CPU_CYCLE_MATH_H
#define VMTICK_CPU_CYCLE_MATH_H

#include "libc.h"

/* An offset between two counts, known to lie in [lo, hi]. */
struct bracket {
	s64 lo, hi;
};

/* What nothing has bracketed yet: every bracket is narrower. */
#define BRACKET_NONE ((struct bracket){INT64_MIN, INT64_MAX})

u64 bracket_width(struct bracket b);
/* The narrower of best and b; best when they are as wide. */
struct bracket bracket_narrower(struct bracket best, struct bracket b);
/* How far apart two brackets of what should be one offset are at least; zero or less where they
 * meet. */
s64 bracket_gap(struct bracket a, struct bracket b);
/* A count p read between v1 and v2 of another counter: their offset, v - p. */
struct bracket bracket_between(u64 v1, u64 p, u64 v2);

/*
 * A hand-off: the boot vCPU reads boot[0], the peer peer[0], the boot
 * vCPU boot[1], ... boot[rounds]. Each peer read falls between two boot
 * reads, so the peer's counter minus the boot vCPU's is in [peer[r] -
 * boot[r + 1], peer[r] - boot[r]]: the narrowest of them.
 */
struct bracket handoff_bracket(const u64 *boot, const u64 *peer, unsigned rounds);

/* The first read of a hand-off that is behind the read before it, made by the other vCPU. */
struct handoff_back {
	unsigned round;
	bool by_peer; /* peer[round] behind boot[round]; else boot[round + 1] behind peer[round] */
	u64 before, after; /* the earlier read and the one behind it */
};

/* True, and *back filled, when a read went back. */
bool handoff_went_back(const u64 *boot, const u64 *peer, unsigned rounds,
		       struct handoff_back *back);

#endif
