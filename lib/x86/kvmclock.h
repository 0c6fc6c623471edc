/* SPDX-License-Identifier: GPL-2.0-only */
/* kvmclock: KVM's paravirtual clock, one pvclock area per vCPU, read raw, stable-aware or forced-adjusted. */
#ifndef VMTICK_X86_KVMCLOCK_H
#define VMTICK_X86_KVMCLOCK_H

#include "libc.h"
#include "pvclock.h"

/* KVM's feature leaf, at kvm_cpuid_base() + 1: EAX bits. */
#define KVM_CPUID_FEATURES_OFFSET		1
#define KVM_FEATURE_CLOCKSOURCE			0	/* the legacy MSRs 0x11 and 0x12 */
#define KVM_FEATURE_CLOCKSOURCE2		3	/* MSR_KVM_WALL_CLOCK_NEW and MSR_KVM_SYSTEM_TIME_NEW */
#define KVM_FEATURE_CLOCKSOURCE_STABLE_BIT	24	/* PVCLOCK_TSC_STABLE_BIT in flags means what it says */

#define MSR_KVM_WALL_CLOCK_NEW		0x4b564d00
#define MSR_KVM_SYSTEM_TIME_NEW		0x4b564d01
/* Bit 0 of the system-time MSR value: the area at the (physical) address above it is live. */
#define KVM_SYSTEM_TIME_ENABLE		(1u << 0)

enum kvmclock_mode {
	/* system_time + scaled TSC delta of this vCPU's area, nothing more */
	KVMCLOCK_RAW,
	/* raw when the host sets PVCLOCK_TSC_STABLE_BIT, else forced-adjusted: what guests do */
	KVMCLOCK_STABLE_AWARE,
	/* raw, clamped with compare-and-swap against one value shared by all vCPUs: never goes back */
	KVMCLOCK_ADJUSTED,
};

/*
 * Why kvmclock cannot be used here (not KVM, no CLOCKSOURCE2), or NULL.
 * Reads CPUID only: call it before kvmclock_init().
 */
const char *kvmclock_unavailable(void);
/* EAX of KVM's feature leaf (0 when not on KVM). */
u32 kvmclock_kvm_features(void);
/* The host promises a stable clock: the CPUID bit and the flag in every vCPU's area. */
bool kvmclock_host_stable(void);

/*
 * Register one area per vCPU (each on its own cache line) on every vCPU.
 * Returns 0, or -1 after printing which vCPU's MSR write faulted.
 */
int kvmclock_init(void);
/* Unregister every vCPU's area: the host stops writing guest memory. */
void kvmclock_exit(void);

/* The clock on this vCPU, in ns since the guest booted. */
u64 kvmclock_read(enum kvmclock_mode mode);
u64 kvmclock_read_raw(void);
u64 kvmclock_read_stable_aware(void);
u64 kvmclock_read_adjusted(void);
/* Forget the shared last value (between test phases, on one vCPU while the others wait). */
void kvmclock_reset_last(void);

/* A consistent copy of this vCPU's time info. */
void kvmclock_snapshot(struct pvclock_vcpu_time_info *out);
/*
 * INFO lines: KVM's feature bits, every vCPU's flags, multiplier and
 * shift (vCPU 0 and those that differ), and whether the host promises a
 * stable clock - what a reader needs to tell why a host behaves as it does.
 */
void kvmclock_print_params(void);

/*
 * Whether PVCLOCK_GUEST_STOPPED was set in this vCPU's own area, clearing
 * it if so, as a guest's watchdog does. KVM sets it in a vCPU's area at
 * that vCPU's next clock update after the VMM's KVM_KVMCLOCK_CTRL for it
 * (QEMU's, as the VM runs again after a stop) and keeps it until the
 * guest clears it; the flag is per vCPU, so only the vCPU's own area
 * says whether it was stopped (KVM's documentation).
 */
bool kvmclock_take_guest_stopped(void);
/* Test-only: set it in this vCPU's area, as a host that sets it again (where it should not) would. */
void kvmclock_set_guest_stopped(void);

/*
 * Time of day on this vCPU in ns since the epoch: the wall clock MSR is
 * written for this vCPU's own copy, which is read with the version
 * protocol and added to this vCPU's raw clock.
 */
u64 kvmclock_wall_ns(void);
/* The same wall clock alone: the time of day at which this vCPU's clock read 0. */
u64 kvmclock_boot_wall_ns(void);
/*
 * The TSC frequency in Hz (1 kHz resolution) that KVM scales this vCPU's
 * clock with; 0 without kvmclock. Registers a scratch area for the moment
 * when kvmclock_init() has not run.
 */
u64 kvmclock_tsc_hz(void);

#endif
