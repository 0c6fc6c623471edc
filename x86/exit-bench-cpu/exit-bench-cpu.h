/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of the exit-bench-cpu kernel share: the test-only fault and each file's rows. */
#ifndef VMTICK_X86_EXIT_BENCH_CPU_H
#define VMTICK_X86_EXIT_BENCH_CPU_H

#include "libc.h"
#include "bench.h"

#define LOOP(fn) .kind = BENCH_TIMED_LOOP, .loop = (fn)

/* v, or a wrong v when fault= names this row: the check must then fail (main.c). */
u64 want(const char *row, u64 v);

/* The rows of msr.c (the MSRs) and pio.c (the ports), in the table's order. */
extern const struct bench msr_rows[];
extern const size_t msr_rows_n;
extern const struct bench pio_rows[];
extern const size_t pio_rows_n;

#endif
