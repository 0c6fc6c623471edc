/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every hook that arch-neutral code (libc, report, bench, the test
 * engines, tests) calls into the platform. Each arch implements them under
 * lib/<arch>/: the console in serial.c / pl011.c, SMP in smp.c, the
 * counter in tsc.c / timer.c, the reference clocks in refclock.c, steal
 * time in steal.c. A test engine's own hooks are declared in the engine's
 * header under common/ (struct tick_arch, struct lc_arch, struct
 * selftest_arch).
 */
#ifndef VMTICK_ARCH_H
#define VMTICK_ARCH_H

#include "libc.h"

struct refclock;

/* Console: write len bytes; callers serialise whole lines (see printf). */
void arch_console_write(const char *buf, size_t len);
/* Console input: the next received character, or -1 when none is waiting (polled, never blocks). */
int arch_console_getc(void);

/*
 * Whether the runner's host-evidence agent will answer the guest's
 * requests (lib/host_evidence.h): x86 reads QEMU's fw_cfg for it; false
 * where the arch has no way to be told.
 */
bool arch_host_evidence_offered(void);

/*
 * Leave the guest: the testdev chardev first (QEMU then exits with status
 * (code << 1) | 1), then the platform's other ways out, then halt forever.
 */
void arch_exit(int code) __noreturn;

/* Backtrace of the caller, printed to the console (frame-pointer walk). */
void arch_dump_stack(void);

/* SMP: ids are dense, 0 is the boot CPU. */
int smp_id(void);
int cpu_count(void);
/* Run fn(arg) on cpu and wait until it has returned. */
void on_cpu(int cpu, void (*fn)(void *), void *arg);
/* Start fn(arg) on cpu without waiting; on_cpu_wait() waits for it. */
void on_cpu_async(int cpu, void (*fn)(void *), void *arg);
void on_cpu_wait(int cpu);
/* Run fn(arg) on every CPU, the caller included; return when all are done. */
void on_cpus(void (*fn)(void *), void *arg);
void cpu_relax(void);
/*
 * A secondary turned off and on again (smp.c). smp_cpu_off(), on the
 * secondary itself (from a function on_cpu() gave it): arm64 calls PSCI
 * CPU_OFF; x86 parks with interrupts off until the INIT that
 * smp_cpu_restart() sends. The caller's on_cpu_wait() returns as it goes.
 * smp_cpu_restart(cpu), on another CPU: waits until cpu is off, brings it
 * up again the way boot did (PSCI CPU_ON; INIT then SIPI) and returns once
 * it is back in its idle loop, ready for on_cpu(): NULL, or why not.
 */
void smp_cpu_off(void) __noreturn;
const char *smp_cpu_restart(int cpu);

/* Free-running counter (TSC, CNTVCT) and its frequency in Hz (0 if unknown). */
u64 arch_counter(void);
u64 arch_counter_hz(void);
/*
 * The barrier between a counter read and a timed loop (lib/bench.c): an
 * ISB on arm64, whose arch_counter() orders only before the read; a
 * compiler barrier on x86, whose arch_counter() is ordered both ways.
 */
void arch_bench_fence(void);

/* Memory size the platform reported, in bytes. */
u64 arch_mem_size(void);

/* Heap handed to the allocator: [start, end). */
void arch_heap_range(uintptr_t *start, uintptr_t *end);

/* Reference clocks (lib/refclock.h): the arch's table, in order of preference; *n is set to how many. */
const struct refclock *const *refclock_table(size_t *n);

/*
 * Start following the time the host kept each vCPU from running while it
 * was runnable (x86 under KVM: steal time, lib/x86/steal.c). Returns
 * NULL, or why the arch cannot tell (TCG, no steal time): measurements
 * are then judged without it.
 */
const char *steal_init(void);
/* This vCPU's steal time so far, ns (0 without it); cheap enough for an interrupt handler. */
u64 steal_ns(void);

#endif
