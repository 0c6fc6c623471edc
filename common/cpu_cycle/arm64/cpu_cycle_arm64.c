/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the cpu-off-on engine: CNTPCT, of which CNTVCT is the offset view, and an SGI for the restarted CPU. */
#include "arm64/gic.h"
#include "arm64/timer.h"
#include "arm64/cycle.h"

/* The SGI the restarted CPU must take: one no library code owns. */
#define CPU_CYCLE_SGI		3

static void sgi_handler(struct pt_regs *regs, unsigned irq)
{
	cpu_cycle_irq_taken();
}

static const char *irq_setup(void)
{
	if (!gic_version())
		return "no GIC in the device tree: no SGI to send";
	install_irq_handler(CPU_CYCLE_SGI, sgi_handler);
	return NULL;
}

static void irq_send(int cpu)
{
	gic_send_sgi(cpu, CPU_CYCLE_SGI);
}

/* CNTPCT_EL0: readable at EL1 where EL2 lets it (CNTHCTL_EL2.EL1PCTEN; start-up sets it, KVM and QEMU do). */
static u64 phys_read(void)
{
	return timer_count(TIMER_PHYS);
}

const struct cpu_cycle_arch cpu_cycle_arch_arm64 = {
	.counter = "CNTVCT",
	.phys_read = phys_read,
	.phys_counter = "CNTPCT",
	.irq_setup = irq_setup,
	.irq_send = irq_send,
	.irq_name = "SGI 3",
};
