/* SPDX-License-Identifier: GPL-2.0-only */
/* Two vCPUs taking turns at reading one clock: the peer's clock against the boot vCPU's, bracketed by the reads either side. */
#ifndef VMTICK_HANDOFF_H
#define VMTICK_HANDOFF_H

#include "libc.h"

/* Turns each vCPU takes per hand-off: the tightest one brackets their offset (under kvm-pvm, where guest code is emulated, 8 gave brackets 3-12 ms wide, 64 about 0.13-0.3 ms). */
#define HANDOFF_ROUNDS 64

/* An offset between two counts, known to lie in [lo, hi]. */
struct bracket {
	s64 lo, hi;
};

/*
 * One hand-off: the boot vCPU reads (boot[0]), then the peer (peer[0]),
 * then the boot vCPU (boot[1]), ... each read made after the other
 * vCPU's, so peer[r] fell between boot[r] and boot[r + 1] in time.
 */
struct handoff {
	u32 peer_ready;		/* the peer waits for its first turn: no wake-up in the first gap */
	u32 turn;		/* even: the boot vCPU's, odd: the peer's */
	u64 boot[HANDOFF_ROUNDS + 1];
	u64 peer[HANDOFF_ROUNDS];
	u64 (*read)(void);
	/* NULL, or (test-only faults) what the peer records for read r instead of v */
	u64 (*peer_fault)(const struct handoff *ho, u32 r, u64 v);
};

/* From the boot vCPU: a hand-off of ho->read with vCPU peer, which must be idle. */
void handoff_run(struct handoff *ho, int peer);

/*
 * The first read below the one before it, made by the other vCPU: its
 * index in boot/peer order (2r + 1 for peer[r], 2r + 2 for boot[r + 1]),
 * or 0 when every read is in order.
 */
u32 handoff_first_back(const struct handoff *ho);

/* The peer's clock minus the boot vCPU's: the narrowest of the rounds' brackets. */
struct bracket handoff_offset(const struct handoff *ho);

/* hi - lo, in u64 arithmetic: the "nothing yet" bracket {INT64_MIN, INT64_MAX} is the widest */
static inline u64 bracket_width(struct bracket b)
{
	return (u64)b.hi - (u64)b.lo;
}

/* How far apart two brackets of what should be one offset are at least (negative: they overlap). */
s64 bracket_gap(struct bracket a, struct bracket b);

#endif
