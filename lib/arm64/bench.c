/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 hook of lib/bench: an ISB on each side of the timed loop. */
#include "arch.h"
#include "arm64/sysreg.h"

/*
 * arch_counter() puts an ISB before its CNTVCT read, so the read cannot
 * start early; nothing stops it from completing late, after the first
 * instructions of the loop have run. The ISB here closes that side: the
 * counter is read before the loop starts, and (before the second read)
 * the loop has retired.
 */
void arch_bench_fence(void)
{
	isb();
}
