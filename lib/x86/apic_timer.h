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
/* The same at a divide configuration of lib/x86/apic.h's APIC_TDCR_DIV_*. */
void apic_timer_run_free_divided(u8 vector, u32 tdcr);
u64 apic_timer_elapsed(void);

/* The divide configuration: APIC_TDCR_DIV_1 and the like (lib/x86/apic.h). */
void apic_timer_divide(u32 tdcr);

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
/* Divide by 1, one-shot mode, counts from now: one interrupt (a watchdog, say). */
void apic_timer_oneshot(u8 vector, u32 counts);
/* Periodic mode every counts (divide as configured): any count in progress stops first. */
void apic_timer_periodic(u8 vector, u32 counts);
/* TSC-deadline mode: fire once the TSC reaches tsc; 0 disarms. */
void apic_timer_deadline(u64 tsc);
/* Mask the LVT timer entry (vector 0). */
void apic_timer_mask(void);
/* Set or clear LVTT's mask bit, mode, vector and count kept: an expiry while masked is not delivered. */
void apic_timer_set_masked(bool masked);
/* Mask, and stop a count in progress. */
void apic_timer_stop(void);
/* Disarm the TSC deadline, mask, and stop a count in progress: every mode off. */
void apic_timer_stop_all(void);

#endif
