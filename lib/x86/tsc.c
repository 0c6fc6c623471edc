/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC as the arch counter, and its frequency: from the hypervisor's timing leaf or the PIT. */
#include "arch.h"
#include "io.h"
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

u64 arch_counter(void)
{
	return rdtsc_ordered();
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
		;
	t1 = rdtsc_ordered();
	outb(gate, PIT_CH2_GATE_PORT);
	return (t1 - t0) * 1000 / CALIBRATE_MS;
}

u64 arch_counter_hz(void)
{
	static u64 hz;

	if (!hz)
		hz = tsc_hz_from_cpuid();
	if (!hz)
		hz = tsc_hz_from_pit();
	return hz;
}
