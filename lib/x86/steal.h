/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM steal time: how long the host kept each vCPU from running while it was runnable. */
#ifndef VMTICK_X86_STEAL_H
#define VMTICK_X86_STEAL_H

#include "arch.h"

/* KVM's feature leaf (kvm_cpuid_base() + 1), EAX bit 5: MSR_KVM_STEAL_TIME works. */
#define KVM_FEATURE_STEAL_TIME 5
#define MSR_KVM_STEAL_TIME     0x4b564d03
/* Bit 0 of the MSR value: the 64-byte aligned area at the address above it is live. */
#define KVM_MSR_ENABLED (1u << 0)

/* steal_init() and steal_ns() are arch hooks (lib/arch.h): steal.c registers one area per vCPU. */

#endif
