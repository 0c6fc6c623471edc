/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 half of the timer-tick engine, as common/tick/arm64/tick_arm64.c is arm64's:
 * the engine's hooks (struct tick_arch), the LAPIC timer's sources, and HPET
 * timer 1 as the guard. The chipset's sources are in tick_chipset.c (HPET,
 * PIT) and tick_rtc.c (CMOS RTC), all declared in tick.h; all build on
 * drivers that know no ticks (apic_timer.c, hpet.c, pit.c, rtc.c).
 */
#include "x86/tick.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/desc.h"
#include "x86/hpet.h"
#include "x86/ioapic.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "report.h"
#include "stats.h"

/* HPET timer 1 is the guard of the LAPIC sources; in legacy replacement it drives ISA IRQ 8. */
#define HPET_GUARD_TIMER 1

void (*tick_device_ack)(void);

/* ---- the LAPIC timer ---- */

static struct {
	bool calibrated, counts;
	struct tick_cal cal;
	u64 period; /* LAPIC sources: the programmed count */
	u64 wake_target;
	bool wake_by_deadline;
} at;

bool tick_lapic_calibrate(struct tick_cal *cal)
{
	if (!at.calibrated) {
		at.calibrated = true;
		apic_timer_report_stated_clock();
		apic_timer_run_free(TIMER_TICK_VECTOR);
		at.counts = tick_calibrate(apic_timer_elapsed, &at.cal);
		apic_timer_count(0);
	}
	*cal = at.cal;
	return at.counts;
}

/* Counts lasting at least from now to when: started after now, it never fires before when. */
static void oneshot_until(u64 when, u64 now)
{
	u64 counts = tick_ticks_to_counts(&at.cal, when > now ? when - now : 0);

	apic_timer_count((u32)min(max(counts, 1ull), APIC_TIMER_COUNT_MAX));
}

static const char *lapic_probe(void)
{
	return cpu_has(CPUID_FEATURES, 'd', CPUID_1_EDX_APIC) ? NULL
							      : "no local APIC (CPUID.1:EDX[9])";
}

static const char *lapic_setup(u64 hz, struct tick_plan *plan)
{
	static char why[96];
	u64 apic_hz;

	if (!tick_lapic_calibrate(&plan->cal))
		return "the LAPIC timer does not count";
	apic_hz = tick_ticks_to_counts(&plan->cal, tick_counter_hz());
	at.period = (apic_hz + hz / 2) / hz;
	if (!at.period || at.period > APIC_TIMER_COUNT_MAX) {
		snprintf(why, sizeof(why), "hz=%llu needs an initial count of %llu",
			 hz, at.period);
		return why;
	}
	plan->period_counts = at.period;
	return NULL;
}

static u64 lapic_periodic_start(void)
{
	u64 t;

	apic_timer_periodic_mode(TIMER_TICK_VECTOR);
	t = arch_counter();
	apic_timer_count((u32)at.period);
	return t;
}

static u64 lapic_oneshot_start(void)
{
	apic_timer_oneshot_mode(TIMER_TICK_VECTOR);
	return arch_counter();
}

/*
 * The LVT timer entry masked: QEMU drops an expiry then, KVM keeps it
 * pending until the unmask (seen under kvm-pvm: 198 masked, 9 lost), so
 * fault=miss spans two expiries (tick_source.mute_span); the count
 * reloads on.
 */
static void lapic_mute(bool on)
{
	apic_timer_set_masked(on);
}

const struct tick_source tick_source_lapic_periodic = {
	.name = "lapic-periodic",
	.what = "LAPIC timer, periodic mode",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_SHARES_WAKE_TIMER,
	.probe = lapic_probe,
	.setup = lapic_setup,
	.start = lapic_periodic_start,
	.mute = lapic_mute,
	.mute_span = 2,
	.stop = apic_timer_stop,
};

const struct tick_source tick_source_lapic_oneshot = {
	.name = "lapic-oneshot",
	.what = "LAPIC timer, one-shot mode re-armed every tick",
	.kind = TICK_ONESHOT,
	.wake_use = TICK_SHARES_WAKE_TIMER,
	.probe = lapic_probe,
	.setup = lapic_setup,
	.start = lapic_oneshot_start,
	.arm_at = oneshot_until,
	.stop = apic_timer_stop,
};

static const char *tsc_deadline_probe(void)
{
	return apic_timer_has_tsc_deadline() ? NULL
					     : "the CPU has no TSC-deadline mode (CPUID.1:ECX[24])";
}

/* The deadline is a TSC value: the schedule is exact, nothing to calibrate. */
static const char *tsc_deadline_setup(u64 hz, struct tick_plan *plan)
{
	plan->cal.ratio_fx = TICK_FX_ONE;
	plan->cal.err_ppb = 0;
	plan->period_counts = (tick_counter_hz() + hz / 2) / hz;
	return NULL;
}

static u64 tsc_deadline_start(void)
{
	apic_timer_deadline_mode(TIMER_TICK_VECTOR);
	return arch_counter();
}

static void tsc_deadline_arm(u64 when, u64 now)
{
	apic_timer_deadline(when);
}

static void tsc_deadline_stop(void)
{
	apic_timer_deadline(0);
	apic_timer_mask();
}

const struct tick_source tick_source_tsc_deadline = {
	.name = "tsc-deadline",
	.what = "LAPIC timer, TSC-deadline mode",
	.kind = TICK_ONESHOT,
	.wake_use = TICK_SHARES_WAKE_TIMER,
	.probe = tsc_deadline_probe,
	.setup = tsc_deadline_setup,
	.start = tsc_deadline_start,
	.arm_at = tsc_deadline_arm,
	.stop = tsc_deadline_stop,
};

/* ---- the x86 hooks (lib/arch.h) ---- */

/* Every source's interrupt: edge-triggered or the LAPIC's own, or quieted at the device first. */
static void tick_irq(struct ex_regs *regs)
{
	tick_interrupt();
	if (tick_device_ack)
		tick_device_ack();
	apic_eoi();
}

/* A one-shot count tops out at 2^32 - 1 bus cycles (4.3 s at 1 GHz): long waits take several. */
static void wake_irq(struct ex_regs *regs)
{
	u64 now = arch_counter();

	if (!at.wake_by_deadline && now < at.wake_target)
		oneshot_until(at.wake_target, now);
	else
		tick_wake();
	apic_eoi();
}

static void guard_irq(struct ex_regs *regs);

static void hook_init(void)
{
	struct tick_cal cal;

	pic_mask_all();
	ioapic_init();
	pit_quiesce();
	handle_exception(TIMER_TICK_VECTOR, tick_irq);
	handle_exception(TIMER_WAKE_VECTOR, wake_irq);
	handle_exception(TIMER_GUARD_VECTOR, guard_irq);
	/* without TSC-deadline the wake-up is a one-shot count: calibrate now, not mid-run */
	if (!apic_timer_has_tsc_deadline())
		tick_lapic_calibrate(&cal);
}

/*
 * arch_counter_hz(): the hypervisor's timing leaf, kvmclock or the best of
 * a few PIT runs. Only rates and ns figures depend on it; the schedule is
 * built from each source's clock measured against the TSC itself.
 */
static u64 hook_counter_hz(const char **how)
{
	*how = "arch_counter_hz()";
	return arch_counter_hz();
}

/* sti holds interrupts off for one more instruction: none slips in before hlt. */
static void hook_wait(void)
{
	asm volatile("sti; hlt; cli" ::: "memory");
}

static void hook_flush(void)
{
	asm volatile("sti; nop; cli" ::: "memory");
}

static bool hook_wake_at(u64 when)
{
	struct tick_cal cal;

	at.wake_target = when;
	if (apic_timer_has_tsc_deadline()) {
		at.wake_by_deadline = true;
		apic_timer_deadline_mode(TIMER_WAKE_VECTOR);
		apic_timer_deadline(when);
		return true;
	}
	if (!tick_lapic_calibrate(&cal))
		return false;
	at.wake_by_deadline = false;
	apic_timer_oneshot_mode(TIMER_WAKE_VECTOR);
	oneshot_until(when, arch_counter());
	return true;
}

static void hook_wake_cancel(void)
{
	if (at.wake_by_deadline)
		apic_timer_deadline(0);
	apic_timer_stop();
}

/* ---- HPET timer 1: the guard of the LAPIC sources (hook_guard_at) ---- */

static struct {
	struct ioapic_route route;
	enum hpet_irq irq;
	u64 when; /* counter value the guard waits for */
	bool ready; /* timer 1 routed and enabled: arming is a comparator write */
} guard;

/*
 * Arm timer 1 to fire at least as late as the counter value guard.when:
 * the nominal rates give the count (rounded up, plus one), and the handler
 * re-arms while the counter has not got there, so a long wait is chained
 * in halves of the 32-bit comparator's wrap (HPET_ARM_MAX_COUNTS). A
 * comparator passed before the write landed is armed again further out
 * (hpet_timer_arm_ahead()); an extra interrupt is only an early one, which
 * guard_irq() arms again.
 */
static void guard_arm(u64 now)
{
	u64 ns = ticks_to_ns(guard.when > now ? guard.when - now : 0, tick_counter_hz());

	hpet_timer_arm_ahead(HPET_GUARD_TIMER, ns_to_ticks(ns, hpet_counter_hz()) + 1);
}

/* Edge-triggered through the IOAPIC; never before its time, whatever the nominal rates said. */
static void guard_irq(struct ex_regs *regs)
{
	u64 now = arch_counter();

	if (now >= guard.when)
		tick_wake();
	else
		guard_arm(now);
	apic_eoi();
}

/*
 * The first call routes and configures timer 1, which takes milliseconds
 * under an emulating hypervisor (ACPI tables, IOAPIC and HPET exits);
 * later ones only move the comparator.
 */
static const char *guard_setup(void)
{
	const char *why = hpet_find();

	if (why)
		return why;
	if (hpet_timers() <= HPET_GUARD_TIMER)
		return "the HPET has a single timer";
	why = hpet_timer_route(HPET_GUARD_TIMER, &guard.route, &guard.irq);
	if (why)
		return why;
	if (!ioapic_route(&guard.route, TIMER_GUARD_VECTOR, apic_id()))
		return "the IOAPIC has no pin for HPET timer 1";
	hpet_timer_setup(HPET_GUARD_TIMER, HPET_ONESHOT, guard.irq, guard.route.gsi);
	/* the main counter keeps running if it was: a reference clock may be reading it */
	hpet_run(guard.irq);
	guard.ready = true;
	return NULL;
}

static bool hook_guard_at(u64 when)
{
	const char *why = NULL;

	guard.when = when;
	if (!guard.ready)
		why = guard_setup();
	if (why)
		report_info("no guard timer (HPET timer 1): %s", why);
	else
		guard_arm(arch_counter());
	return !why;
}

static void hook_guard_cancel(void)
{
	hpet_timer_off(HPET_GUARD_TIMER);
	ioapic_mask(guard.route.gsi);
	guard.ready = false;
}

/* fault=early10: the tick's vector sent to this CPU by its own ICR (a self-IPI). */
static void hook_raise(void)
{
	apic_icr_write(APIC_ICR_FIXED | APIC_DEST_SELF | TIMER_TICK_VECTOR, 0);
}

const struct tick_arch tick_arch_x86 = {
	TICK_ARCH_HOOKS,
	.raise = hook_raise,
};
