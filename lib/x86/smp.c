/* SPDX-License-Identifier: GPL-2.0-only */
/* SMP: bring up every AP with INIT-SIPI-SIPI (and one again later), per-CPU data, and on_cpu() over wake-up IPIs. */
#include "arch.h"
#include "alloc.h"
#include "x86/apic.h"
#include "atomic.h"
#include "wait.h"
#include "x86/desc.h"
#include "x86/fwcfg.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "x86/smp.h"

/* Shared with the start-up assembly. */
u32 ap_next_id = 1;
u32 ap_limit;
uintptr_t ap_stack_tops[MAX_CPUS];

extern char trampoline_start[], trampoline_end[];

static struct percpu *cpus[MAX_CPUS];
static int ncpus = 1;
static u32 cpus_online = 1;
/* Set by an AP as it parks in smp_cpu_off(), cleared by ap_main() when it is up again. */
static u32 cpu_parked[MAX_CPUS];

/*
 * How long the boot CPU waits for an AP, in counter ticks (TSC cycles:
 * several seconds at any clock). A count, not a time: smp_init() runs
 * before anything has calibrated the TSC.
 */
#define AP_WAIT_CYCLES (20ull * 1000 * 1000 * 1000)

int smp_id(void)
{
	return (int)this_cpu()->id;
}

int cpu_count(void)
{
	return ncpus;
}

struct percpu *cpu_data(int id)
{
	assert(id >= 0 && id < ncpus);
	return cpus[id];
}

void cpu_relax(void)
{
	pause();
}

static void wake_handler(struct ex_regs *regs)
{
	apic_eoi();
}

/*
 * A call for this AP, with interrupts off from the look to the hlt, else a
 * halt: the wake-up IPI (or one pending since the look) ends it.
 */
static bool call_else_halt(void *arg)
{
	struct percpu *me = arg;

	irq_disable();
	if (atomic_load(&me->call_fn))
		return true;
	safe_halt();
	return false;
}

/* An AP waits halted for work. */
static void __noreturn ap_idle(struct percpu *me)
{
	for (;;) {
		void (*fn)(void *);

		wait_cond(call_else_halt, me);
		fn = atomic_load(&me->call_fn);
		fn(me->call_arg);
		/* done before fn: a sender waiting for fn == NULL then resets done */
		atomic_store(&me->call_done, 1);
		atomic_store(&me->call_fn, NULL);
	}
}

void ap_main(u32 id);
void ap_main(u32 id)
{
	struct percpu *me = this_cpu();

	load_idt();
	apic_enable();
	me->apic_id = apic_id();
	me->exc_vector = EXC_NONE;
	atomic_inc(&cpus_online);
	atomic_store(&cpu_parked[id], 0);
	ap_idle(me);
}

static int count_cpus(void)
{
	u64 n = fwcfg_read(FW_CFG_NB_CPUS, 2);

	if (!n) {
		printf("INFO: fw_cfg not found: running on the boot CPU only\n");
		return 1;
	}
	return (int)n;
}

static void copy_trampoline(void)
{
	memcpy((void *)TRAMPOLINE_ADDR, trampoline_start, (size_t)(trampoline_end - trampoline_start));
	smp_mb();
}

/* smp_init()'s wait: *(int *)n vCPUs online. */
static bool all_online(void *n)
{
	const int *want = n;

	return atomic_load(&cpus_online) >= (u32)*want;
}

void smp_init(void)
{
	int n = count_cpus();

	cpus[0] = this_cpu();
	cpus[0]->apic_id = apic_id();
	handle_exception(IPI_WAKE_VECTOR, wake_handler);
	if (n > MAX_CPUS) {
		printf("FAIL: started with %d vCPUs, but vmtick supports at most %d\n", n, MAX_CPUS);
		arch_exit(1);
	}
	if (n == 1)
		return;
	for (int i = 1; i < n; i++) {
		struct percpu *p = memalign(STACK_SIZE, STACK_SIZE);

		p->id = (u32)i;
		cpus[i] = p;
		ap_stack_tops[i] = (uintptr_t)p + STACK_SIZE;
	}
	ap_limit = (u32)n;
	copy_trampoline();

	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_INIT | APIC_ICR_LEVEL_ASSERT, 0);
	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, 0);
	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, 0);

	if (!wait_cond_ticks(all_online, &n, AP_WAIT_CYCLES)) {
		printf("FAIL: only %u of %d vCPUs came up\n", atomic_load(&cpus_online), n);
		arch_exit(1);
	}
	ncpus = n;
}

void smp_cpu_off(void)
{
	struct percpu *me = this_cpu();

	if (me->id == 0) {
		printf("FAIL: smp_cpu_off on the boot CPU: nothing could turn it on again\n");
		abort();
	}
	irq_disable();
	atomic_dec(&cpus_online);
	atomic_store(&cpu_parked[me->id], 1);
	/* The call that brought us here ends here: the caller's on_cpu_wait() returns. */
	atomic_store(&me->call_done, 1);
	atomic_store(&me->call_fn, NULL);
	/* Interrupts off: only an INIT (or an NMI) ends the hlt. */
	for (;;)
		asm volatile("hlt" ::: "memory");
}

/* Why the last restart failed: smp_cpu_restart()'s answer. */
static char restart_error[128];

struct park_wait {
	int cpu;
	u32 parked;
};

static bool park_state_is(void *arg)
{
	struct park_wait *w = arg;

	return atomic_load(&cpu_parked[w->cpu]) == w->parked;
}

/* Wait until cpu_parked[cpu] is parked (1) or not (0); false after AP_WAIT_CYCLES. */
static bool wait_parked(int cpu, u32 parked)
{
	struct park_wait w = {cpu, parked};

	return wait_cond_ticks(park_state_is, &w, AP_WAIT_CYCLES);
}

const char *smp_cpu_restart(int cpu)
{
	u32 apic = cpu_data(cpu)->apic_id;

	if (cpu == 0 || cpu == smp_id()) {
		snprintf(restart_error, sizeof(restart_error),
			 "smp_cpu_restart(%d) from cpu %d: not an AP another CPU can restart", cpu,
			 smp_id());
		return restart_error;
	}
	if (!wait_parked(cpu, 1)) {
		snprintf(restart_error, sizeof(restart_error),
			 "cpu %d did not park in smp_cpu_off()", cpu);
		return restart_error;
	}
	/* The start-up code hands out ids from ap_next_id below ap_limit: this one only. */
	ap_next_id = (u32)cpu;
	ap_limit = (u32)cpu + 1;
	copy_trampoline();
	apic_icr_write(APIC_ICR_INIT | APIC_ICR_LEVEL_ASSERT, apic);
	/* A second SIPI is ignored by an AP that already left wait-for-SIPI. */
	apic_icr_write(APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, apic);
	apic_icr_write(APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, apic);
	if (!wait_parked(cpu, 0)) {
		snprintf(restart_error, sizeof(restart_error),
			 "cpu %d (APIC ID %u) did not come up after INIT and SIPI", cpu, apic);
		return restart_error;
	}
	return NULL;
}

static bool call_taken_back(void *p)
{
	return !atomic_load(&((struct percpu *)p)->call_fn);
}

static bool call_done(void *p)
{
	return atomic_load(&((struct percpu *)p)->call_done);
}

/*
 * The two waits for a call have no deadline: the call is the caller's,
 * and a test's phase may run on a vCPU for as long as the test says.
 */
void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	struct percpu *p = cpu_data(cpu);

	assert(cpu != 0 && cpu != smp_id());
	/* wait until the target has finished its previous call */
	wait_cond(call_taken_back, p);
	p->call_arg = arg;
	atomic_store(&p->call_done, 0);
	atomic_store(&p->call_fn, fn);
	apic_send_ipi(cpu, IPI_WAKE_VECTOR);
}

void on_cpu_wait(int cpu)
{
	wait_cond(call_done, cpu_data(cpu));
}
