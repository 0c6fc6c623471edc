/* SPDX-License-Identifier: GPL-2.0-only */
/* SMC Calling Convention calls beyond PSCI: a bare HVC to time, and which hypervisor answers. */
#ifndef VMTICK_ARM64_SMCCC_H
#define VMTICK_ARM64_SMCCC_H

#include "libc.h"

/* Vendor-specific hypervisor service: the UID query, and KVM's UID, first word (w0). */
#define SMCCC_VENDOR_HYP_CALL_UID	0x8600ff01
#define SMCCC_KVM_UID_W0		0xb66fb428

/*
 * HVC #0 with function fn and no arguments, inline and with no conduit
 * check (psci_call() has both): the cheapest hypervisor call, for timing.
 * Returns x0. HVC may be undefined (no EL2, and no PSCI emulation behind
 * it): smccc_try_hvc0() first.
 */
static inline long smccc_hvc0(u32 fn)
{
	register u64 x0 asm("x0") = fn;

	/* SMCCC: the callee may change x1-x17 */
	asm volatile("hvc #0"
		     : "+r"(x0)
		     :
		     : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
		       "x13", "x14", "x15", "x16", "x17", "memory");
	return (long)x0;
}

/* smccc_hvc0() where HVC may be undefined: false if it was, else x0 in *ret. */
bool smccc_try_hvc0(u32 fn, long *ret);

/*
 * Is KVM the hypervisor? KVM answers the vendor hypervisor UID query with
 * its UID; QEMU's TCG PSCI with NOT_SUPPORTED. false without a PSCI conduit,
 * or where the call itself is undefined.
 */
bool smccc_hyp_is_kvm(void);

#endif
