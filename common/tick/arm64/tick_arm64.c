/* SPDX-License-Identifier: GPL-2.0-only */
/* The generic timer under the timer-tick engine: the engine's hooks (struct tick_arch) and the vtimer and ptimer sources. */
#include "libc.h"
#include "arch.h"
#include "irq.h"
#include "arm64/gic.h"
#include "report.h"
#include "arm64/sysreg.h"
#include "arm64/tick.h"
#include "arm64/timer.h"

/*
 * Schedules are in arch_counter() ticks, that is CNTVCT. The virtual
 * timer compares its CVAL with CNTVCT, so a deadline is its own CVAL. The
 * physical timer compares with CNTPCT = CNTVCT + CNTVOFF: same system
 * counter, same frequency, shifted by an offset EL1 cannot read (under KVM
 * it is rarely 0). hook_init() measures it by bracketing a CNTPCT
 * read between two CNTVCT reads and keeps the upper end of the bracket,
 * so a physical CVAL derived from it can be late by the bracket's width,
 * never early.
 *
 * Each timer has a role for the run: the source under test, or the wake-up
 * timer (hook_wake_at). The wake-up timer is always the other one:
 * ptimer wakes for vtimer, vtimer for ptimer and for the idle baseline.
 */

/* Bracketed reads tried when measuring CNTPCT - CNTVCT; the narrowest counts. */
#define OFFSET_TRIES		16

enum timer_role {
	ROLE_IDLE,
	ROLE_SOURCE,
	ROLE_WAKE,
};

struct timer_state {
	enum timer_role role;
	bool armed;		/* CVAL written and the timer enabled */
	bool rearmed;		/* source: arm_at() ran during this interrupt */
	u64 wake_when;		/* wake: the CNTVCT value it must not fire before */
};

static struct timer_state timers[2];	/* by enum timer_kind */
static enum timer_kind wake_kind = TIMER_VIRT;
static u64 phys_offset, phys_offset_width;

static enum timer_kind other_timer(enum timer_kind kind)
{
	return kind == TIMER_VIRT ? TIMER_PHYS : TIMER_VIRT;
}

static void measure_phys_offset(void)
{
	u64 width = ~0ull;

	for (unsigned i = 0; i < OFFSET_TRIES; i++) {
		u64 v1 = timer_count(TIMER_VIRT);
		u64 p = timer_count(TIMER_PHYS);
		u64 v2 = timer_count(TIMER_VIRT);

		/* CNTVOFF lies in [p - v2, p - v1] (mod 2^64): keep the top */
		if (v2 - v1 < width) {
			width = v2 - v1;
			phys_offset = p - v1;
		}
	}
	phys_offset_width = width;
}

/* Fire once CNTVCT reaches when. */
static void arm_cval(enum timer_kind kind, u64 when)
{
	timer_set_cval(kind, kind == TIMER_PHYS ? when + phys_offset : when);
	timers[kind].armed = true;
}

static void disarm(enum timer_kind kind)
{
	timer_stop(kind);
	timers[kind].armed = false;
}

static void source_interrupt(enum timer_kind kind)
{
	struct timer_state *t = &timers[kind];

	t->rearmed = false;
	tick_interrupt();
	/* not re-armed (the run is over): the line is level, drop it before the EOI */
	if (!t->rearmed)
		disarm(kind);
}

static void wake_interrupt(enum timer_kind kind)
{
	struct timer_state *t = &timers[kind];

	/* the contract is "never before when", whatever the offset estimate did */
	if (arch_counter() < t->wake_when) {
		arm_cval(kind, t->wake_when);
		return;
	}
	disarm(kind);
	t->role = ROLE_IDLE;
	tick_wake();
}

static void timer_interrupt(struct pt_regs *regs, unsigned irq)
{
	enum timer_kind kind = irq == timer_irq(TIMER_VIRT) ? TIMER_VIRT : TIMER_PHYS;
	struct timer_state *t = &timers[kind];

	/*
	 * The PPI is level-sensitive and may still look asserted for a moment
	 * after a CVAL write moved the deadline: only a timer that is armed
	 * and whose condition is met has really fired.
	 */
	if (!t->armed || !timer_fired(kind))
		return;
	switch (t->role) {
	case ROLE_SOURCE:
		source_interrupt(kind);
		break;
	case ROLE_WAKE:
		wake_interrupt(kind);
		break;
	default:
		disarm(kind);
		break;
	}
}

/* ---- the hooks ---------------------------------------------------------- */

/*
 * Both PPIs are enabled here, so that arming the wake-up later is two
 * register writes; a timer that is not armed keeps its line low.
 */
static void hook_init(void)
{
	for (enum timer_kind k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		disarm(k);
		timers[k].role = ROLE_IDLE;
		if (!timer_irq(k))
			continue;
		install_irq_handler(timer_irq(k), timer_interrupt);
		if (gic_version())
			gic_enable_irq(timer_irq(k));
	}
	wake_kind = TIMER_VIRT;
	measure_phys_offset();
}

/* CNTFRQ_EL0 is the frequency the system counter was given, not an estimate. */
static u64 hook_counter_hz(const char **how)
{
	*how = "CNTFRQ_EL0";
	return timer_freq();
}

/*
 * WFI wakes on a pending interrupt even while PSTATE.I masks it, so the
 * check of the engine's flag and the sleep cannot race with the interrupt.
 * The ISB makes the unmasking take effect before the mask comes back.
 */
static void hook_wait(void)
{
	wfi();
	irq_enable();
	isb();
	irq_disable();
}

static void hook_flush(void)
{
	irq_enable();
	isb();
	irq_disable();
}

static bool hook_wake_at(u64 when)
{
	struct timer_state *t = &timers[wake_kind];
	unsigned irq = timer_irq(wake_kind);

	if (!gic_version() || !irq || !timer_freq())
		return false;
	t->role = ROLE_WAKE;
	t->wake_when = when;
	arm_cval(wake_kind, when);
	return true;
}

static void hook_wake_cancel(void)
{
	/* the PPI stays enabled: a disarmed timer keeps its line low */
	disarm(wake_kind);
	timers[wake_kind].role = ROLE_IDLE;
}

/* Both generic timers are taken (source and wake-up): every source is TICK_OWN_TIMER. */
static bool hook_guard_at(u64 when)
{
	return false;
}

static void hook_guard_cancel(void)
{
}

/* ---- the sources -------------------------------------------------------- */

static const char *timer_probe(enum timer_kind kind)
{
	if (!gic_version())
		return "no GIC in the device tree to take its interrupt";
	if (!timer_irq(kind))
		return "the device tree names no interrupt for it";
	return NULL;
}

static const char *timer_setup(enum timer_kind kind, u64 hz, struct tick_plan *plan)
{
	u64 freq = tick_counter_hz();

	/* rounded to the nearest count: the plan reports the rate that results */
	plan->period_counts = (freq + hz / 2) / hz;
	if (!plan->period_counts)
		return "hz is above the counter's frequency";
	/* the timer compares against the counter itself: one count is one tick, exactly */
	plan->cal.ratio_fx = TICK_FX_ONE;
	plan->cal.err_ppb = 0;
	if (kind == TIMER_PHYS)
		report_info("CNTPCT - CNTVCT measured as at most %lld ticks (bracket %llu ticks wide): "
			    "physical deadlines are late by up to the width, never early",
			    (s64)phys_offset, phys_offset_width);
	timers[kind].role = ROLE_SOURCE;
	wake_kind = other_timer(kind);
	gic_enable_irq(timer_irq(kind));
	return NULL;
}

static u64 timer_start_oneshot(enum timer_kind kind)
{
	/* the counter always runs: the timer starts counting when first armed */
	return arch_counter();
}

static void timer_arm_at(enum timer_kind kind, u64 when)
{
	arm_cval(kind, when);
	timers[kind].rearmed = true;
}

static void timer_stop_source(enum timer_kind kind)
{
	disarm(kind);
	timers[kind].role = ROLE_IDLE;
	gic_disable_irq(timer_irq(kind));
}

/*
 * A tick source's hooks take no argument: generate the five for each
 * generic timer, all passing its kind to the shared functions above.
 */
#define GENERIC_TIMER_SOURCE(src, which, desc)                          \
	static const char *src##_probe(void)                                  \
	{                                                                     \
		return timer_probe(which);                                     \
	}                                                                     \
	static const char *src##_setup(u64 hz, struct tick_plan *plan)      \
	{                                                                     \
		return timer_setup(which, hz, plan);                           \
	}                                                                     \
	static u64 src##_start(void)                                          \
	{                                                                     \
		return timer_start_oneshot(which);                             \
	}                                                                     \
	static void src##_arm_at(u64 when, u64 now)                           \
	{                                                                     \
		timer_arm_at(which, when);                                     \
	}                                                                     \
	static void src##_stop(void)                                          \
	{                                                                     \
		timer_stop_source(which);                                      \
	}                                                                     \
	const struct tick_source tick_source_##src = {                        \
		.name = #src,                                                 \
		.what = desc,                                                 \
		.kind = TICK_ONESHOT,                                         \
		/* the other generic timer wakes */                   \
		.wake_use = TICK_OWN_TIMER,                                   \
		.probe = src##_probe,                                         \
		.setup = src##_setup,                                         \
		.start = src##_start,                                         \
		.arm_at = src##_arm_at,                                       \
		.stop = src##_stop,                                           \
	}

GENERIC_TIMER_SOURCE(vtimer, TIMER_VIRT, "generic virtual timer (CNTV), one-shot by CVAL");
GENERIC_TIMER_SOURCE(ptimer, TIMER_PHYS, "generic physical timer (CNTP), one-shot by CVAL");

const struct tick_arch tick_arch_arm64 = {
	TICK_ARCH_HOOKS,
};
