/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC as the arch counter, and its frequency: from the hypervisor's timing leaf, kvmclock or the PIT. */
#include "arch.h"
#include "x86/io.h"
#include "x86/kvmclock.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "x86/tsc.h"
#include "units.h"

/* Hypervisor timing leaf (KVM, VMware): EAX = TSC frequency in kHz. */
#define CPUID_HV_TIMING_LEAF	0x40000010
/* Time Stamp Counter and Nominal Core Crystal Clock leaf: TSC = ECX Hz * EBX / EAX. */
#define CPUID_TSC_CRYSTAL_LEAF	0x15
#define CALIBRATE_MS		25
#define CALIBRATE_RUNS		16
#define CALIBRATE_NARROW_PPM	1000
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

/*
 * One measurement of TSC cycles while PIT channel 2 counts down about
 * CALIBRATE_MS: from the read right after the write that starts it (QEMU
 * starts mode 0's count at the count's last byte, one write before) to the
 * middle of the bracket the channel ran out in: after the read that
 * followed the last poll that saw it counting, before the read that
 * followed the poll that saw it done. A delay (a VM exit, a descheduled
 * vCPU) at either end widens that end's bracket, whichever way it would
 * have moved the figure.
 */
struct pit_measure {
	u64 cycles; /* for PIT_CAL_COUNTS counts */
	u64 width;  /* the two brackets' widths summed */
};

#define PIT_CAL_COUNTS (PIT_HZ * CALIBRATE_MS / 1000)

static bool tsc_pit_measure(struct pit_measure *m)
{
	u64 a0, a1, b0, b1;
	bool done;

	a0 = rdtsc_ordered();
	pit_ch2_oneshot(PIT_CAL_COUNTS);
	a1 = b1 = rdtsc_ordered();
	do {
		b0 = b1;
		done = pit_ch2_done();
		b1 = rdtsc_ordered();
		if (b1 - a1 > PIT_WAIT_CYCLES) {
			pit_ch2_stop();
			return false;
		}
	} while (!done);
	pit_ch2_stop();
	m->cycles = b0 + (b1 - b0) / 2 - a1;
	m->width = (a1 - a0) + (b1 - b0);
	return true;
}

/*
 * Measurements until one's brackets are narrow (under CALIBRATE_NARROW_PPM
 * of it), at most CALIBRATE_RUNS, the narrowest kept: under a busy host
 * one unbracketed run was seen 20% high, and (a delay between arming the
 * channel and the first read) 24% low; under plain TCG beside two busy
 * loops the narrowest of 3 was still up to 12% off. On an idle TCG host a
 * bracket is about 220 ppm of the measurement (the first run's, its code
 * not yet translated, about 2300 ppm). The count is a whole number of PIT
 * clocks: the frequency is taken from it, not from CALIBRATE_MS.
 */
static u64 tsc_hz_from_pit_best(void)
{
	struct pit_measure m, best = { 0, 0 };

	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		if (!tsc_pit_measure(&m))
			continue;
		if (!best.cycles || m.width < best.width)
			best = m;
		if (best.width * PPM_PER_UNIT < best.cycles * CALIBRATE_NARROW_PPM)
			break;
	}
	return best.cycles * PIT_HZ / PIT_CAL_COUNTS;
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
