/* SPDX-License-Identifier: GPL-2.0-only */
/* SMP: secondaries started with PSCI CPU_ON, idling until on_cpu() hands them work, and turned off and on again. */
#include "libc.h"
#include "irq.h"
#include "alloc.h"
#include "arch.h"
#include "atomic.h"
#include "wait.h"
#include "arm64/gic.h"
#include "arm64/psci.h"
#include "arm64/setup.h"
#include "arm64/smp.h"
#include "arm64/sysreg.h"

/* A CPU that does not come up (or, asked to, go down) within this long is a failure. */
#define CPU_ON_TIMEOUT_S	10
#define CPU_OFF_TIMEOUT_S	10

struct cpu_slot {
	void (*fn)(void *);
	void *arg;
	u32 busy;	/* set by the caller, cleared by the CPU when fn returns */
	u32 online;
	u64 mpidr;
};

static struct cpu_slot slots[NR_CPUS];
static int nr_cpus = 1;
uintptr_t secondary_stacks[NR_CPUS];

int smp_id(void)
{
	return (int)read_sysreg(tpidr_el1);
}

int cpu_count(void)
{
	return nr_cpus;
}

void cpu_relax(void)
{
	asm volatile("yield" ::: "memory");
}

u64 cpu_mpidr(int cpu)
{
	return cpu >= 0 && cpu < nr_cpus ? slots[cpu].mpidr : (u64)-1;
}

int mpidr_to_cpu(u64 mpidr)
{
	int i;

	for (i = 0; i < nr_cpus; i++)
		if (slots[i].mpidr == (mpidr & MPIDR_HWID_MASK))
			return i;
	return -1;
}

/*
 * The slot's busy flag as wanted (struct busy_wait), else a WFE: every
 * store to busy is followed by sev, so the WFE cannot miss it.
 */
struct busy_wait {
	struct cpu_slot *slot;
	u32 busy;
};

static bool busy_is_else_wfe(void *arg)
{
	const struct busy_wait *w = arg;

	if (atomic_load(&w->slot->busy) == w->busy)
		return true;
	wfe();
	return false;
}

static void idle_loop(struct cpu_slot *slot) __noreturn;
static void idle_loop(struct cpu_slot *slot)
{
	for (;;) {
		wait_cond(busy_is_else_wfe, &(struct busy_wait){slot, 1});
		slot->fn(slot->arg);
		atomic_store(&slot->busy, 0);
		dsb(ish);
		sev();
	}
}

void secondary_main(int cpu)
{
	gic_cpu_init();
	atomic_store(&slots[cpu].online, 1);
	dsb(ish);
	sev();
	idle_loop(&slots[cpu]);
}

static void check_cpu(int cpu)
{
	if (cpu < 0 || cpu >= nr_cpus) {
		printf("FAIL: on_cpu: no cpu %d (cpu_count() = %d)\n", cpu, nr_cpus);
		abort();
	}
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	struct cpu_slot *slot = &slots[cpu];

	check_cpu(cpu);
	if (cpu == smp_id()) {
		printf("FAIL: on_cpu_async on the calling cpu %d would deadlock\n", cpu);
		abort();
	}
	on_cpu_wait(cpu);
	slot->fn = fn;
	slot->arg = arg;
	atomic_store(&slot->busy, 1);
	dsb(ish);
	sev();
}

void on_cpu_wait(int cpu)
{
	check_cpu(cpu);
	wait_cond(busy_is_else_wfe, &(struct busy_wait){&slots[cpu], 0});
}

/* cpu_spin_irqs_on(): per CPU, "IRQs are unmasked" and "stop spinning". */
static bool spin_ready[NR_CPUS], spin_stop[NR_CPUS];

static bool flag_set(void *flag)
{
	return atomic_load((bool *)flag);
}

/* Both waits have no deadline: the spin lasts as long as its caller wants it. */
static void spin_irqs_on(void *arg)
{
	int self = smp_id();

	irq_enable();
	atomic_store(&spin_ready[self], true);
	wait_cond(flag_set, &spin_stop[self]);
	irq_disable();
}

void cpu_spin_irqs_on(int cpu)
{
	check_cpu(cpu);
	atomic_store(&spin_ready[cpu], false);
	atomic_store(&spin_stop[cpu], false);
	on_cpu_async(cpu, spin_irqs_on, NULL);
	wait_cond(flag_set, &spin_ready[cpu]);
}

void cpu_spin_stop(int cpu)
{
	check_cpu(cpu);
	atomic_store(&spin_stop[cpu], true);
	on_cpu_wait(cpu);
}

/* Why the last start or restart failed: smp_cpu_restart()'s answer. */
static char start_error[128];

static bool slot_online(void *slot)
{
	return atomic_load(&((struct cpu_slot *)slot)->online);
}

/* PSCI CPU_ON at secondary_entry on the CPU's own stack; NULL once it is online, else why not. */
static const char *start_cpu(int cpu)
{
	int ret;

	/* A restart reuses the stack: nothing on it outlives the CPU's last run. */
	if (!secondary_stacks[cpu])
		secondary_stacks[cpu] = (uintptr_t)memalign(16, STACK_SIZE) + STACK_SIZE;
	/* The CPU reads these with its MMU (and cache) still off. */
	dcache_clean_range(&secondary_stacks[cpu], sizeof(secondary_stacks[cpu]));
	dcache_clean_range(&mmu_ttbr0, sizeof(mmu_ttbr0));
	ret = psci_cpu_on(slots[cpu].mpidr, (u64)secondary_entry, (u64)cpu);
	if (ret != PSCI_RET_SUCCESS) {
		snprintf(start_error, sizeof(start_error),
			 "PSCI CPU_ON of cpu %d (mpidr 0x%llx) returned %d", cpu, slots[cpu].mpidr, ret);
		return start_error;
	}
	if (!wait_cond_ticks(slot_online, &slots[cpu], CPU_ON_TIMEOUT_S * arch_counter_hz())) {
		snprintf(start_error, sizeof(start_error),
			 "cpu %d (mpidr 0x%llx) did not come up within %d s", cpu, slots[cpu].mpidr,
			 CPU_ON_TIMEOUT_S);
		return start_error;
	}
	return NULL;
}

void smp_cpu_off(void)
{
	int self = smp_id();
	int ret;

	if (self == 0) {
		printf("FAIL: smp_cpu_off on the boot CPU: nothing could turn it on again\n");
		abort();
	}
	irq_disable();
	/* The call that brought us here ends here: the caller's on_cpu_wait() returns. */
	atomic_store(&slots[self].online, 0);
	atomic_store(&slots[self].busy, 0);
	dsb(ish);
	sev();
	ret = psci_cpu_off();
	printf("FAIL: PSCI CPU_OFF on cpu %d returned %d\n", self, ret);
	abort();
}

/* wait_cpu_off()'s wait: a CPU past its CPU_OFF, and AFFINITY_INFO's answer. */
struct off_wait {
	int cpu;
	int state;
};

/* Ends the wait on OFF or on an error (below 0); ON_PENDING and ON wait on. */
static bool cpu_off_or_error(void *arg)
{
	struct off_wait *w = arg;

	if (atomic_load(&slots[w->cpu].online))
		return false;
	w->state = psci_affinity_info(slots[w->cpu].mpidr);
	return w->state == PSCI_0_2_AFFINITY_LEVEL_OFF || w->state < 0;
}

/*
 * PSCI says the CPU is off some time after its CPU_OFF call (until then
 * CPU_ON answers ALREADY_ON): wait for AFFINITY_INFO to say OFF.
 */
static const char *wait_cpu_off(int cpu)
{
	struct off_wait w = {cpu, PSCI_0_2_AFFINITY_LEVEL_ON};

	if (!wait_cond_ticks(cpu_off_or_error, &w, CPU_OFF_TIMEOUT_S * arch_counter_hz())) {
		snprintf(start_error, sizeof(start_error), "cpu %d did not turn off within %d s",
			 cpu, CPU_OFF_TIMEOUT_S);
		return start_error;
	}
	if (w.state < 0) {
		snprintf(start_error, sizeof(start_error),
			 "PSCI AFFINITY_INFO of cpu %d returned %d", cpu, w.state);
		return start_error;
	}
	return NULL;
}

const char *smp_cpu_restart(int cpu)
{
	const char *why;

	check_cpu(cpu);
	if (cpu == 0 || cpu == smp_id()) {
		snprintf(start_error, sizeof(start_error),
			 "smp_cpu_restart(%d) from cpu %d: not a secondary another CPU can restart",
			 cpu, smp_id());
		return start_error;
	}
	why = wait_cpu_off(cpu);
	return why ? why : start_cpu(cpu);
}

/* Dense ids: the boot CPU is 0, the others follow in device-tree order. */
void smp_init(void)
{
	u64 ids[NR_CPUS], self = read_sysreg(mpidr_el1) & MPIDR_HWID_MASK;
	int n = dt_cpus(&boot_dt, ids, NR_CPUS), i, cpu = 1;

	slots[0].mpidr = self;
	slots[0].online = 1;
	if (n > NR_CPUS) {
		printf("INFO: %d CPUs in the device tree, using the first %d\n", n, NR_CPUS);
		n = NR_CPUS;
	}
	if (n > 1 && psci_conduit() == PSCI_CONDUIT_NONE) {
		printf("INFO: no PSCI in the device tree: running on the boot CPU only\n");
		n = 1;
	}
	for (i = 0; i < n; i++)
		if (ids[i] != self && cpu < NR_CPUS)
			slots[cpu++].mpidr = ids[i];
	nr_cpus = cpu;
	for (cpu = 1; cpu < nr_cpus; cpu++) {
		const char *why = start_cpu(cpu);

		if (why) {
			printf("FAIL: %s\n", why);
			abort();
		}
	}
}
