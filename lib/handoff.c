/* SPDX-License-Identifier: GPL-2.0-only */
/* Two vCPUs taking turns at reading one clock, and its brackets (lib/handoff.h). */
#include "handoff.h"
#include "arch.h"
#include "atomic.h"
#include "wait.h"

u64 bracket_width(struct bracket b)
{
	return (u64)b.hi - (u64)b.lo;
}

struct bracket bracket_narrower(struct bracket best, struct bracket b)
{
	return bracket_width(b) < bracket_width(best) ? b : best;
}

s64 bracket_gap(struct bracket a, struct bracket b)
{
	s64 up = a.lo - b.hi, down = b.lo - a.hi;

	return up > down ? up : down;
}

struct bracket bracket_between(u64 v1, u64 p, u64 v2)
{
	return (struct bracket){(s64)(v1 - p), (s64)(v2 - p)};
}

struct bracket handoff_bracket(const u64 *boot, const u64 *peer, unsigned rounds)
{
	struct bracket best = BRACKET_NONE;

	for (unsigned r = 0; r < rounds; r++) {
		struct bracket b = {(s64)(peer[r] - boot[r + 1]), (s64)(peer[r] - boot[r])};

		best = bracket_narrower(best, b);
	}
	return best;
}

bool handoff_went_back(const u64 *boot, const u64 *peer, unsigned rounds, struct handoff_back *back)
{
	for (unsigned r = 0; r < rounds; r++) {
		if (peer[r] < boot[r]) {
			*back = (struct handoff_back){r, true, boot[r], peer[r]};
			return true;
		}
		if (boot[r + 1] < peer[r]) {
			*back = (struct handoff_back){r, false, peer[r], boot[r + 1]};
			return true;
		}
	}
	return false;
}

static void handoff_peer(void *arg)
{
	struct handoff *ho = arg;

	atomic_store(&ho->peer_ready, 1);
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		u64 v;

		wait_reached(&ho->turn, 2 * r + 1);
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
	wait_reached(&ho->peer_ready, 1);
	for (u32 r = 0; r < HANDOFF_ROUNDS; r++) {
		ho->boot[r] = ho->read();
		atomic_store(&ho->turn, 2 * r + 1);
		wait_reached(&ho->turn, 2 * r + 2);
	}
	ho->boot[HANDOFF_ROUNDS] = ho->read();
	on_cpu_wait(peer);
}
