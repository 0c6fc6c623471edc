/* SPDX-License-Identifier: GPL-2.0-only */
/* Reference clocks: clocks the machine keeps independently of the one under test, to check its rate. */
#ifndef VMTICK_REFCLOCK_H
#define VMTICK_REFCLOCK_H

#include "arch.h"
#include "libc.h"

/*
 * A clock under test (kvmclock, the TSC, CNTVCT) can only be judged
 * against a clock that was not derived from it. Each arch lists the ones
 * its machine has (x86: HPET main counter, ACPI PM timer, PIT channel 2,
 * CMOS RTC seconds; arm64: PL031 seconds) in refclock_table().
 *
 * How a rate is measured (lib/refclock.c, arch-neutral, host-tested): a
 * mark is the moment the reference's count changes, bracketed by reads of
 * the clock under test - the count became `count` at some moment between
 * `lo` and `hi`. Two marks a window apart give the clock's rate over the
 * window against the reference's nominal one, and the brackets' widths
 * (plus the reference's own tolerance) give the measurement's bound. A
 * fast reference (HPET) changes on every read; a slow one (RTC) is polled
 * until it does: the same loop serves both.
 */

struct refclock {
	const char *name; /* short, for RESULT names and arguments: "hpet", "pmtimer", "pit", "rtc", "pl031" */
	const char *what; /* for messages: "HPET main counter" */
	/* NULL when the machine has it (hz() is then valid), else the reason it is absent. */
	const char *(*probe)(void);
	/* Nominal frequency in Hz, from the hardware's own description (capability register, spec). */
	u64 (*hz)(void);
	/*
	 * Counts since some fixed point, extended to 64 bits across the
	 * hardware's wraps: callers poll it at least every max_poll_ns.
	 */
	u64 (*read)(void);
	/* The longest gap between read() calls that still follows every wrap. */
	u64 max_poll_ns;
	/*
	 * How far the reference's rate may differ from its nominal one, in
	 * ppb, for reasons the clock under test is not to blame for (an
	 * emulated device following the host's NTP-slewed clock, say); the
	 * reason is written where each arch defines its table.
	 */
	u64 tolerance_ppb;
};

/*
 * The reference's count became count at a moment between lo and hi, in
 * clock-under-test ticks. A slow reference moves by one count between two
 * reads, and [lo, hi] spans both reads: the edge itself lies inside (slack
 * 0). A fast one moves by many, so only the read that saw count is
 * bracketed: count was current then, its edge up to one count earlier
 * (slack 1, which the rate's bound adds in).
 */
struct refclock_mark {
	u64 count;
	u64 lo, hi;
	u64 slack;
};

/* A clock's rate against a reference over one window. */
struct refclock_rate {
	/* (clock's elapsed / clock_hz) / (reference's elapsed / its hz) - 1, in ppb */
	s64 err_ppb;
	/* half-width of what the brackets and the reference's tolerance leave unknown, ppb */
	u64 bound_ppb;
	/* the window, in ns of the reference */
	u64 window_ns;
};

/* The arch's table of them, refclock_table(), is an arch hook: lib/arch.h. */
/* The reference called name in this arch's table, or NULL. */
const struct refclock *refclock_find(const char *name);

/*
 * Wait for the reference's next count change and bracket it with reads of
 * clock(). Gives up (false) once clock() has advanced by timeout ticks.
 */
bool refclock_mark(const struct refclock *ref, u64 (*clock)(void), u64 timeout,
		   struct refclock_mark *m);

/*
 * The rate of a clock running at nominal clock_hz between two marks
 * (m0 before m1) against ref. Returns false when the marks cannot give a
 * rate (no counts or no ticks between them).
 */
bool refclock_rate(const struct refclock *ref, u64 clock_hz, const struct refclock_mark *m0,
		   const struct refclock_mark *m1, struct refclock_rate *rate);

/*
 * The narrowest of tries marks: a mark whose bracket a descheduled vCPU or
 * a slow exit widened is simply not kept. False when none came in time.
 */
bool refclock_mark_best(const struct refclock *ref, u64 (*clock)(void), u64 timeout,
			unsigned tries, struct refclock_mark *m);

/* One reference's part in refclock_measure(). */
struct refclock_result {
	const struct refclock *ref;	/* set by the caller */
	struct refclock_mark m0, m1;
	struct refclock_rate rate;
	const char *why;		/* NULL when rate holds a measurement, else why not */
};

/*
 * Measure clock (nominally clock_hz) against n references over one window
 * of about window ticks of clock: refclock_mark_best() of each reference,
 * every reference polled until the window has passed (timed by
 * arch_counter(), window's length in clock's nominal ticks, so that a
 * clock under test that stops cannot hold it open), refclock_mark_best()
 * of each again, and the rate. References are not polled while another
 * one is being marked, so a slow one (the RTC, seconds) cannot share a
 * call with one that wraps fast (the PIT, 55 ms): such a call sets every
 * why and measures nothing. Each wait for a mark gives up after
 * REFCLOCK_MARK_TIMEOUT_S.
 */
#define REFCLOCK_MARK_TIMEOUT_S 2
void refclock_measure(struct refclock_result *res, size_t n, u64 (*clock)(void), u64 clock_hz,
		      u64 window, unsigned tries);

#endif
