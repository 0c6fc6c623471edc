/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer-tick: one timer source interrupting at a fixed rate while the
 * guest sleeps in WFI between ticks - the load a tickful idle guest puts
 * on its host - on the arm64 generic timer. The engine is common/tick/timer_tick.c
 * (shared with x86/timer-tick.c); common/tick/arm64/tick_arm64.c is the arm64 half.
 *
 * What it checks: the source can be set up; at most one tick is lost and
 * none is late by more than 19 ms (TCG has no steal time: the entries run
 * under -icount, where the host cannot delay guest time); no tick arrives
 * before its slot in the schedule, at all: both timers compare against the
 * counter the schedule is kept in, so there is no calibration error to
 * allow for; a source that stops is a FAIL naming the last tick; CNTVCT
 * runs at CNTFRQ_EL0 and the schedule at hz against the PL031 RTC's
 * seconds. It reports ticks expected and received, lateness
 * min/median/p99/max and the rates as RESULT lines (docs/timers.md).
 *
 * How: the i-th interrupt is held to the i-th slot of a schedule in
 * CNTVCT ticks that starts when the source is started; the timer is
 * re-armed by CVAL from each interrupt for the next slot. The run is
 * guarded by the other generic timer, armed for the end of the schedule
 * plus a grace period, so a source that stops ticking ends the run instead
 * of hanging it. A source the machine lacks is a SKIP with the reason. The
 * lines "phase start" and "phase end" bracket the ticking, for host-side
 * measurements.
 *
 * Arguments (key=value):
 *   source=S   vtimer: the virtual timer (CNTV), whose CVAL is a CNTVCT
 *              value, the counter itself;
 *              ptimer: the physical timer (CNTP), whose CVAL is a CNTPCT
 *              value: CNTVCT + CNTVOFF, which EL1 cannot read, so the
 *              offset is measured once and rounded up (deadlines can be
 *              late by the measurement's few ticks, never early);
 *              none: no timer, one wake-up (by the virtual timer) after
 *              seconds (the baseline)
 *   hz=N       ticks per second, 1..10000 (default 1000)
 *   seconds=N  length of the run, 1..600 (default 10)
 *   fault=F    test-only, to watch a check fail: drop10, hold20, hold50, freq1,
 *              freq5, stop100 (docs/timers.md)
 */
#include "libc.h"
#include "arm64/tick.h"

static const struct tick_source *const sources[] = {
	&tick_source_vtimer,
	&tick_source_ptimer,
};

int main(int argc, char **argv)
{
	return tick_main(argc, argv, &tick_arch_arm64, sources, ARRAY_SIZE(sources));
}
