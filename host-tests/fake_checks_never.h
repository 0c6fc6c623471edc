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

u64 arch_counter(void);
void on_cpu_async(int cpu, void (*fn)(void *), void *arg);
void on_cpu_wait(int cpu);

u64 arch_counter(void)
{
	fail_msg("a check read the counter");
	return 0;
}

void on_cpu_async(int cpu, void (*fn)(void *), void *arg)
{
	fail_msg("a check ran a hand-off");
}

void on_cpu_wait(int cpu)
{
	fail_msg("a check waited for a vCPU");
}

#endif
