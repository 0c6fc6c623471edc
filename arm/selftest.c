/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * selftest: checks the arm64 platform code from inside the guest.
 *
 * What it checks (the common half in common/selftest/selftest_engine.c): the arguments
 * arrived as argv (argv[0] is "selftest"); the vCPU count equals smp=N and
 * every CPU has its own MPIDR; on_cpu() and on_cpus() run on every CPU; on
 * every CPU a data abort from an unmapped address, an undefined instruction
 * and a BRK are caught by guarded calls (catch_fault) with the right
 * exception class (and FAR, and BRK comment); 64-bit printf and division
 * are right; the memory size matches mem=MiB exactly; the GIC is version
 * gic=N and an SGI sent to each CPU arrives there; a 10 ms virtual and
 * physical timer, armed through TVAL and through CVAL, fires on every CPU
 * and not early (which checks PPIs too); with GICv3, an LPI mapped through
 * the ITS to a collection on each CPU arrives on that CPU.
 *
 * Arguments (key=value, any order):
 *   smp=N     expected vCPU count (QEMU -smp)
 *   mem=MiB   expected RAM size (QEMU -m)
 *   gic=N     expected GIC version, 2 or 3 (QEMU -machine virt,gic-version=N)
 *   mode=M    misbehave on purpose, to test the runner: pass (default),
 *             fail, skip, hang, crash (power off without a summary),
 *             nothing (reports no check), fault (unexpected exception)
 * Any other argument is a failure naming it.
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/its.h"
#include "arm64/mmu.h"
#include "arm64/processor.h"
#include "arm64/psci.h"
#include "report.h"
#include "selftest.h"
#include "arm64/setup.h"
#include "arm64/smp.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"
#include "wait.h"

/* How long a CPU waits for an interrupt before calling it lost. */
#define IRQ_TIMEOUT_MS		2000
#define TEST_SGI		1
#define TIMER_PERIOD_NS		10000000ULL	/* 10 ms */
#define TEST_DEVICE_ID		1

static unsigned long per_cpu_hits[NR_CPUS];
static unsigned long ready;

static int count_cpus_with(u32 value)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < cpu_count(); cpu++)
		n += atomic_load(&per_cpu_hits[cpu]) == value;
	return n;
}

static void check_mpidrs(void)
{
	int i, j, dup = 0;

	for (i = 0; i < cpu_count(); i++)
		for (j = i + 1; j < cpu_count(); j++)
			dup += cpu_mpidr(i) == cpu_mpidr(j);
	report(!dup, "every CPU has its own MPIDR");
}

/* --- expected exceptions, on every CPU ----------------------------------- */

/* Each CPU's exception class seen (ESR_EC_COUNT: none). */
static u32 fault_ec_seen[NR_CPUS];

static void read_unmapped(void *arg)
{
	u64 v, addr = MMU_UNMAPPED_ADDR;

	asm volatile("ldr %0, [%1]" : "=r"(v) : "r"(addr) : "memory");
}

static void undefined_insn(void *arg)
{
	asm volatile("udf #0" ::: "memory");
}

#define TEST_BRK_COMMENT 0x42
static void brk_insn(void *arg)
{
	asm volatile("brk %0" : : "i"(TEST_BRK_COMMENT) : "memory");
}

static const struct fault_case {
	const char *what;
	void (*trigger)(void *arg);
	unsigned ec;
	bool check_far;
	u64 far;
	bool check_iss;
	u32 iss;
} fault_cases[] = {
	{ "data abort from an unmapped address", read_unmapped, ESR_EC_DABT_CUR,
	  true, MMU_UNMAPPED_ADDR, false, 0 },
	{ "undefined instruction (udf)", undefined_insn, ESR_EC_UNKNOWN, false, 0, false, 0 },
	{ "breakpoint instruction (brk)", brk_insn, ESR_EC_BRK64, false, 0, true, TEST_BRK_COMMENT },
};

static void run_fault_case(void *arg)
{
	const struct fault_case *c = arg;
	struct fault_record f;
	unsigned ec = catch_fault(c->ec, c->trigger, NULL, &f) ? esr_class(f.esr) : ESR_EC_COUNT;

	fault_ec_seen[smp_id()] = ec;
	if (ec == c->ec && (!c->check_far || f.far == c->far) &&
	    (!c->check_iss || (f.esr & ESR_ISS_MASK & 0xffff) == c->iss))
		atomic_inc(&per_cpu_hits[smp_id()]);
}

static void check_faults(void)
{
	const struct fault_case *c;
	int n = cpu_count();

	for (c = fault_cases; c < fault_cases + ARRAY_SIZE(fault_cases); c++) {
		memset(per_cpu_hits, 0, sizeof(per_cpu_hits));
		on_cpus(run_fault_case, (void *)c);
		report(count_cpus_with(1) == n, "%s caught as EC 0x%x on %d of %d CPUs (cpu 0 saw EC 0x%x)",
		       c->what, c->ec, count_cpus_with(1), n, fault_ec_seen[0]);
	}
}

/* --- interrupts ----------------------------------------------------------- */

static void count_irq(struct pt_regs *regs, unsigned irq)
{
	atomic_inc(&per_cpu_hits[smp_id()]);
}

/*
 * Every CPU unmasks IRQs and says so; CPU 0 then sends one interrupt per
 * CPU through send(cpu); each CPU waits for its own.
 */
static void (*send_to_cpu)(int cpu);

static void wait_for_my_irq(void *arg)
{
	int self = smp_id(), cpu;

	irq_enable();
	atomic_inc(&ready);
	if (self == 0) {
		wait_reached(&ready, (unsigned long)cpu_count());
		for (cpu = 0; cpu < cpu_count(); cpu++)
			send_to_cpu(cpu);
	}
	wait_at_least(&per_cpu_hits[self], 1, IRQ_TIMEOUT_MS);
	irq_disable();
}

static int irq_to_every_cpu(void (*send)(int cpu))
{
	memset(per_cpu_hits, 0, sizeof(per_cpu_hits));
	atomic_store(&ready, 0);
	send_to_cpu = send;
	on_cpus(wait_for_my_irq, NULL);
	return count_cpus_with(1);
}

static void send_test_sgi(int cpu)
{
	gic_send_sgi(cpu, TEST_SGI);
}

static void check_gic(u64 expected)
{
	if (expected)
		report(gic_version() == (int)expected, "GIC version %d matches gic=%llu",
		       gic_version(), expected);
	if (!gic_version()) {
		report_skip("SGIs: no GIC");
		return;
	}
	install_irq_handler(TEST_SGI, count_irq);
	report(irq_to_every_cpu(send_test_sgi) == cpu_count(),
	       "SGI %d sent to each CPU arrived on %d of %d", TEST_SGI,
	       count_cpus_with(1), cpu_count());
	install_irq_handler(TEST_SGI, NULL);
}

/* --- timers --------------------------------------------------------------- */

enum arm_by { ARM_BY_TVAL, ARM_BY_CVAL };
static const struct timer_case {
	const char *name;
	enum timer_kind kind;
	enum arm_by by;
} timer_cases[] = {
	{ "virtual timer, TVAL", TIMER_VIRT, ARM_BY_TVAL },
	{ "virtual timer, CVAL", TIMER_VIRT, ARM_BY_CVAL },
	{ "physical timer, TVAL", TIMER_PHYS, ARM_BY_TVAL },
	{ "physical timer, CVAL", TIMER_PHYS, ARM_BY_CVAL },
};
static const struct timer_case *timer_case;
static u64 timer_start[NR_CPUS], timer_seen[NR_CPUS];
static u32 timer_early[NR_CPUS];

static void timer_irq_handler(struct pt_regs *regs, unsigned irq)
{
	int self = smp_id();

	timer_seen[self] = timer_count(timer_case->kind);
	/* The line is level: off before EOI, or it fires again at once. */
	timer_stop(timer_case->kind);
	timer_early[self] = timer_seen[self] - timer_start[self] < timer_ns_to_ticks(TIMER_PERIOD_NS);
	atomic_inc(&per_cpu_hits[self]);
}

static void run_timer(void *arg)
{
	const struct timer_case *c = timer_case;
	u64 ticks = timer_ns_to_ticks(TIMER_PERIOD_NS);
	int self = smp_id();

	gic_enable_irq(timer_irq(c->kind));
	timer_start[self] = timer_count(c->kind);
	if (c->by == ARM_BY_TVAL)
		timer_set_tval(c->kind, (s32)ticks);
	else
		timer_set_cval(c->kind, timer_start[self] + ticks);
	irq_enable();
	wait_at_least(&per_cpu_hits[self], 1, IRQ_TIMEOUT_MS);
	irq_disable();
	timer_stop(c->kind);
	gic_disable_irq(timer_irq(c->kind));
}

static void check_timers(void)
{
	const struct timer_case *c;
	int cpu, early;

	report_info("counter frequency %llu Hz", timer_freq());
	if (!gic_version() || !timer_freq()) {
		report_skip("timers: no GIC or no counter frequency");
		return;
	}
	for (c = timer_cases; c < timer_cases + ARRAY_SIZE(timer_cases); c++) {
		if (!timer_irq(c->kind)) {
			report_skip("%s: no interrupt for it in the device tree", c->name);
			continue;
		}
		timer_case = c;
		memset(per_cpu_hits, 0, sizeof(per_cpu_hits));
		memset(timer_early, 0, sizeof(timer_early));
		install_irq_handler(timer_irq(c->kind), timer_irq_handler);
		on_cpus(run_timer, NULL);
		install_irq_handler(timer_irq(c->kind), NULL);
		for (cpu = 0, early = 0; cpu < cpu_count(); cpu++)
			early += timer_early[cpu];
		report(count_cpus_with(1) == cpu_count() && !early,
		       "%s (PPI %u): 10 ms fired on %d of %d CPUs, %d early", c->name,
		       timer_irq(c->kind), count_cpus_with(1), cpu_count(), early);
	}
}

/* --- ITS ------------------------------------------------------------------ */

static struct its_device *its_dev;

static void send_lpi(int cpu)
{
	its_int(its_dev, (u32)cpu);
}

static void check_lpi_irq(struct pt_regs *regs, unsigned irq)
{
	if (irq == GIC_FIRST_LPI + (unsigned)smp_id())
		atomic_inc(&per_cpu_hits[smp_id()]);
}

static void check_its(void)
{
	int cpu;

	if (gic_version() != 3 || its_init()) {
		report_skip("LPIs: no GICv3 ITS (GIC version %d)", gic_version());
		return;
	}
	its_dev = its_map_device(TEST_DEVICE_ID, cpu_count());
	for (cpu = 0; cpu < cpu_count(); cpu++) {
		its_map_collection((u16)cpu, cpu);
		install_irq_handler(GIC_FIRST_LPI + cpu, check_lpi_irq);
		its_map_lpi(its_dev, (u32)cpu, GIC_FIRST_LPI + cpu, (u16)cpu);
	}
	report(irq_to_every_cpu(send_lpi) == cpu_count(),
	       "LPI from an ITS INT to each CPU's collection arrived on %d of %d",
	       count_cpus_with(1), cpu_count());
}

/* --- the runner's own checks ---------------------------------------------- */

static u64 expected_gic;

static const struct arg gic_args[] = {
	ARG_UINT("gic", &expected_gic, 2, 3, NULL, "the GIC version to expect"),
};

static void __noreturn power_off(void)
{
	psci_system_off();
	halt();
}

static void fault_insn(void)
{
	undefined_insn(NULL);
}

static void wait_for_interrupt(void)
{
	wfi();
}

static const struct selftest_arch arm_selftest = {
	.args = gic_args,
	.nargs = ARRAY_SIZE(gic_args),
	/* the tree's memory node is exactly -m */
	.mem_slack_pct = 0,
	.crash = power_off,
	.fault = fault_insn,
	.idle = wait_for_interrupt,
};

int main(int argc, char **argv)
{
	struct selftest_args args;

	selftest_begin(argc, argv, &arm_selftest, &args);
	selftest_check_argv(argc, argv);
	report_info("%d argument(s), running at EL%u", argc - 1, boot_el());
	selftest_check_cpu_count(&args);
	check_mpidrs();
	selftest_check_on_cpu();
	check_faults();
	selftest_check_64bit();
	selftest_check_memory(&arm_selftest, &args);
	check_gic(expected_gic);
	check_timers();
	check_its();
	return report_summary();
}
