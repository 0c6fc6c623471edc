/* SPDX-License-Identifier: GPL-2.0-only */
/* The LAPIC timer's registers: LVT timer modes, divide configuration, counts, TSC deadline. */
#include "x86/apic_timer.h"
#include "x86/apic.h"
#include "x86/processor.h"
#include "report.h"

/* Where a CPU or hypervisor may state the APIC timer's clock. */
/* ECX: core crystal clock in Hz, the APIC timer's clock on Intel */
#define CPUID_TSC_CRYSTAL    0x15
#define CPUID_HV_TIMING_LEAF 0x40000010 /* EBX: APIC bus clock in kHz */

bool apic_timer_has_tsc_deadline(void)
{
	return cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_TSC_DEADLINE);
}

void apic_timer_report_stated_clock(void)
{
	if (cpuid(0).a >= CPUID_TSC_CRYSTAL && cpuid(CPUID_TSC_CRYSTAL).c)
		report_info("CPUID 0x15 states a %u Hz crystal clock", cpuid(CPUID_TSC_CRYSTAL).c);
	if (cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR) &&
	    cpuid(CPUID_HYPERVISOR_BASE).a >= CPUID_HV_TIMING_LEAF && cpuid(CPUID_HV_TIMING_LEAF).b)
		report_info("the hypervisor states a %u kHz APIC bus",
			    cpuid(CPUID_HV_TIMING_LEAF).b);
}

void apic_timer_run_free(u8 vector)
{
	apic_timer_run_free_divided(vector, APIC_TDCR_DIV_1);
}

void apic_timer_run_free_divided(u8 vector, u32 tdcr)
{
	apic_write(APIC_LVTT, APIC_LVT_MASKED | APIC_LVT_TIMER_ONESHOT | vector);
	apic_timer_divide(tdcr);
	apic_write(APIC_TMICT, (u32)APIC_TIMER_COUNT_MAX);
}

void apic_timer_divide(u32 tdcr)
{
	apic_write(APIC_TDCR, tdcr);
}

u64 apic_timer_elapsed(void)
{
	return APIC_TIMER_COUNT_MAX - apic_read(APIC_TMCCT);
}

void apic_timer_periodic_mode(u8 vector)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | vector);
}

void apic_timer_oneshot_mode(u8 vector)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | vector);
}

void apic_timer_deadline_mode(u8 vector)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_TSCDEADLINE | vector);
	asm volatile("mfence" ::: "memory");
}

void apic_timer_count(u32 initial)
{
	apic_write(APIC_TMICT, initial);
}

void apic_timer_oneshot(u8 vector, u32 counts)
{
	apic_timer_divide(APIC_TDCR_DIV_1);
	apic_timer_oneshot_mode(vector);
	apic_timer_count(counts);
}

void apic_timer_periodic(u8 vector, u32 counts)
{
	apic_timer_count(0);
	apic_timer_periodic_mode(vector);
	apic_timer_count(counts);
}

void apic_timer_deadline(u64 tsc)
{
	wrmsr(MSR_IA32_TSC_DEADLINE, tsc);
}

void apic_timer_mask(void)
{
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
}

void apic_timer_set_masked(bool masked)
{
	u32 lvtt = apic_read(APIC_LVTT) & ~APIC_LVT_MASKED;

	apic_write(APIC_LVTT, lvtt | (masked ? APIC_LVT_MASKED : 0));
}

void apic_timer_stop(void)
{
	apic_timer_mask();
	apic_timer_count(0);
}

void apic_timer_stop_all(void)
{
	apic_timer_deadline(0);
	apic_timer_stop();
}
