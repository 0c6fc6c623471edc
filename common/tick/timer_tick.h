/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine: a timer source as the common half sees it, and the hooks each arch gives it. */
#ifndef VMTICK_TIMER_TICK_H
#define VMTICK_TIMER_TICK_H

#include "arch.h"
#include "libc.h"
#include "tick_math.h"

/*
 * Vocabulary. "Counter" is arch_counter() (the TSC, CNTVCT): every
 * timestamp and every schedule is in counter ticks. A source has its own
 * clock ("source counts": APIC bus cycles, PIT or HPET ticks); tick_cal
 * says how many counter ticks one source count lasts, as measured here;
 * common/tick/tick_math.h holds it and the conversions between the two.
 */

/* What a source's set-up decided: the period it will program, and its clock against the counter. */
struct tick_plan {
	u64 period_counts;
	struct tick_cal cal;
};

enum tick_kind {
	/* the source reloads itself: slot i is the (i+1)-th period after start */
	TICK_PERIODIC,
	/* the engine arms each slot from the interrupt of the one before */
	TICK_ONESHOT,
	/* no timer: the idle baseline */
	TICK_NONE,
};

/*
 * Whether the source is the timer that struct tick_arch's wake_at() also uses:
 * its guard is then guard_at()'s second timer, not the wake-up.
 */
enum tick_wake_use {
	TICK_OWN_TIMER,
	TICK_SHARES_WAKE_TIMER,
};

struct tick_source {
	const char *name; /* the source= value */
	const char *what; /* for messages: "LAPIC timer, periodic mode" */
	enum tick_kind kind;
	enum tick_wake_use wake_use;
	/*
	 * The reference clock (lib/refclock.h) that is this source's own
	 * device, which the rate check must not use; NULL: the one called name.
	 */
	const char *refclock;
	/* NULL when the machine has it, else the reason (a SKIP). */
	const char *(*probe)(void);
	/*
	 * Calibrate and route, program nothing that ticks: fill plan for hz
	 * ticks per second (hz is the tick rate throughout the engine, as in
	 * hz=; the counter's frequency is counter_hz). Returns NULL, or why
	 * the source cannot tick at hz here (a FAIL).
	 */
	const char *(*setup)(u64 hz, struct tick_plan *plan);
	/*
	 * Periodic: start ticking with the planned period. One-shot: enable
	 * the source unarmed. Returns the counter value read just before the
	 * source started counting: the schedule's anchor.
	 */
	u64 (*start)(void);
	/* One-shot only: fire once the counter reaches when (at once if passed); now is recent. */
	void (*arm_at)(u64 when, u64 now);
	/*
	 * One-shot, optional: a source whose arm_at() abandons an arming it
	 * finds passed and arms again further out, which may then fire twice.
	 * Called first thing for each interrupt of the run: true when the
	 * interrupt is an abandoned arming's, not the arming in force's; the
	 * engine then leaves it uncounted and the arming stands. NULL: every
	 * interrupt is the arming in force's. It must never excuse an
	 * interrupt that no abandoned arming can explain (an early one).
	 */
	bool (*stale)(void);
	/*
	 * Periodic only, fault=miss: how many expiries the mute must span for
	 * one to be lost (0 means 1). A masked edge-triggered IOAPIC pin drops
	 * the expiry; KVM keeps a LAPIC timer expiry pending while LVTT is
	 * masked and delivers it on the unmask, so a second expiry under the
	 * mask is what coalesces (QEMU's TCG LAPIC drops both).
	 */
	unsigned int mute_span;
	/*
	 * Periodic only: keep the source's interrupts from reaching the CPU
	 * (on) or let them through again (off), the source ticking on at its
	 * phase; an expiry while muted is never delivered (fault=miss).
	 */
	void (*mute)(bool on);
	/* Stop ticking and unroute. */
	void (*stop)(void);
};

/*
 * What each arch gives the engine: common/tick/x86/tick_x86.c's tick_arch_x86,
 * common/tick/arm64/tick_arm64.c's tick_arch_arm64. Steal time comes from lib
 * (steal_ns(), lib/arch.h).
 */
struct tick_arch {
	/*
	 * Once, before any probe: quiet every timer the machine starts with,
	 * install handlers, and get whatever wake_at() needs ready (so that
	 * arming it later costs no time).
	 */
	void (*init)(void);
	/*
	 * The counter's frequency, as well as the arch can tell it (rates and
	 * ns figures depend on it, the schedule does not); how names the method.
	 */
	u64 (*counter_hz)(const char **how);
	/* With interrupts off: take one interrupt (sleeping until it comes), return with them off again. */
	void (*wait)(void);
	/* With interrupts off: take whatever is already pending, without sleeping. */
	void (*flush)(void);
	/*
	 * Call tick_wake() once the counter has reached when (never before);
	 * returns false when the machine has no timer to do that with.
	 */
	bool (*wake_at)(u64 when);
	void (*wake_cancel)(void);
	/*
	 * Call tick_wake() once the counter has reached when (never before), by
	 * a timer other than wake_at()'s: the guard of a source that is itself
	 * the wake-up timer. Returns false when the machine has none.
	 */
	bool (*guard_at)(u64 when);
	void (*guard_cancel)(void);
	/*
	 * Test-only, optional: request the tick's interrupt on this CPU at once,
	 * as a timer that fires before its time would (fault=early10).
	 */
	void (*raise)(void);
};

/*
 * The hooks every arch half has, each named as its member with hook_ in
 * front (static hook_init(), hook_counter_hz(), ...): an arch's struct
 * tick_arch starts with these and adds the optional ones it has.
 */
#define TICK_ARCH_HOOKS                        \
	.init = hook_init,                     \
	.counter_hz = hook_counter_hz,         \
	.wait = hook_wait,                     \
	.flush = hook_flush,                   \
	.wake_at = hook_wake_at,               \
	.wake_cancel = hook_wake_cancel,       \
	.guard_at = hook_guard_at,             \
	.guard_cancel = hook_guard_cancel

/*
 * The engine: parse source=NAME hz=N seconds=N, run the source through
 * its schedule, report. srcs is the test's table of the arch's sources;
 * "none" (the idle baseline) is built in. Returns the exit code.
 */
int tick_main(int argc, char **argv, const struct tick_arch *arch, const struct tick_source *const *srcs,
	      size_t n);

/* The counter's frequency the engine works with (struct tick_arch's counter_hz()). */
u64 tick_counter_hz(void);

/* The arch half calls these from its interrupt handlers, before acknowledging. */
void tick_interrupt(void);
/*
 * A source with a stale() hook calls this between an arming's write and
 * its read-back: slow_arm= stretches that moment there (docs/timers.md).
 */
void tick_slow_arm(void);
/* The wake-up armed with struct tick_arch's wake_at() has come (never before its time). */
void tick_wake(void);

/*
 * Measure a source's clock against the counter: read() returns the
 * source's count since some fixed point, monotonic, and is called often
 * enough (every few microseconds) to follow wraps. The window is the
 * engine's: long enough that the error, spread over the run, stays well
 * inside a period. Returns false when the source did not count.
 */
bool tick_calibrate(u64 (*read)(void), struct tick_cal *cal);

#endif
