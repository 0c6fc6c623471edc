/* SPDX-License-Identifier: GPL-2.0-only */
/* The tree's waits on a condition, a counter or the clock: see wait.h. */
#include "wait.h"
#include "arch.h"
#include "stats.h"
#include "units.h"

void spin_until(u64 until)
{
	while (arch_counter() < until)
		cpu_relax();
}

void spin_ns(u64 ns)
{
	spin_until(arch_counter() + ns_to_ticks(ns, arch_counter_hz()));
}

bool wait_at_least(const volatile unsigned long *counter, unsigned long target, u64 timeout_ms)
{
	u64 start = 0, limit = 0;

	for (unsigned long spins = 1; __atomic_load_n(counter, __ATOMIC_ACQUIRE) < target; spins++) {
		u64 now;

		cpu_relax();
		if (spins % WAIT_SPINS_PER_CLOCK)
			continue;
		now = arch_counter();
		if (!start) {
			start = now;
			limit = ns_to_ticks(timeout_ms * NSEC_PER_MSEC, arch_counter_hz());
		} else if (now - start > limit) {
			return false;
		}
	}
	return true;
}

bool wait_cond_ticks(wait_cond_fn *cond, void *arg, u64 ticks)
{
	u64 start;

	if (cond(arg))
		return true;
	start = arch_counter();
	while (arch_counter() - start < ticks) {
		cpu_relax();
		if (cond(arg))
			return true;
	}
	return false;
}

bool poll_cond_ticks(wait_cond_fn *cond, void *arg, u64 ticks, u64 poll_ns)
{
	u64 start = arch_counter();
	bool done;

	while (!(done = cond(arg)) && arch_counter() - start < ticks)
		spin_ns(poll_ns);
	return done;
}

bool work_until(wait_step_fn *step, void *arg, u64 until)
{
	return work_until_by(arch_counter, step, arg, until);
}

bool work_until_by(u64 (*clock)(void), wait_step_fn *step, void *arg, u64 until)
{
	for (;;) {
		u64 now = clock();

		if (until != WAIT_FOREVER && now >= until)
			return false;
		if (step(arg, now))
			return true;
	}
}

void wait_reached(const volatile unsigned long *counter, unsigned long target)
{
	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < target)
		cpu_relax();
}
