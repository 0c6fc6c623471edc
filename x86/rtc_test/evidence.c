/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's use of the host's evidence: marks around a window of interrupts, and what the host did
 * over its stretches (the asking is lib/host_evidence.c's). */
#include "libc.h"
#include "rtc_test.h"
#include "host_evidence.h"
#include "units.h"

/* between the marks, then the intervals asked about */
#define EVIDENCE_FIXED_WINDOWS 1

static struct host_span span;	     /* this window's marks, on the reference */
static unsigned asked_k[MAX_EVENTS]; /* the interrupt ending each interval asked about */
static u64 before_host_ns[MAX_EVENTS];

/* What one window's question needs to say where each stretch lies and where its answer goes. */
struct rtc_ask {
	unsigned first, last;
	u64 period; /* reference counts */
	struct host_delays *d;
};

void evidence_begin(void)
{
	if (host_evidence_offered())
		host_span_begin(&span, rtc_ref->read, rtc_ref->hz());
}

void evidence_end(void)
{
	if (host_evidence_offered())
		host_span_end(&span);
}

/*
 * Stretch 0: from the first mark's interrupt to the last's. Then for each
 * interrupt k asked about, from one period before it (or the one before
 * it, if later) to it.
 */
static void rtc_window_at(void *arg, u32 i, u64 *from, u64 *to)
{
	const struct rtc_ask *q = arg;
	unsigned k;

	if (i < EVIDENCE_FIXED_WINDOWS) {
		*from = rtc_events[q->first].at;
		*to = rtc_events[q->last].at;
		return;
	}
	k = asked_k[i - EVIDENCE_FIXED_WINDOWS];
	*to = rtc_events[k].at;
	*from = k ? rtc_events[k - 1].at : (*to > q->period ? *to - q->period : 0);
}

/*
 * What the host held back the RTC's interrupt by over one answered
 * stretch (lib/host_evidence.h: the main loop that raises IRQ 8, then the
 * vCPU, and the steal); the vCPU's steal time is not asked for here.
 */
static u64 host_delay_ns(const struct host_part *p)
{
	return host_held_us(p, 0) * NSEC_PER_USEC;
}

static void rtc_window_answer(void *arg, u32 i, const struct host_part *p)
{
	const struct rtc_ask *q = arg;

	if (i < EVIDENCE_FIXED_WINDOWS)
		q->d->window_ns = host_delay_ns(p);
	else
		before_host_ns[asked_k[i - EVIDENCE_FIXED_WINDOWS]] = host_delay_ns(p);
}

/* The asking, the wait and an agent's failure (a FAIL) are lib/host_evidence.c's. */
const char *evidence_ask(struct host_delays *d, unsigned n, unsigned first, unsigned last,
			 const bool *ask, u64 period_ns)
{
	struct rtc_ask a = {first, last, period_ns * rtc_ref->hz() / NSEC_PER_SEC, d};
	struct host_ask q = {EVIDENCE_FIXED_WINDOWS, rtc_window_at, rtc_window_answer, &a};
	u64 stamp_us;

	*d = (struct host_delays){.before_ns = before_host_ns};
	memset(before_host_ns, 0, sizeof(before_host_ns));
	for (unsigned k = 0; k < n; k++)
		if (ask[k])
			asked_k[q.n++ - EVIDENCE_FIXED_WINDOWS] = k;
	return host_span_windows(&span, &q, &stamp_us);
}
