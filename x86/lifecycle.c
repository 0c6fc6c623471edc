/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lifecycle: x86's clocks, the time of day and the LAPIC timer across host
 * events - pause, save/restore, live migration - that the runner performs
 * when the guest asks (docs/lifecycle.md).
 *
 * Which clocks depends on the accelerator, and so does what QEMU does to
 * each while the VM is stopped (the tables in common/lifecycle/x86/lifecycle_x86.c, the arch half, measured here):
 *  - KVM: the TSC and this vCPU's kvmclock; the TSC runs on through a
 *    pause and a save/restore, kvmclock stands still. The one-shot is the
 *    LAPIC timer in TSC-deadline mode; the time of day is kvmclock plus
 *    the wall clock MSR; the stopped flag is PVCLOCK_GUEST_STOPPED in
 *    each vCPU's own kvmclock area.
 *  - TCG: the TSC, the HPET's main counter (64 bits) and the ACPI PM timer
 *    (24 bits on QEMU's pc machine, 32 where the FADT says so; extended to
 *    64 by each vCPU so that a wrap is not a step back); all three stand still while the VM is stopped and carry on
 *    from there after a restore or a migration. TCG's LAPIC has no
 *    TSC-deadline mode: the one-shot is its one-shot mode, the deadline
 *    turned into LAPIC counts by the timer's calibration against the TSC
 *    and lengthened by the calibration's error, so it cannot fire early.
 *    No time of day to the ms and no stopped flag: the one clock that
 *    follows the host's time of day under TCG is the CMOS RTC, in whole
 *    seconds, checked under both (below).
 * Why TCG too: clocks have broken across these events in QEMU's own device
 * models (the HPET, the PM timer, the emulated LAPIC, TCG's TSC), which a
 * KVM run does not touch. KVM without kvmclock, or another hypervisor,
 * SKIPs: the semantics are measured for these two only.
 *
 * What it checks, for each event, on every vCPU (common/lifecycle/lifecycle_engine.c):
 *  - every clock never goes backwards, and its largest step over the
 *    event is no more than the time QEMU says the guest was stopped plus
 *    what the window before the event saw;
 *  - each clock does what the table says while the guest is stopped (not
 *    judged for a stop too short to tell, a live migration's few ms);
 *  - KVM: the time of day keeps its offset to the host's, within 50 ms;
 *  - KVM: every vCPU finds PVCLOCK_GUEST_STOPPED set in its own kvmclock
 *    area after the event, none before it, and once it has cleared the
 *    flag (as Linux's watchdogs do) it stays clear to the end of the
 *    window after. QEMU asks KVM for it (KVM_KVMCLOCK_CTRL, each vCPU) as
 *    the VM runs again after any stop; a guest that does not find it
 *    takes the stop for a soft lockup. Measured here (QEMU 7.2,
 *    kvm-pvm): set on both vCPUs after every pause, save/restore and
 *    migration;
 *  - the CMOS RTC (KVM and TCG) reads the host's time of day after the
 *    event: timed at an edge of its seconds, it is behind the host's by
 *    less than a second (give or take 50 ms), and its offset to the
 *    host's moved over the event by at most 50 ms (plus the edges'
 *    uncertainty). Its time base must move with the host's across the
 *    stop (QEMU's default -rtc clock=host, carried in the migration):
 *    measured here, the offset moved by 0-5 ms, and with -rtc clock=vm
 *    by -1107 ms over a 1 s save;
 *  - the LAPIC timer: on vCPUs whose turn it is, a one-shot armed as the
 *    request goes out fires after its deadline and within 0.5 s of the
 *    runner's answer; on the others it ticks periodically at 100 Hz
 *    across the event and keeps its rate after it (within 10% of nominal
 *    or of the rate before by its tick counts; on a quiet KVM host also
 *    its period, timed by the ticks, against the period before, within the
 *    ticks' measured spread: about 0.1%; TCG has no steal time to tell a
 *    quiet host by), with no more catch-up ticks (closer than half a
 *    period) than the bound (default 16) plus those the vCPU's own delays
 *    explain. Turns alternate per event.
 * Each event prints its figures as RESULT lines: host-measured stop,
 * QMP downtime, each clock's step, one-shot lateness, catch-up ticks,
 * the period's change (when timed), the RTC's offset to the host's time
 * of day and how far it moved, the vCPUs that found the stopped flag.
 *
 * How: every vCPU samples its clocks in a loop with interrupts on (and
 * takes its stopped flag); the boot vCPU samples 0.5 s, prints
 * "LIFECYCLE-REQUEST: KIND SEQ", samples while it polls COM1's input for
 * the runner's "LIFECYCLE-DONE" line, then samples 0.5 s more. Before
 * and after, alone, it polls the RTC for an edge of its seconds (up to
 * 1 s each), carried to the host's stamps on the request and the answer
 * by the counter.
 *
 * Arguments (key=value):
 *   events=LIST  required: pause, save, migrate, each optionally *N,
 *                comma-separated; the cfg's events key must match
 *   catchup=N    catch-up ticks allowed beyond those explained (default 16)
 *   fault=NAME   test-only, every check must be seen failing: back, jump,
 *                flip, rearm, rate, rate5 (the period check: KVM only),
 *                storm, tod (KVM only; a SKIP under TCG), stopped_flag
 *                (the flag cleared unseen from the request on, as if the
 *                VMM never had it set; KVM only), stopped_reset (set again
 *                once after the guest cleared it; KVM only), rtc_behind
 *                (the RTC read after the event less the stop, as a time
 *                base left behind would read; the few ms of a live
 *                migration's stop stay within the bound)
 *                (common/lifecycle/lifecycle_engine.c)
 */
#include "x86/lifecycle_arch.h"

int main(int argc, char **argv)
{
	return lc_main(argc, argv, &lc_arch_x86);
}
