/* SPDX-License-Identifier: GPL-2.0-only */
/* The time of day at start-up: one rule for every clock a test holds against the host's time of day. */
#ifndef VMTICK_TOD_H
#define VMTICK_TOD_H

#include "libc.h"

/*
 * The rule. The runner takes the host's time of day H just before it
 * starts the guest and passes it in (host_time=, unittests.cfg's
 * {host_time}). The guest's counter then counts E from a start of its own
 * (the test's main(); kvmclock: the VM's creation), S after H. At a
 * reading the true time of day is H + S + E, so the clock's reading R
 * gives
 *
 *     offset = R - H - E = S - (what R lost)
 *
 * the figure: how far the clock is from the host's time of day plus what
 * elapsed. It may lie
 *   behind by at most  the clock's resolution (it truncates: a seconds
 *                      register reads up to 1 s behind the time it holds)
 *                      + its rounding (kvmclock: 1 ms, its test's
 *                      WALL_ROUNDING_NS)
 *                      + the counter's drift over E
 *   ahead by at most   the threshold (S: the runner starting QEMU, QEMU
 *                      starting, the firmware; the test's argument)
 *                      + 1 s when H had no fraction (date +%s is up to 1 s
 *                      before the real H)
 *                      + the counter's drift over E.
 * The drift: E is counted by the guest's counter, which may run from the
 * host's time of day by up to TOD_COUNTER_PPM (the host's time of day is
 * slewed by NTP, by up to 500 ppm, which the TSC under KVM and kvmclock do
 * not follow; lib/x86/refclock.c trusts QEMU's clocks to 1000 ppm), on
 * either side. Both ends are included.
 *
 * The three checks this replaces, each a case of it:
 *  - kvmclock (x86/kvmclock_test.c, "kvmclock.wallclock.startup_delay_ms"):
 *    R = KVM's boot time of day + kvmclock, E = kvmclock, so the figure is
 *    the boot time of day - H, as before. Its band was [-(1 ms + 1000 ppm
 *    of E), threshold (+1 s)]: resolution 1 ns, rounding 1 ms, the same
 *    drift. Changed: the drift now widens the upper end too (a kvmclock
 *    slow against the host's time of day makes the boot time of day late
 *    as surely as a fast one makes it early); under 1 ms in a 0.5 s
 *    threshold.
 *  - the RTC (x86/rtc_test/update.c, "rtc.tod_offset_ms"): the figure was
 *    R - H in whole ms against (e - 1000, e + threshold], e = E in ms: the
 *    "- 1000" is the 1 s resolution (QEMU sets it by truncating the host's
 *    time, so at an update edge it is a fraction of a second behind).
 *    Changed: the figure is now R - H - E (what the band did by moving with
 *    e), to the ns; the lower end is included (1 ms wider: a reading
 *    exactly 1 s behind is one the rounding of H and E can make); the
 *    drift widens each end by 1000 ppm of E (1-2 ms); and a host time
 *    without a fraction now adds 1 s above (it was missing: R - H then
 *    reads up to 1 s high).
 *  - the PL031 (arm/pl031_test.c, "pl031.tod_offset_s"): the figure was
 *    RTCDR - floor(H) in whole seconds against [-1, threshold]. Changed:
 *    the figure is R - H - E to the ns (it ignored E, a few ms before the
 *    check, and the fraction of H, which it dropped: up to 1 s of the
 *    upper end spent on that); a host time without a fraction now adds
 *    1 s above; the drift as above (us here).
 * The figure keeps each check's name and unit, printed to the ns (scale 6
 * for ms, 9 for s), so the band's ends are exact and no rounding of the
 * figure decides an outcome.
 *
 * Not on it: a reading is timed when the guest has it (the RTC's at its
 * update interrupt's handler), so what the delivery delay adds to E is
 * taken from S; QEMU's start-up (0.1 s and more) covers it.
 *
 * Not this rule, on purpose: the seconds clock after a lifecycle event
 * (common/lifecycle/lifecycle_tod.c, "tod_offset_ms" and "tod_moved_ms").
 * There the clock is read at one of its own edges, timed by the counter,
 * against the host's time stamps of the request and the answer carried to
 * that edge by the counter: no start-up S, no E from a start, no H without
 * a fraction. Its band is the resolution alone (behind by less than a
 * second, at an edge) widened by the stamps' and the edge's uncertainty on
 * both sides; its second check, the offset moved over the event, has no
 * start-up counterpart at all.
 */
#define TOD_COUNTER_PPM 1000

/* The figure's unit: ms (printed to the ns, scale 6) or s (scale 9). */
enum tod_unit { TOD_UNIT_MS, TOD_UNIT_S };

/* What the clock is. */
struct tod_clock {
	const char *name;	/* in the sentence: "the RTC", "PL031", "kvmclock" */
	const char *figure;	/* the BOUND line's name, e.g. "rtc.tod_offset_ms" */
	enum tod_unit unit;
	u64 resolution_ns;	/* what it truncates to: NSEC_PER_SEC for a seconds register, 1 for ns */
	u64 rounding_ns;	/* what else a reading may lose (0 for most) */
};

/* Whether the host's time of day as passed in had a fraction (date +%s.%N) or not (date +%s). */
enum tod_host_time { TOD_HOST_FRACTION, TOD_HOST_WHOLE_SECONDS };

/* One reading and what it is held against, all in ns. */
struct tod_reading {
	u64 clock_ns;		/* the clock's reading, since the epoch */
	u64 host_ns;		/* H: the host's time of day as passed in, since the epoch */
	enum tod_host_time host_time;
	u64 elapsed_ns;		/* E: the guest's counter since its start */
	u64 threshold_ns;	/* the most S may be */
};

/* The band of the rule, ns; an end beyond s64 is BOUND_OPEN_LO/HI. */
struct tod_band {
	s64 lo, hi;
	u64 drift_ns;		/* TOD_COUNTER_PPM of E, in each end */
};

/* R - H - E. */
s64 tod_offset_ns(const struct tod_reading *r);
struct tod_band tod_band(const struct tod_clock *c, const struct tod_reading *r);
/* Whether the offset lies in the band. */
bool tod_holds(const struct tod_clock *c, const struct tod_reading *r);
/*
 * The one bounded check (lib/report.h report_bounded): the BOUND line
 * "c->figure OFFSET UNIT LO..HI", then the sentence, e.g. "the RTC reads
 * the host's time of day + 1.234 s elapsed -312.456789 ms, allowed
 * -1001.234000 ms (resolution 1 s, rounding 0 ns, drift 1.234 ms) to
 * +4001.234000 ms (threshold 4 s, drift 1.234 ms)". Returns the outcome.
 */
bool tod_check(const struct tod_clock *c, const struct tod_reading *r);

#endif
