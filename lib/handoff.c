/* SPDX-License-Identifier: GPL-2.0-only */
/* Two vCPUs taking turns at reading one clock (lib/handoff.h). */
#include "handoff.h"
#include "arch.h"
#include "atomic.h"

static void wait_turn(struct handoff *ho, u32 turn)
{
	while (atomic_load(&ho->turn) != turn)
		cpu_relax();
}

static void handoff_peer(void *arg)
{
	struct handoff *ho = arg;

	atomic_store(&ho->peer_ready, 1);
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		u64 v;

		wait_turn(ho, 2 * r + 1);
		v = ho->read();
		ho->peer[r] = ho->peer_fault ? ho->peer_fault(ho, r, v) : v;
		atomic_store(&ho->turn, 2 * r + 2);
	}
}

void handoff_run(struct handoff *ho, int peer)
{
	atomic_store(&ho->turn, 0);
	atomic_store(&ho->peer_ready, 0);
	on_cpu_async(peer, handoff_peer, ho);
	while (!atomic_load(&ho->peer_ready))
		cpu_relax();
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		ho->boot[r] = ho->read();
		atomic_store(&ho->turn, 2 * r + 1);
		wait_turn(ho, 2 * r + 2);
	}
	ho->boot[HANDOFF_ROUNDS] = ho->read();
	on_cpu_wait(peer);
}

u32 handoff_first_back(const struct handoff *ho)
{
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		if (ho->peer[r] < ho->boot[r])
			return 2 * r + 1;
		if (ho->boot[r + 1] < ho->peer[r])
			return 2 * r + 2;
	}
	return 0;
}

/*
 * The peer's read r fell between the boot vCPU's reads r and r + 1, so its
 * offset to the boot vCPU's clock is within the two: the narrowest pair
 * brackets it best.
 */
struct bracket handoff_offset(const struct handoff *ho)
{
	struct bracket best = { INT64_MIN, INT64_MAX };

	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		struct bracket b = { (s64)(ho->peer[r] - ho->boot[r + 1]),
				     (s64)(ho->peer[r] - ho->boot[r]) };

		if (bracket_width(b) < bracket_width(best))
			best = b;
	}
	return best;
}

s64 bracket_gap(struct bracket a, struct bracket b)
{
	s64 up = a.lo - b.hi, down = b.lo - a.hi;

	return up > down ? up : down;
}
