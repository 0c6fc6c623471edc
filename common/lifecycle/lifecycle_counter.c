/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's counter the guest wrote itself (counter_set=): the write on every vCPU, and after each event the register it moved still as the write left it. */
#include "lifecycle_state.h"
#include "report.h"

/* What a delay (the write's own exit, a descheduled vCPU) may add to or take from the delta. */
#define LC_COUNTER_SET_SLACK_DIV 16

/* The register the write moved, and the counters' own view of it (struct lc_counter_write), on one vCPU. */
struct counter_now {
	u64 reg;
	s64 view_lo, view_hi;
};

struct counter_seen {
	u64 before, after;	/* the counter either side of the write */
	u64 reg_before;
	struct counter_now now;	/* after the write */
};

static struct counter_seen seen[LC_MAX_CPUS];

static void write_on(void *unused)
{
	const struct lc_counter_write *w = lc.arch->counter_write;
	struct counter_seen *s = &seen[smp_id()];

	s->reg_before = w->read_reg();
	s->before = arch_counter();
	w->write(lc.counter_set);
	s->after = arch_counter();
	s->now.reg = w->read_reg();
	if (w->view)
		w->view(&s->now.view_lo, &s->now.view_hi);
	lc.counter_reg[smp_id()] = s->now.reg;
}

/* Where the counters show the register themselves (arm64: CNTVCT - CNTPCT is -CNTVOFF_EL2), they show what it reads. */
static void check_view(int cpu, const struct counter_now *n)
{
	const struct lc_counter_write *w = lc.arch->counter_write;

	if (!w->view)
		return;
	report(n->view_lo <= (s64)n->reg && (s64)n->reg <= n->view_hi,
	       "vCPU %d: the counters show what %s reads: %s between %lld and %lld, %s %lld",
	       cpu, w->reg, w->view_name, n->view_lo, n->view_hi, w->reg, (s64)n->reg);
}

/* Moved forward by delta, give or take a delay, in either way of counting. */
static bool moved_by(u64 from, u64 to, u64 delta)
{
	u64 slack = delta / LC_COUNTER_SET_SLACK_DIV;

	return to - from + slack >= delta && to - from <= delta + slack;
}

/*
 * Before the first event, each vCPU writes its counter forward by
 * counter_set ticks: the register the write moves (IA32_TSC_ADJUST) must
 * move by as much, less the time between reading and writing; the counter
 * itself must follow (a known defect where a host's does not).
 */
void lc_counter_set(void)
{
	const struct lc_counter_write *w = lc.arch->counter_write;
	const char *why = w ? w->find() : "the arch has no counter write";

	if (why) {
		report_info("counter_set=%llu: the guest cannot write its counter here (%s): not "
			    "checked",
			    lc.counter_set, why);
		lc.counter_set = 0;
		return;
	}
	on_cpus(write_on, NULL);
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		const struct counter_seen *s = &seen[cpu];

		report(moved_by(s->reg_before, s->now.reg, lc.counter_set),
		       "vCPU %d: writing the counter %llu ahead moved %s by %lld (want %llu, within "
		       "1/%u)",
		       cpu, lc.counter_set, w->reg, (s64)(s->now.reg - s->reg_before),
		       lc.counter_set, LC_COUNTER_SET_SLACK_DIV);
		report_kfail(moved_by(s->before, s->after, lc.counter_set), w->defect,
			     "vCPU %d: the counter followed the guest's write: %llu ahead of the read "
			     "before it (want %llu, within 1/%u)",
			     cpu, s->after - s->before, lc.counter_set, LC_COUNTER_SET_SLACK_DIV);
		check_view(cpu, &s->now);
	}
}

/*
 * fault=counter_*, once after the event on the last vCPU, as a host that
 * restores its counter wrongly: without the guest's write (counter_reset),
 * one tick behind it (counter_tick: an offset recomputed with a rounding),
 * or without the write while the register still reads it (counter_stale:
 * a register file restored apart from the offset the counter runs on).
 */
void lc_counter_fault(struct lc_cpu *me)
{
	u64 back;

	if (lc.fault < LC_FAULT_COUNTER_RESET || lc.fault > LC_FAULT_COUNTER_STALE ||
	    !lc.counter_set || me->counter_undone || me != &lc.cpu[cpu_count() - 1])
		return;
	back = lc.fault == LC_FAULT_COUNTER_TICK ? 1 : lc.counter_set;
	me->counter_undone = true;
	lc.arch->counter_write->write(-back);
}


static void read_on(void *out)
{
	const struct lc_counter_write *w = lc.arch->counter_write;
	struct counter_now *now = &((struct counter_now *)out)[smp_id()];

	now->reg = w->read_reg();
	/* fault=counter_stale: the register reads what the write left, the counter runs without it */
	if (lc.fault == LC_FAULT_COUNTER_STALE && lc.cpu[smp_id()].counter_undone)
		now->reg = lc.counter_reg[smp_id()];
	if (w->view)
		w->view(&now->view_lo, &now->view_hi);
}

/* After each event, on every vCPU: the register the guest's write moved reads as the write left it, and the counters agree. */
void lc_check_counter_kept(void)
{
	static struct counter_now now[LC_MAX_CPUS];
	const struct lc_counter_write *w = lc.arch->counter_write;

	on_cpus(read_on, now);
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		const struct counter_now *n = &now[cpu];

		report(n->reg == lc.counter_reg[cpu],
		       "vCPU %d: %s kept what the guest's counter write left in it: %lld after the "
		       "event, %lld before",
		       cpu, w->reg, (s64)n->reg, (s64)lc.counter_reg[cpu]);
		check_view(cpu, n);
	}
}
