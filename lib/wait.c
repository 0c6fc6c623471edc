/* SPDX-License-Identifier: GPL-2.0-only */
/* wait_at_least(): see wait.h. */
#include "wait.h"
#include "arch.h"
#include "stats.h"

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
			limit = ns_to_ticks(timeout_ms * 1000000ull, arch_counter_hz());
		} else if (now - start > limit) {
			return false;
		}
	}
	return true;
}
