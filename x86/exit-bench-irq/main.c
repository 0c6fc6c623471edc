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
#include "exit-bench-irq.h"
#include "irq.h"
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
#include "x86/apic_timer.h"

#define TSC_DEADLINE_PAST	1

static const char *fault_row;

unsigned long want(const char *row, unsigned long n)
{
	return fault_row && !strcmp(fault_row, row) ? n + 1 : n;
}

void report_arrivals(const char *row, const struct bench_irq_row *r, const char *what)
{
	report(bench_irq_all_arrived(r, want(row, 0)),
	       "every %s arrived (%lu sent, %lu handled)", what, r->sent, r->hits);
}

/* --- the STI windows ---------------------------------------------------- */

/* noinline: each asm block exists once, and so does each label (exit-bench-irq.h). */
void __attribute__((noinline)) sti_nop_cli(void)
{
	asm volatile(".globl sti_nop_shadow, sti_nop_end\n"
		     "sti\n"
		     "sti_nop_shadow: nop\n"
		     "sti_nop_end: cli" ::: "memory");
}

void __attribute__((noinline)) sti_hlt_cli(void)
{
	asm volatile(".globl sti_hlt_shadow, sti_hlt_end\n"
		     "sti\n"
		     "sti_hlt_shadow: hlt\n"
		     "sti_hlt_end: cli" ::: "memory");
}

/* --- TSC deadline in the past ------------------------------------------ */

static struct bench_irq_row timer_row = { .vector = TIMER_VECTOR };
static exception_handler_t saved_timer;

static void timer_handler(struct ex_regs *regs)
{
	bench_irq_hit(&timer_row);
}

static void timer_immed_once(void)
{
	if (!bench_irq_send(&timer_row))
		return;
	apic_timer_deadline(TSC_DEADLINE_PAST);
	bench_irq_wait_next(&timer_row);
}

BENCH_LOOP(loop_tscdeadline_immed, timer_immed_once())

static const char *prepare_tscdeadline(void *ctx)
{
	if (!apic_timer_has_tsc_deadline())
		return "no TSC-deadline timer mode (CPUID.1:ECX[24] clear)";
	saved_timer = handle_exception(TIMER_VECTOR, timer_handler);
	return NULL;
}

/* The SDM: the MSR reads 0 once its deadline has fired. */
static void check_tscdeadline(void *ctx, const struct bench_result *r)
{
	u64 left;

	report_arrivals("tscdeadline_immed", &timer_row, "deadline's interrupt");
	bench_deadline_enter(ctx);
	timer_immed_once();
	left = rdmsr(MSR_IA32_TSC_DEADLINE);
	bench_deadline_leave(ctx);
	report(left == want("tscdeadline_immed", 0),
	       "IA32_TSC_DEADLINE reads %llu after its timer fired (0 expected)",
	       left);
}

static void cleanup_tscdeadline(void *ctx)
{
	handle_exception(TIMER_VECTOR, saved_timer);
}

/* --- the table --------------------------------------------------------- */

/* This file's row; main() appends the other files' rows, as the header comment lists them. */
static const struct bench timer_rows[] = {
	{ .name = "tscdeadline_immed", .what = "TSC deadline in the past, up to its handler",
	  LOOP(loop_tscdeadline_immed), .iters = 1024, .prepare = prepare_tscdeadline,
	  .enter = bench_deadline_enter, .leave = bench_deadline_leave, .check = check_tscdeadline,
	  .cleanup = cleanup_tscdeadline, .ctx = &timer_row },
};

static struct bench rows[BENCH_MAX_ROWS];
static size_t nrows;

/* The table; the self-IPI rows named for the APIC mode, before fault= is matched. */
static void rows_assemble(void)
{
	size_t first_self;

	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), timer_rows, ARRAY_SIZE(timer_rows));
	first_self = nrows;
	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), self_ipi_rows, self_ipi_rows_n);
	for (size_t i = first_self; i < nrows; i++)
		rows[i].name = self_variant_name(rows[i].ctx);
	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), smp_rows, smp_rows_n);
}

/* fault=: the check of struct arg. */
static const char *fault_arg(const char *row)
{
	return bench_has_row(rows, nrows, row) ? NULL
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

	rows_assemble();
	bench_config_init(&cfg, "exit");
	args_parse_or_abort(&table, argc, argv);
	if (fault_row)
		report_info("fault=%s: that row's checks expect one interrupt more (test-only)",
			    fault_row);
	report_info("%s, %d vCPU(s), %s mode", on_kvm() ? "KVM" : "no KVM signature (TCG?)",
		    cpu_count(), apic_x2apic_mode() ? "x2APIC" : "xAPIC");
	bench_run(&cfg, rows, nrows, NULL);
	return report_summary();
}
