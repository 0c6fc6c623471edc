/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM steal time: how long the host kept each vCPU from running while it was runnable. */
#ifndef VMTICK_X86_STEAL_H
#define VMTICK_X86_STEAL_H

#include "libc.h"

/* KVM's feature leaf (kvm_cpuid_base() + 1), EAX bit 5: MSR_KVM_STEAL_TIME works. */
#define KVM_FEATURE_STEAL_TIME 5
#define MSR_KVM_STEAL_TIME     0x4b564d03
/* Bit 0 of the MSR value: the 64-byte aligned area at the address above it is live. */
#define KVM_MSR_ENABLED (1u << 0)

/*
 * Register one steal-time area per vCPU, on every vCPU. Returns NULL, or
 * why steal time cannot be read here (not KVM, feature bit clear, the MSR
 * write faulted).
 */
const char *steal_init(void);
/*
 * This vCPU's steal time in ns since it registered (the area starts at 0):
 * time it was runnable but not running, as the host counts it (its
 * run-queue delay), updated each time the host enters the vCPU.
 */
u64 steal_ns(void);

#endif
