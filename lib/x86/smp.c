/* SPDX-License-Identifier: GPL-2.0-only */
/* SMP: bring up every AP with INIT-SIPI-SIPI, per-CPU data, and on_cpu()/on_cpus() over wake-up IPIs. */
#include "arch.h"
#include "alloc.h"
#include "x86/apic.h"
#include "atomic.h"
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

/* How long the boot CPU waits for the APs, in TSC cycles (several seconds at any clock). */
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

/* An AP waits halted for work; the wake-up IPI ends the hlt. */
static void __noreturn ap_idle(struct percpu *me)
{
	for (;;) {
		void (*fn)(void *);

		irq_disable();
		fn = atomic_load(&me->call_fn);
		if (!fn) {
			safe_halt();
			continue;
		}
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

void smp_init(void)
{
	u64 start;
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
	memcpy((void *)TRAMPOLINE_ADDR, trampoline_start, (size_t)(trampoline_end - trampoline_start));
	smp_mb();

	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_INIT | APIC_ICR_LEVEL_ASSERT, 0);
	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, 0);
	apic_icr_write(APIC_DEST_ALL_BUT_SELF | APIC_ICR_STARTUP | TRAMPOLINE_SIPI_VECTOR, 0);

	start = rdtsc();
	while (atomic_load(&cpus_online) < (u32)n) {
		if (rdtsc() - start > AP_WAIT_CYCLES) {
			printf("FAIL: only %u of %d vCPUs came up\n", atomic_load(&cpus_online), n);
			arch_exit(1);
		}
		pause();
	}
	ncpus = n;
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	struct percpu *p = cpu_data(cpu);

	assert(cpu != 0 && cpu != smp_id());
	/* wait until the target has finished its previous call */
	while (atomic_load(&p->call_fn))
		pause();
	p->call_arg = arg;
	atomic_store(&p->call_done, 0);
	atomic_store(&p->call_fn, fn);
	apic_send_ipi(cpu, IPI_WAKE_VECTOR);
}

void on_cpu_wait(int cpu)
{
	struct percpu *p = cpu_data(cpu);

	while (!atomic_load(&p->call_done))
		pause();
}
