/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's counter the guest wrote itself (counter_set=), judged from the record: after each event the register the write moved still reads as the write left it. */
#include "lifecycle_judge.h"

/* Where the counters show the register themselves (arm64: CNTVCT - CNTPCT is -CNTVOFF_EL2), they show what it reads. */
void lc_check_counter_view(struct checks *out, const struct lc_counter_write *w, int cpu,
			   const struct lc_counter_now *n)
{
	/* the judgment knows the view by its name: a record carries no function */
	if (!w->view_name)
		return;
	checks_plain(out, n->view_lo <= (s64)n->reg && (s64)n->reg <= n->view_hi,
		     "vCPU %d: the counters show what %s reads: %s between %lld and %lld, %s %lld",
		     cpu, w->reg, w->view_name, n->view_lo, n->view_hi, w->reg, (s64)n->reg);
}

/* After each event, on every vCPU: the register the guest's write moved reads as the write left it, and the counters agree. */
void lc_check_counter_kept(struct checks *out, const struct lc_record *r)
{
	const struct lc_counter_write *w = r->arch->counter_write;

	for (unsigned cpu = 0; cpu < r->ncpus; cpu++) {
		const struct lc_counter_now *n = &r->counter_now[cpu];

		checks_plain(out, n->reg == r->counter_reg[cpu],
			     "vCPU %u: %s kept what the guest's counter write left in it: %lld "
			     "after the "
			     "event, %lld before",
			     cpu, w->reg, (s64)n->reg, (s64)r->counter_reg[cpu]);
		lc_check_counter_view(out, w, (int)cpu, n);
	}
}
