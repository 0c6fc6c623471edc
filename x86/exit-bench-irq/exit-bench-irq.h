/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of the exit-bench-irq kernel share: the vectors, the test-only fault, the STI windows and each file's rows. */
#ifndef VMTICK_X86_EXIT_BENCH_IRQ_H
#define VMTICK_X86_EXIT_BENCH_IRQ_H

#include "libc.h"
#include "bench.h"
#include "x86/bench_irq.h"

/* Our vectors, in one place: above the exceptions, below the library's (0x60 up). */
#define SELF_IPI_VECTOR		0x40	/* class 4: TPR_BLOCK holds it */
#define PING_VECTOR		0x51
#define TIMER_VECTOR		0x53
#define WATCHDOG_VECTOR		0x5e	/* class 5: TPR_BLOCK lets it through */
#define TPR_BLOCK		0x40	/* blocks classes 0..4 */

#define LOOP(fn) .kind = BENCH_TIMED_LOOP, .loop = (fn)

/* n, or one more when fault= names this row: the check must then fail (main.c). */
unsigned long want(const char *row, unsigned long n);
/* The row's check that every interrupt it sent arrived, once. */
void report_arrivals(const char *row, const struct bench_irq_row *r, const char *what);

/*
 * The STI windows (main.c). The labels name the instruction in the STI
 * shadow (no interrupt may be taken before it) and the one after the
 * window (where a pending interrupt is taken).
 */
extern const char sti_nop_shadow[], sti_nop_end[], sti_hlt_shadow[], sti_hlt_end[];
void sti_nop_cli(void);
void sti_hlt_cli(void);

/* The self-IPI rows (self.c), named by the APIC mode: self_variant_name(row's ctx). */
extern const struct bench self_ipi_rows[];
extern const size_t self_ipi_rows_n;
const char *self_variant_name(void *ctx);
/* The two-vCPU rows (smp.c). */
extern const struct bench smp_rows[];
extern const size_t smp_rows_n;

#endif
