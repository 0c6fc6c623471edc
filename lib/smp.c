/* SPDX-License-Identifier: GPL-2.0-only */
/* on_cpu() and on_cpus(), the same on every arch, on top of the arch's on_cpu_async()/on_cpu_wait(). */
#include "arch.h"

void on_cpu(int cpu, void (*fn)(void *), void *arg)
{
	if (cpu == smp_id()) {
		fn(arg);
		return;
	}
	on_cpu_async(cpu, fn, arg);
	on_cpu_wait(cpu);
}

void on_cpus(void (*fn)(void *), void *arg)
{
	int self = smp_id();

	/* start them all first, so they run at the same time as fn here */
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		if (cpu != self)
			on_cpu_async(cpu, fn, arg);
	fn(arg);
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		if (cpu != self)
			on_cpu_wait(cpu);
}
