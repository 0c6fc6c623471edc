/* SPDX-License-Identifier: GPL-2.0-only */
/* The LAPIC timer: its modes, initial and current counts, and the TSC-deadline register. */
#ifndef VMTICK_X86_APIC_TIMER_H
#define VMTICK_X86_APIC_TIMER_H

#include "libc.h"

/* The initial count register is 32 bits wide. */
#define APIC_TIMER_COUNT_MAX 0xffffffffull

bool apic_timer_has_tsc_deadline(void);
/* What the CPU or hypervisor states the timer's clock is (CPUID), as report_info lines. */
void apic_timer_report_stated_clock(void);

/*
 * Masked, divide by 1, one-shot from the largest count: the timer counts
 * down without interrupting, and apic_timer_elapsed() says how far.
 */
void apic_timer_run_free(u8 vector);
u64 apic_timer_elapsed(void);

/* The LVT timer entry: a mode and the vector it interrupts on. */
void apic_timer_periodic_mode(u8 vector);
void apic_timer_oneshot_mode(u8 vector);
/*
 * In xAPIC mode the LVTT write is MMIO and the TSC_DEADLINE write a WRMSR,
 * which are not ordered against each other (Intel SDM vol. 3, "TSC-Deadline
 * Mode"): this fences after the mode switch, so that a deadline written
 * next cannot reach the timer first and be dropped.
 */
void apic_timer_deadline_mode(u8 vector);
/* The initial count: starts (or, with 0, stops) a count in periodic or one-shot mode. */
void apic_timer_count(u32 initial);
/* TSC-deadline mode: fire once the TSC reaches tsc; 0 disarms. */
void apic_timer_deadline(u64 tsc);
/* Mask the LVT timer entry (vector 0). */
void apic_timer_mask(void);
/* Mask, and stop a count in progress. */
void apic_timer_stop(void);

#endif
