/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exit-bench-irq: what interrupt delivery and cross-vCPU waiting cost, in
 * the ways exit-bench's self_ipi and ipi_rt rows do not take: the
 * self-IPI taken in an STI window or ending an HLT, held back by the TPR,
 * an IPI that wakes a halted vCPU, a TSC deadline already past, and two
 * vCPUs taking turns with PAUSE. Measured with lib/bench (docs/bench.md).
 *
 * Rows (one operation each):
 *   tscdeadline_immed      arm the TSC-deadline timer in the past (1): it
 *                          fires at once; up to the handler. SKIP without
 *                          CPUID.1:ECX[24].
 *   self_ipi_sti_nop       interrupts off: self-IPI, then sti; nop; cli
 *   self_ipi_sti_hlt       interrupts off: self-IPI, then sti; hlt
 *   self_ipi_tpr           interrupts on: TPR raised over the IPI's class,
 *                          self-IPI, TPR lowered: it arrives then
 *   self_ipi_tpr_sti_nop   the two combined (TPR, IPI, TPR, sti; nop; cli)
 *   self_ipi_tpr_sti_hlt   and with sti; hlt
 *   ipi_halt               IPI to CPU 1 waiting in hlt; its handler counts
 *                          and CPU 0 waits for the count (one IPI, no
 *                          answering IPI: compare exit-bench's ipi_rt)
 *   ple_round_robin        CPU 0 and CPU 1 take turns on a counter, each
 *                          waiting for its turn in a PAUSE loop: one
 *                          operation is CPU 0's turn and CPU 1's
 * The self-IPI rows go through the APIC in the mode the library chose
 * (x2APIC when CPUID offers it): in x2APIC mode their names start with
 * "x2apic_", so one run per mode (exit-bench-irq and
 * exit-bench-irq-xapic, which hides x2APIC from CPUID) covers both.
 * ipi_halt and ple_round_robin SKIP with one vCPU.
 *
 * Checks: every interrupt arrived, once; its handler ran with IF set and
 * never on the instruction right after STI (the STI shadow), and for
 * sti; hlt it returned to the instruction after HLT (the IPI ended the
 * halt); with the TPR raised the IPI stays pending in the IRR, unhandled,
 * for 10 ms and arrives when the TPR is lowered; IA32_TSC_DEADLINE reads
 * 0 once its timer fired; CPU 1 was in HLT for every ipi_halt IPI; CPU 1
 * took every turn. How many self-IPIs arrived inside their STI window
 * (rather than later) is printed, not judged: the architecture does not
 * say how soon a self-IPI is pending.
 *
 * A lost self-IPI before sti; hlt would halt the vCPU for good: a LAPIC
 * one-shot watchdog (its largest count, seconds) runs around those rows'
 * batches and ends the halt; the row then fails its checks.
 *
 * Arguments: batches=N budget_ms=N iters=N only=NAME[,NAME] (lib/bench.h);
 * fault=ROW (test-only): the named row's checks expect one interrupt
 * more than was sent, to see them fail. Anything else is a failure.
 */
#include "libc.h"
#include "arch.h"
#include "x86/apic.h"
#include "argv.h"
#include "bench.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "report.h"
#include "wait.h"

/* Our vectors: above the exceptions, below the library's (0x60 up). */
#define SELF_IPI_VECTOR		0x40	/* class 4: TPR_BLOCK holds it */
#define PING_VECTOR		0x51
#define TIMER_VECTOR		0x53
#define WATCHDOG_VECTOR		0x5e	/* class 5: TPR_BLOCK lets it through */
#define TPR_BLOCK		0x40	/* blocks classes 0..4 */

#define WAIT_MS			1000
#define TPR_HOLD_MS		10
#define WATCHDOG_COUNT		0xffffffffu
#define TSC_DEADLINE_PAST	1

#ifdef __x86_64__
#define EX_FLAGS(r) ((r)->rflags)
#else
#define EX_FLAGS(r) ((r)->eflags)
#endif

static const char *fault_row;

/* n, or one more when fault= names this row: the check must then fail. */
static unsigned long want(const char *row, unsigned long n)
{
	return fault_row && !strcmp(fault_row, row) ? n + 1 : n;
}

/* Each interrupt row counts for itself: the rows' batches take turns. */
struct irq_row {
	volatile unsigned long hits;	/* interrupts handled */
	volatile unsigned long sent;	/* interrupts asked for */
	volatile unsigned long timeouts;
};

/* Wait (interrupts on) for the interrupt just asked for; false once one timed out. */
static bool wait_next(struct irq_row *row)
{
	if (row->timeouts)
		return false;
	if (!wait_at_least(&row->hits, row->sent, WAIT_MS)) {
		row->timeouts++;
		return false;
	}
	return true;
}

static void report_arrivals(const char *row, const struct irq_row *r, const char *what)
{
	report(!r->timeouts && r->hits == want(row, r->sent),
	       "every %s arrived (%lu sent, %lu handled)", what, r->sent, r->hits);
}

static void irqs_on(void *ctx)
{
	irq_enable();
}

static void irqs_off(void *ctx)
{
	irq_disable();
}

/* --- the STI windows ---------------------------------------------------- */

/*
 * The labels name the instruction in the STI shadow (no interrupt may be
 * taken before it) and the one after the window (where a pending
 * interrupt is taken). noinline: each asm block exists once.
 */
extern const char sti_nop_shadow[], sti_nop_end[], sti_hlt_shadow[], sti_hlt_end[];

static void __attribute__((noinline)) sti_nop_cli(void)
{
	asm volatile("sti\n"
		     "sti_nop_shadow: nop\n"
		     "sti_nop_end: cli" ::: "memory");
}

static void __attribute__((noinline)) sti_hlt_cli(void)
{
	asm volatile("sti\n"
		     "sti_hlt_shadow: hlt\n"
		     "sti_hlt_end: cli" ::: "memory");
}

#include "exit-bench-irq-self.h"
#include "exit-bench-irq-smp.h"

/* --- TSC deadline in the past ------------------------------------------ */

static struct irq_row timer_row;
static exception_handler_t saved_timer;

static void timer_handler(struct ex_regs *regs)
{
	timer_row.hits++;
	apic_eoi();
}

static void timer_immed_once(void)
{
	if (timer_row.timeouts)
		return;
	timer_row.sent++;
	wrmsr(MSR_IA32_TSC_DEADLINE, TSC_DEADLINE_PAST);
	wait_next(&timer_row);
}

BENCH_LOOP(loop_tscdeadline_immed, timer_immed_once())

static const char *prepare_tscdeadline(void *ctx)
{
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_TSC_DEADLINE))
		return "no TSC-deadline timer mode (CPUID.1:ECX[24] clear)";
	saved_timer = handle_exception(TIMER_VECTOR, timer_handler);
	return NULL;
}

static void enter_tscdeadline(void *ctx)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_TSCDEADLINE | TIMER_VECTOR);
	irq_enable();
}

static void leave_tscdeadline(void *ctx)
{
	irq_disable();
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
}

/* The SDM: the MSR reads 0 once its deadline has fired. */
static void check_tscdeadline(void *ctx, const struct bench_result *r)
{
	u64 left;

	report_arrivals("tscdeadline_immed", &timer_row, "deadline's interrupt");
	enter_tscdeadline(ctx);
	timer_immed_once();
	left = rdmsr(MSR_IA32_TSC_DEADLINE);
	leave_tscdeadline(ctx);
	report(left == want("tscdeadline_immed", 0),
	       "IA32_TSC_DEADLINE reads %llu after its timer fired (0 expected)",
	       left);
}

static void cleanup_tscdeadline(void *ctx)
{
	handle_exception(TIMER_VECTOR, saved_timer);
}

/* --- the table --------------------------------------------------------- */

#define LOOP(fn) .kind = BENCH_TIMED_LOOP, .loop = (fn)
/* named in main(): the name depends on the APIC mode */
#define SELF_ROW(v)                                                                    \
	LOOP(loop_self_variant), .iters = 1024,                      \
	.prepare = prepare_self_variant, .check = check_self_variant,                  \
	.cleanup = cleanup_self_variant, .ctx = &(v)

enum { ROW_SELF_FIRST = 1, ROW_SELF_LAST = 5 };

static struct bench rows[] = {
	{ .name = "tscdeadline_immed", .what = "TSC deadline in the past, up to its handler",
	  LOOP(loop_tscdeadline_immed), .iters = 1024, .prepare = prepare_tscdeadline,
	  .enter = enter_tscdeadline, .leave = leave_tscdeadline, .check = check_tscdeadline,
	  .cleanup = cleanup_tscdeadline },
	{ SELF_ROW(self_sti_nop), .what = "self-IPI, then sti; nop; cli" },
	{ SELF_ROW(self_sti_hlt), .what = "self-IPI, then sti; hlt", .enter = watchdog_on,
	  .leave = watchdog_off },
	{ SELF_ROW(self_tpr), .what = "TPR up, self-IPI, TPR down (interrupts on)",
	  .enter = irqs_on, .leave = irqs_off },
	{ SELF_ROW(self_tpr_sti_nop), .what = "TPR up, self-IPI, TPR down, sti; nop; cli" },
	{ SELF_ROW(self_tpr_sti_hlt), .what = "TPR up, self-IPI, TPR down, sti; hlt",
	  .enter = watchdog_on, .leave = watchdog_off },
	{ .name = "ipi_halt", .what = "IPI to CPU 1 in hlt, up to its handler's count",
	  LOOP(loop_ipi_halt), .iters = 1024, .prepare = prepare_ipi_halt, .enter = enter_ipi_halt,
	  .leave = leave_ipi_halt, .check = check_ipi_halt, .cleanup = cleanup_ipi_halt },
	{ .name = "ple_round_robin", .what = "CPU 0's turn and CPU 1's, each waiting with PAUSE",
	  LOOP(loop_round_robin), .iters = 1024, .prepare = prepare_round_robin,
	  .enter = enter_round_robin, .leave = leave_round_robin, .check = check_round_robin },
};

/* fault=: the check of struct arg. */
static const char *fault_arg(const char *row)
{
	return bench_has_row(rows, ARRAY_SIZE(rows), row) ? NULL
							   : "a row of this test in this APIC mode";
}

int main(int argc, char **argv)
{
	struct bench_config cfg;
	const struct arg args[] = {
		BENCH_ARGS(&cfg),
		ARG_TEXT("fault", &fault_row, fault_arg, NULL,
			 "test-only: the row whose checks expect one interrupt more"),
	};
	const struct arg_table table = ARG_TABLE(args);

	/* the row names depend on the APIC mode: name them before fault= is matched */
	for (int i = ROW_SELF_FIRST; i <= ROW_SELF_LAST; i++)
		rows[i].name = self_variant_name(rows[i].ctx);
	bench_config_init(&cfg, "exit");
	args_parse_or_abort(&table, argc, argv);
	if (fault_row)
		report_info("fault=%s: that row's checks expect one interrupt more (test-only)",
			    fault_row);
	report_info("%s, %d vCPU(s), %s mode", on_kvm() ? "KVM" : "no KVM signature (TCG?)",
		    cpu_count(), apic_x2apic_mode() ? "x2APIC" : "xAPIC");
	bench_run(&cfg, rows, ARRAY_SIZE(rows), NULL);
	return report_summary();
}
