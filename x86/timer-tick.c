/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer-tick: one timer source interrupting at a fixed rate while the
 * guest halts between ticks - the load a tickful idle guest puts on its
 * host. scripts/timer-overhead.py runs it per source and reads QEMU's CPU
 * time and system calls around it; docs/timers.md has the details.
 *
 * What it checks: the source can be calibrated and programmed; ticks lost
 * that nothing explains (KVM steal time, and under the runner the host's
 * evidence: QEMU's threads' waits, the host's own steal) are at most one
 * plus what chance allows; no tick is late by more than 19 ms beyond that
 * evidence; the interrupts came at the schedule's rate; no tick arrives
 * before its slot in the schedule, beyond the calibration's stated error
 * (for TSC-deadline, whose deadline is a TSC value, not at all); a source
 * that stops is a FAIL naming the last tick, not a hang; the TSC runs at the
 * frequency the engine uses and the schedule at hz, against a reference
 * clock (HPET main counter, or the ACPI PM timer for the HPET sources). It
 * reports ticks expected and received, lateness min/median/p99/max, steal
 * time and what it explains, and the rates as RESULT lines
 * (docs/timers.md).
 *
 * How: the i-th interrupt is held to the i-th slot of a schedule in TSC
 * ticks that starts when the source is started. Periodic sources reload
 * themselves; one-shot ones are re-armed from each interrupt for the next
 * slot. Between ticks the CPU halts. A source the machine lacks is a SKIP
 * with the reason. The lines "phase start" and "phase end" bracket the
 * ticking, for the host-side measurement.
 *
 * Arguments (key=value):
 *   source=S   lapic-periodic, lapic-oneshot, tsc-deadline, hpet,
 *              hpet-routed (the HPET's last timer on its own IOAPIC input:
 *              q35), hpet-routed-oneshot, pit, pit-oneshot (channel 0
 *              in mode 0, re-armed every tick; hz 19 or more), rtc (hz a
 *              power of two, 2..8192), or none: no timer, one wake-up after
 *              seconds (the baseline)
 *   hz=N       ticks per second, 1..10000 (default 1000)
 *   seconds=N  length of the run, 1..600 (default 10)
 *   fault=F    test-only, to watch a check fail: drop10 (one tick in ten
 *              not counted), hold20 and hold50 (one interrupt held 20 or
 *              50 ms), freq1 and freq5 (the TSC's frequency taken 1 % or
 *              5 % high), stop100 (a one-shot source not re-armed after
 *              100 ticks)
 */
#include "libc.h"
#include "x86/tick.h"

static const struct tick_source *const sources[] = {
	&tick_source_lapic_periodic, &tick_source_lapic_oneshot,
	&tick_source_tsc_deadline,   &tick_source_hpet,
	&tick_source_hpet_routed,    &tick_source_hpet_routed_oneshot,
	&tick_source_pit,	     &tick_source_pit_oneshot,
	&tick_source_rtc,
};

int main(int argc, char **argv)
{
	return tick_main(argc, argv, &tick_arch_x86, sources, ARRAY_SIZE(sources));
}
