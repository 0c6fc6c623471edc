// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_tod.c, the lifecycle test's time-of-day checks, on the
 * host, with lib/report.c under them.
 * What: lc_check_tod() passes a time of day whose offset to the host's
 * moved by no more than LC_TOD_SLACK_NS plus the host's stamp waits, and
 * fails one that moved further either way; lc_rtc_edge() times an edge of
 * the seconds clock to within its poll, reads the clock's time of day
 * there, and says why when no edge comes in 1.5 s; lc_check_rtc() passes a
 * seconds clock behind the host's by less than a second whose offset did
 * not move, fails one a second behind, one whose offset moved beyond the
 * slack and one fault=rtc_behind shifts, fails a missing edge, and leaves a
 * missing edge unjudged where QEMU's threads waited over 20% of the search.
 * Why: on a good host these checks only pass; here each bound is hit from
 * both sides.
 * How: the counter ticks in ns (1 GHz): a fixed value for the checks, and
 * for the edge search one that moves STEP_NS at every read (fake_counter.h); the seconds
 * clock is played here (its tick changes once the counter passes the
 * edge). Each check is read back as its entry (lc_entries.h: its figure,
 * band and outcome, and the numbers only its sentence carries); the
 * figures are worked out beside the cases.
 */
/* LIBSRC: common/lifecycle/lifecycle_tod.c common/lifecycle/lifecycle_rtc_edge.c common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_figure.c lib/busy.c lib/period.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/wait.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "fake_counter.h"
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/lifecycle/lifecycle_state.h"
#include "judged.h"
#include "lc_entries.h"

#define MS NSEC_PER_MSEC
/* the counter's move at each read while an edge is searched for */
#define STEP_NS	   (10 * NSEC_PER_USEC)
#define EDGE_AT	   (500 * MS)
#define NEVER	   (~0ull)
#define EPOCH_SECS 1796094540ull
/* the host's time of day at the request and at the answer */
#define HOST_REQ  (EPOCH_SECS * NSEC_PER_SEC)
#define HOST_DONE (HOST_REQ + 2 * NSEC_PER_SEC)

/* --- the arch's hooks and the sampling half's state ------------------------------- */

struct lc_state lc;
static u64 edge_at;
static const char *epoch_why;

void cpu_relax(void)
{
}

int cpu_count(void)
{
	return 1;
}

/* The seconds clock: its tick changes as the counter passes edge_at. */
static u32 fake_tick(void)
{
	return fake_counter >= edge_at;
}

static const char *fake_epoch(u64 *secs)
{
	*secs = EPOCH_SECS;
	return epoch_why;
}

static const struct lc_rtc rtc = {
	.name = "RTC", .key = "rtc", .tick = fake_tick, .epoch = fake_epoch};

static void reset_event(void)
{
	memset(&lc, 0, sizeof(lc));
	lc.rec.rtc = &rtc;
	lc.rec.ncpus = 1;
	lc.rec.counter_hz = FAKE_COUNTER_HZ;
	lc.rec.seq = 1;
	lc.rec.done = (struct lc_done){.kind = LC_PAUSE,
				   .seq = 1,
				   .duration_ns = NSEC_PER_SEC,
				   .host_req_ns = HOST_REQ,
				   .host_ns = HOST_DONE};
}

/* --- the time of day ------------------------------------------------------------ */

struct tod_case {
	s64 before_us, after_us; /* the guest's offset to the host's, before and after */
	u64 stamp_wait_ms;	 /* the host's stamp waits (both halves) */
	struct want want[1];
};

/*
 * The offset moved by after - before, bound LC_TOD_SLACK_NS (50 ms) plus
 * the stamp waits; its sentence carries the offsets (us) and the bound's
 * parts (ms).
 */
#define TOD(before_us, after_us, wait_ms, verdict, ns, slack_ms)                                   \
	{ before_us, after_us, wait_ms,                                                            \
	  { { verdict,                                                                             \
	      FIGURE("e1.pause.tod.moved", "ms", ns, -(slack_ms) * (s64)MS, (slack_ms) * (s64)MS), \
	      .mentions = { #before_us, #after_us, #slack_ms, "50", #wait_ms } } } }

static const struct tod_case tod_cases[] = {
	TOD(5000, 15000, 0, WANT_PASS, 10 * (s64)MS, 50),
	TOD(5000, 55000, 0, WANT_PASS, 50 * (s64)MS, 50),
	TOD(5000, 55001, 0, WANT_FAIL, 50001 * (s64)NSEC_PER_USEC, 50),
	TOD(5000, -46000, 0, WANT_FAIL, -51 * (s64)MS, 50),
	TOD(5000, 65000, 12, WANT_PASS, 60 * (s64)MS, 62),
};

static void test_tod_table(void **state)
{
	for (size_t i = 0; i < sizeof(tod_cases) / sizeof(tod_cases[0]); i++) {
		const struct tod_case *c = &tod_cases[i];
		struct checks *l = test_checks();
		char what[64];

		reset_event();
		lc.rec.done.stamp_wait_ns = c->stamp_wait_ms / 2 * MS;
		lc.rec.done.after_stamp_wait_ns = (c->stamp_wait_ms - c->stamp_wait_ms / 2) * MS;
		lc.rec.answer.tod_req = HOST_REQ + (u64)(c->before_us * (s64)NSEC_PER_USEC);
		lc.rec.answer.tod_done = HOST_DONE + (u64)(c->after_us * (s64)NSEC_PER_USEC);
		lc_check_tod(l, &lc.rec);
		snprintf(what, sizeof(what), "offset %lld us, then %lld us",
			 (long long)c->before_us, (long long)c->after_us);
		LC_EXPECT(what, l, c->want);
	}
}

/* --- the seconds clock's edge ------------------------------------------------------ */

static void search(struct lc_edge *e, u64 edge)
{
	memset(e, 0, sizeof(*e));
	fake_counter = 0;
	fake_counter_step = STEP_NS;
	edge_at = edge;
	lc_rtc_edge(e);
}

/* Edges at several phases of the polling: each within the width it is timed to. */
static void test_edge_found(void **state)
{
	for (u64 phase = 0; phase < LC_RTC_POLL_NS; phase += 7 * NSEC_PER_USEC) {
		u64 edge = EDGE_AT + phase;
		struct lc_edge e;

		reset_event();
		epoch_why = NULL;
		search(&e, edge);
		assert_null(e.why_not);
		assert_int_equal(e.secs, EPOCH_SECS);
		if (e.at - e.half_width > edge || e.at + e.half_width < edge)
			fail_msg("edge at %llu ns, timed at %llu +- %llu", (unsigned long long)edge,
				 (unsigned long long)e.at, (unsigned long long)e.half_width);
		/* a poll, and the few reads around it */
		if (e.half_width > LC_RTC_POLL_NS / 2 + 4 * STEP_NS)
			fail_msg("edge timed to +- %llu ns: wider than half a poll (%llu ns) and a "
				 "few reads",
				 (unsigned long long)e.half_width, LC_RTC_POLL_NS / 2);
		/* the time of day is read once the clock has settled: LC_RTC_SETTLE_NS after the
		 * edge */
		assert_true(fake_counter >= edge + LC_RTC_SETTLE_NS);
	}
}

static void test_edge_epoch_unread(void **state)
{
	struct lc_edge e;

	reset_event();
	epoch_why = "the clock reads update-in-progress";
	search(&e, EDGE_AT);
	assert_string_equal(e.why_not, "the clock reads update-in-progress");
	epoch_why = NULL;
}

static void test_edge_never(void **state)
{
	struct lc_edge e;

	reset_event();
	search(&e, NEVER);
	assert_string_equal(e.why_not, "its seconds did not change in 1.5 s");
	assert_int_equal(e.secs, 0);
	/* searched for the whole 1.5 s, and not much more */
	if (fake_counter < LC_RTC_EDGE_WAIT_NS ||
	    fake_counter > LC_RTC_EDGE_WAIT_NS + 2 * LC_RTC_POLL_NS)
		fail_msg("gave up after %llu ns, want %llu ns", (unsigned long long)fake_counter,
			 LC_RTC_EDGE_WAIT_NS);
}

/* --- the seconds clock against the host's time of day ------------------------------ */

struct rtc_case {
	const char *what;
	s64 before_us, after_us; /* the clock's offset to the host's at its edges */
	enum lc_fault fault;
	const char *why_before, *why_after;
	u64 wait_ms; /* QEMU's threads' wait during a search that found nothing */
	struct want want[3];
};

/*
 * The edges are timed to +-0.1 ms each; the slack is LC_RTC_SLACK_NS, 50
 * ms, plus the after edge's width, then the before edge's: the offset
 * after the event within -1050.1 to +50.1 ms, its move within +-50.2 ms.
 * A missing edge fails a plain check, or is said in an INFO where QEMU's
 * threads waited over 20% of the search (and not failed: no plain check);
 * either way nothing is measured.
 */
#define OFFSET(verdict, ms)                                                                        \
	{ verdict, FIGURE("e1.pause.rtc.tod_offset_ms", "ms", (ms) * (s64)MS,                      \
			  -1050100 * (s64)NSEC_PER_USEC, 50100 * (s64)NSEC_PER_USEC) }
/* its sentence carries the offset before, -300 ms in every case, no figure does */
#define RTC_MOVED(verdict, us)                                                                     \
	{ verdict,                                                                                 \
	  FIGURE("e1.pause.rtc.tod_moved_ms", "ms", (us) * (s64)NSEC_PER_USEC,                     \
		 -50200 * (s64)NSEC_PER_USEC, 50200 * (s64)NSEC_PER_USEC),                         \
	  .mentions = { "-300" } }
#define NO_OFFSET { WANT_ABSENT, .name = "e1.pause.rtc.tod_offset_ms" }

static const struct rtc_case rtc_cases[] = {
	{"300 ms behind throughout", -300000, -300000, LC_FAULT_NONE, NULL, NULL, 0,
	 {OFFSET(WANT_PASS, -300), RTC_MOVED(WANT_PASS, 0)}},
	{"a second behind after", -300000, -1300000, LC_FAULT_NONE, NULL, NULL, 0,
	 {OFFSET(WANT_FAIL, -1300), RTC_MOVED(WANT_FAIL, -1000000)}},
	{"moved 60 ms, still within a second", -300000, -240000, LC_FAULT_NONE, NULL, NULL, 0,
	 {OFFSET(WANT_PASS, -240), RTC_MOVED(WANT_FAIL, 60000)}},
	{"moved 50.15 ms: within the two edges' widths", -300000, -249850, LC_FAULT_NONE, NULL,
	 NULL, 0, {RTC_MOVED(WANT_PASS, 50150)}},
	{"ahead of the host", -300000, 60000, LC_FAULT_NONE, NULL, NULL, 0,
	 {OFFSET(WANT_FAIL, 60)}},
	{"fault=rtc_behind: the stop's second missing", -300000, -300000, LC_FAULT_RTC_BEHIND, NULL,
	 NULL, 0, {OFFSET(WANT_FAIL, -1300)}},
	{"no edge before, the host idle", 0, 0, LC_FAULT_NONE, "stuck", NULL, 0,
	 {{WANT_FAIL}, NO_OFFSET}},
	/* its sentence: the 301 ms waited, more than 20% of the 1500 ms search */
	{"no edge after, QEMU's threads waited 301 ms of the 1500", 0, 0, LC_FAULT_NONE, NULL,
	 "stuck", 301, {{WANT_INFO, .mentions = {"301", "20", "1500"}}, NO_OFFSET, {WANT_ABSENT}}},
	{"no edge after, QEMU's threads waited 300 ms: judged", 0, 0, LC_FAULT_NONE, NULL, "stuck",
	 300, {{WANT_FAIL}, NO_OFFSET}},
};

/* The edges 0.1 ms wide, each at its stamp's counter value: offsets are the seconds against the
 * stamps. */
static struct checks *judge_rtc(const struct rtc_case *c)
{
	struct checks *l = test_checks();
	struct lc_answer a = {
		.nl_at = 1000 * MS,
		.first_at = 3000 * MS,
		.rtc_before = {.secs = EPOCH_SECS,
			       .at = 1000 * MS,
			       .half_width = LC_RTC_POLL_NS,
			       .why_not = c->why_before,
			       .wait_ns = c->wait_ms * MS},
		.rtc_after = {.secs = EPOCH_SECS + 2,
			      .at = 3000 * MS,
			      .half_width = LC_RTC_POLL_NS,
			      .why_not = c->why_after,
			      .wait_ns = c->wait_ms * MS},
	};

	reset_event();
	lc.rec.fault = c->fault;
	lc.rec.done.host_req_ns = HOST_REQ - (u64)(c->before_us * (s64)NSEC_PER_USEC);
	lc.rec.done.host_ns = HOST_DONE - (u64)(c->after_us * (s64)NSEC_PER_USEC);
	lc.rec.answer = a;
	lc_check_rtc(l, &lc.rec);
	return l;
}

static void test_rtc_table(void **state)
{
	for (size_t i = 0; i < sizeof(rtc_cases) / sizeof(rtc_cases[0]); i++)
		LC_EXPECT(rtc_cases[i].what, judge_rtc(&rtc_cases[i]), rtc_cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tod_table),	  cmocka_unit_test(test_edge_found),
		cmocka_unit_test(test_edge_epoch_unread), cmocka_unit_test(test_edge_never),
		cmocka_unit_test(test_rtc_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
