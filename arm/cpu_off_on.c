/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_off_on: a secondary CPU turned off (PSCI CPU_OFF) and on again
 * (PSCI CPU_ON), N times, with CNTVCT checked across the vCPUs around
 * each restart, and CNTVCT - CNTPCT (minus CNTVOFF) on each of them.
 *
 * Why: KVM arm64 once reset the virtual counter offset (CNTVOFF) of every
 * vCPU of the VM when one vCPU was reset, and PSCI CPU_ON resets the vCPU
 * it starts: after a CPU_OFF/CPU_ON, CNTVCT jumped back on the other
 * vCPUs (docs/real-bugs.md). The counter must go on through a CPU's
 * restart on every vCPU, the restarted one included, as the system
 * counter lives outside the PEs. No other test ever restarts a vCPU.
 *
 * How (common/cpu_cycle/cpu_cycle.c), on the last vCPU, each cycle:
 *  1. hand-offs: the boot vCPU and each other vCPU take turns reading
 *     CNTVCT through shared memory, 64 turns each (HANDOFF_ROUNDS); every
 *     read must be at least the one just before it, made by the other
 *     vCPU; and on each
 *     vCPU CNTVCT - CNTPCT, CNTPCT read between two CNTVCT reads;
 *  2. the secondary calls PSCI CPU_OFF on itself (smp_cpu_off()); the boot
 *     vCPU waits until AFFINITY_INFO says it is off, calls CPU_ON for it
 *     (smp_cpu_restart(), lib/arm64/smp.c) and waits until it is back in
 *     its idle loop;
 *  3. step 1 again, the restarted vCPU's first reads included;
 *  4. each vCPU's first read after the cycle is at least its last before
 *     it; each vCPU's CNTVCT minus the boot vCPU's, bracketed by the
 *     hand-offs' tightest turn, is the same after the cycle as before; and
 *     CNTVCT - CNTPCT is the same on every vCPU before and after (the
 *     brackets overlap, within a tick);
 *  5. the restarted CPU takes an SGI (3) with IRQs unmasked.
 *
 * Arguments, key=value:
 *   cycles=N    restarts, 1-1000 (default 3)
 *   fault=NAME  test-only, what a buggy hypervisor would show:
 *               offset (the restarted vCPU's CNTVCT resumes where it
 *               stopped, behind the others by the time it was off, as if
 *               its CNTVOFF had been rewritten: steps 1, 3 and 4 fail),
 *               back (one read of the restarted vCPU one tick behind the
 *               boot vCPU's before it: step 1), reset (every vCPU's
 *               CNTVCT starts again from 0 at the restart, the KVM bug:
 *               step 4's first half), noirq (the restarted vCPU keeps
 *               IRQs masked: step 5)
 * Anything else is a failure. Needs 2-16 vCPUs (else SKIP).
 */
#include "arm64/cycle.h"

int main(int argc, char **argv)
{
	return cpu_cycle_main(argc, argv, &cpu_cycle_arch_arm64);
}
