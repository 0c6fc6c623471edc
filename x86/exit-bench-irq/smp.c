/* SPDX-License-Identifier: GPL-2.0-only */
/* exit-bench-irq's two-vCPU rows: an IPI that ends CPU 1's HLT, and CPU 0 and CPU 1 taking turns in PAUSE loops; CPU 1 works only during their batches. */
#include "libc.h"
#include "exit-bench-irq.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "wait.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/percpu.h"
#include "x86/processor.h"

static const char *need_two_vcpus(void)
{
	if (cpu_count() < 2)
		return "needs a second vCPU (run with -smp 2)";
	return NULL;
}

/* --- IPI to a halted vCPU ---------------------------------------------- */

static struct bench_irq_row halt_row;		/* hits: counted by CPU 1's handler */
static volatile unsigned long halt_armed;	/* CPU 1 on its way into hlt, this batch */
static volatile unsigned long halt_woke;	/* IPIs that returned to after CPU 1's hlt */
static volatile bool halt_stop;
static unsigned long halt_batch_sent;
static u32 halt_target;
static exception_handler_t saved_ping;

static void halt_ping_handler(struct ex_regs *regs)
{
	if (EX_IP(regs) == (uintptr_t)sti_hlt_end)
		halt_woke++;
	halt_row.hits++;
	apic_eoi();
}

/*
 * On CPU 1 during the row's batches. Interrupts are off from the count
 * to the hlt: an IPI that comes early waits and then ends the hlt, so
 * every IPI finds CPU 1 halted or about to be.
 */
static bool stop_else_halt(void *unused)
{
	if (READ_ONCE(halt_stop))
		return true;
	halt_armed++;
	sti_hlt_cli();
	return false;
}

static void halt_responder(void *arg)
{
	irq_disable();
	wait_cond(stop_else_halt, NULL);
}

static void ipi_halt_once(void)
{
	if (halt_row.timeouts)
		return;
	/* CPU 1 counted the previous IPI and is heading back into hlt */
	if (!wait_at_least(&halt_armed, halt_batch_sent + 1, BENCH_IRQ_WAIT_MS)) {
		halt_row.timeouts++;
		return;
	}
	halt_batch_sent++;
	halt_row.sent++;
	apic_icr_write(APIC_ICR_FIXED | PING_VECTOR, halt_target);
	bench_irq_wait_next(&halt_row);
}

BENCH_LOOP(loop_ipi_halt, ipi_halt_once())

static const char *prepare_ipi_halt(void *ctx)
{
	const char *why = need_two_vcpus();

	if (why)
		return why;
	halt_target = cpu_data(1)->apic_id;
	saved_ping = handle_exception(PING_VECTOR, halt_ping_handler);
	return NULL;
}

static void enter_ipi_halt(void *ctx)
{
	halt_armed = 0;
	halt_batch_sent = 0;
	halt_stop = false;
	on_cpu_async(1, halt_responder, NULL);
}

/* The library's wake-up IPI ends the last hlt; CPU 1 then sees the flag. */
static void leave_ipi_halt(void *ctx)
{
	WRITE_ONCE(halt_stop, true);
	apic_send_ipi(1, IPI_WAKE_VECTOR);
	on_cpu_wait(1);
}

static void check_ipi_halt(void *ctx, const struct bench_result *r)
{
	report_arrivals("ipi_halt", &halt_row, "IPI to CPU 1");
	report(halt_woke == want("ipi_halt", halt_row.sent),
	       "every IPI ended CPU 1's sti; hlt (%lu of %lu)", halt_woke, halt_row.sent);
}

static void cleanup_ipi_halt(void *ctx)
{
	handle_exception(PING_VECTOR, saved_ping);
}

/* --- pause-loop round robin -------------------------------------------- */

/* Even: CPU 0's turn; odd: CPU 1's. Each ends its turn by adding one. */
static volatile unsigned long rr_turn;
static volatile unsigned long rr_taken;		/* turns CPU 1 took */
static volatile bool rr_stop;
static unsigned long rr_ops, rr_timeouts;

static bool turn_or_stop(void *next)
{
	return READ_ONCE(rr_turn) >= *(unsigned long *)next || READ_ONCE(rr_stop);
}

/* On CPU 1 during the row's batches: take every odd turn. */
static void rr_partner(void *arg)
{
	unsigned long next = READ_ONCE(rr_turn) | 1;

	for (;;) {
		wait_cond(turn_or_stop, &next);
		if (READ_ONCE(rr_stop))
			return;
		rr_taken++;
		WRITE_ONCE(rr_turn, next + 1);
		next += 2;
	}
}

static void round_robin_once(void)
{
	unsigned long t = READ_ONCE(rr_turn);

	if (rr_timeouts)
		return;
	rr_ops++;
	WRITE_ONCE(rr_turn, t + 1);
	/* wait_at_least spins with pause(): CPU 0's PAUSE loop */
	if (!wait_at_least(&rr_turn, t + 2, BENCH_IRQ_WAIT_MS))
		rr_timeouts++;
}

BENCH_LOOP(loop_round_robin, round_robin_once())

static const char *prepare_round_robin(void *ctx)
{
	return need_two_vcpus();
}

static void enter_round_robin(void *ctx)
{
	rr_stop = false;
	on_cpu_async(1, rr_partner, NULL);
}

static void leave_round_robin(void *ctx)
{
	WRITE_ONCE(rr_stop, true);
	on_cpu_wait(1);
}

static void check_round_robin(void *ctx, const struct bench_result *r)
{
	report(!rr_timeouts && rr_taken == want("ple_round_robin", rr_ops) &&
		       rr_turn == 2 * rr_ops,
	       "CPU 1 took every turn CPU 0 handed over (%lu of %lu; counter %lu, %lu timeouts)",
	       rr_taken, rr_ops, rr_turn, rr_timeouts);
}

const struct bench smp_rows[] = {
	{ .name = "ipi_halt", .what = "IPI to CPU 1 in hlt, up to its handler's count",
	  LOOP(loop_ipi_halt), .iters = 1024, .prepare = prepare_ipi_halt, .enter = enter_ipi_halt,
	  .leave = leave_ipi_halt, .check = check_ipi_halt, .cleanup = cleanup_ipi_halt },
	{ .name = "ple_round_robin", .what = "CPU 0's turn and CPU 1's, each waiting with PAUSE",
	  LOOP(loop_round_robin), .iters = 1024, .prepare = prepare_round_robin,
	  .enter = enter_round_robin, .leave = leave_round_robin, .check = check_round_robin },
};
const size_t smp_rows_n = ARRAY_SIZE(smp_rows);
