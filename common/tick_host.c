/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's questions to the host: its evidence over the run and over each stretch the judgment asks about (lib/host_evidence.h). */
#include "alloc.h"
#include "arch.h"
#include "report.h"
#include "stats.h"
#include "tick_engine.h"
#include "tick_record.h"
#include "units.h"
#include "host_evidence.h"

/*
 * The host's evidence: parts of about this many ms (the share of the run
 * the host took, where it swamped it), then the stretches the judgment
 * asks about, at most TICK_HOST_WINDOWS_MAX; how long to wait for answers.
 */
#define TICK_HOST_PART_MS     100
#define TICK_HOST_WINDOWS_MAX 1024
#define TICK_HOST_ANSWER_MS   20000

static struct host_evidence tick_host_evidence;
static struct tick_window tick_windows[TICK_HOST_WINDOWS_MAX];
static struct host_window tick_host_windows[TICK_HOST_WINDOWS_MAX];
static struct host_part tick_window_parts[TICK_HOST_WINDOWS_MAX];

/* Counter ticks after the anchor as us after mark 0, in the guest's time. */
static u64 us_after_mark(u64 t, u64 mark0)
{
	return ticks_to_ns(t + tick_run.anchor - mark0, tick_run.counter_hz) / NSEC_PER_USEC;
}

/* The judgment's workspace for n ticks, once per run. */
struct tick_work *tick_work(u64 n)
{
	static struct tick_work w;

	if (!w.late) {
		n = max(n, 1ull);
		w.late = calloc(n, sizeof(u64));
		w.own = calloc(n, sizeof(u64));
		w.lost = calloc(n, sizeof(u64));
		w.early = calloc(n, sizeof(u64));
		w.scratch = calloc(n, sizeof(u64));
	}
	return &w;
}

/* The host's evidence over each stretch the judgment asks about (common/tick_judge.c). */
static const char *ask_windows(struct tick_record *r, u64 mark0, u64 mark1, u64 give_up)
{
	u64 stamp_us, n = tick_judge_asks(r, tick_windows, TICK_HOST_WINDOWS_MAX, tick_work(r->n));
	const char *why;

	if (n > TICK_HOST_WINDOWS_MAX)
		report_info("%llu stretches to ask the host about: the first %d asked, the rest "
			    "explained by no host evidence",
			    n, TICK_HOST_WINDOWS_MAX);
	n = min(n, (u64)TICK_HOST_WINDOWS_MAX);
	for (u64 i = 0; i < n; i++)
		tick_host_windows[i] = (struct host_window){ us_after_mark(tick_windows[i].a, mark0),
							     us_after_mark(tick_windows[i].b, mark0) };
	why = host_evidence_windows(TICK_MARK_START, TICK_MARK_END,
				    us_after_mark(mark1 - tick_run.anchor, mark0), tick_host_windows,
				    (u32)n, tick_window_parts, &stamp_us, give_up);
	if (why)
		return why;
	for (u64 i = 0; i < n; i++)
		tick_windows[i].ev = tick_window_parts[i];
	r->host.nwin = (u32)n;
	r->host.win = tick_windows;
	r->host.stamp_us = max(r->host.stamp_us, stamp_us);
	return NULL;
}

/*
 * The host's evidence over the run, when the runner's agent answers: the
 * parts between the two marks mapped onto the counter (the marks' own
 * counter values, the stamps' slack said by the host).
 */
void tick_ask_host(struct tick_record *r, u64 mark0, u64 mark1)
{
	u64 span_ms = ticks_to_ns(mark1 - mark0, tick_run.counter_hz) / NSEC_PER_MSEC;
	u32 nparts = (u32)min(max(span_ms / TICK_HOST_PART_MS, 1ull), (u64)HOST_EVIDENCE_PARTS_MAX);
	u64 give_up = arch_counter() + tick_run.counter_hz * TICK_HOST_ANSWER_MS / MSEC_PER_SEC;

	r->host.why_none = "no host-evidence agent (scripts/host_evidence.py) answers here: run "
			   "by hand, or on an arch that cannot be told of one (arm64)";

	if (!host_evidence_offered())
		return;
	r->host.why_none = host_evidence_request(TICK_MARK_START, TICK_MARK_END, nparts,
						 &tick_host_evidence, give_up);
	if (!r->host.why_none) {
		r->host.from = mark0 - tick_run.anchor;
		r->host.to = mark1 - tick_run.anchor;
		r->host.stamp_us = tick_host_evidence.stamp_us;
		r->host.nparts = tick_host_evidence.nparts;
		r->host.part = tick_host_evidence.part;
		r->host.why_none = ask_windows(r, mark0, mark1, give_up);
	}
	if (r->host.why_none) {
		report(false, "the host's evidence was offered and could not be had: %s",
		       r->host.why_none);
		r->host.nparts = 0;
		r->host.nwin = 0;
	}
}
