/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the cpu-off-on engine: no offset view of the TSC to compare, and a fixed IPI for the restarted AP. */
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/cycle.h"

/* The IPI the restarted AP must take: a vector no library code owns. */
#define CPU_CYCLE_IPI_VECTOR	0xe8

static void ipi_handler(struct ex_regs *regs)
{
	cpu_cycle_irq_taken();
	apic_eoi();
}

static const char *irq_setup(void)
{
	handle_exception(CPU_CYCLE_IPI_VECTOR, ipi_handler);
	return NULL;
}

static void irq_send(int cpu)
{
	apic_send_ipi(cpu, CPU_CYCLE_IPI_VECTOR);
}

const struct cpu_cycle_arch cpu_cycle_arch_x86 = {
	.counter = "TSC",
	.irq_setup = irq_setup,
	.irq_send = irq_send,
	.irq_name = "IPI (vector 0xe8)",
};
