/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's counter the guest wrote itself (counter_set=): the write on every vCPU, and after each event the register it moved still as the write left it. */
#include "lifecycle_state.h"
#include "report.h"

/* What a delay (the write's own exit, a descheduled vCPU) may add to or take from the delta. */
#define LC_COUNTER_SET_SLACK_DIV 16

struct counter_seen {
	u64 before, after;	/* the counter either side of the write */
	u64 reg_before, reg_after;
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
	s->reg_after = w->read_reg();
	lc.counter_reg[smp_id()] = s->reg_after;
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

		report(moved_by(s->reg_before, s->reg_after, lc.counter_set),
		       "vCPU %d: writing the counter %llu ahead moved %s by %lld (want %llu, within "
		       "1/%u)",
		       cpu, lc.counter_set, w->reg, (s64)(s->reg_after - s->reg_before),
		       lc.counter_set, LC_COUNTER_SET_SLACK_DIV);
		report_kfail(moved_by(s->before, s->after, lc.counter_set), w->defect,
			     "vCPU %d: the counter followed the guest's write: %llu ahead of the read "
			     "before it (want %llu, within 1/%u)",
			     cpu, s->after - s->before, lc.counter_set, LC_COUNTER_SET_SLACK_DIV);
	}
}

/* fault=counter_reset: once after the event the last vCPU's counter goes back by what it wrote, as a host restoring it without the guest's write. */
void lc_counter_fault(struct lc_cpu *me)
{
	if (lc.fault != LC_FAULT_COUNTER_RESET || !lc.counter_set || me->counter_undone ||
	    me != &lc.cpu[cpu_count() - 1])
		return;
	me->counter_undone = true;
	lc.arch->counter_write->write(-lc.counter_set);
}

static void read_on(void *out)
{
	((u64 *)out)[smp_id()] = lc.arch->counter_write->read_reg();
}

/* After each event: the register the guest's write moved reads as the write left it, on every vCPU. */
void lc_check_counter_kept(void)
{
	static u64 now[LC_MAX_CPUS];
	const char *reg = lc.arch->counter_write->reg;

	on_cpus(read_on, now);
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		report(now[cpu] == lc.counter_reg[cpu],
		       "vCPU %d: %s kept what the guest's counter write left in it: %lld after the "
		       "event, %lld before",
		       cpu, reg, (s64)now[cpu], (s64)lc.counter_reg[cpu]);
}
