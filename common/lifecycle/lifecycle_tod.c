/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's checks of the guest's time of day and seconds clock against the host's. */
#include "lifecycle_judge.h"

/* The time of day moved with the host's: its offset to the host's is the same after the event. */
void lc_check_tod(struct checks *out, const struct lc_record *r)
{
	const struct lc_done *d = &r->done;
	s64 before = (s64)(r->answer.tod_req - d->host_req_ns),
	    after = (s64)(r->answer.tod_done - d->host_ns);
	s64 moved = after - before, slack = (s64)(LC_TOD_SLACK_NS + lc_stamp_wait_ns(r));

	lc_bounded_ms(
		out, r, "tod", "moved", moved, -slack, slack,
		"time of day follows the host's: offset to it %lld us before the event, %lld us "
		"after (moved by at most %llu ms: %llu and %llu the host's threads waited for a "
		"CPU, which can delay its time stamps)",
		before / (s64)NSEC_PER_USEC, after / (s64)NSEC_PER_USEC, (u64)slack / NSEC_PER_MSEC,
		LC_TOD_SLACK_NS / NSEC_PER_MSEC, lc_stamp_wait_ns(r) / NSEC_PER_MSEC);
}

/* ---- the seconds clock ----------------------------------------------------- */

/* The host's time of day (ns) at counter value t, from its stamp host_ns taken at counter at. */
static s64 host_at(const struct lc_record *r, u64 host_ns, u64 at, u64 t)
{
	return t >= at ? (s64)(host_ns + lc_ns(r, t - at)) : (s64)(host_ns - lc_ns(r, at - t));
}

/*
 * The seconds clock's offset to the host's time of day at an edge (ns,
 * negative when behind): before the event from the request's stamp,
 * which the host takes as the newline comes in; after it from the
 * answer's, which it takes as it sends the line.
 */
s64 lc_rtc_offset_before(const struct lc_record *r)
{
	const struct lc_answer *a = &r->answer;
	const struct lc_edge *e = &a->rtc_before;

	return (s64)(e->secs * NSEC_PER_SEC) - host_at(r, r->done.host_req_ns, a->nl_at, e->at);
}

static s64 offset_after(const struct lc_record *r)
{
	const struct lc_answer *a = &r->answer;
	const struct lc_edge *e = &a->rtc_after;
	s64 secs_ns = (s64)(e->secs * NSEC_PER_SEC);

	/* fault=rtc_behind: the clock as a time base left unmoved over the stop would read */
	if (r->fault == LC_FAULT_RTC_BEHIND)
		secs_ns -= (s64)r->done.duration_ns;
	/* fault=rtc_rebased: the host's time of day again, what the guest set lost */
	if (r->fault == LC_FAULT_RTC_REBASED)
		secs_ns -= r->rtc_ref_ns / (s64)NSEC_PER_SEC * (s64)NSEC_PER_SEC;
	return secs_ns - host_at(r, r->done.host_ns, a->first_at, e->at);
}

/*
 * The time of day the guest set (rtc_set=) carried on: its offset to the
 * host's after this event is the one before the first, to the stamps.
 */
static void check_set_kept(struct checks *out, const struct lc_record *r, s64 after, s64 slack)
{
	s64 off = after - r->rtc_ref_ns;

	lc_bounded_ms(
		out, r, r->rtc->key, "tod_set_apart_ms", off, -slack, slack,
		"%s keeps the time of day the guest set: %+lld s %+lld ms from the host's after "
		"the event, %+lld s %+lld ms before the first (%+lld ms apart, at most +-%lld ms)",
		r->rtc->name, after / (s64)NSEC_PER_SEC,
		after % (s64)NSEC_PER_SEC / (s64)NSEC_PER_MSEC, r->rtc_ref_ns / (s64)NSEC_PER_SEC,
		r->rtc_ref_ns % (s64)NSEC_PER_SEC / (s64)NSEC_PER_MSEC, off / (s64)NSEC_PER_MSEC,
		slack / (s64)NSEC_PER_MSEC);
}

/*
 * After the event the clock reads the host's time of day: at one of its
 * edges it began the second the host is in, so it is behind by less than
 * a second (a clock of whole seconds, set from the host's); and its
 * offset to the host moved over the event by no more than the stamps'
 * delays (LC_RTC_SLACK_NS) and the edges' uncertainty. The first
 * bound alone misses a clock a second behind half the time; the second
 * catches it, and anything larger, whatever the phase of its seconds.
 */
void lc_check_rtc(struct checks *out, const struct lc_record *r)
{
	const struct lc_answer *a = &r->answer;
	const char *name = r->rtc->name;
	const char *why = a->rtc_before.why_not ? a->rtc_before.why_not : a->rtc_after.why_not;
	s64 before, after, moved, slack;

	if (why) {
		const struct lc_edge *e = a->rtc_before.why_not ? &a->rtc_before : &a->rtc_after;
		const char *when = a->rtc_before.why_not ? "before" : "after";

		/* a search the host kept from running shows the host, not the clock */
		if (e->wait_ns * 100 > LC_RTC_EDGE_WAIT_NS * LC_JUDGE_WAIT_PCT)
			checks_info(
				out,
				"%s: not judged: no edge of its seconds %s the event (%s) while a "
				"thread of QEMU's waited %llu ms for a host CPU (more than %u%% of "
				"the %llu ms search)",
				name, when, why, e->wait_ns / NSEC_PER_MSEC, LC_JUDGE_WAIT_PCT,
				LC_RTC_EDGE_WAIT_NS / NSEC_PER_MSEC);
		else
			checks_plain(out, false, "%s: no edge of its seconds %s the event: %s",
				     name, when, why);
		return;
	}
	before = lc_rtc_offset_before(r);
	after = offset_after(r), moved = after - before;
	slack = (s64)(LC_RTC_SLACK_NS + lc_stamp_wait_ns(r) + lc_ns(r, a->rtc_after.half_width));
	if (r->rtc_set) {
		check_set_kept(out, r, after, slack + (s64)lc_ns(r, a->rtc_before.half_width));
		lc_result_ms(out, r, r->rtc->key, "tod_offset_ms", after);
	} else {
		lc_bounded_ms(
			out, r, r->rtc->key, "tod_offset_ms", after, -(s64)NSEC_PER_SEC - slack,
			slack,
			"%s reads the host's time of day after the event: %+lld ms from it at an "
			"edge of its seconds (allowed %lld to %+lld ms: whole seconds, behind by "
			"less than one)",
			name, after / (s64)NSEC_PER_MSEC,
			(-(s64)NSEC_PER_SEC - slack) / (s64)NSEC_PER_MSEC,
			slack / (s64)NSEC_PER_MSEC);
	}
	slack += (s64)lc_ns(r, a->rtc_before.half_width);
	lc_bounded_ms(
		out, r, r->rtc->key, "tod_moved_ms", moved, -slack, slack,
		"%s's offset to the host's time of day %+lld ms before the event, %+lld ms after: "
		"moved by %+lld ms (at most +-%lld ms)",
		name, before / (s64)NSEC_PER_MSEC, after / (s64)NSEC_PER_MSEC,
		moved / (s64)NSEC_PER_MSEC, slack / (s64)NSEC_PER_MSEC);
}
