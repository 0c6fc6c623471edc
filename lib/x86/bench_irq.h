/* SPDX-License-Identifier: GPL-2.0-only */
/* What the x86 benchmarks' interrupt rows share: the count of interrupts sent and handled, the bounded wait, the hooks. */
#ifndef VMTICK_X86_BENCH_IRQ_H
#define VMTICK_X86_BENCH_IRQ_H

#include "libc.h"
#include "x86/desc.h"

/* How long a row waits for one interrupt before it gives up on the rest. */
#define BENCH_IRQ_WAIT_MS	1000

/* Each interrupt row counts for itself: the rows' batches take turns. */
struct bench_irq_row {
	volatile unsigned long hits;	/* interrupts handled */
	volatile unsigned long sent;	/* interrupts asked for */
	volatile unsigned long timeouts;
	u8 vector;			/* the timer rows' vector (bench_deadline_enter) */
	exception_handler_t saved[2];	/* handlers replaced by prepare */
};

/* Before asking for one more interrupt: counts it sent; false (nothing counted) once a wait has timed out. */
bool bench_irq_send(struct bench_irq_row *row);
/* Wait (interrupts on) for the interrupt just asked for; false once one has timed out. */
bool bench_irq_wait_next(struct bench_irq_row *row);
/* Every interrupt sent arrived, once, and no wait timed out; expect_extra is 0 but for a test-only fault. */
bool bench_irq_all_arrived(const struct bench_irq_row *row, unsigned long expect_extra);

/* In the row's handler: one more handled, and the EOI. */
void bench_irq_hit(struct bench_irq_row *row);

/* struct bench's enter/leave hooks: interrupts on for the row's batches, off after. */
void bench_irqs_on(void *ctx);
void bench_irqs_off(void *ctx);

/*
 * enter/leave hooks of a TSC-deadline row, ctx its struct bench_irq_row:
 * the LAPIC timer in TSC-deadline mode on row->vector and interrupts on;
 * then interrupts off, the deadline disarmed and the timer masked.
 */
void bench_deadline_enter(void *ctx);
void bench_deadline_leave(void *ctx);

#endif
