/* SPDX-License-Identifier: GPL-2.0-only */
/* The HPET: found through ACPI (or at its usual address, checked); its main counter; its timers. */
#ifndef VMTICK_X86_HPET_H
#define VMTICK_X86_HPET_H

#include "libc.h"
#include "x86/ioapic.h"

/* Register names as the manual gives them (shared with x86/timer_regs/, which programs them directly). */
#define HPET_GCAP_ID	     0x000
#define HPET_GCAP_PERIOD     0x004 /* high dword: counter period in femtoseconds */
#define HPET_GEN_CONF	     0x010
#define HPET_GEN_INT_STS     0x020 /* level-triggered timers: write 1 to clear */
#define HPET_MAIN_CNT	     0x0f0
#define HPET_MAIN_CNT_HI     0x0f4
#define HPET_TN_CONF(n)	     (0x100 + 0x20 * (n))
#define HPET_TN_CMP(n)	     (0x108 + 0x20 * (n))
#define HPET_GEN_ENABLE_CNF	(1u << 0)
#define HPET_TN_INT_TYPE_CNF	(1u << 1) /* level-triggered */
#define HPET_TN_INT_ENB_CNF	(1u << 2)
#define HPET_TN_TYPE_CNF	(1u << 3) /* periodic */
#define HPET_TN_PER_INT_CAP	(1u << 4)
#define HPET_TN_SIZE_CAP	(1u << 5) /* 64-bit */
#define HPET_TN_VAL_SET_CNF	(1u << 6)
#define HPET_TN_32MODE_CNF	(1u << 8)
#define HPET_TN_INT_ROUTE_SHIFT 9
#define HPET_PERIOD_MAX_FS 100000000u /* the spec's bound: 100 ns */

/* Where chipsets (and QEMU) put it when no table says otherwise. */
#define HPET_DEFAULT_BASE 0xfed00000

/*
 * Find the HPET: the ACPI HPET table's base, else HPET_DEFAULT_BASE; either
 * way its capabilities must read sanely (vendor ID, a period of at most
 * 100 ns). Returns NULL, or why there is none.
 */
const char *hpet_find(void);

/*
 * The main counter as a free-running clock: after hpet_find(), start it
 * if it is halted (without clearing it), and read its low 32 bits (one
 * MMIO read; the caller follows the wraps). hpet_halt_and_clear() stops
 * it: start it again after that.
 */
void hpet_counter_run(void);
u32 hpet_counter_read32(void);
/* Whether the main counter is 64 bits wide (COUNT_SIZE_CAP); else its upper dword reads 0. */
bool hpet_counter_is_64bit(void);
/*
 * The whole 64-bit main counter, read as two dwords (i386 has no 64-bit
 * MMIO): upper, lower, upper again, repeated until the upper dword held
 * still across the lower one's read, so a carry between them cannot tear
 * the value. Needs hpet_counter_is_64bit().
 */
u64 hpet_counter_read64(void);
/* Counts per second, from the capability register's period (femtoseconds per count). */
u64 hpet_counter_hz(void);

/* "HPET by ...: vendor, timers, period", as a report_info line. */
void hpet_report_found(void);
/* Timers the HPET has (the capability's NUM_TIM_CAP plus one). */
unsigned hpet_timers(void);
bool hpet_has_legacy_replacement(void);
/* Timer n's Tn_INT_ROUTE_CAP: bit g set when it can drive IOAPIC input g. */
u32 hpet_route_cap(unsigned n);
/* IOAPIC pins from here up are not ISA lines; Tn_INT_ROUTE_CAP has 32 bits. */
#define HPET_FIRST_NON_ISA_GSI 16
#define HPET_ROUTE_GSIS	       32
/*
 * The first IOAPIC input above the ISA lines timer n can drive, or 0
 * (QEMU's pc offers none, q35 GSIs 16-23).
 */
unsigned hpet_timer_gsi_above_isa(unsigned n);
bool hpet_timer_can_periodic(unsigned n);
/* Main counter counts per period at hz, to the nearest; 0 when hz is above its rate. */
u64 hpet_counts_at_hz(u64 hz);

/* Stop the main counter and every timer's interrupts with it, and clear it to 0. */
void hpet_halt_and_clear(void);

/* How a timer's interrupt leaves the HPET. */
enum hpet_irq {
	/* legacy replacement: timer 0 on ISA IRQ 0, timer 1 on ISA IRQ 8 */
	HPET_IRQ_LEGACY,
	/* to the IOAPIC input Tn_INT_ROUTE_CNF names, as an edge */
	HPET_IRQ_EDGE,
	/* the same, level: asserted until hpet_timer_ack() */
	HPET_IRQ_LEVEL,
};

/* Legacy replacement's ISA lines: timer 0 takes IRQ 0 (the PIT's), timer 1 IRQ 8 (the RTC's). */
#define HPET_LEGACY_TIMER0_ISA_IRQ 0
#define HPET_LEGACY_TIMER1_ISA_IRQ 8

/*
 * Timer n's own IOAPIC input: the first above the ISA lines its
 * Tn_INT_ROUTE_CAP offers, edge-triggered, active high (HPET_IRQ_EDGE);
 * false when it offers none (QEMU's pc).
 */
bool hpet_timer_route_above_isa(unsigned n, struct ioapic_route *r);
/*
 * How timer n reaches the IOAPIC: its own input as above, else, for
 * timers 0 and 1 of an HPET that has it, legacy replacement's ISA IRQ by
 * the MADT's route (after ioapic_init()); *irq says which. NULL, or why
 * neither. QEMU's pc offers its timers only GSI 2, which KVM's routing
 * does not connect to the IOAPIC: legacy replacement is the way there.
 */
const char *hpet_timer_route(unsigned n, struct ioapic_route *r, enum hpet_irq *irq);

enum hpet_timer_mode {
	HPET_ONESHOT,
	HPET_PERIODIC,
};

/*
 * Configure timer n (32-bit mode where it is 64-bit: QEMU keeps a 64-bit
 * comparator's upper half at its reset value otherwise), interrupt
 * enabled. A periodic timer takes two hpet_timer_compare() writes next:
 * the first expiry, then the period (Tn_VAL_SET_CNF).
 */
void hpet_timer_setup(unsigned n, enum hpet_timer_mode mode, enum hpet_irq irq, unsigned gsi);
void hpet_timer_compare(unsigned n, u32 value);

/*
 * Whether the main counter's low half has reached a 32-bit comparator:
 * at it, or past it by less than half a wrap (the difference read as
 * signed), so a counter just below a comparator across the wrap has not
 * reached it and one just above it across the wrap has.
 */
static inline bool hpet_counter_reached(u32 counter, u32 cmp)
{
	return (s32)(counter - cmp) >= 0;
}

/* The furthest a comparator is armed ahead: half the wrap, so hpet_counter_reached() can tell. */
#define HPET_ARM_MAX_COUNTS 0x7fffffffu
/*
 * Re-arms after a missed arming before hpet_timer_arm_ahead() gives up:
 * hpet_arm_next_margin() doubles at least, so from 1 count it reaches
 * HPET_ARM_MAX_COUNTS (half a wrap, 21 s at 100 MHz) within 31.
 */
#define HPET_ARM_MAX_REARMS 31

/*
 * The margin for the next arming after one margin counts ahead was
 * missed, that arming having taken took counts (its counter read to its
 * read-back): twice the larger, so the next one survives an arming as slow
 * as this one; at least 1, at most HPET_ARM_MAX_COUNTS.
 */
static inline u32 hpet_arm_next_margin(u32 margin, u32 took)
{
	u64 next = 2 * (u64)max(max(margin, took), 1u);

	return (u32)min(next, (u64)HPET_ARM_MAX_COUNTS);
}

struct hpet_arming {
	u32 cmp;	 /* the comparator armed last, the one in force */
	unsigned rearms; /* armings missed before it */
	u32 took;	 /* counts the last arming took, counter read to read-back */
};

/*
 * Arm timer n (set up one-shot, its interrupt enabled) counts ahead of
 * the main counter (at least 1, at most HPET_ARM_MAX_COUNTS): the
 * comparator is the counter plus counts, then the counter is read back;
 * if it has reached the comparator, the arming may have been missed and
 * is done again further out (hpet_arm_next_margin()), at most
 * HPET_ARM_MAX_REARMS times. A missed arming is a late expiry, never a
 * lost one; but if the counter passed the comparator only after the
 * write landed, the first arming fires too (hpet.c says why).
 */
struct hpet_arming hpet_timer_arm_ahead(unsigned n, u64 counts);
/*
 * The same, calling between() (when not NULL) before each comparator
 * write, after the counter read it adds to: a test holds the write there,
 * as a slow emulated MMIO path delays its landing (the tick engine's
 * slow_arm=).
 */
struct hpet_arming hpet_timer_arm_ahead_paced(unsigned n, u64 counts, void (*between)(void));

/* Level-triggered: clear timer n's bit of the interrupt status register, which drops its line. */
void hpet_timer_ack(unsigned n);
/* Timer n's interrupt status bit (level-triggered only). */
bool hpet_timer_pending(unsigned n);
void hpet_timer_off(unsigned n);

/*
 * Let the main counter run (legacy replacement on for HPET_IRQ_LEGACY),
 * keeping it running if it was. Returns arch_counter() read just before
 * the write: a counter cleared by hpet_halt_and_clear() counts from 0
 * after it.
 */
u64 hpet_run(enum hpet_irq irq);

#endif
