/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_off_on: an AP turned off (INIT) and on again (SIPI), N times, with
 * the TSC checked across the vCPUs around each restart.
 *
 * Why: INIT resets a vCPU but not its TSC (Intel SDM vol. 3, "Time-Stamp
 * Counter": only RESET clears it). A hypervisor that rewrites the vCPU's
 * TSC offset on that reset (as KVM arm64 once rewrote CNTVOFF, for every
 * vCPU, on a vCPU reset: docs/real-bugs.md) makes the restarted vCPU's
 * TSC, or the others', jump; no other test ever restarts a vCPU.
 *
 * How (common/cpu_cycle/cpu_cycle.c), on the last vCPU, each cycle:
 *  1. hand-offs: the boot vCPU and each other vCPU take turns reading the
 *     TSC through shared memory, 64 turns each (HANDOFF_ROUNDS); every
 *     read must be at least the one just before it, made by the other vCPU;
 *  2. the AP parks with interrupts off (smp_cpu_off()); the boot vCPU
 *     sends it INIT then SIPI (smp_cpu_restart(), lib/x86/smp.c) and
 *     waits until it is back in its idle loop;
 *  3. the hand-offs again, the restarted vCPU's first reads included;
 *  4. each vCPU's first read after the cycle is at least its last before
 *     it, and each vCPU's TSC minus the boot vCPU's, bracketed by the
 *     hand-offs' tightest turn, is the same after the cycle as before
 *     (the brackets overlap, within a tick);
 *  5. the restarted AP takes an IPI (vector 0xe8) with interrupts on.
 *
 * Arguments, key=value:
 *   cycles=N    restarts, 1-1000 (default 3)
 *   fault=NAME  test-only, what a buggy hypervisor would show:
 *               offset (the restarted vCPU's TSC resumes where it stopped,
 *               behind the others by the time it was off: steps 1, 3 and 4
 *               fail), back (one read of the restarted vCPU one tick behind
 *               the boot vCPU's before it: step 1), reset (every vCPU's
 *               TSC starts again from 0 at the restart: step 4's first
 *               half), noirq (the restarted vCPU keeps interrupts off:
 *               step 5)
 * Anything else is a failure. Needs 2-16 vCPUs (else SKIP).
 */
#include "x86/cycle.h"

int main(int argc, char **argv)
{
	return cpu_cycle_main(argc, argv, &cpu_cycle_arch_x86);
}
