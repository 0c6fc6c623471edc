// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timer-tick engine's judgment of one run, from its record alone
 * (struct tick_record): the guest calls it at the end of a run, the host
 * tests and scripts/tick-judge call it on recorded runs.
 *
 * A gap is a stretch between two ticks across which slots of the schedule
 * passed without a tick: each such slot is a lost tick. A lost tick is
 * explained, in this order, by
 *   - the host's delay over the gap, one delay seen by two witnesses: the
 *     vCPU's steal time (KVM publishes it at its next entry, so the gap's
 *     and the next's) and the runner's agent (how long QEMU's threads
 *     waited for a CPU: the window asked about the gap, else the parts it
 *     overlaps), the vCPU's wait, which both see, counted once and the
 *     threads' waits added (lib/host_evidence.h); expiries during a delay
 *     d, and during the handling of the tick before it (the run's normal
 *     latency L), come as one interrupt: at most (d + L) / period are lost
 *     (lib/period.h, periods_explained). The periods the steal time alone
 *     explains are the steal's (lost_steal), the rest the host's
 *     (lost_host); a gap in a part the host swamped is not judged;
 *   - a late delivery: the tick that closed the gap came later against its
 *     slot than the run's normal latency, so whatever delivers it was
 *     held (a device or a vCPU that is delayed fires once when it runs
 *     again, at no particular phase). An interrupt that was never
 *     delivered leaves the next one on time.
 * and last by the host's hypervisor's steal over the gap's part of the
 * run (pooled: /proc/stat's 10 ms grain cannot place it within the part).
 * A host delay that happens to end within the normal latency of a slot
 * looks like a lost interrupt: of G gaps closed late, G * L / (P - L)
 * such are expected (L the normal latency, P the period), and that many
 * (plus two standard deviations) are allowed, with the figures printed.
 */
#include "tick_judge.h"
#include "period.h"
#include "stats.h"
#include "units.h"

u64 tick_rec_slot(const struct tick_record *r, u64 i)
{
	return tick_counts_to_ticks(&r->cal, (i + 1) * r->period_counts);
}

u64 tick_rec_period(const struct tick_record *r)
{
	return max(tick_counts_to_ticks(&r->cal, r->period_counts), 1ull);
}

u64 tick_rec_slack_ppb(const struct tick_record *r)
{
	return NSEC_PER_SEC / max(r->period_counts, 1ull) + r->cal.err_ppb;
}

/* How early a tick due at due may look: the calibration's error (err_fx) over the distance since
 * ref. */
static u64 early_tolerance(u64 err_fx, u64 due, u64 ref)
{
	return mul_u64_u64_shr32(due > ref ? due - ref : 0, err_fx) + 1;
}

static u64 div_up(u64 a, u64 b)
{
	return a ? (a - 1) / b + 1 : 0;
}

static u64 isqrt_up(u64 x)
{
	u64 s = 0;

	while (s * s < x)
		s++;
	return s;
}

/* The walk over the run, tick by tick, into struct tick_work's arrays. */
struct walk {
	const struct tick_record *r;
	struct tick_work *w;
	u64 err_fx;
	u64 next; /* periodic: the first slot not yet passed */
};

static void step_periodic(struct walk *k, u64 j)
{
	const struct tick_record *r = k->r;
	struct tick_work *w = k->w;
	u64 now = r->at[j], due = tick_rec_slot(r, j), first_due = tick_rec_slot(r, k->next),
	    before = k->next;

	w->early[j] = now < due && due - now > early_tolerance(k->err_fx, due, 0);
	while (now + early_tolerance(k->err_fx, tick_rec_slot(r, k->next), 0) >=
	       tick_rec_slot(r, k->next))
		k->next++;
	w->lost[j] = k->next > before + 1 ? k->next - before - 1 : 0;
	w->own[j] = now > first_due ? now - first_due : 0;
	if (w->early[j] || !k->next) {
		w->late[j] = 0;
	} else if (now >= tick_rec_slot(r, k->next - 1)) {
		w->late[j] = now - tick_rec_slot(r, k->next - 1);
	} else {
		w->late[j] = 0;
		w->ahead++;
	}
}

/* A one-shot is armed for slot j by the tick before it (the anchor for the first). */
static u64 armed_at(const struct tick_record *r, u64 j)
{
	return j ? r->at[j - 1] : 0;
}

static void step_oneshot(struct walk *k, u64 j)
{
	const struct tick_record *r = k->r;
	struct tick_work *w = k->w;
	u64 now = r->at[j], due = tick_rec_slot(r, j), armed = armed_at(r, j);

	w->early[j] = now < due && due - now > early_tolerance(k->err_fx, due, armed);
	w->lost[j] = 0;
	if (w->early[j]) {
		w->late[j] = 0;
	} else if (now >= due) {
		w->late[j] = now - due;
	} else {
		w->late[j] = 0;
		w->ahead++;
	}
	if (armed <= due)
		w->own[j] = w->late[j];
	else
		w->own[j] = now > armed ? now - armed : 0;
}

/* Every tick's lateness, own lateness, lost slots before it and earliness: once per run. */
static void walk_run(const struct tick_record *r, struct tick_work *w)
{
	struct walk k = {.r = r, .w = w, .err_fx = tick_ppb_to_fx(r->cal.err_ppb)};

	w->ahead = 0;
	for (u64 j = 0; j < r->n; j++) {
		if (r->kind == TICK_REC_PERIODIC)
			step_periodic(&k, j);
		else
			step_oneshot(&k, j);
	}
	w->passed = r->kind == TICK_REC_PERIODIC ? k.next : r->n;
}

/* ---- the evidence over a stretch of the run ---- */

/*
 * Steal time published from tick j-1 to tick j+1 (the run's ends where
 * there are none), ticks: KVM publishes it at its next entry, so part of a
 * wait shows a tick late. Never more than the time that passed there: a
 * vCPU cannot have waited longer (kvm-pvm's once added up to 3.3 s in a
 * 2 s run).
 */
static u64 steal_around(const struct tick_record *r, u64 j)
{
	u64 a, b, from = j ? r->at[j - 1] : 0, to = j + 1 < r->n ? r->at[j + 1] : r->end_at;

	if (!r->steal_ns)
		return 0;
	a = j ? r->steal_ns[j - 1] : 0;
	b = j + 1 < r->n ? r->steal_ns[j + 1] : r->steal_end_ns;
	return b > a ? min(ns_to_ticks(b - a, r->counter_hz), to > from ? to - from : 0) : 0;
}

/* What the host took of a part: its whole delay (lib/host_evidence.h), no steal of the guest's. */
static u64 part_us(const struct host_part *p)
{
	return host_held_us(p, 0);
}

/* The parts [*first, *last] that overlap [a, b] (counter ticks after the anchor), widened by the
 * stamps' slack. */
static bool parts_over(const struct tick_host *h, u64 counter_hz, u64 a, u64 b, u32 *first,
		       u32 *last)
{
	s64 slack = (s64)ns_to_ticks(h->stamp_us * NSEC_PER_USEC, counter_hz), from = (s64)h->from,
	    len = (s64)(h->to - h->from), lo = (s64)a - slack, hi = (s64)b + slack;

	if (!h->nparts || len <= 0 || hi < from || lo > from + len)
		return false;
	lo = max(lo, from);
	hi = min(hi, from + len - 1);
	*first = (u32)((u64)(lo - from) * h->nparts / (u64)len);
	*last = (u32)((u64)(hi - from) * h->nparts / (u64)len);
	*last = min(*last, h->nparts - 1);
	return true;
}

static bool swamped(const struct tick_host *h, u64 counter_hz, const struct host_part *p)
{
	u64 part_len_us = ticks_to_ns((h->to - h->from) / h->nparts, counter_hz) / NSEC_PER_USEC;

	return part_us(p) * 100 > TICK_HOST_SWAMPED_PCT * max(part_len_us, 1ull);
}

/*
 * What the host did over a stretch: its evidence (the window asked about
 * it, else its parts' added up), the parts it overlaps, and whether one
 * of them was swamped.
 */
struct host_over {
	struct host_part ev;
	bool window;	 /* ev is the window's */
	bool swamped;	 /* a part of it the host swamped */
	u32 first, last; /* the parts it overlaps (valid while parts is true) */
	bool parts;
};

static bool window_before(const struct tick_window *w, u64 a, u64 b)
{
	return w->a < a || (w->a == a && w->b < b);
}

/* The window asked about exactly [a, b], if any (they come in the order of the run). */
static const struct tick_window *window_of(const struct tick_host *h, u64 a, u64 b)
{
	u32 lo = 0, hi = h->nwin;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (window_before(&h->win[mid], a, b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nwin && h->win[lo].a == a && h->win[lo].b == b ? &h->win[lo] : NULL;
}

/*
 * The host's evidence over [a, b]: the window asked about it (the
 * finest grain), else the parts it overlaps, added up (coarse: the whole
 * of every part; a stretch the guest did not ask about, as past
 * TICK_HOST_WINDOWS_MAX or in tick_resolution's runs, or a run that asked
 * nothing). Its waits, drawn from the parts' pools, explain lost ticks
 * either way: what was one rule per grain (the window's waits, the parts'
 * whole, the parts' waits for an unasked stretch, nothing) is one.
 */
static struct host_over host_over(const struct tick_record *r, u64 a, u64 b)
{
	struct host_over o = {{0}};
	const struct tick_window *w;
	u32 first, last;

	if (r->host.why_none || !parts_over(&r->host, r->counter_hz, a, b, &first, &last))
		return o;
	o.first = first;
	o.last = last;
	o.parts = true;
	for (u32 p = first; p <= last; p++)
		o.swamped |= swamped(&r->host, r->counter_hz, &r->host.part[p]);
	w = window_of(&r->host, a, b);
	if (w) {
		o.ev = w->ev;
		o.window = true;
		return o;
	}
	for (u32 p = first; p <= last; p++) {
		o.ev.vcpu_us += r->host.part[p].vcpu_us;
		o.ev.other_us += r->host.part[p].other_us;
		o.ev.steal_us += r->host.part[p].steal_us;
	}
	return o;
}

/* A figure of the host's in us as counter ticks. */
static u64 us_ticks(const struct tick_record *r, u64 us)
{
	return ns_to_ticks(us * NSEC_PER_USEC, r->counter_hz);
}

/* Counter ticks as whole us. */
static u64 ticks_us(const struct tick_record *r, u64 ticks)
{
	return ticks_to_ns(ticks, r->counter_hz) / NSEC_PER_USEC;
}

/*
 * What the host's evidence adds over a stretch to the stolen counter
 * ticks the guest's steal time already explains (lib/host_evidence.h: the
 * vCPU's wait is that steal seen from outside, counted once): QEMU's
 * threads' waits for lost ticks (the steal over their part is pooled,
 * host_pool), with the steal the agent placed in a window (a clock tick
 * short) for a tick's lateness. A tick's lateness takes a window's alone:
 * its parts' waits, spent by no pool, would explain every tick in them.
 */
static u64 waits_beyond(const struct tick_record *r, const struct host_over *o, u64 stolen)
{
	u64 all = us_ticks(r, host_waits_us(&o->ev, ticks_us(r, stolen)));

	return all > stolen ? all - stolen : 0;
}

static u64 held_beyond(const struct tick_record *r, const struct host_over *o, u64 stolen)
{
	u64 all = us_ticks(r, host_held_us(&o->ev, ticks_us(r, stolen)));

	return all > stolen ? all - stolen : 0;
}

/*
 * What the host's evidence over each part can still explain, as pools
 * the lost ticks draw on. The steal: /proc/stat counts it in 10 ms steps,
 * too coarse to place within a part, so lost ticks nothing else explains
 * draw on their part's, a period of stolen time each. The waits: a
 * window's answer is a thread's run_delay growth between the agent's
 * samples around it, and every window between the same two samples gets
 * the same growth; drawn from their part's measured waits, the same
 * millisecond explains one lost period, not one in every gap near it
 * (QEMU 7.2's RTC under -icount lost 1024 of 2049 ticks while QEMU's
 * threads waited 42.8 ms in all: 887 were "explained by QEMU's threads'
 * waits").
 */
struct host_pool {
	u64 steal[HOST_EVIDENCE_PARTS_MAX]; /* counter ticks */
	u64 waits[HOST_EVIDENCE_PARTS_MAX]; /* counter ticks */
};

static void pool_fill(const struct tick_record *r, struct host_pool *pool)
{
	const struct tick_host *h = &r->host;

	for (u32 p = 0; !h->why_none && p < h->nparts; p++) {
		pool->steal[p] = us_ticks(r, h->part[p].steal_us);
		pool->waits[p] = us_ticks(r, host_waits_us(&h->part[p], 0));
	}
}

/* The waits left in parts [o->first, o->last], at most want. */
static u64 waits_left(const struct host_pool *pool, const struct host_over *o, u64 want)
{
	u64 sum = 0;

	for (u32 p = o->first; o->parts && p <= o->last && sum < want; p++)
		sum += pool->waits[p];
	return min(sum, want);
}

/* Take used counter ticks of waits from parts [o->first, o->last], in order. */
static void waits_take(struct host_pool *pool, const struct host_over *o, u64 used)
{
	for (u32 p = o->first; o->parts && p <= o->last && used; p++) {
		u64 e = min(used, pool->waits[p]);

		pool->waits[p] -= e;
		used -= e;
	}
}

static u64 pool_draw(const struct tick_record *r, struct tick_verdict *v, struct host_pool *pool,
		     u64 rem, u64 t)
{
	u32 first, last;
	u64 e;

	if (!rem || r->host.why_none || !parts_over(&r->host, r->counter_hz, t, t, &first, &last))
		return rem;
	e = min(rem, pool->steal[last] / v->period);
	pool->steal[last] -= e * v->period;
	v->lost_pool += e;
	return rem - e;
}

/* ---- lost ticks ---- */

/*
 * Expiries a delay of d coalesces (lib/period.h, periods_explained): the
 * uncertainty is the run's normal latency, the handling of the tick before
 * the delay, whose expiries come with those due during it.
 */
static u64 coalesced(const struct tick_verdict *v, u64 d)
{
	return periods_explained(d, v->period, v->normal_late);
}

/*
 * Explain rem lost ticks over [a, b] by one delay: the guest's steal time
 * there (stolen ticks), and what the host's evidence adds to it (its
 * waits, as far as its parts' measured waits are not spent: host_pool),
 * coalesced once. The periods the steal alone explains are the steal's.
 */
static u64 explain_by_time(const struct tick_record *r, struct tick_verdict *v,
			   struct host_pool *pool, u64 rem, u64 stolen, u64 a, u64 b)
{
	struct host_over o = host_over(r, a, b);
	u64 by_steal = coalesced(v, stolen), e = min(rem, by_steal), d;

	v->lost_steal += e;
	rem -= e;
	d = waits_left(pool, &o, waits_beyond(r, &o, stolen));
	e = min(rem, coalesced(v, stolen + d) - by_steal);
	waits_take(pool, &o, min(d, e * v->period));
	v->lost_host += e;
	rem -= e;
	if (rem && o.swamped) {
		v->lost_unjudged += rem;
		rem = 0;
	}
	return rem;
}

/*
 * The run's normal latency: a percentile of the own lateness of the ticks
 * that closed no gap (from the moment each could first have come). Not
 * their lateness against slot j: a one-shot's j-th tick belongs to slot j
 * only while none went uncounted, and fault=drop10 on pit-oneshot made
 * that "normal latency" 180 ms, which explained 181 of the 200 ticks lost
 * by 53 ms of steal time.
 */
static u64 normal_latency(const struct tick_record *r, struct tick_work *w)
{
	u64 k = 0;

	for (u64 j = 1; j < r->n; j++)
		if (!w->lost[j] && !w->early[j])
			w->scratch[k++] = w->own[j];
	/*
	 * Fewer than half the ticks closed no gap: too few to say what on
	 * time is. A periodic tick's lateness against the last slot it passed
	 * is then the measure, the gaps' closing ticks included. Without it a
	 * source losing every other tick, each 22 us after its slot (QEMU
	 * 7.2's RTC under -icount), had a normal latency of 0, every gap
	 * "closed late" and 1024 of 2049 lost ticks explained.
	 */
	if (2 * k < r->n && r->kind == TICK_REC_PERIODIC) {
		k = 0;
		for (u64 j = 1; j < r->n; j++)
			if (!w->early[j])
				w->scratch[k++] = w->late[j];
	}
	if (!k)
		return 0;
	sort_u64(w->scratch, k);
	return stats_percentile(w->scratch, k, TICK_NORMAL_LATE_PCTILE);
}

/* Gaps closed within the normal latency by chance, of gaps_late closed later: G * L / (P - L) + 2
 * sigma. */
static u64 chance_allowance(u64 gaps_late, u64 normal, u64 period)
{
	u64 expect_milli;

	if (!gaps_late)
		return 0;
	if (2 * normal >= period)
		expect_milli = gaps_late * MSEC_PER_SEC;
	else
		expect_milli = gaps_late * normal * MSEC_PER_SEC / (period - normal);
	return div_up(expect_milli, MSEC_PER_SEC) +
	       2 * isqrt_up(div_up(expect_milli, MSEC_PER_SEC));
}

/* Lateness not explained by steal time or the host's evidence, checked against the bound. */
static void judge_late(const struct tick_record *r, struct tick_verdict *v, u64 j, u64 own,
		       u64 stolen)
{
	struct host_over o = host_over(r, j ? r->at[j - 1] : 0, r->at[j]);
	u64 explained = stolen + (o.window ? held_beyond(r, &o, stolen) : 0),
	    unexplained = own > explained ? own - explained : 0;

	if (unexplained > v->worst_unexplained) {
		v->worst_unexplained = unexplained;
		v->worst_unexplained_tick = j;
	}
	/* in ns, as the check's BOUND line prints the worst and the bound */
	if (ticks_to_ns(unexplained, r->counter_hz) > IRQ_UNEXPLAINED_LATE_MS * NSEC_PER_MSEC)
		v->over_late++;
}

/*
 * How much later than the normal latency a gap's closing tick must come
 * to be a late delivery: more than the schedule's own uncertainty over
 * the gap (the calibration's error over its length, as for early ticks:
 * the normal latency is taken from ticks around it, so only the drift
 * across the gap is left). Under -icount every tick comes 8.46 us after
 * its slot, and a gap a fault left closed 4 ns later than that: rounding,
 * not a delay.
 */
static u64 late_tolerance(const struct tick_record *r, u64 j)
{
	return early_tolerance(tick_ppb_to_fx(r->cal.err_ppb), r->at[j], j ? r->at[j - 1] : 0);
}

static void judge_gaps(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w,
		       struct host_pool *pool)
{
	u64 rem, stolen;

	for (u64 j = 0; j < r->n; j++) {
		if (w->early[j]) {
			v->early++;
			v->worst_early = max(v->worst_early, tick_rec_slot(r, j) - r->at[j]);
		}
		stolen = steal_around(r, j);
		judge_late(r, v, j, w->own[j], stolen);
		if (!w->lost[j])
			continue;
		rem = explain_by_time(r, v, pool, w->lost[j], stolen, j ? r->at[j - 1] : 0, r->at[j]);
		if (rem && w->late[j] > v->normal_late + late_tolerance(r, j)) {
			v->lost_late += rem;
			v->gaps_late++;
			rem = 0;
		}
		v->unexplained += pool_draw(r, v, pool, rem, r->at[j]);
	}
	v->ahead = w->ahead;
	v->owed = max(w->passed, r->expected);
}

/* A stretch to ask about, while there is room. */
static void ask(struct tick_window *w, u64 max, u64 *n, u64 a, u64 b)
{
	if (*n < max)
		w[*n] = (struct tick_window){.a = a, .b = b};
	(*n)++;
}

u64 tick_judge_asks(const struct tick_record *r, struct tick_window *out, u64 max,
		    struct tick_work *w)
{
	struct tick_verdict v = {.period = tick_rec_period(r)};
	u64 n = 0, bound = r->counter_hz * IRQ_UNEXPLAINED_LATE_MS / MSEC_PER_SEC;

	walk_run(r, w);
	v.normal_late = normal_latency(r, w);
	for (u64 j = 0; j < r->n; j++) {
		u64 stolen = steal_around(r, j), a = j ? r->at[j - 1] : 0;

		if (w->lost[j] > coalesced(&v, stolen) ||
		    (w->own[j] > stolen && w->own[j] - stolen > bound))
			ask(out, max, &n, a, r->at[j]);
	}
	/* the tail, after the last tick */
	if (r->n && r->end_at > r->at[r->n - 1])
		ask(out, max, &n, r->at[r->n - 1], r->end_at);
	return n;
}

/* Slots of the schedule, continued past its end, that the counter passed by t. */
static u64 slots_by(const struct tick_record *r, u64 t)
{
	u64 i = 0;

	while (i < 4 * r->expected && tick_rec_slot(r, i) <= t)
		i++;
	return i;
}

/*
 * The run ran out of time (its last slot and the grace passed) rather than
 * ending at its expected-th interrupt: only then did a one-shot end behind.
 * One that came to its end with fewer ticks recorded than interrupts taken
 * (fault=drop10) ended on schedule: its ticks on time, every tenth arrival
 * one slot further from its index, gaps of a period whose median (995 us
 * of 999 us, pit-oneshot under KVM) passed for a catch-up pace.
 */
static bool ended_by_time(const struct tick_record *r)
{
	return r->expected && r->end_at >= tick_rec_slot(r, r->expected - 1) +
						   r->counter_hz * TICK_GRACE_MS / MSEC_PER_SEC;
}

/*
 * A one-shot that ends the run behind its schedule was catching up if its
 * last tick was armed after its slot: each tick then comes as fast as the
 * vCPU can take it and re-arm, and the backlog is what a delay before
 * left. It is explained only while that pace beats the period (the
 * median gap between catch-up ticks), else the source fell behind on its own.
 */
static void judge_backlog(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w)
{
	u64 *scratch = w->scratch;
	u64 k = 0, pace;

	v->backlog = slots_by(r, r->end_at);
	v->backlog = v->backlog > r->n ? v->backlog - r->n : 0;
	for (u64 j = 1; j < r->n; j++)
		if (armed_at(r, j) > tick_rec_slot(r, j))
			scratch[k++] = r->at[j] - r->at[j - 1];
	if (!k)
		return;
	sort_u64(scratch, k);
	pace = stats_percentile(scratch, k, 50);
	v->catchup_us = ticks_to_ns(pace, r->counter_hz) / NSEC_PER_USEC;
	v->ended_catching_up = r->n > 1 && ended_by_time(r) &&
			       armed_at(r, r->n) > tick_rec_slot(r, r->n) && pace < v->period;
}

/* The tail: slots passed after the last tick without one, explained by time alone. */
static void judge_tail(const struct tick_record *r, struct tick_verdict *v, u64 last_passed,
		       struct host_pool *pool)
{
	u64 tail = v->owed > last_passed ? v->owed - last_passed : 0,
	    a = r->n ? r->at[r->n - 1] : 0;
	u64 stolen = 0;

	if (!tail)
		return;
	if (r->steal_ns)
		stolen = ns_to_ticks(r->steal_end_ns - (r->n ? r->steal_ns[r->n - 1] : 0),
				     r->counter_hz);
	if (r->kind == TICK_REC_ONESHOT && v->ended_catching_up) {
		v->lost_late += tail;
		return;
	}
	v->unexplained +=
		pool_draw(r, v, pool, explain_by_time(r, v, pool, tail, stolen, a, r->end_at), r->end_at);
}

/*
 * The run's real length runs to its last tick; that tick's lateness past
 * the last slot it passed is owed no tick (one period at most when it came
 * on time, more when the tail coalesced; the late check judges it).
 * Thousandths of a period.
 */
static u64 tail_milli(const struct tick_record *r, const struct tick_verdict *v)
{
	u64 last_slot = v->owed ? tick_rec_slot(r, v->owed - 1) : 0;

	return r->end_at > last_slot ? (r->end_at - last_slot) * MSEC_PER_SEC / v->period : 0;
}

/*
 * The ticks that came over the run's real length against the schedule's
 * rate in the counter's time (its period from the source's own count, not
 * want_hz by the counter's frequency: that carries the counter's own
 * calibration error, which only the reference check bounds, into ticks
 * over or short; under TCG in real time 108 ppm of it once gave "0.049
 * tick(s) over (at most 0.023)"). Short by the lost ticks explained or
 * allowed and the tail, a one-shot catching up by its backlog; over by
 * none. Both give the period's rounding to counter ticks and the
 * calibration's error. Thousandths of a tick, judged as every count of a
 * periodic source against its due count is (lib/period.h, period_count).
 */
static void judge_rate(const struct tick_record *r, struct tick_verdict *v)
{
	u64 real_ns = max(ticks_to_ns(r->end_at, r->counter_hz), 1ull),
	    ideal = r->end_at / v->period * MSEC_PER_SEC +
		    r->end_at % v->period * MSEC_PER_SEC / v->period,
	    got = r->n * MSEC_PER_SEC,
	    slack_ppb = NSEC_PER_SEC / v->period + r->cal.err_ppb,
	    slack = ideal * slack_ppb / NSEC_PER_SEC + 1,
	    explained = min(v->lost, v->lost_steal + v->lost_host + v->lost_pool + v->lost_late +
					     v->lost_unjudged);
	struct period_count c;

	if (v->ended_catching_up)
		explained = max(explained, v->backlog);
	/* without the host's evidence, or a schedule to count them by, not judged (a SKIP) */
	if (!v->host || v->schedule_unsure)
		explained += v->unexplained;
	v->rate_mhz = r->n * MSEC_PER_SEC * NSEC_PER_SEC / real_ns;
	v->sched_mhz = r->counter_hz * MSEC_PER_SEC / v->period;
	c = period_count(got, ideal,
			 (v->allowed + explained) * MSEC_PER_SEC + max(tail_milli(r, v), MSEC_PER_SEC) +
				 slack,
			 slack);
	v->rate_short = c.is_short;
	v->off_milli = c.off;
	v->bound_milli = c.bound;
	v->short_milli = c.short_allowed;
	v->over_milli = c.over_allowed;
}

static void judge_host_share(const struct tick_record *r, struct tick_verdict *v)
{
	const struct tick_host *h = &r->host;

	v->host = !h->why_none && h->nparts;
	if (!v->host)
		return;
	for (u32 p = 0; p < h->nparts; p++) {
		v->host_us += part_us(&h->part[p]);
		v->parts_swamped += swamped(h, r->counter_hz, &h->part[p]);
	}
	v->too_little_judged = v->parts_swamped * 100 > (u64)h->nparts * TICK_JUDGED_MIN_PCT;
}

/*
 * A source that re-injects what it owed (KVM's PIT) passes slots in gaps
 * and makes them up in bursts: the gaps' figures may add up to more than
 * was lost at the end; each is kept within what is left.
 */
static void clamp_explained(struct tick_verdict *v)
{
	u64 left = v->lost;

	v->lost_steal = min(v->lost_steal, left);
	left -= v->lost_steal;
	v->lost_host = min(v->lost_host, left);
	left -= v->lost_host;
	v->lost_pool = min(v->lost_pool, left);
	left -= v->lost_pool;
	v->lost_late = min(v->lost_late, left);
	left -= v->lost_late;
	v->lost_unjudged = min(v->lost_unjudged, left);
	left -= v->lost_unjudged;
	v->unexplained = min(v->unexplained, left);
}

/* r with every k-th tick taken out (its interrupt never delivered), into w's copy. */
static struct tick_record without_every(const struct tick_record *r, u64 k, struct tick_work *w)
{
	struct tick_record s = *r;
	u64 n = 0;

	for (u64 i = 0; i < r->n; i++) {
		if ((i + 1) % k == 0)
			continue;
		w->sim_at[n] = r->at[i];
		if (r->steal_ns)
			w->sim_steal[n] = r->steal_ns[i];
		n++;
	}
	s.n = n;
	s.at = w->sim_at;
	s.steal_ns = r->steal_ns ? w->sim_steal : NULL;
	return s;
}

/* Whether the lost-tick check catches every k-th tick of r taken out. */
static bool catches_one_in(const struct tick_record *r, u64 k, struct tick_work *w)
{
	struct tick_record s = without_every(r, k, w);
	struct tick_verdict v;

	tick_judge(&s, &v, w);
	return tick_lost_fails(&s, &v);
}

/*
 * The rarest rung caught: the rarest first (a clean run's answer, one
 * judgment), then a bisection of the rest, taking the ladder as ordered
 * (a rate caught, every more frequent one caught too): about five
 * judgments instead of one a rung, each costly in an emulated guest
 * (kvm-pvm). Every K returned was judged caught; where the order does
 * not hold the answer may be a more frequent rate than a walk would give,
 * never a rarer one.
 */
u64 tick_resolution(const struct tick_record *r, struct tick_work *w)
{
	static const u64 ladder[] = { TICK_RESOLUTION_LADDER };
	size_t lo = 0, hi = ARRAY_SIZE(ladder);

	if (r->kind != TICK_REC_PERIODIC || !w->sim_at || (r->steal_ns && !w->sim_steal))
		return 0;
	while (lo < hi && ladder[lo] > r->n)
		lo++;
	if (lo == hi)
		return 0;
	if (catches_one_in(r, ladder[lo], w))
		return ladder[lo];
	lo++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (catches_one_in(r, ladder[mid], w))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < ARRAY_SIZE(ladder) ? ladder[lo] : 0;
}

void tick_judge(const struct tick_record *r, struct tick_verdict *v, struct tick_work *w)
{
	struct host_pool pool;

	memset(v, 0, sizeof(*v));
	pool_fill(r, &pool);
	v->period = tick_rec_period(r);
	judge_host_share(r, v);
	walk_run(r, w);
	v->normal_late = normal_latency(r, w);
	if (r->kind == TICK_REC_ONESHOT)
		judge_backlog(r, v, w);
	judge_gaps(r, v, w, &pool);
	v->lost = v->owed > r->n ? v->owed - r->n : 0;
	judge_tail(r, v, w->passed, &pool);
	clamp_explained(v);
	/* gaps closing within what counts as on time: the normal latency and a period's uncertainty */
	v->on_time = v->normal_late + early_tolerance(tick_ppb_to_fx(r->cal.err_ppb), v->period, 0);
	v->chance = chance_allowance(v->gaps_late, v->on_time, v->period);
	v->allowed = TICK_UNEXPLAINED_LOST_MAX + v->chance;
	v->schedule_drift = mul_u64_u64_shr32(r->end_at, tick_ppb_to_fx(r->cal.err_ppb));
	v->schedule_unsure = r->kind == TICK_REC_PERIODIC && 2 * v->schedule_drift > v->period;
	judge_rate(r, v);
}
