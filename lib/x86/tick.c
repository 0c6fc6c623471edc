/* SPDX-License-Identifier: GPL-2.0-only */
/* LAPIC timer calibration, the three LAPIC tick sources, and the x86 hooks of the tick engine. */
#include "apic_timer.h"
#include "apic.h"
#include "arch.h"
#include "desc.h"
#include "hpet.h"
#include "ioapic.h"
#include "pit.h"
#include "processor.h"
#include "report.h"
#include "steal.h"

#define APIC_TIMER_COUNT_MAX 0xffffffffull
/* Where a CPU or hypervisor may state the APIC timer's clock. */
/* ECX: core crystal clock in Hz, the APIC timer's clock on Intel */
#define CPUID_TSC_CRYSTAL    0x15
#define CPUID_HV_TIMING_LEAF 0x40000010 /* EBX: APIC bus clock in kHz */

static struct {
	bool calibrated, counts;
	struct tick_cal cal;
	u64 period; /* LAPIC sources: the programmed count */
	u64 wake_target;
	bool wake_by_deadline;
} at;

bool apic_timer_has_tsc_deadline(void)
{
	return cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_TSC_DEADLINE);
}

/*
 * In xAPIC mode the LVTT write is MMIO and the TSC_DEADLINE write a WRMSR,
 * which are not ordered against each other (Intel SDM vol. 3, "TSC-Deadline
 * Mode"): without the fence the deadline could reach the timer before the
 * mode switch and be dropped.
 */
static void lvtt_deadline_mode(u8 vector)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_TSCDEADLINE | vector);
	asm volatile("mfence" ::: "memory");
}

static u64 apic_cal_read(void)
{
	return APIC_TIMER_COUNT_MAX - apic_read(APIC_TMCCT);
}

/* What the CPU or hypervisor says the timer's clock is, for comparison with the measurement. */
static void report_stated_clock(void)
{
	if (cpuid(0).a >= CPUID_TSC_CRYSTAL && cpuid(CPUID_TSC_CRYSTAL).c)
		report_info("CPUID 0x15 states a %u Hz crystal clock", cpuid(CPUID_TSC_CRYSTAL).c);
	if (cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR) &&
	    cpuid(CPUID_HYPERVISOR_BASE).a >= CPUID_HV_TIMING_LEAF && cpuid(CPUID_HV_TIMING_LEAF).b)
		report_info("the hypervisor states a %u kHz APIC bus",
			    cpuid(CPUID_HV_TIMING_LEAF).b);
}

bool apic_timer_calibrate(struct tick_cal *cal)
{
	if (!at.calibrated) {
		at.calibrated = true;
		report_stated_clock();
		apic_write(APIC_LVTT, APIC_LVT_MASKED | APIC_LVT_TIMER_ONESHOT | TIMER_TICK_VECTOR);
		apic_write(APIC_TDCR, APIC_TDCR_DIV_1);
		apic_write(APIC_TMICT, (u32)APIC_TIMER_COUNT_MAX);
		at.counts = tick_calibrate(apic_cal_read, &at.cal);
		apic_write(APIC_TMICT, 0);
	}
	*cal = at.cal;
	return at.counts;
}

/* Counts lasting at least from now to when: started after now, it never fires before when. */
static void oneshot_until(u64 when, u64 now)
{
	u64 counts = tick_ticks_to_counts(&at.cal, when > now ? when - now : 0);

	apic_write(APIC_TMICT, (u32)min(max(counts, 1ull), APIC_TIMER_COUNT_MAX));
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

	if (!apic_timer_calibrate(&plan->cal))
		return "the LAPIC timer does not count";
	apic_hz = tick_ticks_to_counts(&plan->cal, tick_counter_hz());
	at.period = (apic_hz + hz / 2) / hz;
	if (!at.period || at.period > APIC_TIMER_COUNT_MAX) {
		snprintf(why, sizeof(why), "hz=%llu needs an initial count of %llu",
			 (unsigned long long)hz, (unsigned long long)at.period);
		return why;
	}
	plan->period_counts = at.period;
	return NULL;
}

static u64 lapic_periodic_start(void)
{
	u64 t;

	apic_write(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | TIMER_TICK_VECTOR);
	t = arch_counter();
	apic_write(APIC_TMICT, (u32)at.period);
	return t;
}

static u64 lapic_oneshot_start(void)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | TIMER_TICK_VECTOR);
	return arch_counter();
}

static void lapic_stop(void)
{
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_TMICT, 0);
}

const struct tick_source tick_source_lapic_periodic = {
	.name = "lapic-periodic",
	.what = "LAPIC timer, periodic mode",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_SHARES_WAKE_TIMER,
	.probe = lapic_probe,
	.setup = lapic_setup,
	.start = lapic_periodic_start,
	.stop = lapic_stop,
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
	.stop = lapic_stop,
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
	lvtt_deadline_mode(TIMER_TICK_VECTOR);
	return arch_counter();
}

static void tsc_deadline_arm(u64 when, u64 now)
{
	wrmsr(MSR_IA32_TSC_DEADLINE, when);
}

static void tsc_deadline_stop(void)
{
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
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

/* ---- the x86 hooks of lib/timer_tick.h ---- */

/* Every source's interrupt: edge-triggered or the LAPIC's own, so an EOI acknowledges it. */
static void tick_irq(struct ex_regs *regs)
{
	tick_interrupt();
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

/* HPET timer 1, the guard of the LAPIC sources: edge-triggered through the IOAPIC. */
static void guard_irq(struct ex_regs *regs)
{
	if (hpet_guard_expired())
		tick_wake();
	apic_eoi();
}

void tick_arch_init(void)
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
		apic_timer_calibrate(&cal);
}

/*
 * arch_counter_hz(): the hypervisor's timing leaf, kvmclock or the best of
 * a few PIT runs. Only rates and ns figures depend on it; the schedule is
 * built from each source's clock measured against the TSC itself.
 */
u64 tick_arch_counter_hz(const char **how)
{
	*how = "arch_counter_hz()";
	return arch_counter_hz();
}

void tick_arch_irqs_off(void)
{
	irq_disable();
}

/* sti holds interrupts off for one more instruction: none slips in before hlt. */
void tick_arch_wait(void)
{
	asm volatile("sti; hlt; cli" ::: "memory");
}

void tick_arch_flush(void)
{
	asm volatile("sti; nop; cli" ::: "memory");
}

bool tick_arch_wake_at(u64 when)
{
	struct tick_cal cal;

	at.wake_target = when;
	if (apic_timer_has_tsc_deadline()) {
		at.wake_by_deadline = true;
		lvtt_deadline_mode(TIMER_WAKE_VECTOR);
		wrmsr(MSR_IA32_TSC_DEADLINE, when);
		return true;
	}
	if (!apic_timer_calibrate(&cal))
		return false;
	at.wake_by_deadline = false;
	apic_write(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | TIMER_WAKE_VECTOR);
	oneshot_until(when, arch_counter());
	return true;
}

void tick_arch_wake_cancel(void)
{
	if (at.wake_by_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	lapic_stop();
}

const char *tick_arch_steal_init(void)
{
	return steal_init();
}

u64 tick_arch_steal_ns(void)
{
	return steal_ns();
}

bool tick_arch_guard_at(u64 when)
{
	const char *why = hpet_guard_at(when, TIMER_GUARD_VECTOR);

	if (why)
		report_info("no guard timer (HPET timer 1): %s", why);
	return !why;
}

void tick_arch_guard_cancel(void)
{
	hpet_guard_cancel();
}
