/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every hook that arch-neutral code (libc, report, bench, the timer-tick
 * engine, tests) calls into the platform. Each arch implements them under
 * lib/<arch>/: the console in serial.c / pl011.c, SMP in smp.c, the
 * counter in tsc.c / timer.c, the timer-tick hooks in tick.c, the
 * reference clocks in refclock.c.
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

/* ---- the timer-tick engine's hooks (common/timer_tick.c; x86: lib/x86/tick.c) ---- */

/*
 * Once, before any probe: quiet every timer the machine starts with,
 * install handlers, and get whatever tick_arch_wake_at() needs ready (so
 * that arming it later costs no time).
 */
void tick_arch_init(void);
/*
 * The counter's frequency, as well as the arch can tell it (rates and ns
 * figures depend on it, the schedule does not); how names the method.
 */
u64 tick_arch_counter_hz(const char **how);
/* Interrupts off, on this CPU. */
void tick_arch_irqs_off(void);
/* With interrupts off: take one interrupt (sleeping until it comes), return with them off again. */
void tick_arch_wait(void);
/* With interrupts off: take whatever is already pending, without sleeping. */
void tick_arch_flush(void);
/*
 * Call tick_wake() once the counter has reached when (never before);
 * returns false when the machine has no timer to do that with.
 */
bool tick_arch_wake_at(u64 when);
void tick_arch_wake_cancel(void);
/*
 * Call tick_wake() once the counter has reached when (never before), by a
 * timer other than tick_arch_wake_at()'s: the guard of a source that is
 * itself the wake-up timer. Returns false when the machine has none.
 */
bool tick_arch_guard_at(u64 when);
void tick_arch_guard_cancel(void);
/*
 * Start following the time the host kept this vCPU from running while it
 * was runnable (x86 under KVM: steal time). Returns NULL, or why the arch
 * cannot tell (TCG, no steal time): the run is then judged without it.
 */
const char *tick_arch_steal_init(void);
/* This vCPU's steal time so far, ns; cheap enough for an interrupt handler. */
u64 tick_arch_steal_ns(void);

#endif
