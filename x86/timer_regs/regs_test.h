/* SPDX-License-Identifier: GPL-2.0-only */
/* timer_regs' parts: the options every family reads, the interrupt counters, and each family's
 * entry. */
#ifndef VMTICK_TIMER_REGS_TEST_H
#define VMTICK_TIMER_REGS_TEST_H

#include "libc.h"

/* Test-only faults, each a bug of the kind its family's checks exist for (main.c's header). */
enum fault {
	FAULT_NONE,
	/* LAPIC timer */
	FAULT_LVT,
	FAULT_DIVIDE,
	FAULT_COUNT,
	FAULT_CURRENT,
	FAULT_CURRENT_WRITE,
	FAULT_MASK,
	FAULT_STOP,
	/* TSC-deadline */
	FAULT_DEADLINE_KEEP,
	/* HPET */
	FAULT_HPET_HALT,
	FAULT_HPET_RESTART,
	FAULT_HPET_PERIOD,
	FAULT_HPET_WIDTH,
	FAULT_HPET_VAL_SET,
	FAULT_HPET_STATUS,
	FAULT_HPET_TYPE,
	FAULT_HPET_ROUTE,
	/* PIT */
	FAULT_PIT_NO_LATCH,
	FAULT_PIT_STATUS,
	FAULT_PIT_MODE,
	FAULT_PIT_ACCESS,
	FAULT_PIT_OUT,
	/* RTC */
	FAULT_RTC_UIP,
	FAULT_RTC_FORMAT,
	FAULT_RTC_RATE,
	FAULT_RTC_ALARM,
	FAULT_RTC_REG_C,
	FAULT_RTC_UIP_LONG,
	FAULT_COUNT_,
};

struct regs_opt {
	unsigned fault; /* enum fault */
	unsigned phases;
};
extern struct regs_opt opt;

/*
 * Host kinds whose known defects (report_kfail()) apply: "tcg" for QEMU's
 * own LAPIC and PIT (TCG only), "qemu" for its HPET and RTC models (both
 * accelerators), "kvm-pvm" (docs/host-quirks.md).
 */
#define DEFECT_TCG(what)  "tcg/" what
#define DEFECT_QEMU(what) "qemu/" what

/* Vectors this kernel takes interrupts on. */
#define REGS_LAPIC_VECTOR 0x50
#define REGS_HPET_VECTOR  0x51
#define REGS_SPARE_VECTOR 0x52

/* Interrupts taken per vector above, and the TSC at the last. */
struct irq_seen {
	volatile unsigned count;
	volatile u64 last_tsc;
};
extern struct irq_seen irq_seen[3];
#define IRQ_SEEN(v) (&irq_seen[(v)-REGS_LAPIC_VECTOR])
/* EOI the interrupt's LAPIC: a family that changes the LAPIC's mode sets its own. */
extern void (*regs_eoi)(void);
/* A hook a family runs in the handler before the EOI (a level source's ack), or NULL. */
extern void (*regs_irq_hook)(unsigned vector);
void regs_irq_reset(unsigned vector);

/* Time by the TSC. */
u64 tsc_from_us(u64 us);
u64 us_from_tsc(u64 tsc);
void spin_us(u64 us);

/* Each family: its checks, or SKIP lines saying why not. */
void lapic_checks(void);
void deadline_checks(void);
void hpet_checks(void);
void pit_checks(void);
void rtc_rate_checks(void);
void rtc_clock_checks(void);

#endif
