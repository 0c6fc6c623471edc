/* SPDX-License-Identifier: GPL-2.0-only */
/* Which hypervisor runs us, from the hypervisor CPUID leaves. */
#ifndef VMTICK_X86_HYPERVISOR_H
#define VMTICK_X86_HYPERVISOR_H

#include "libc.h"

#define KVM_CPUID_SIGNATURE	"KVMKVMKVM\0\0\0"

/*
 * The 12-byte vendor signature at the hypervisor base leaf (NUL-terminated
 * copy in sig), or "" when the CPUID hypervisor bit is clear. Returns the
 * highest hypervisor leaf.
 */
u32 hypervisor_signature(char sig[13]);
/* The base leaf of KVM's CPUID range (0x40000000, or higher when another signature comes first), or 0. */
u32 kvm_cpuid_base(void);
static inline bool on_kvm(void)
{
	return kvm_cpuid_base() != 0;
}

#endif
