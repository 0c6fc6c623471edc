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
 * asks about, at most TICK_HOST_WINDOWS_MAX. The asking and the wait for
 * answers are lib/host_evidence.c's.
 */
#define TICK_HOST_PART_MS     100
#define TICK_HOST_WINDOWS_MAX 1024

static struct host_evidence tick_host_evidence;
static struct tick_window tick_windows[TICK_HOST_WINDOWS_MAX];

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
		w.sim_at = calloc(n, sizeof(u64));
		w.sim_steal = calloc(n, sizeof(u64));
	}
	return &w;
}

/* Stretch i the judgment asks about, on the counter. */
static void tick_window_at(void *unused, u32 i, u64 *from, u64 *to)
{
	*from = tick_windows[i].a + tick_run.anchor;
	*to = tick_windows[i].b + tick_run.anchor;
}

static void tick_window_answer(void *unused, u32 i, const struct host_part *p)
{
	tick_windows[i].ev = *p;
}

/* The host's evidence over each stretch the judgment asks about (common/tick/tick_judge.c). */
static const char *ask_windows(struct tick_record *r, const struct host_span *s)
{
	u64 stamp_us, n = tick_judge_asks(r, tick_windows, TICK_HOST_WINDOWS_MAX, tick_work(r->n));
	struct host_ask q = {.window = tick_window_at, .answer = tick_window_answer};
	const char *why;

	if (n > TICK_HOST_WINDOWS_MAX)
		report_info("%llu stretches to ask the host about: the first %d asked, the rest "
			    "explained by their %d ms parts' waits",
			    n, TICK_HOST_WINDOWS_MAX, TICK_HOST_PART_MS);
	q.n = (u32)min(n, (u64)TICK_HOST_WINDOWS_MAX);
	why = host_span_windows(s, &q, &stamp_us);
	if (why)
		return why;
	r->host.nwin = q.n;
	r->host.win = tick_windows;
	r->host.stamp_us = max(r->host.stamp_us, stamp_us);
	return NULL;
}

/*
 * The host's evidence over the run, when the runner's agent answers: the
 * parts between the two marks mapped onto the counter (the marks' own
 * counter values, the stamps' slack said by the host). An agent that
 * fails is reported by lib/host_evidence.c; the run is then judged
 * without the host's evidence.
 */
void tick_ask_host(struct tick_record *r, const struct host_span *s)
{
	r->host.why_none = host_span_parts(s, TICK_HOST_PART_MS, &tick_host_evidence);
	if (!r->host.why_none) {
		r->host.from = s->at_a - tick_run.anchor;
		r->host.to = s->at_b - tick_run.anchor;
		r->host.stamp_us = tick_host_evidence.stamp_us;
		r->host.nparts = tick_host_evidence.nparts;
		r->host.part = tick_host_evidence.part;
		r->host.why_none = ask_windows(r, s);
	}
	if (r->host.why_none) {
		r->host.nparts = 0;
		r->host.nwin = 0;
	}
}
