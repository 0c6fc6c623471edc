/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on engine: cycles of a secondary turned off and on, the counter's hand-offs across vCPUs before and after each. */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "report.h"
#include "stats.h"
#include "units.h"
#include "wait.h"
#include "cpu_cycle.h"
#include "handoff.h"

#define CC_MAX_CPUS		16
#define CYCLES_DEFAULT		3
#define CYCLES_MAX		1000
/* CNTVCT, CNTPCT, CNTVCT reads per vCPU: the tightest brackets its offset. */
#define OFFSET_TRIES		16
/* How long the restarted vCPU waits for its interrupt. */
#define IRQ_WAIT_MS		1000
/* Counter granularity: two brackets of one offset may miss each other by this much. */
#define GRAIN_TICKS		1

enum fault { FAULT_NONE, FAULT_OFFSET, FAULT_BACK, FAULT_RESET, FAULT_NOIRQ };
static const char *const fault_names[] = { "none", "offset", "back", "reset", "noirq" };

enum check { CHECK_HANDOFF, CHECK_OWN, CHECK_STEP, CHECK_OFFSET, CHECK_IRQ, NR_CHECKS };

/* Each check over all cycles: how many cycles failed it, and what the first failure was. */
struct check_state {
	const char *what;
	unsigned failed;	/* cycles */
	unsigned last_cycle;	/* the last cycle counted in failed */
	char first[200];
};

/* What one vCPU showed in one hand-off (before or after a cycle). */
struct view {
	u64 first, last;	/* its first and last read */
	struct bracket off;	/* its counter minus the boot vCPU's (the boot vCPU: 0) */
	struct bracket phys;	/* counter minus arch->phys_read() */
};


static const struct cpu_cycle_arch *arch;
static u64 cycles;
static unsigned fault;		/* enum fault */
static int target;		/* the vCPU turned off and on: the last one */
static struct check_state checks[NR_CHECKS] = {
	[CHECK_HANDOFF] = { "no read went back from one vCPU's read to the next one's" },
	[CHECK_OWN] = { "each vCPU's counter went on across each cycle" },
	[CHECK_STEP] = { "no vCPU's counter stepped against the boot vCPU's over a cycle" },
	[CHECK_OFFSET] = { "the counter's offset to the physical count the same on every vCPU" },
	[CHECK_IRQ] = { "the restarted vCPU took an interrupt after each restart" },
};

static struct handoff ho;
static struct view before[CC_MAX_CPUS], after[CC_MAX_CPUS];
/*
 * Test-only (fault=): subtracted from each vCPU's counter reads. Plain
 * volatile, not atomics (i386 has no 64-bit ones without cmpxchg8b): each
 * is written while no vCPU that reads it runs.
 */
static volatile u64 fault_shift[CC_MAX_CPUS];
/* fault=back: the target's next hand-off read is one tick behind the read before it. */
static bool fault_back_armed;
static volatile u64 off_read;	/* the target's last read before it turned off */
static u32 irq_count[CC_MAX_CPUS];
static unsigned long irq_ready;
/* What the target counted while it waited: one that comes later (once idle) is not it taking one. */
static u32 irq_seen;
/* The widest bracket of an offset to the boot vCPU's counter any hand-off gave: the checks' resolution. */
static u64 widest_bracket;

static const struct arg args[] = {
	ARG_UINT("cycles", &cycles, 1, CYCLES_MAX, ARG_DEFAULT(CYCLES_DEFAULT),
		 "times the last vCPU is turned off and on again"),
	ARG_ONE_OF("fault", &fault, fault_names, "none",
		   "test-only: offset, back, reset or noirq (see the test's header)"),
};
static const struct arg_table table = ARG_TABLE(args);

/* The counter as the checks see it: arch_counter(), less a fault's shift; ordered before what follows. */
static u64 cc_read(void)
{
	u64 v = arch_counter() - fault_shift[smp_id()];

	arch_bench_fence();
	return v;
}

/* "N ticks (X ns)", or "N ticks" where the counter's frequency is unknown. */
static const char *fmt_ticks(char *buf, size_t size, u64 ticks)
{
	u64 hz = arch_counter_hz();

	if (hz)
		snprintf(buf, size, "%llu ticks (%llu ns)", ticks, ticks_to_ns(ticks, hz));
	else
		snprintf(buf, size, "%llu ticks", ticks);
	return buf;
}

static void check_fail(enum check c, unsigned cycle, const char *fmt, ...) __printf(3, 4);
static void check_fail(enum check c, unsigned cycle, const char *fmt, ...)
{
	va_list ap;

	if (checks[c].last_cycle == cycle)
		return;
	checks[c].last_cycle = cycle;
	if (!checks[c].failed++) {
		va_start(ap, fmt);
		vsnprintf(checks[c].first, sizeof(checks[c].first), fmt, ap);
		va_end(ap);
	}
}

/* fault=back: the target's next hand-off read is one tick behind the read before it. */
static u64 peer_fault(const struct handoff *h, u32 r, u64 v)
{
	if (!fault_back_armed || smp_id() != target)
		return v;
	fault_back_armed = false;
	return h->boot[r] - 1;
}

/* Every read of the hand-off at least the one before it, made by the other vCPU. */
static void handoff_check_order(unsigned cycle, const char *when, int peer)
{
	struct handoff_back b;
	char buf[64];

	if (!handoff_went_back(ho.boot, ho.peer, HANDOFF_ROUNDS, &b))
		return;
	if (b.by_peer)
		check_fail(CHECK_HANDOFF, cycle, "cycle %u, %s: cpu %d read %s %llu after cpu 0 read %llu: back by %s",
			   cycle, when, peer, arch->counter, b.after, b.before,
			   fmt_ticks(buf, sizeof(buf), b.before - b.after));
	else
		check_fail(CHECK_HANDOFF, cycle, "cycle %u, %s: cpu 0 read %s %llu after cpu %d read %llu: back by %s",
			   cycle, when, arch->counter, b.after, peer, b.before,
			   fmt_ticks(buf, sizeof(buf), b.before - b.after));
}

/* A hand-off with every other vCPU in turn; views[] gets what each showed. */
static void handoffs(unsigned cycle, const char *when, struct view *views)
{
	ho.read = cc_read;
	ho.peer_fault = peer_fault;
	for (int cpu = 1; cpu < cpu_count(); cpu++) {
		handoff_run(&ho, cpu);
		handoff_check_order(cycle, when, cpu);
		if (cpu == 1)
			views[0].first = ho.boot[0];
		views[0].last = ho.boot[HANDOFF_ROUNDS];
		views[cpu].first = ho.peer[0];
		views[cpu].last = ho.peer[HANDOFF_ROUNDS - 1];
		views[cpu].off = handoff_offset(&ho);
		widest_bracket = max(widest_bracket, bracket_width(views[cpu].off));
	}
	views[0].off = (struct bracket){ 0, 0 };
}

/* On each vCPU: its counter minus the physical count, read between two counter reads. */
static void phys_sample(void *views)
{
	struct view *v = &((struct view *)views)[smp_id()];
	struct bracket best = BRACKET_NONE;

	for (unsigned i = 0; i < OFFSET_TRIES; i++) {
		u64 v1 = cc_read(), p = arch->phys_read(), v2 = cc_read();

		best = bracket_narrower(best, bracket_between(v1, p, v2));
	}
	v->phys = best;
}

/* Every vCPU's counter - physical count, before and after, against the boot vCPU's before. */
static void check_phys(unsigned cycle)
{
	const struct bracket ref = before[0].phys;
	char buf[64];

	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		const struct view *views[] = { &before[cpu], &after[cpu] };

		for (unsigned i = 0; i < ARRAY_SIZE(views); i++) {
			s64 gap = bracket_gap(views[i]->phys, ref);

			if (gap > GRAIN_TICKS)
				check_fail(CHECK_OFFSET, cycle,
					   "cycle %u: %s - %s on cpu %d %s the cycle is in [%lld, %lld], on cpu 0 before it in [%lld, %lld]: the offset moved by at least %s",
					   cycle, arch->counter, arch->phys_counter, cpu,
					   i ? "after" : "before", views[i]->phys.lo, views[i]->phys.hi,
					   ref.lo, ref.hi, fmt_ticks(buf, sizeof(buf), (u64)gap));
		}
	}
}

/* Each vCPU's first read after the cycle at least its last one before; no offset to cpu 0 moved. */
static void check_views(unsigned cycle)
{
	char buf[64];

	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		s64 gap = bracket_gap(after[cpu].off, before[cpu].off);

		if (after[cpu].first < before[cpu].last)
			check_fail(CHECK_OWN, cycle, "cycle %u: cpu %d read %s %llu before the cycle and %llu after it: back by %s",
				   cycle, cpu, arch->counter, before[cpu].last, after[cpu].first,
				   fmt_ticks(buf, sizeof(buf), before[cpu].last - after[cpu].first));
		if (cpu && gap > GRAIN_TICKS)
			check_fail(CHECK_STEP, cycle,
				   "cycle %u: cpu %d's %s minus cpu 0's was in [%lld, %lld] before the cycle, in [%lld, %lld] after it: a step of at least %s",
				   cycle, cpu, arch->counter, before[cpu].off.lo, before[cpu].off.hi,
				   after[cpu].off.lo, after[cpu].off.hi,
				   fmt_ticks(buf, sizeof(buf), (u64)gap));
	}
}

void cpu_cycle_irq_taken(void)
{
	atomic_inc(&irq_count[smp_id()]);
}

static bool irq_counted(void *count)
{
	return atomic_load((u32 *)count) != 0;
}

/* On the restarted vCPU: interrupts on (fault=noirq: left off) until one comes or IRQ_WAIT_MS pass. */
static void irq_wait(void *unused)
{
	int self = smp_id();

	atomic_store(&irq_count[self], 0);
	if (fault != FAULT_NOIRQ)
		irq_enable();
	atomic_store(&irq_ready, 1);
	wait_cond_ticks(irq_counted, &irq_count[self], arch_counter_hz() * IRQ_WAIT_MS / MSEC_PER_SEC);
	irq_disable();
	atomic_store(&irq_seen, atomic_load(&irq_count[self]));
}

static void check_irq(unsigned cycle)
{
	atomic_store(&irq_ready, 0);
	on_cpu_async(target, irq_wait, NULL);
	wait_reached(&irq_ready, 1);
	arch->irq_send(target);
	on_cpu_wait(target);
	if (!atomic_load(&irq_seen))
		check_fail(CHECK_IRQ, cycle, "cycle %u: cpu %d took no interrupt within %u ms of an %s sent to it after its restart",
			   cycle, target, IRQ_WAIT_MS, arch->irq_name);
}

static void go_off(void *unused)
{
	off_read = cc_read();
	smp_cpu_off();
}

/*
 * The faults that model a hypervisor rewriting counter offsets at the
 * restart, applied once the target is up (it reads nothing before its
 * first hand-off).
 */
static void fault_at_restart(void)
{
	u64 now = arch_counter();

	if (fault == FAULT_OFFSET)
		/* the target's counter resumed from where it stopped: behind by the time it was off */
		fault_shift[target] += cc_read() - off_read;
	else if (fault == FAULT_RESET)
		/* every vCPU's counter starts again from zero */
		for (int cpu = 0; cpu < cpu_count(); cpu++)
			fault_shift[cpu] = now;
}

/* One cycle: hand-offs, the target off and on again, hand-offs; false if it did not come back. */
static bool cycle_once(unsigned cycle, u64 *cycle_ticks)
{
	const char *why;
	u64 start;

	handoffs(cycle, "before", before);
	if (arch->phys_read)
		on_cpus(phys_sample, before);
	start = arch_counter();
	on_cpu(target, go_off, NULL);
	why = smp_cpu_restart(target);
	if (!report(!why, "cycle %u: cpu %d turned off and on again", cycle, target)) {
		report_info("%s", why);
		return false;
	}
	fault_at_restart();
	*cycle_ticks = arch_counter() - start;
	fault_back_armed = fault == FAULT_BACK && cycle == 1;
	handoffs(cycle, "after", after);
	if (arch->phys_read)
		on_cpus(phys_sample, after);
	check_views(cycle);
	if (arch->phys_read)
		check_phys(cycle);
	return true;
}

static void report_checks(const char *irq_skip)
{
	for (unsigned c = 0; c < NR_CHECKS; c++) {
		if (c == CHECK_OFFSET && !arch->phys_read)
			continue;
		if (c == CHECK_IRQ && irq_skip) {
			report_skip("%s: %s", checks[c].what, irq_skip);
			continue;
		}
		if (checks[c].failed)
			report(false, "%s: %s (%u of %llu cycles failed it)", checks[c].what,
			       checks[c].first, checks[c].failed, cycles);
		else
			report(true, "%s (%llu cycles)", checks[c].what, cycles);
	}
}

int cpu_cycle_main(int argc, char **argv, const struct cpu_cycle_arch *a)
{
	u64 ticks, total = 0;
	const char *irq_skip;
	char buf[64];
	unsigned done;

	arch = a;
	args_parse_or_abort(&table, argc, argv);
	if (cpu_count() < 2 || cpu_count() > CC_MAX_CPUS) {
		report_skip("needs 2 to %d vCPUs, has %d", CC_MAX_CPUS, cpu_count());
		return report_summary();
	}
	target = cpu_count() - 1;
	irq_skip = arch->irq_setup();
	report_info("%llu cycles of cpu %d off and on, %d vCPUs, fault=%s", cycles, target,
		    cpu_count(), fault_names[fault]);
	for (done = 1; done <= cycles; done++) {
		if (!cycle_once(done, &ticks))
			break;
		if (!irq_skip)
			check_irq(done);
		total += ticks;
	}
	if (done <= cycles)
		return report_summary();
	report_checks(irq_skip);
	report_info("cpu %d off and on took %s on average", target,
		    fmt_ticks(buf, sizeof(buf), total / cycles));
	report_info("offsets between vCPUs bracketed within %s at worst: a step smaller cannot show",
		    fmt_ticks(buf, sizeof(buf), widest_bracket));
	report_result("cpu_off_on.cycle_ticks", "ticks", "%llu", total / cycles);
	report_result("cpu_off_on.widest_bracket_ticks", "ticks", "%llu", widest_bracket);
	return report_summary();
}
