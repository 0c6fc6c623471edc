/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on engine's judgments of what its cycles collected: apart from common/cpu_cycle/cpu_cycle.c's
 * hardware, so the host tests build them. */
#include "libc.h"
#include "arch.h"
#include "report.h"
#include "stats.h"
#include "units.h"
#include "cpu_cycle_check.h"

static const char *const check_what[NR_CHECKS] = {
	[CHECK_HANDOFF] = "no read went back from one vCPU's read to the next one's",
	[CHECK_OWN] = "each vCPU's counter went on across each cycle",
	[CHECK_STEP] = "no vCPU's counter stepped against the boot vCPU's over a cycle",
	[CHECK_OFFSET] = "the counter's offset to the physical count the same on every vCPU",
	[CHECK_IRQ] = "the restarted vCPU took an interrupt after each restart",
};

void cc_take_handoff(struct cc_view *views, int cpu, const struct handoff *ho)
{
	/* the boot vCPU's first read is its first hand-off's, its last the last one's */
	if (cpu == 1)
		views[0].first = ho->boot[0];
	views[0].last = ho->boot[HANDOFF_ROUNDS];
	views[0].off = (struct bracket){0, 0};
	views[cpu].first = ho->peer[0];
	views[cpu].last = ho->peer[HANDOFF_ROUNDS - 1];
	views[cpu].off = handoff_offset(ho);
}

const char *cc_fmt_ticks(char *buf, size_t size, u64 ticks)
{
	u64 hz = arch_counter_hz();

	if (hz)
		snprintf(buf, size, "%llu ticks (%llu ns)", ticks, ticks_to_ns(ticks, hz));
	else
		snprintf(buf, size, "%llu ticks", ticks);
	return buf;
}

void cc_fail(struct cc_checks *k, enum cc_check c, unsigned cycle, const char *fmt, ...)
{
	struct cc_check_state *s = &k->state[c];
	va_list ap;

	/* one cycle counts once, however many of its reads or vCPUs failed */
	if (s->last_cycle == cycle)
		return;
	s->last_cycle = cycle;
	if (!s->failed++) {
		va_start(ap, fmt);
		vsnprintf(s->first, sizeof(s->first), fmt, ap);
		va_end(ap);
	}
}

void cc_check_order(struct cc_checks *k, unsigned cycle, const char *when, int peer,
		    const struct handoff *ho)
{
	const char *counter = k->arch->counter;
	struct handoff_back b;
	char buf[64];

	if (!handoff_went_back(ho->boot, ho->peer, HANDOFF_ROUNDS, &b))
		return;
	if (b.by_peer)
		cc_fail(k, CHECK_HANDOFF, cycle,
			"cycle %u, %s: cpu %d read %s %llu after cpu 0 read %llu: back by %s",
			cycle, when, peer, counter, b.after, b.before,
			cc_fmt_ticks(buf, sizeof(buf), b.before - b.after));
	else
		cc_fail(k, CHECK_HANDOFF, cycle,
			"cycle %u, %s: cpu 0 read %s %llu after cpu %d read %llu: back by %s",
			cycle, when, counter, b.after, peer, b.before,
			cc_fmt_ticks(buf, sizeof(buf), b.before - b.after));
}

void cc_check_views(struct cc_checks *k, const struct cc_cycle *c)
{
	const struct cc_view *before = c->before, *after = c->after;
	const char *counter = k->arch->counter;
	char buf[64];

	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		s64 gap = bracket_gap(after[cpu].off, before[cpu].off);

		if (after[cpu].first < before[cpu].last)
			cc_fail(k, CHECK_OWN, c->n,
				"cycle %u: cpu %d read %s %llu before the cycle and %llu after it: "
				"back by %s",
				c->n, cpu, counter, before[cpu].last, after[cpu].first,
				cc_fmt_ticks(buf, sizeof(buf),
					     before[cpu].last - after[cpu].first));
		if (cpu && gap > GRAIN_TICKS)
			cc_fail(k, CHECK_STEP, c->n,
				"cycle %u: cpu %d's %s minus cpu 0's was in [%lld, %lld] before "
				"the cycle, in [%lld, %lld] after it: a step of at least %s",
				c->n, cpu, counter, before[cpu].off.lo, before[cpu].off.hi,
				after[cpu].off.lo, after[cpu].off.hi,
				cc_fmt_ticks(buf, sizeof(buf), (u64)gap));
	}
}

void cc_check_phys(struct cc_checks *k, const struct cc_cycle *c)
{
	const struct bracket ref = c->before[0].phys;
	char buf[64];

	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		const struct cc_view *views[] = {&c->before[cpu], &c->after[cpu]};

		for (unsigned i = 0; i < ARRAY_SIZE(views); i++) {
			s64 gap = bracket_gap(views[i]->phys, ref);

			if (gap > GRAIN_TICKS)
				cc_fail(k, CHECK_OFFSET, c->n,
					"cycle %u: %s - %s on cpu %d %s the cycle is in [%lld, "
					"%lld], on cpu 0 before it in [%lld, %lld]: the offset "
					"moved by at least %s",
					c->n, k->arch->counter, k->arch->phys_counter, cpu,
					i ? "after" : "before", views[i]->phys.lo,
					views[i]->phys.hi, ref.lo, ref.hi,
					cc_fmt_ticks(buf, sizeof(buf), (u64)gap));
		}
	}
}

void cc_check_irq(struct cc_checks *k, unsigned cycle, int target, u32 seen)
{
	if (!seen)
		cc_fail(k, CHECK_IRQ, cycle,
			"cycle %u: cpu %d took no interrupt within %u ms of an %s sent to it after "
			"its restart",
			cycle, target, CC_IRQ_WAIT_MS, k->arch->irq_name);
}

void cc_report_checks(const struct cc_checks *k, u64 cycles, const char *irq_skip)
{
	for (unsigned c = 0; c < NR_CHECKS; c++) {
		const struct cc_check_state *s = &k->state[c];

		if (c == CHECK_OFFSET && !k->arch->phys_read)
			continue;
		if (c == CHECK_IRQ && irq_skip) {
			report_skip("%s: %s", check_what[c], irq_skip);
			continue;
		}
		if (s->failed)
			report(false, "%s: %s (%u of %llu cycles failed it)", check_what[c],
			       s->first, s->failed, cycles);
		else
			report(true, "%s (%llu cycles)", check_what[c], cycles);
	}
}
