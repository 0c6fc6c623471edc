/* SPDX-License-Identifier: GPL-2.0-only */
/* The pvclock ABI (per-vCPU time info and wall clock) and its exact TSC-to-nanoseconds arithmetic, arch-neutral. */
#ifndef VMTICK_PVCLOCK_H
#define VMTICK_PVCLOCK_H

#include "libc.h"

/*
 * What the hypervisor keeps up to date for one vCPU. Its writer makes
 * version odd before an update and even again after it: a reader copies
 * the fields between two reads of the same even version.
 */
struct pvclock_vcpu_time_info {
	u32 version;
	u32 pad0;
	u64 tsc_timestamp;	/* guest TSC when system_time was taken */
	u64 system_time;	/* ns since the guest booted, at tsc_timestamp */
	u32 tsc_to_system_mul;	/* ns per TSC cycle as a 0.32 fixed-point fraction, after the shift */
	s8 tsc_shift;		/* delta << shift (or >> -shift) before the multiply */
	u8 flags;		/* PVCLOCK_* */
	u8 pad[2];
};

/* The host's time of day when the guest's system_time was 0 (written once per MSR write). */
struct pvclock_wall_clock {
	u32 version;
	u32 sec;
	u32 nsec;
};

/* Natural alignment gives the ABI layout on i386 and x86_64 alike (and no packed-member pointers). */
static_assert(sizeof(struct pvclock_vcpu_time_info) == 32, "pvclock_vcpu_time_info is 32 bytes");
static_assert(offsetof(struct pvclock_vcpu_time_info, tsc_timestamp) == 8, "ABI offset");
static_assert(offsetof(struct pvclock_vcpu_time_info, system_time) == 16, "ABI offset");
static_assert(offsetof(struct pvclock_vcpu_time_info, tsc_to_system_mul) == 24, "ABI offset");
static_assert(offsetof(struct pvclock_vcpu_time_info, tsc_shift) == 28, "ABI offset");
static_assert(offsetof(struct pvclock_vcpu_time_info, flags) == 29, "ABI offset");
static_assert(sizeof(struct pvclock_wall_clock) == 12, "pvclock_wall_clock is 12 bytes");

/* The host guarantees system_time + scaled TSC delta is the same on every vCPU. */
#define PVCLOCK_TSC_STABLE_BIT	(1u << 0)
/* The host paused the guest (set by KVM for the guest's watchdogs). */
#define PVCLOCK_GUEST_STOPPED	(1u << 1)

/*
 * delta TSC cycles in ns: shifted by tsc_shift, then multiplied by mul / 2^32.
 * The 64x32-bit product is taken exactly (lib/mul64.h, no 128-bit type
 * on i386); the result keeps the low 64 bits of the exact value, as the
 * hypervisor's own arithmetic does.
 */
u64 pvclock_scale_delta(u64 delta, u32 mul, s8 shift);

/* The TSC frequency mul and shift stand for, in kHz (0 for a multiplier of 0 or a shift beyond +-63). */
u64 pvclock_tsc_khz(u32 mul, s8 shift);

/* The clock value at TSC value tsc, from a consistent copy of the time info. */
u64 pvclock_time_at(const struct pvclock_vcpu_time_info *ti, u64 tsc);

/* Time of day in ns since the epoch: the wall clock (boot time) plus system time now. */
u64 pvclock_wall_ns(const struct pvclock_wall_clock *wc, u64 system_ns);

/*
 * The version protocol, reader side: the host makes version odd, updates
 * the fields, makes it even again. *copy gets the fields as they were
 * between two reads of one even version, and counter() (the TSC, with
 * fences: never older than the tsc_timestamp copied) is read inside that
 * window too. Returns the clock at that counter value.
 * Test-only build flag: -DPVCLOCK_FAULT_NO_RECHECK drops the second
 * version read (a torn copy is then accepted; host-tests/test_pvclock_protocol.c
 * must fail).
 */
u64 pvclock_read(const struct pvclock_vcpu_time_info *ti, u64 (*counter)(void),
		 struct pvclock_vcpu_time_info *copy);
/* The same protocol for the wall clock: a consistent copy of *wc. */
void pvclock_read_wall(const struct pvclock_wall_clock *wc, struct pvclock_wall_clock *copy);

/* The shared last value: 8-byte aligned, as i386's cmpxchg8b wants it atomic. */
typedef u64 pvclock_last_t __attribute__((aligned(8)));

/*
 * The clamp that makes a clock monotonic across vCPUs whose raw clocks
 * disagree: returns max(now, the largest value any caller got from
 * *last), updating *last with compare-and-swap so no concurrent caller's
 * larger value is lost. Test-only build flag: -DPVCLOCK_FAULT_NO_CMPXCHG
 * makes it a plain load and store (a lost update; the host test must
 * fail).
 */
u64 pvclock_clamp(pvclock_last_t *last, u64 now);
/* An atomic load of *last (a locked cmpxchg8b on i386), and setting it back to 0. */
u64 pvclock_last_load(pvclock_last_t *last);
void pvclock_last_reset(pvclock_last_t *last);

#endif
