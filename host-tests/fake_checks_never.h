/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch hooks a check must never call (the counter, a call run on another vCPU, the wait for it): each one called fails the test. */
/*
 * What: arch_counter(), on_cpu_async() and on_cpu_wait(), each failing
 * the test with what the check did ("a check read the counter").
 * Why: the checks judge a record the sampling or the hand-offs left; one
 * that reads the clock or runs a hand-off itself judges something else.
 * The tests of the hand-offs' judgments (lifecycle's agreement, the
 * cpu-off-on engine's) each had spelled these again.
 * How: header-only, included once by a test, after cmocka.h and
 * host_shim.h.
 */
#ifndef VMTICK_FAKE_CHECKS_NEVER_H
#define VMTICK_FAKE_CHECKS_NEVER_H

/*
 * What a call the checks must never make does: fail the test (cmocka's
 * fail_msg, the default), or, in a host tool or a fuzzer that has no test
 * to fail, define CHECKS_NEVER(what) before including this (print and
 * abort). CHECKS_NEVER_HOST also gives cpu_count() and arch_counter_hz(),
 * which a judgment of a record must never ask either (a test gives them
 * through fake_checks_arch.h instead).
 */
#ifndef CHECKS_NEVER
#define CHECKS_NEVER(what) fail_msg("a check %s", what)
#endif

u64 arch_counter(void);
void on_cpu_async(int cpu, void (*fn)(void *), void *arg);
void on_cpu_wait(int cpu);

u64 arch_counter(void)
{
	CHECKS_NEVER("read the counter");
	return 0;
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	CHECKS_NEVER("ran a hand-off");
}

void on_cpu_wait(int cpu)
{
	CHECKS_NEVER("waited for a vCPU");
}

#ifdef CHECKS_NEVER_HOST
int cpu_count(void);
u64 arch_counter_hz(void);

int cpu_count(void)
{
	CHECKS_NEVER("asked how many vCPUs the host has");
	return 0;
}

u64 arch_counter_hz(void)
{
	CHECKS_NEVER("read the host's counter frequency");
	return 0;
}
#endif

#endif
