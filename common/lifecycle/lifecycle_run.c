/* SPDX-License-Identifier: GPL-2.0-only */
/* A run of live migrations back to back (events=migrate=N) as one event: the requests, each
 * migration's one-shots and faults, and the checks of every timer per migration. */
#include "lifecycle_state.h"
#include "atomic.h"
#include "report.h"
#include "wait.h"

/*
 * Why: migrations in a row are where a host's restore of the timers is
 * exercised again before it has settled (kvm-unit-tests migrates
 * continuously between two markers for it). How: the boot vCPU asks for
 * migration k with "LIFECYCLE-REQUEST: migrate SEQ run=k", every vCPU
 * arms its one-shots for a deadline (lc_run_step), the runner answers
 * with that migration's facts (QEMU's stop, a vCPU's waits), and the
 * vCPUs sample on until LC_RUN_DWELL_NS past the answer and the
 * deadline before migration k + 1 is asked for. Every tick and every
 * one-shot's interrupt is counted for the migration asked for last, and
 * each migration is judged against its own stop and waits
 * (lc_check_run). The run's other checks are the event's, on its facts
 * summed (lc_run_done): the windows before and after it, the clocks'
 * steps (against the longest one stop), the derived clock's move.
 */

/*
 * Migration k's one-shots are due half the migration before's request to
 * answer after the request (the first: LC_ONESHOT_NS), inside the
 * migration; every other one at one and a quarter, past its answer most
 * likely: pending across its stop. Never further than
 * LC_RUN_DEADLINE_MAX_NS: every arch's one-shot can be armed that far.
 */
static void ask_next(unsigned k)
{
	struct lc_run *r = &lc.rec.run;
	u64 span = k > 1 ? r->answered[k - 1] - r->req_at[k - 1]
			 : ns_to_ticks(LC_ONESHOT_NS, arch_counter_hz());

	r->req_at[k] = arch_counter();
	r->deadline = r->req_at[k] + min(k % 2 ? span / 2 : span + span / 4,
					 ns_to_ticks(LC_RUN_DEADLINE_MAX_NS, arch_counter_hz()));
	r->deadlines[k] = r->deadline;
	smp_mb();
	r->k = k;
}

static bool oneshots_fired(unsigned k)
{
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		for (unsigned s = 0; s < lc.rec.arch->nslots; s++)
			if (lc.rec.cpu[cpu].t[s].role == LC_ROLE_ONESHOT &&
			    !lc.rec.cpu[cpu].t[s].run_fires[k])
				return false;
	return true;
}

/* Sample past migration k's answer and its one-shots' deadline, and until they fired (or gave up).
 */
struct lc_dwell {
	struct lc_cpu *me;
	unsigned k;
	u64 end; /* the dwell's least end */
};

/* Done once past the dwell's end with the one-shots fired; else a sample. */
static bool dwell_step(void *arg, u64 now)
{
	const struct lc_dwell *d = arg;

	if (now >= d->end && oneshots_fired(d->k))
		return true;
	lc_step(d->me, LC_DURING);
	return false;
}

static void dwell(struct lc_cpu *me, unsigned k)
{
	u64 hz = arch_counter_hz(), from = max(lc.rec.run.answered[k], lc.rec.run.deadlines[k]);
	u64 end = from + ns_to_ticks(LC_RUN_DWELL_NS, hz);

	work_until(dwell_step, &(struct lc_dwell){me, k, end},
		   max(end, from + ns_to_ticks(LC_RUN_ONESHOT_WAIT_NS, hz)));
}

/* Migration k's answer: its facts, or the test ends saying what came. */
static void take_migration(unsigned k, const struct lc_answer *m)
{
	struct lc_done *d = &lc.rec.run.done[k];

	if (!lc_parse_done(m->line, d) || d->kind != LC_MIGRATE || d->seq != lc.rec.seq || d->run != k)
		report_abort(
			"the runner's answer to migration %u of event %u's run is not one: '%s'", k,
			lc.rec.seq, m->line);
}

bool lc_run_requests(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a)
{
	static struct lc_answer m;
	u64 tod_req = 0, nl_at = 0;

	for (unsigned k = 1; k <= lc.rec.run.n; k++) {
		struct lc_answer *x = k < lc.rec.run.n ? &m : a;

		memset(&m, 0, sizeof(m));
		ask_next(k);
		lc_run_step(me);
		if (!lc_request(me, kind, x))
			return false;
		/* the event's time of day pairs the first request with the last answer */
		if (k == 1) {
			tod_req = x->tod_req;
			nl_at = x->nl_at;
		}
		if (k < lc.rec.run.n) {
			lc.rec.run.answered[k] = arch_counter();
			take_migration(k, x);
			dwell(me, k);
		}
	}
	a->tod_req = tod_req;
	a->nl_at = nl_at;
	return true;
}

void lc_run_done(struct lc_cpu *me)
{
	struct lc_run *r = &lc.rec.run;
	struct lc_done sum = lc.rec.done;

	if (lc.rec.done.run != r->n)
		report_abort("the runner's answer to the last migration of event %u's run says "
			     "run=%llu, "
			     "not %u",
			     lc.rec.seq, lc.rec.done.run, r->n);
	r->answered[r->n] = arch_counter();
	r->done[r->n] = lc.rec.done;
	sum.duration_ns = sum.qmp_downtime_ns = sum.overhead_ns = sum.vcpu_wait_ns = 0;
	sum.stamp_wait_ns = 0;
	for (unsigned k = 1; k <= r->n; k++) {
		const struct lc_done *d = &r->done[k];

		sum.duration_ns += d->duration_ns;
		sum.qmp_downtime_ns += d->qmp_downtime_ns;
		sum.overhead_ns += d->overhead_ns;
		sum.vcpu_wait_ns += d->vcpu_wait_ns;
		sum.stamp_wait_ns += d->stamp_wait_ns;
		r->stop_max_ns = max(r->stop_max_ns, d->duration_ns);
		r->wait_max_ns = max(r->wait_max_ns, d->vcpu_wait_ns);
	}
	sum.before_wait_ns = r->done[1].before_wait_ns;
	sum.host_req_ns = r->done[1].host_req_ns;
	sum.total_ns = sum.host_ns - sum.host_req_ns;
	lc.rec.done = sum;
	/* the last one-shots too are waited for before the window after */
	dwell(me, r->n);
}
