/* SPDX-License-Identifier: GPL-2.0-only */
/* Two vCPUs taking turns at reading one clock, and the brackets that come of it: the peer's clock against the boot vCPU's. */
#ifndef VMTICK_HANDOFF_H
#define VMTICK_HANDOFF_H

#include "libc.h"

/*
 * Turns each vCPU takes per hand-off: the tightest one brackets their
 * offset (under kvm-pvm, where guest code is emulated, 8 gave brackets
 * 3-12 ms wide, 64 about 0.13-0.45 ms).
 */
#define HANDOFF_ROUNDS 64

/* An offset between two counts, known to lie in [lo, hi]. */
struct bracket {
	s64 lo, hi;
};

/* What nothing has bracketed yet: every bracket is narrower. */
#define BRACKET_NONE ((struct bracket){INT64_MIN, INT64_MAX})

/* hi - lo, in u64 arithmetic: BRACKET_NONE is the widest */
u64 bracket_width(struct bracket b);
/* The narrower of best and b; best when they are as wide. */
struct bracket bracket_narrower(struct bracket best, struct bracket b);
/* How far apart two brackets of what should be one offset are at least; zero or less where they meet. */
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

/* One hand-off's turns and reads (handoff_run). */
struct handoff {
	unsigned long peer_ready;	/* the peer waits for its first turn: no wake-up in the first gap */
	unsigned long turn;		/* even: the boot vCPU's, odd: the peer's; it only grows */
	u64 boot[HANDOFF_ROUNDS + 1];
	u64 peer[HANDOFF_ROUNDS];
	u64 (*read)(void);
	/* NULL, or (test-only faults) what the peer records for read r instead of v */
	u64 (*peer_fault)(const struct handoff *ho, u32 r, u64 v);
};

/* From the boot vCPU: a hand-off of ho->read with vCPU peer, which must be idle. */
void handoff_run(struct handoff *ho, int peer);

/* The peer's clock minus the boot vCPU's, by the hand-off just run. */
static inline struct bracket handoff_offset(const struct handoff *ho)
{
	return handoff_bracket(ho->boot, ho->peer, HANDOFF_ROUNDS);
}

#endif
