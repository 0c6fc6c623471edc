/* SPDX-License-Identifier: GPL-2.0-only */
/* exit-bench-irq's self-IPI rows: one operation, five variants (STI;NOP, STI;HLT, with and without the TPR holding the IPI back), and the checks on where each interrupt was taken. */
#include "libc.h"
#include "exit-bench-irq.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "x86/desc.h"
#include "x86/processor.h"
#include "units.h"
#include "wait.h"

#define TPR_HOLD_MS		10
#define WATCHDOG_COUNT		0xffffffffu

#ifdef __x86_64__
#define EX_FLAGS(r) ((r)->rflags)
#else
#define EX_FLAGS(r) ((r)->eflags)
#endif

enum self_wait {
	WAIT_IRQS_ON,	/* interrupts on throughout: spin until the handler ran */
	WAIT_STI_NOP,	/* interrupts off: sti; nop; cli, the one-instruction window */
	WAIT_STI_HLT,	/* interrupts off: sti; hlt, which the pending IPI ends */
};

enum self_tpr { TPR_UNTOUCHED, TPR_HOLDS_IPI };

struct self_variant {
	const char *name, *x2apic_name;
	enum self_wait wait;
	enum self_tpr tpr;
	struct bench_irq_row irq;
	/* where the handler found itself, counted by the handler */
	volatile unsigned long in_window;	/* right after the window (nop or hlt) */
	volatile unsigned long in_shadow;	/* on the instruction after sti: must not be */
	volatile unsigned long if_clear;	/* interrupted code had IF clear: must not */
	volatile unsigned long while_held;	/* while the TPR held the IPI back: must not */
	volatile bool held;
};

#define SELF_VARIANT(n, w, t) { .name = n, .x2apic_name = "x2apic_" n, .wait = (w), .tpr = (t) }

static struct self_variant self_sti_nop =
	SELF_VARIANT("self_ipi_sti_nop", WAIT_STI_NOP, TPR_UNTOUCHED);
static struct self_variant self_sti_hlt =
	SELF_VARIANT("self_ipi_sti_hlt", WAIT_STI_HLT, TPR_UNTOUCHED);
static struct self_variant self_tpr = SELF_VARIANT("self_ipi_tpr", WAIT_IRQS_ON, TPR_HOLDS_IPI);
static struct self_variant self_tpr_sti_nop =
	SELF_VARIANT("self_ipi_tpr_sti_nop", WAIT_STI_NOP, TPR_HOLDS_IPI);
static struct self_variant self_tpr_sti_hlt =
	SELF_VARIANT("self_ipi_tpr_sti_hlt", WAIT_STI_HLT, TPR_HOLDS_IPI);

static struct self_variant *volatile self_current;
static exception_handler_t saved_self, saved_watchdog;
static unsigned self_rows;	/* rows prepared: the handlers go when the last is done */
static volatile unsigned long watchdog_fired;

const char *self_variant_name(void *ctx)
{
	struct self_variant *v = ctx;

	return apic_x2apic_mode() ? v->x2apic_name : v->name;
}

static void self_variant_handler(struct ex_regs *regs)
{
	struct self_variant *v = self_current;
	uintptr_t ip = EX_IP(regs);

	if (!(EX_FLAGS(regs) & X86_EFLAGS_IF))
		v->if_clear++;
	if (ip == (uintptr_t)sti_nop_shadow || ip == (uintptr_t)sti_hlt_shadow)
		v->in_shadow++;
	if (ip == (uintptr_t)sti_nop_end || ip == (uintptr_t)sti_hlt_end)
		v->in_window++;
	if (v->held)
		v->while_held++;
	v->irq.hits++;
	apic_eoi();
}

static void watchdog_handler(struct ex_regs *regs)
{
	watchdog_fired++;
	apic_eoi();
}

/* Around the sti; hlt batches: a LAPIC one-shot that ends a halt nothing else would. */
static void watchdog_on(void *ctx)
{
	apic_timer_oneshot(WATCHDOG_VECTOR, WATCHDOG_COUNT);
}

static void watchdog_off(void *ctx)
{
	apic_timer_stop();
}

static void self_ipi_send(struct self_variant *v)
{
	if (v->tpr == TPR_HOLDS_IPI) {
		v->held = true;
		apic_write(APIC_TPR, TPR_BLOCK);
	}
	apic_icr_write(APIC_DEST_SELF | APIC_ICR_FIXED | SELF_IPI_VECTOR, 0);
	if (v->tpr == TPR_HOLDS_IPI) {
		/* cleared first: a delivery after this line is allowed */
		v->held = false;
		apic_write(APIC_TPR, 0);
	}
}

static void self_variant_once(struct self_variant *v)
{
	if (v->irq.timeouts)
		return;
	self_current = v;
	v->irq.sent++;
	self_ipi_send(v);
	if (v->wait == WAIT_STI_NOP)
		sti_nop_cli();
	else if (v->wait == WAIT_STI_HLT)
		sti_hlt_cli();
	if (v->irq.hits == v->irq.sent)
		return;
	/* not there yet: wait for it with interrupts on, then as we were */
	if (v->wait == WAIT_IRQS_ON) {
		bench_irq_wait_next(&v->irq);
		return;
	}
	irq_enable();
	bench_irq_wait_next(&v->irq);
	irq_disable();
}

BENCH_LOOP(loop_self_variant, self_variant_once(ctx))

static const char *prepare_self_variant(void *ctx)
{
	if (self_rows++)
		return NULL;
	saved_self = handle_exception(SELF_IPI_VECTOR, self_variant_handler);
	saved_watchdog = handle_exception(WATCHDOG_VECTOR, watchdog_handler);
	return NULL;
}

static bool irr_has(u8 vector)
{
	return apic_read(APIC_IRR + 0x10 * (vector / 32)) & (1u << (vector % 32));
}

/*
 * With interrupts on and the TPR over its class, the IPI must stay
 * pending in the IRR, unhandled, for TPR_HOLD_MS; lowering the TPR
 * delivers it.
 */
static void check_tpr_holds(struct self_variant *v)
{
	unsigned long before = v->irq.hits, held_hits;
	bool pending;

	self_current = v;
	apic_write(APIC_TPR, TPR_BLOCK);
	irq_enable();
	apic_icr_write(APIC_DEST_SELF | APIC_ICR_FIXED | SELF_IPI_VECTOR, 0);
	spin_ns(TPR_HOLD_MS * NSEC_PER_MSEC);
	held_hits = v->irq.hits - before;
	pending = irr_has(SELF_IPI_VECTOR);
	v->irq.sent++;
	apic_write(APIC_TPR, 0);
	bench_irq_wait_next(&v->irq);
	irq_disable();
	report(!held_hits && pending && v->irq.hits - before == want(self_variant_name(v), 1),
	       "with TPR %#x the IPI waited %d ms in the IRR (%s, %lu handled), then arrived",
	       TPR_BLOCK, TPR_HOLD_MS, pending ? "pending" : "not pending", held_hits);
}

static void check_self_variant(void *ctx, const struct bench_result *r)
{
	struct self_variant *v = ctx;
	const char *row = self_variant_name(v);

	report_arrivals(row, &v->irq, "self-IPI");
	report(v->if_clear == want(row, 0) && v->in_shadow == want(row, 0),
	       "no IPI was taken with IF clear (%lu) or in the STI shadow (%lu)", v->if_clear,
	       v->in_shadow);
	if (v->wait == WAIT_STI_HLT)
		report(v->in_window == want(row, v->irq.sent) && !watchdog_fired,
		       "every IPI ended the sti; hlt (%lu of %lu; watchdog fired %lu times)",
		       v->in_window, v->irq.sent, watchdog_fired);
	if (v->wait == WAIT_STI_NOP)
		report_info("%lu of %lu IPIs were taken in their sti; nop window, the rest later",
			    v->in_window, v->irq.sent);
	if (v->tpr == TPR_HOLDS_IPI) {
		report(v->while_held == want(row, 0),
		       "no IPI arrived while the TPR held it back (%lu did)", v->while_held);
		/* last: it sends one more IPI, outside any window */
		check_tpr_holds(v);
	}
}

static void cleanup_self_variant(void *ctx)
{
	if (--self_rows)
		return;
	handle_exception(SELF_IPI_VECTOR, saved_self);
	handle_exception(WATCHDOG_VECTOR, saved_watchdog);
}

/* named in main(): the name depends on the APIC mode */
#define SELF_ROW(v)                                                                    \
	LOOP(loop_self_variant), .iters = 1024,                                        \
	.prepare = prepare_self_variant, .check = check_self_variant,                  \
	.cleanup = cleanup_self_variant, .ctx = &(v)

const struct bench self_ipi_rows[] = {
	{ SELF_ROW(self_sti_nop), .what = "self-IPI, then sti; nop; cli" },
	{ SELF_ROW(self_sti_hlt), .what = "self-IPI, then sti; hlt", .enter = watchdog_on,
	  .leave = watchdog_off },
	{ SELF_ROW(self_tpr), .what = "TPR up, self-IPI, TPR down (interrupts on)",
	  .enter = bench_irqs_on, .leave = bench_irqs_off },
	{ SELF_ROW(self_tpr_sti_nop), .what = "TPR up, self-IPI, TPR down, sti; nop; cli" },
	{ SELF_ROW(self_tpr_sti_hlt), .what = "TPR up, self-IPI, TPR down, sti; hlt",
	  .enter = watchdog_on, .leave = watchdog_off },
};
const size_t self_ipi_rows_n = ARRAY_SIZE(self_ipi_rows);
