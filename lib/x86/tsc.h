/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC frequency as the CPU and the hypervisor state it in CPUID. */
#ifndef VMTICK_X86_TSC_H
#define VMTICK_X86_TSC_H

#include "libc.h"

/* CPUID 0x40000010 EAX (kHz) in Hz, or 0 when the hypervisor offers no such leaf. */
u64 tsc_hz_from_hv_leaf(void);
/* CPUID 0x15: crystal Hz (ECX) * EBX / EAX, or 0 when the leaf or its crystal is absent. */
u64 tsc_hz_from_crystal_leaf(void);

#endif
