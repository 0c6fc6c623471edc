/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's use of the host's evidence: marks around a window of interrupts, and what the host did
 * over its stretches. */
#include "libc.h"
#include "rtc_test.h"
#include "arch.h"
#include "host_evidence.h"
#include "units.h"

/* How long to wait for the agent's answers (docs/runner.md, "Host evidence for the guest"). */
#define EVIDENCE_ANSWER_MS 20000
/* between the marks, then the intervals asked about */
#define EVIDENCE_FIXED_WINDOWS 1

static unsigned mark_a;	    /* this window's first mark; the second is mark_a + 1 */
static unsigned marks_used; /* marks printed so far, two a window */
static u64 ref_at_a, ref_at_b;
static struct host_window asked[MAX_EVENTS + EVIDENCE_FIXED_WINDOWS];
static struct host_part answer[MAX_EVENTS + EVIDENCE_FIXED_WINDOWS];
static unsigned asked_k[MAX_EVENTS]; /* the interrupt ending each interval asked about */
static u64 before_host_ns[MAX_EVENTS];

void evidence_begin(void)
{
	if (!host_evidence_offered())
		return;
	mark_a = marks_used;
	marks_used += 2;
	host_evidence_mark(mark_a);
	ref_at_a = ref->read();
}

void evidence_end(void)
{
	if (!host_evidence_offered())
		return;
	host_evidence_mark(mark_a + 1);
	ref_at_b = ref->read();
}

/* Reference counts as us after this window's first mark, in the guest's time. */
static u64 us_after_mark(u64 at)
{
	return at > ref_at_a ? ref_ns(at - ref_at_a) / NSEC_PER_USEC : 0;
}

/* The stretch from one period before interrupt k (or the one before it, if later) to it. */
static struct host_window before_irq(unsigned k, u64 period_ns)
{
	u64 to = us_after_mark(events[k].at), back = period_ns / NSEC_PER_USEC;
	u64 from = k ? us_after_mark(events[k - 1].at) : (to > back ? to - back : 0);

	return (struct host_window){from, to};
}

/* What the host took from QEMU over one answered stretch: the most a vCPU and another thread
 * waited, and the steal. */
static u64 host_delay_ns(const struct host_part *p)
{
	return ((u64)p->vcpu_us + p->other_us + p->steal_us) * NSEC_PER_USEC;
}

const char *evidence_ask(struct host_delays *d, unsigned n, unsigned first, unsigned last,
			 const bool *ask, u64 period_ns)
{
	u64 give_up = arch_counter() + arch_counter_hz() * EVIDENCE_ANSWER_MS / MSEC_PER_SEC;
	u64 stamp_us;
	unsigned count = EVIDENCE_FIXED_WINDOWS;
	const char *why;

	*d = (struct host_delays){.before_ns = before_host_ns};
	memset(before_host_ns, 0, sizeof(before_host_ns));
	if (!host_evidence_offered())
		return "no host-evidence agent (scripts/host_evidence.py) answers here: run by "
		       "hand";
	asked[0] = (struct host_window){us_after_mark(events[first].at),
					us_after_mark(events[last].at)};
	for (unsigned k = 0; k < n; k++)
		if (ask[k]) {
			asked_k[count - EVIDENCE_FIXED_WINDOWS] = k;
			asked[count++] = before_irq(k, period_ns);
		}
	why = host_evidence_windows(mark_a, mark_a + 1, us_after_mark(ref_at_b), asked, count,
				    answer, &stamp_us, give_up);
	if (why)
		return why;
	d->window_ns = host_delay_ns(&answer[0]);
	for (unsigned i = EVIDENCE_FIXED_WINDOWS; i < count; i++)
		before_host_ns[asked_k[i - EVIDENCE_FIXED_WINDOWS]] = host_delay_ns(&answer[i]);
	return NULL;
}
