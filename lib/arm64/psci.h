/* SPDX-License-Identifier: GPL-2.0-only */
/* PSCI calls (CPU_ON, SYSTEM_OFF, ...) through the conduit the device tree names. */
#ifndef VMTICK_ARM64_PSCI_H
#define VMTICK_ARM64_PSCI_H

#include "libc.h"

#define PSCI_0_2_FN_PSCI_VERSION	0x84000000
#define PSCI_0_2_FN_CPU_OFF		0x84000002
#define PSCI_0_2_FN64_CPU_ON		0xc4000003
#define PSCI_0_2_FN64_AFFINITY_INFO	0xc4000004
#define PSCI_0_2_FN_SYSTEM_OFF		0x84000008
#define PSCI_0_2_FN_SYSTEM_RESET	0x84000009
#define PSCI_1_0_FN_PSCI_FEATURES	0x8400000a

#define PSCI_RET_SUCCESS		0
#define PSCI_RET_NOT_SUPPORTED		(-1)
#define PSCI_RET_INVALID_PARAMS		(-2)
#define PSCI_RET_DENIED			(-3)
#define PSCI_RET_ALREADY_ON		(-4)

/* AFFINITY_INFO's answers: the state of the CPU asked about. */
#define PSCI_0_2_AFFINITY_LEVEL_ON		0
#define PSCI_0_2_AFFINITY_LEVEL_OFF		1
#define PSCI_0_2_AFFINITY_LEVEL_ON_PENDING	2

enum psci_conduit {
	PSCI_CONDUIT_NONE,
	PSCI_CONDUIT_HVC,
	PSCI_CONDUIT_SMC,
};

/* Reads the /psci node; returns the conduit (NONE: no PSCI, one CPU, halt to exit). */
enum psci_conduit psci_init(void);
enum psci_conduit psci_conduit(void);
/* An SMCCC call through the conduit: fn in w0, args in x1-x3, result from x0. */
long psci_call(u32 fn, u64 arg0, u64 arg1, u64 arg2);
int psci_cpu_on(u64 mpidr, u64 entry, u64 context);
/* The calling CPU powers itself down; returns only when refused (the PSCI error). */
int psci_cpu_off(void);
/* ON, OFF or ON_PENDING (PSCI_0_2_AFFINITY_LEVEL_*) of the CPU mpidr, or a PSCI error. */
int psci_affinity_info(u64 mpidr);
void psci_system_off(void);

#endif
