/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lifecycle: the TSC, kvmclock, the time of day and the LAPIC timer
 * across host events - pause, save/restore, live migration - that the
 * runner performs when the guest asks (docs/lifecycle.md).
 *
 * What it checks, for each event, on every vCPU (common/lifecycle.c):
 *  - the TSC and this vCPU's kvmclock never go backwards, and their
 *    largest step over the event is no more than the time QEMU says the
 *    guest was stopped plus what the window before the event saw;
 *  - each clock does what QEMU does to it while the guest is stopped, as
 *    measured here (the table below): the TSC runs on through a pause and
 *    a save/restore, kvmclock stands still;
 *  - the time of day (kvmclock plus the wall clock MSR) keeps its offset
 *    to the host's, within 50 ms;
 *  - the LAPIC timer: on vCPUs whose turn it is, a TSC-deadline one-shot
 *    armed as the request goes out fires after its deadline and within
 *    0.5 s of the runner's answer; on the others it ticks periodically at
 *    100 Hz across the event and keeps its rate after it (within 10%
 *    of nominal or of the rate before by its tick counts; on a quiet host
 *    also its period, timed by the ticks, against the period before,
 *    within the ticks' measured spread: about 0.1%), with no more
 *    catch-up ticks (closer than half a period) than the bound (default
 *    16) plus those the vCPU's own delays explain. Turns alternate per
 *    event.
 * Each event prints its figures as RESULT lines: host-measured stop,
 * QMP downtime, each clock's step, one-shot lateness, catch-up ticks,
 * the period's change (when timed).
 *
 * How: every vCPU samples its clocks in a loop with interrupts on; the
 * boot vCPU samples 0.5 s, prints "LIFECYCLE-REQUEST: KIND SEQ", samples
 * while it polls COM1's input for the runner's "LIFECYCLE-DONE" line,
 * then samples 0.5 s more.
 *
 * Arguments (key=value):
 *   events=LIST  required: pause, save, migrate, each optionally *N,
 *                comma-separated; the cfg's events key must match
 *   catchup=N    catch-up ticks allowed beyond those explained (default 16)
 *   fault=NAME   test-only, every check must be seen failing: back, jump,
 *                flip, rearm, rate, rate5, storm, tod (common/lifecycle.c)
 */
#include "libc.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/desc.h"
#include "x86/ioapic.h"
#include "x86/kvmclock.h"
#include "lifecycle.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "x86/tick.h"

static struct tick_cal lapic_cal;

static u64 read_tsc(void)
{
	return rdtsc_ordered();
}

/*
 * As measured on QEMU 7.2 with KVM (docs/lifecycle.md): QEMU reads
 * kvmclock when the VM stops and writes the value back before it runs
 * again, so kvmclock does not see a stop; the TSC runs on through a pause
 * (its offset is not touched) and through a save/restore (it has advanced
 * by the time the state sat on disk).
 */
static const struct lc_clock clocks[] = {
	{"TSC", read_tsc, 0, {[LC_PAUSE] = LC_RUNS, [LC_SAVE] = LC_RUNS, [LC_MIGRATE] = LC_RUNS}},
	{"kvmclock",
	 kvmclock_read_raw,
	 1000000000ull,
	 {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
};

static void timer_irq(struct ex_regs *regs)
{
	lc_timer_fired(0, rdtsc_ordered());
	apic_eoi();
}

static const char *probe(void)
{
	const char *why = kvmclock_unavailable();

	if (why)
		return why;
	if (!apic_timer_has_tsc_deadline())
		return "the LAPIC timer has no TSC-deadline mode here";
	pic_mask_all();
	pit_quiesce();
	if (!tick_lapic_calibrate(&lapic_cal))
		return "the LAPIC timer does not count";
	if (kvmclock_init())
		return "kvmclock could not be registered";
	handle_exception(TIMER_TICK_VECTOR, timer_irq);
	return NULL;
}

static void init_cpu(void)
{
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_TDCR, APIC_TDCR_DIV_1);
}

static void oneshot_at(unsigned slot, u64 when)
{
	apic_write(APIC_LVTT, APIC_LVT_TIMER_TSCDEADLINE | TIMER_TICK_VECTOR);
	/* the LVTT write (MMIO) and the WRMSR are not ordered: the mode first (SDM, TSC-Deadline Mode) */
	asm volatile("mfence" ::: "memory");
	wrmsr(MSR_IA32_TSC_DEADLINE, when);
}

static void periodic(unsigned slot, u64 period)
{
	u64 counts = tick_ticks_to_counts(&lapic_cal, period);

	apic_write(APIC_TMICT, 0);
	apic_write(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | TIMER_TICK_VECTOR);
	apic_write(APIC_TMICT, (u32)min(max(counts, 1ull), 0xffffffffull));
}

static void stop(unsigned slot)
{
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
	apic_write(APIC_TMICT, 0);
}

static void irqs_on(void)
{
	irq_enable();
}

static void irqs_off(void)
{
	irq_disable();
}

static const struct lc_arch x86_lifecycle = {
	.name_of_slot = { "lapic" },
	.periodic_kind = LC_PERIODIC_RELOAD,
	.nslots = 1,
	.probe = probe,
	.init_cpu = init_cpu,
	.oneshot_at = oneshot_at,
	.periodic = periodic,
	.stop = stop,
	.irqs_on = irqs_on,
	.irqs_off = irqs_off,
	.tod_ns = kvmclock_wall_ns,
	.clocks = clocks,
	.nclocks = ARRAY_SIZE(clocks),
};

int main(int argc, char **argv)
{
	return lc_main(argc, argv, &x86_lifecycle);
}
