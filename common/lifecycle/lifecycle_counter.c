/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle engine's counter the guest wrote itself (counter_set=): the write on every vCPU before the first event, the faults after one, and the register it moved read after each (judged in lifecycle_counter_check.c). */
#include "lifecycle_state.h"
#include "report.h"

/* What a delay (the write's own exit, a descheduled vCPU) may add to or take from the delta. */
#define LC_COUNTER_SET_SLACK_DIV 16

struct counter_seen {
	u64 before, after;	/* the counter either side of the write */
	u64 reg_before;
	struct lc_counter_now now;	/* after the write */
};

static struct counter_seen seen[LC_MAX_CPUS];

static void write_on(void *unused)
{
	const struct lc_counter_write *w = lc.rec.arch->counter_write;
	struct counter_seen *s = &seen[smp_id()];

	s->reg_before = w->read_reg();
	s->before = arch_counter();
	w->write(lc.rec.counter_set);
	s->after = arch_counter();
	s->now.reg = w->read_reg();
	if (w->view)
		w->view(&s->now.view_lo, &s->now.view_hi);
	lc.rec.counter_reg[smp_id()] = s->now.reg;
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
	const struct lc_counter_write *w = lc.rec.arch->counter_write;
	const char *why = w ? w->find() : "the arch has no counter write";
	struct checks *out;

	if (why) {
		report_info("counter_set=%llu: the guest cannot write its counter here (%s): not "
			    "checked",
			    lc.rec.counter_set, why);
		lc.rec.counter_set = 0;
		return;
	}
	on_cpus(write_on, NULL);
	out = lc_checks();
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		const struct counter_seen *s = &seen[cpu];

		checks_plain(out, moved_by(s->reg_before, s->now.reg, lc.rec.counter_set),
			     "vCPU %d: writing the counter %llu ahead moved %s by %lld (want %llu, "
			     "within "
			     "1/%u)",
			     cpu, lc.rec.counter_set, w->reg, (s64)(s->now.reg - s->reg_before),
			     lc.rec.counter_set, LC_COUNTER_SET_SLACK_DIV);
		checks_kfail(
			out, moved_by(s->before, s->after, lc.rec.counter_set), w->defect,
			"vCPU %d: the counter followed the guest's write: %llu ahead of the read "
			"before it (want %llu, within 1/%u)",
			cpu, s->after - s->before, lc.rec.counter_set, LC_COUNTER_SET_SLACK_DIV);
		lc_check_counter_view(out, w, cpu, &s->now);
	}
	report_checks(out);
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

	if (lc.rec.fault < LC_FAULT_COUNTER_RESET || lc.rec.fault > LC_FAULT_COUNTER_STALE ||
	    !lc.rec.counter_set || me->counter_undone || me != &lc.rec.cpu[cpu_count() - 1])
		return;
	back = lc.rec.fault == LC_FAULT_COUNTER_TICK ? 1 : lc.rec.counter_set;
	me->counter_undone = true;
	lc.rec.arch->counter_write->write(-back);
}


static void read_on(void *unused)
{
	const struct lc_counter_write *w = lc.rec.arch->counter_write;
	struct lc_counter_now *now = &lc.rec.counter_now[smp_id()];

	now->reg = w->read_reg();
	/* fault=counter_stale: the register reads what the write left, the counter runs without it */
	if (lc.rec.fault == LC_FAULT_COUNTER_STALE && lc.rec.cpu[smp_id()].counter_undone)
		now->reg = lc.rec.counter_reg[smp_id()];
	if (w->view)
		w->view(&now->view_lo, &now->view_hi);
}

void lc_counter_read_all(void)
{
	on_cpus(read_on, NULL);
}
