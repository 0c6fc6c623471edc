/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle engine's search for an edge of the seconds clock (RTC, PL031), before and after each event. */
#include "lifecycle_state.h"
#include "wait.h"

/*
 * Poll the clock until its seconds change, each read timed by the
 * counter: the edge came after the start of the last read of the old
 * value and before the end of the first read of the new one. Polls are
 * spaced (LC_RTC_POLL_NS): each read takes the VMM's device lock, and
 * back-to-back reads starve its main loop, whose timer ends the update
 * (QEMU's CMOS RTC under TCG then reads update-in-progress for as long
 * as the polling lasts). The time of day is read once that has had time
 * to run (LC_RTC_SETTLE_NS): the second the edge began.
 */
/* The edge came after old_at (the last read of the old seconds began) and by end. */
struct edge_search {
	u32 first; /* the seconds at the start */
	u64 old_at, end;
};

/* One poll, the round's read (now) before it, a spaced one: true once the seconds changed. */
static bool edge_poll(void *arg, u64 now)
{
	struct edge_search *s = arg;

	if (lc.rec.rtc->tick() != s->first) {
		s->end = arch_counter();
		return true;
	}
	s->old_at = now;
	spin_ns(LC_RTC_POLL_NS);
	return false;
}

void lc_rtc_edge(struct lc_edge *e)
{
	u64 give_up = arch_counter() + ns_to_ticks(LC_RTC_EDGE_WAIT_NS, arch_counter_hz());
	struct edge_search s = {.old_at = arch_counter()};

	s.first = lc.rec.rtc->tick();
	spin_ns(LC_RTC_POLL_NS);
	if (work_until(edge_poll, &s, give_up)) {
		e->at = s.old_at + (s.end - s.old_at) / 2;
		e->half_width = (s.end - s.old_at + 1) / 2;
		spin_ns(LC_RTC_SETTLE_NS);
		e->why_not = lc.rec.rtc->epoch(&e->secs);
		return;
	}
	static_assert(LC_RTC_EDGE_WAIT_NS == 1500000000ull, "the message says 1.5 s");
	e->why_not = "its seconds did not change in 1.5 s";
}
