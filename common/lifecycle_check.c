/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's checks of one event: every vCPU's clocks, timers and the time of day against what the host measured. */
#include "lifecycle_state.h"
#include "report.h"

/* RESULT e<seq>.<event>.<what>.<figure> value ms: every event's figures apart. */
void lc_result_ms(const char *what, const char *figure, u64 ns)
{
	char name[64];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what,
		 figure);
	report_result(name, "ms", "%llu.%03llu", ns / 1000000, ns / 1000 % 1000);
}

static void result_count(const char *what, const char *figure, u64 n)
{
	char name[64];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what,
		 figure);
	report_result(name, "ticks", "%llu", n);
}

static u64 worst(const u64 *per_cpu_value, size_t stride, int *which)
{
	u64 w = 0;

	*which = 0;
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		u64 v = *(const u64 *)((const char *)per_cpu_value + (size_t)cpu * stride);

		if (v > w) {
			w = v;
			*which = cpu;
		}
	}
	return w;
}

void lc_check_clock(unsigned i, enum lc_event kind)
{
	const struct lc_done *d = &lc.done;
	const struct lc_clock *c = &lc.arch->clocks[i];
	u64 hz = clock_hz(c), base_ns, step_ns, allow_ns, frozen_ns;
	enum lc_semantics sem = c->during[kind];
	int cpu_back, cpu_base, cpu_step;
	u64 back = worst(&lc.cpu[0].backwards[i], sizeof(struct lc_cpu), &cpu_back);
	u64 base = worst(&lc.cpu[0].step[LC_BEFORE][i], sizeof(struct lc_cpu), &cpu_base);
	u64 during = worst(&lc.cpu[0].step[LC_DURING][i], sizeof(struct lc_cpu), &cpu_step);
	int cpu_after;
	u64 after = worst(&lc.cpu[0].step[LC_AFTER][i], sizeof(struct lc_cpu), &cpu_after);

	if (after > during)
		during = after, cpu_step = cpu_after;
	base_ns = ticks_to_ns(base, hz);
	step_ns = ticks_to_ns(during, hz);
	/* a vCPU descheduled next to the stop adds what the window before saw, on either side */
	allow_ns = d->duration_ns + 2 * base_ns + LC_STAMP_SLACK_NS;
	report(!back,
	       "%s never went backwards on any vCPU (worst vCPU %d: %llu times, by up to %llu ns)",
	       c->name, cpu_back, back, ticks_to_ns(lc.cpu[cpu_back].worst_back[i], hz));
	report(step_ns <= allow_ns,
	       "%s: largest step over the event %llu us (vCPU %d) <= stopped %llu us + 2 x %llu us "
	       "(largest step before) + %llu us",
	       c->name, step_ns / 1000, cpu_step, d->duration_ns / 1000, base_ns / 1000,
	       LC_STAMP_SLACK_NS / 1000);
	lc_result_ms(c->name, "step", step_ns);
	if (lc.fault == LC_FAULT_FLIP)
		sem = sem == LC_RUNS ? LC_FROZEN : LC_RUNS;
	frozen_ns = 2 * base_ns + LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS + d->overhead_ns;
	if (d->duration_ns < 2 * frozen_ns) {
		report_info("%s: a stop of %llu ms is too short to tell a running clock from a "
			    "frozen one (which may move by %llu ms)",
			    c->name, d->duration_ns / 1000000, frozen_ns / 1000000);
	} else if (sem == LC_RUNS) {
		report(step_ns + LC_STAMP_SLACK_NS >= d->duration_ns,
		       "%s ran while the guest was stopped: step %llu us >= stopped %llu us "
		       "- %llu us",
		       c->name, step_ns / 1000, d->duration_ns / 1000, LC_STAMP_SLACK_NS / 1000);
	} else {
		report(step_ns <= frozen_ns,
		       "%s was frozen while the guest was stopped: step %llu us <= 2 x %llu us + "
		       "%llu us + %llu us QEMU spent stopping and restarting the vCPUs",
		       c->name, step_ns / 1000, base_ns / 1000,
		       (LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS) / 1000, d->overhead_ns / 1000);
	}
}

/* A one-shot armed before the event fires once its deadline has passed, at the latest a window after the answer. */
static void check_oneshot(int cpu, unsigned slot, u64 answered)
{
	const struct lc_timer *t = &lc.cpu[cpu].t[slot];
	const char *name = lc.arch->name_of_slot[slot];
	u64 grace = ns_to_ticks(LC_WINDOW_NS, arch_counter_hz());

	if (!t->fired_at) {
		report(false,
		       "vCPU %d %s one-shot armed before the event fired (not within %llu ms of "
		       "the answer)",
		       cpu, name, LC_WINDOW_NS / 1000000);
		return;
	}
	report(t->fired_at >= t->deadline && t->fired_at <= answered + grace,
	       "vCPU %d %s one-shot armed before the event fired after its deadline, by %lld us, "
	       "and within "
	       "%llu ms of the answer",
	       cpu, name,
	       t->fired_at >= t->deadline
		       ? (s64)counter_ns(t->fired_at - t->deadline) / 1000
		       : -(s64)counter_ns(t->deadline - t->fired_at) / 1000,
	       LC_WINDOW_NS / 1000000);
	if (!cpu)
		lc_result_ms(name, "oneshot_late", counter_ns(t->fired_at - t->deadline));
}

/* Ticks per 1000 periods over a window of the given phase. */
static u64 rate_ppt(const struct lc_timer *t, enum lc_phase ph)
{
	u64 len = lc.phase_start[ph + 1] - lc.phase_start[ph];

	return len ? (u64)t->ticks[ph] * t->period * 1000 / len : 0;
}

/*
 * Catch-up ticks the vCPU's own history explains: the baseline's rate of
 * them over the longer windows since, and with a re-armed schedule one per
 * period of the largest gap in the vCPU's own counter reads.
 */
static u64 explained_catchup(int cpu, const struct lc_timer *t)
{
	const struct lc_cpu *c = &lc.cpu[cpu];
	u64 before = lc.phase_start[LC_DURING] - lc.phase_start[LC_BEFORE];
	u64 since = lc.phase_start[LC_FINISHED] - lc.phase_start[LC_DURING];
	u64 n = before ? ((u64)t->early[LC_BEFORE] * since + before - 1) / before : 0;

	if (lc.arch->periodic_kind == LC_PERIODIC_REARMED)
		n += max(c->step[LC_DURING][0], c->step[LC_AFTER][0]) / t->period;
	return n;
}

/* Whether rate (parts per thousand of nominal) is within the tolerance of ref. */
static bool rate_near(u64 rate, u64 ref)
{
	return rate * 1000 >= ref * (1000 - LC_RATE_TOL_PPT) &&
	       rate * 1000 <= ref * (1000 + LC_RATE_TOL_PPT);
}

static void check_periodic(int cpu, unsigned slot)
{
	const struct lc_timer *t = &lc.cpu[cpu].t[slot];
	const char *name = lc.arch->name_of_slot[slot];
	u64 before = rate_ppt(t, LC_BEFORE), after = rate_ppt(t, LC_AFTER);
	u64 catchup = t->early[LC_DURING] + t->early[LC_AFTER];
	u64 explained = explained_catchup(cpu, t);
	u64 allowed = lc.catchup_max + explained;

	/*
	 * Nominal, or what it was before: an overcommitted vCPU loses ticks to
	 * the host as much before the event as after it.
	 */
	report(before && (rate_near(after, 1000) || rate_near(after, before)),
	       "vCPU %d %s periodic rate after the event %llu.%01llu%% of nominal, within %u%% of "
	       "nominal "
	       "or of the rate before, %llu.%01llu%%",
	       cpu, name, after / 10, after % 10, LC_RATE_TOL_PPT / 10, before / 10, before % 10);
	report(catchup <= allowed,
	       "vCPU %d %s catch-up: %llu ticks closer than half a period after the event <= %llu "
	       "(bound %llu + %llu the vCPU's own delays explain)",
	       cpu, name, catchup, allowed, lc.catchup_max, explained);
	if (!cpu || lc.arch->nslots == 1) {
		char what[32];

		snprintf(what, sizeof(what), "%s.cpu%d", name, cpu);
		result_count(what, "catchup", catchup);
		result_count(what, "ticks_during", t->ticks[LC_DURING]);
	}
}

void lc_check_timers(u64 answered)
{
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		for (unsigned s = 0; s < lc.arch->nslots; s++)
			if (lc.cpu[cpu].t[s].role == LC_ROLE_ONESHOT)
				check_oneshot(cpu, s, answered);
			else if (lc.cpu[cpu].t[s].role == LC_ROLE_PERIODIC)
				check_periodic(cpu, s);
}

/* The guest's time of day moved with the host's: its offset to the host is the same after the event as before. */
void lc_check_tod(u64 tod_req, u64 tod_done)
{
	const struct lc_done *d = &lc.done;
	s64 before = (s64)(tod_req - d->host_req_ns), after = (s64)(tod_done - d->host_ns);
	s64 moved = after - before;

	report(moved <= (s64)LC_TOD_SLACK_NS && moved >= -(s64)LC_TOD_SLACK_NS,
	       "time of day follows the host's: offset to it %lld us before the event, %lld us "
	       "after "
	       "(moved by at most %llu ms)",
	       before / 1000, after / 1000, LC_TOD_SLACK_NS / 1000000);
	lc_result_ms("tod", "moved", (u64)(moved < 0 ? -moved : moved));
}
