/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC as the arch counter, and its frequency: from the hypervisor's timing leaf, kvmclock or the PIT. */
#include "arch.h"
#include "io.h"
#include "kvmclock.h"
#include "processor.h"

/* Hypervisor timing leaf (KVM, VMware): EAX = TSC frequency in kHz. */
#define CPUID_HV_TIMING_LEAF	0x40000010
#define PIT_HZ			1193182
#define PIT_CH2_DATA		0x42
#define PIT_MODE_CMD		0x43
#define PIT_CH2_GATE_PORT	0x61
#define PIT_GATE2		0x01
#define PIT_SPEAKER		0x02
#define PIT_OUT2		0x20
/* channel 2, lobyte/hibyte access, mode 0 (interrupt on terminal count), binary */
#define PIT_CMD_CH2_MODE0	0xb0
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

static u64 tsc_hz_from_cpuid(void)
{
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return 0;
	if (cpuid(CPUID_HYPERVISOR_BASE).a < CPUID_HV_TIMING_LEAF)
		return 0;
	return (u64)cpuid(CPUID_HV_TIMING_LEAF).a * 1000;
}

/* Count TSC cycles while PIT channel 2 counts down CALIBRATE_MS. */
static u64 tsc_hz_from_pit(void)
{
	u32 count = PIT_HZ * CALIBRATE_MS / 1000;
	u8 gate = inb(PIT_CH2_GATE_PORT);
	u64 t0, t1;

	outb((gate & ~PIT_SPEAKER) & ~PIT_GATE2, PIT_CH2_GATE_PORT);
	outb(PIT_CMD_CH2_MODE0, PIT_MODE_CMD);
	outb((u8)count, PIT_CH2_DATA);
	outb((u8)(count >> 8), PIT_CH2_DATA);
	t0 = rdtsc_ordered();
	outb((gate & ~PIT_SPEAKER) | PIT_GATE2, PIT_CH2_GATE_PORT);
	while (!(inb(PIT_CH2_GATE_PORT) & PIT_OUT2))
		if (rdtsc() - t0 > PIT_WAIT_CYCLES)
			return 0;
	t1 = rdtsc_ordered();
	outb(gate, PIT_CH2_GATE_PORT);
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
		hz = tsc_hz_from_cpuid();
	if (!hz)
		hz = kvmclock_tsc_hz();
	if (!hz)
		hz = tsc_hz_from_pit_best();
	return hz;
}
