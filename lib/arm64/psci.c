/* SPDX-License-Identifier: GPL-2.0-only */
/* PSCI: the conduit and function ids from the device tree, and the calls start-up and exit need. */
#include "arm64/psci.h"
#include "arm64/setup.h"

static enum psci_conduit conduit;
static u32 fn_cpu_on = PSCI_0_2_FN64_CPU_ON;
static u32 fn_cpu_off = PSCI_0_2_FN_CPU_OFF;

enum psci_conduit psci_init(void)
{
	static const char *const compats[] = { "arm,psci-1.0", "arm,psci-0.2", "arm,psci" };
	const char *method;
	unsigned i;
	int node = -1, len;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(compats) && node < 0; i++)
		node = dt_find_compatible(&boot_dt, -1, compats[i]);
	if (node < 0)
		return conduit = PSCI_CONDUIT_NONE;
	method = dt_getprop(&boot_dt, node, "method", &len);
	if (method && len == 4 && !memcmp(method, "hvc", 4))
		conduit = PSCI_CONDUIT_HVC;
	else if (method && len == 4 && !memcmp(method, "smc", 4))
		conduit = PSCI_CONDUIT_SMC;
	/* PSCI 0.1 has no standard ids: the node gives them. */
	if (i == ARRAY_SIZE(compats) && !dt_read_u32(&boot_dt, node, "cpu_on", &id))
		fn_cpu_on = id;
	if (i == ARRAY_SIZE(compats) && !dt_read_u32(&boot_dt, node, "cpu_off", &id))
		fn_cpu_off = id;
	return conduit;
}

enum psci_conduit psci_conduit(void)
{
	return conduit;
}

long psci_call(u32 fn, u64 arg0, u64 arg1, u64 arg2)
{
	register u64 x0 asm("x0") = fn;
	register u64 x1 asm("x1") = arg0;
	register u64 x2 asm("x2") = arg1;
	register u64 x3 asm("x3") = arg2;

	/* SMCCC 1.0 lets the callee change x4-x17 as well. */
	if (conduit == PSCI_CONDUIT_HVC)
		asm volatile("hvc #0"
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			     :
			     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
			       "x13", "x14", "x15", "x16", "x17", "memory");
	else if (conduit == PSCI_CONDUIT_SMC)
		asm volatile("smc #0"
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			     :
			     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
			       "x13", "x14", "x15", "x16", "x17", "memory");
	else
		return PSCI_RET_NOT_SUPPORTED;
	return (long)x0;
}

int psci_cpu_on(u64 mpidr, u64 entry, u64 context)
{
	return (int)psci_call(fn_cpu_on, mpidr, entry, context);
}

int psci_cpu_off(void)
{
	return (int)psci_call(fn_cpu_off, 0, 0, 0);
}

/* Lowest affinity level: the one CPU mpidr names. */
#define PSCI_AFFINITY_LEVEL_0	0

int psci_affinity_info(u64 mpidr)
{
	return (int)psci_call(PSCI_0_2_FN64_AFFINITY_INFO, mpidr, PSCI_AFFINITY_LEVEL_0, 0);
}

void psci_system_off(void)
{
	psci_call(PSCI_0_2_FN_SYSTEM_OFF, 0, 0, 0);
}
