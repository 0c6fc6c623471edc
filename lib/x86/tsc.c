/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC as the arch counter, and its frequency: from the hypervisor's timing leaf, kvmclock or the PIT. */
#include "arch.h"
#include "x86/io.h"
#include "x86/kvmclock.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "x86/tsc.h"

/* Hypervisor timing leaf (KVM, VMware): EAX = TSC frequency in kHz. */
#define CPUID_HV_TIMING_LEAF	0x40000010
/* Time Stamp Counter and Nominal Core Crystal Clock leaf: TSC = ECX Hz * EBX / EAX. */
#define CPUID_TSC_CRYSTAL_LEAF	0x15
#define CALIBRATE_MS		10
#define CALIBRATE_RUNS		3
/* Give up on a PIT that never counts down (several seconds at any TSC rate). */
#define PIT_WAIT_CYCLES		(10ull * 1000 * 1000 * 1000)

u64 arch_counter(void)
{
	return rdtsc_ordered();
}

/* rdtsc_ordered() already fences on both sides. */
void arch_bench_fence(void)
{
	barrier();
}

u64 tsc_hz_from_hv_leaf(void)
{
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return 0;
	if (cpuid(CPUID_HYPERVISOR_BASE).a < CPUID_HV_TIMING_LEAF)
		return 0;
	return (u64)cpuid(CPUID_HV_TIMING_LEAF).a * 1000;
}

u64 tsc_hz_from_crystal_leaf(void)
{
	struct cpuid c;

	if (cpuid(0).a < CPUID_TSC_CRYSTAL_LEAF)
		return 0;
	c = cpuid(CPUID_TSC_CRYSTAL_LEAF);
	if (!c.a || !c.b || !c.c)
		return 0;
	return (u64)c.c * c.b / c.a;
}

/* Count TSC cycles while PIT channel 2 counts down CALIBRATE_MS. */
static u64 tsc_hz_from_pit(void)
{
	u64 t0, t1;

	pit_ch2_oneshot(PIT_HZ * CALIBRATE_MS / 1000);
	t0 = rdtsc_ordered();
	while (!pit_ch2_done()) {
		if (rdtsc() - t0 > PIT_WAIT_CYCLES) {
			pit_ch2_stop();
			return 0;
		}
	}
	t1 = rdtsc_ordered();
	pit_ch2_stop();
	return (t1 - t0) * 1000 / CALIBRATE_MS;
}

/*
 * A delay (a VM exit, a descheduled vCPU) only ever lengthens a PIT
 * measurement, so the shortest of a few is the closest: one run here was
 * seen 20% high.
 */
static u64 tsc_hz_from_pit_best(void)
{
	u64 best = 0;

	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		u64 hz = tsc_hz_from_pit();

		if (hz && (!best || hz < best))
			best = hz;
	}
	return best;
}

u64 arch_counter_hz(void)
{
	static u64 hz;

	if (!hz)
		hz = tsc_hz_from_hv_leaf();
	if (!hz)
		hz = kvmclock_tsc_hz();
	if (!hz)
		hz = tsc_hz_from_pit_best();
	return hz;
}
