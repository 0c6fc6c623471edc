/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on engine: cycles of a secondary turned off and on, the counter's hand-offs across vCPUs before and after each. */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "atomic.h"
#include "report.h"
#include "units.h"
#include "wait.h"
#include "cpu_cycle_check.h"

/* CNTVCT, CNTPCT, CNTVCT reads per vCPU: the tightest brackets its offset. */
#define OFFSET_TRIES		16

static const struct cpu_cycle_arch *arch;
static struct cc_args args;
static int target;		/* the vCPU turned off and on: the last one */
/* What the checks judge (common/cpu_cycle/cpu_cycle_check.c): the cycle's views, their tally. */
static struct cc_checks checks;
static struct cc_cycle cyc;

static struct handoff ho;
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

/* The counter as the checks see it: arch_counter(), less a fault's shift; ordered before what follows. */
static u64 cc_read(void)
{
	u64 v = arch_counter() - fault_shift[smp_id()];

	arch_bench_fence();
	return v;
}

/* fault=back: the target's next hand-off read is one tick behind the read before it. */
static u64 peer_fault(const struct handoff *h, u32 r, u64 v)
{
	if (!fault_back_armed || smp_id() != target)
		return v;
	fault_back_armed = false;
	return h->boot[r] - 1;
}

/* A hand-off with every other vCPU in turn; views[] gets what each showed. */
static void handoffs(unsigned cycle, const char *when, struct cc_view *views)
{
	ho.read = cc_read;
	ho.peer_fault = peer_fault;
	for (int cpu = 1; cpu < cpu_count(); cpu++) {
		handoff_run(&ho, cpu);
		cc_check_order(&checks, cycle, when, cpu, &ho);
		cc_take_handoff(views, cpu, &ho);
		widest_bracket = max(widest_bracket, bracket_width(views[cpu].off));
	}
}

/* On each vCPU: its counter minus the physical count, read between two counter reads. */
static void phys_sample(void *views)
{
	struct cc_view *v = &((struct cc_view *)views)[smp_id()];
	struct bracket best = BRACKET_NONE;

	for (unsigned i = 0; i < OFFSET_TRIES; i++) {
		u64 v1 = cc_read(), p = arch->phys_read(), v2 = cc_read();

		best = bracket_narrower(best, bracket_between(v1, p, v2));
	}
	v->phys = best;
}

void cpu_cycle_irq_taken(void)
{
	atomic_inc(&irq_count[smp_id()]);
}

static bool irq_counted(void *count)
{
	return atomic_load((u32 *)count) != 0;
}

/* On the restarted vCPU: interrupts on (fault=noirq: left off) until one comes or CC_IRQ_WAIT_MS pass. */
static void irq_wait(void *unused)
{
	int self = smp_id();

	atomic_store(&irq_count[self], 0);
	if (args.fault != FAULT_NOIRQ)
		irq_enable();
	atomic_store(&irq_ready, 1);
	wait_cond_ticks(irq_counted, &irq_count[self], arch_counter_hz() * CC_IRQ_WAIT_MS / MSEC_PER_SEC);
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
	cc_check_irq(&checks, cycle, target, atomic_load(&irq_seen));
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

	if (args.fault == FAULT_OFFSET)
		/* the target's counter resumed from where it stopped: behind by the time it was off */
		fault_shift[target] += cc_read() - off_read;
	else if (args.fault == FAULT_RESET)
		/* every vCPU's counter starts again from zero */
		for (int cpu = 0; cpu < cpu_count(); cpu++)
			fault_shift[cpu] = now;
}

/* One cycle: hand-offs, the target off and on again, hand-offs; false if it did not come back. */
static bool cycle_once(unsigned cycle, u64 *cycle_ticks)
{
	const char *why;
	u64 start;

	cyc.n = cycle;
	cyc.ncpus = cpu_count();
	handoffs(cycle, "before", cyc.before);
	if (arch->phys_read)
		on_cpus(phys_sample, cyc.before);
	start = arch_counter();
	on_cpu(target, go_off, NULL);
	why = smp_cpu_restart(target);
	if (!report(!why, "cycle %u: cpu %d turned off and on again", cycle, target)) {
		report_info("%s", why);
		return false;
	}
	fault_at_restart();
	*cycle_ticks = arch_counter() - start;
	fault_back_armed = args.fault == FAULT_BACK && cycle == 1;
	handoffs(cycle, "after", cyc.after);
	if (arch->phys_read)
		on_cpus(phys_sample, cyc.after);
	cc_check_views(&checks, &cyc);
	if (arch->phys_read)
		cc_check_phys(&checks, &cyc);
	return true;
}

int cpu_cycle_main(int argc, char **argv, const struct cpu_cycle_arch *a)
{
	u64 ticks, total = 0;
	const char *irq_skip;
	char buf[64];
	unsigned done;

	arch = a;
	checks.arch = a;
	cc_parse_args(&args, argc, argv);
	if (cpu_count() < 2 || cpu_count() > CC_MAX_CPUS) {
		report_skip("needs 2 to %d vCPUs, has %d", CC_MAX_CPUS, cpu_count());
		return report_summary();
	}
	target = cpu_count() - 1;
	irq_skip = arch->irq_setup();
	report_info("%llu cycles of cpu %d off and on, %d vCPUs, fault=%s", args.cycles, target,
		    cpu_count(), cc_fault_name(args.fault));
	for (done = 1; done <= args.cycles; done++) {
		if (!cycle_once(done, &ticks))
			break;
		if (!irq_skip)
			check_irq(done);
		total += ticks;
	}
	if (done <= args.cycles)
		return report_summary();
	cc_report_checks(&checks, args.cycles, irq_skip);
	report_info("cpu %d off and on took %s on average", target,
		    cc_fmt_ticks(buf, sizeof(buf), total / args.cycles));
	report_info("offsets between vCPUs bracketed within %s at worst: a step smaller cannot show",
		    cc_fmt_ticks(buf, sizeof(buf), widest_bracket));
	report_result("cpu_off_on.cycle_ticks", "ticks", "%llu", total / args.cycles);
	report_result("cpu_off_on.widest_bracket_ticks", "ticks", "%llu", widest_bracket);
	return report_summary();
}
