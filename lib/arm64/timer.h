/* SPDX-License-Identifier: GPL-2.0-only */
/* The generic timer: the virtual and physical timers of the calling CPU, by CVAL or TVAL. */
#ifndef VMTICK_ARM64_TIMER_H
#define VMTICK_ARM64_TIMER_H

#include "libc.h"

/*
 * At EL1 these are the EL1 virtual (CNTV) and physical (CNTP) timers; a
 * kernel that stays at EL2 with VHE gets the EL2 ones under the same names
 * (and their own PPIs, which timer_irq() reports).
 */
enum timer_kind {
	TIMER_VIRT,
	TIMER_PHYS,
};

/* Reads the PPIs from the tree's "arm,armv8-timer" node (defaults: 27 virt, 30 phys). */
void timer_init(void);
u64 timer_freq(void);
/* The counter the timer compares against: CNTVCT or CNTPCT. */
u64 timer_count(enum timer_kind kind);
/* INTID of the timer's PPI; 0 when the tree says of none (EL2 virtual timer). */
unsigned timer_irq(enum timer_kind kind);
/* Fire when the counter reaches cval; enables the timer, unmasked. */
void timer_set_cval(enum timer_kind kind, u64 cval);
/* Fire in tval ticks from now (a signed 32-bit down-counter). */
void timer_set_tval(enum timer_kind kind, s32 tval);
u64 timer_get_cval(enum timer_kind kind);
/* Write CNT{V,P}_CTL (CNT_CTL_ENABLE, CNT_CTL_IMASK) and synchronise it. */
void timer_set_ctl(enum timer_kind kind, u64 ctl);
/* Write CVAL, then CTL = ENABLE | ctl (CNT_CTL_IMASK or 0). */
void timer_arm(enum timer_kind kind, u64 cval, u64 ctl);
/* Write TVAL alone (CTL untouched) and synchronise: CVAL = counter + tval, sign-extended. */
void timer_write_tval(enum timer_kind kind, s32 tval);
/* TVAL as read: (CVAL - counter)[31:0], the signed 32-bit view; UNKNOWN while disabled. */
s32 timer_get_tval(enum timer_kind kind);
/* Disable: the PPI (level) drops. */
void timer_stop(enum timer_kind kind);
/* ISTATUS: the condition is met (whether or not it is masked). */
bool timer_fired(enum timer_kind kind);
/*
 * The timers' interrupts, recorded per CPU: timer_irq_record_install()
 * puts one handler on both PPIs (false, nothing installed, without a GIC
 * or a PPI). It notes the timer's counter and ISTATUS, then disables the
 * timer (the level drops); the caller enables each PPI with gic_enable_irq().
 */
struct timer_irq_seen {
	u32 count;		/* interrupts taken; the caller zeroes it */
	u64 at;			/* the timer's counter in the last handler */
	bool istatus;		/* ISTATUS in the last handler */
} __aligned(64);
bool timer_irq_record_install(void);
struct timer_irq_seen *timer_irq_seen(int cpu);
/* Ticks for ns nanoseconds at CNTFRQ. */
u64 timer_ns_to_ticks(u64 ns);

#endif
