/* SPDX-License-Identifier: GPL-2.0-only */
/* The interrupt rows' scaffolding of lib/x86/bench_irq.h. */
#include "x86/bench_irq.h"
#include "irq.h"
#include "wait.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"

bool bench_irq_send(struct bench_irq_row *row)
{
	if (row->timeouts)
		return false;
	row->sent++;
	return true;
}

void bench_irq_hit(struct bench_irq_row *row)
{
	row->hits++;
	apic_eoi();
}

bool bench_irq_wait_next(struct bench_irq_row *row)
{
	if (row->timeouts)
		return false;
	if (!wait_at_least(&row->hits, row->sent, BENCH_IRQ_WAIT_MS)) {
		row->timeouts++;
		return false;
	}
	return true;
}

bool bench_irq_all_arrived(const struct bench_irq_row *row, unsigned long expect_extra)
{
	return !row->timeouts && row->hits == row->sent + expect_extra;
}

void bench_irqs_on(void *ctx)
{
	irq_enable();
}

void bench_irqs_off(void *ctx)
{
	irq_disable();
}

void bench_deadline_enter(void *ctx)
{
	const struct bench_irq_row *row = ctx;

	apic_timer_deadline_mode(row->vector);
	irq_enable();
}

void bench_deadline_leave(void *ctx)
{
	irq_disable();
	apic_timer_deadline(0);
	apic_timer_mask();
}
