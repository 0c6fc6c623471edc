/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lifecycle: the generic counter and the virtual and physical timers
 * across host events - pause, save/restore, live migration - that the
 * runner performs when the guest asks (docs/lifecycle.md).
 *
 * What it checks, for each event, on every vCPU (common/lifecycle/lifecycle_engine.c):
 *  - CNTVCT and CNTPCT never go backwards, and their largest step over
 *    the event is no more than the time QEMU says the guest was stopped
 *    plus what the window before the event saw;
 *  - each counter does what QEMU does to it while the guest is stopped,
 *    as measured here (the table in common/lifecycle/arm64/lifecycle_arm64.c, the arch half): under TCG both follow QEMU's
 *    virtual clock, which stands still while the VM is stopped and is
 *    carried across save/restore and migration;
 *  - the timers: each vCPU has both, one armed as a one-shot (by CVAL)
 *    as the request goes out, which must fire after its deadline and
 *    within 0.5 s of the runner's answer, the other ticking at 100 Hz
 *    (re-armed from its interrupt at CVAL + period, so a counter that
 *    jumped would show as a storm of catch-up ticks), which must keep its
 *    rate (within 10% of nominal or of the rate before) with no more
 *    catch-up ticks than the bound (default 16) plus those the vCPU's own
 *    delays explain. The roles swap with every event.
 *  - the PL031 reads the host's time of day after the event: timed at an
 *    edge of its seconds (polled before the window before and after the
 *    window after), it is behind the host's by less than a second, and
 *    its offset to the host's moved over the event by at most 50 ms.
 *    QEMU sets RTCDR from the host's time of day and, since its
 *    migrate-tick-offset property (true by default in QEMU 7.2), carries that
 *    offset across save/restore and migration; measured here under TCG:
 *    0-5 ms from the host's at an edge, before and after every event.
 *    With -global pl031.migrate-tick-offset=false, the older way, the
 *    PL031 came back from a 1 s save 998 ms behind, and failed.
 *  - counter_set=TICKS (entered at EL2: virtualization=on, TCG): each
 *    vCPU lowers its CNTVOFF_EL2 by TICKS through the kernel's own EL2
 *    (lib/arm64/el2.h), so CNTVCT moves ahead by as much; -CNTVOFF_EL2
 *    must read what the write left after each event, and CNTVCT - CNTPCT
 *    must show it. Without EL2 an INFO says why.
 * No stopped flag (no pvclock here). RESULT lines as on x86.
 *
 * Arguments: as x86/lifecycle.c (events=LIST catchup=N fault=NAME
 * counter_set=TICKS rtc_set=SECS; of the faults stopped_flag and
 * stopped_reset are a SKIP here; counter_reset, counter_tick and
 * counter_stale need counter_set).
 */
#include "arm64/lifecycle_arch.h"

int main(int argc, char **argv)
{
	return lc_main(argc, argv, &lc_arch_arm64);
}
