/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs' TSC-deadline family (Intel SDM vol. 3, 11.5.4.1 "TSC-Deadline
 * Mode"): the LVT timer's mode read back; a deadline firing once, not
 * before, and the MSR reading 0 after it fired; writing 0 disarming; a
 * deadline in the past firing at once; leaving TSC-deadline mode disarming
 * it, the MSR reading 0 and taking no write in the other modes; and the
 * fence the SDM asks between the LVT write and the deadline's WRMSR, which
 * is not serializing.
 *
 * CPUID.1:ECX[24] offers the mode; QEMU's TCG LAPIC has none, so under TCG
 * this family is one SKIP saying so, and runs under KVM.
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "units.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "x86/processor.h"
#include "x86/timer_regs.h"

#define V		REGS_LAPIC_VECTOR
#define DEADLINE_CHECKS 9
#define AHEAD_US	1000
#define MUST_COME_US	50000
#define MUST_NOT_US	3000
/* a deadline already passed: taken on the next instruction boundary or VM entry, within 1 ms */
#define AT_ONCE_US 1000

static u64 last_written;

static void dl_write(u64 tsc)
{
	last_written = tsc;
	wrmsr(MSR_IA32_TSC_DEADLINE, tsc);
}

/* deadline_keep: the MSR reads as last written, as a VMM that never clears it would */
static u64 dl_read(void)
{
	return opt.fault == FAULT_DEADLINE_KEEP ? last_written : rdmsr(MSR_IA32_TSC_DEADLINE);
}

static bool wait_irq(u64 us)
{
	u64 end = rdtsc() + tsc_from_us(us);

	while (!IRQ_SEEN(V)->count)
		if (rdtsc() > end)
			return false;
	return true;
}

static void fire_checks(void)
{
	u64 t;
	u32 lvtt;

	apic_timer_deadline_mode(V);
	lvtt = apic_read(APIC_LVTT);
	report((lvtt & APIC_LVT_TIMER_MODE_MASK) == APIC_LVT_TIMER_TSCDEADLINE,
	       "LVT timer %#x: mode %u (2: TSC-deadline, as written)", lvtt, (lvtt >> 17) & 3);
	regs_irq_reset(V);
	t = rdtsc() + tsc_from_us(AHEAD_US);
	dl_write(t);
	wait_irq(MUST_COME_US);
	spin_us(MUST_NOT_US);
	report(IRQ_SEEN(V)->count == 1 && IRQ_SEEN(V)->last_tsc >= t,
	       "a deadline 1 ms ahead: %u interrupts, the first %lld us after it (1, not before "
	       "it)",
	       IRQ_SEEN(V)->count, (long long)us_from_tsc(IRQ_SEEN(V)->last_tsc - t));
	report(dl_read() == 0, "IA32_TSC_DEADLINE reads %#llx after it fired (0)", dl_read());
	regs_irq_reset(V);
	dl_write(rdtsc() + tsc_from_us(AHEAD_US));
	dl_write(0);
	spin_us(MUST_NOT_US);
	report(IRQ_SEEN(V)->count == 0,
	       "a deadline 1 ms ahead, then 0 written: %u interrupts over 3 ms (0)",
	       IRQ_SEEN(V)->count);
	regs_irq_reset(V);
	t = rdtsc();
	dl_write(t - tsc_from_us(AHEAD_US));
	wait_irq(MUST_COME_US);
	report(IRQ_SEEN(V)->count == 1 && IRQ_SEEN(V)->last_tsc - t <= tsc_from_us(AT_ONCE_US),
	       "a deadline 1 ms in the past: %u interrupts, %llu us after the write (1, within %u "
	       "us)",
	       IRQ_SEEN(V)->count, us_from_tsc(IRQ_SEEN(V)->last_tsc - t), AT_ONCE_US);
}

static void mode_checks(void)
{
	regs_irq_reset(V);
	apic_timer_deadline_mode(V);
	dl_write(rdtsc() + tsc_from_us(AHEAD_US));
	apic_timer_oneshot_mode(V);
	spin_us(MUST_NOT_US);
	report(IRQ_SEEN(V)->count == 0,
	       "armed, then the LVT timer set to one-shot: %u interrupts over 3 ms (0: leaving the "
	       "mode disarms)",
	       IRQ_SEEN(V)->count);
	report(dl_read() == 0, "IA32_TSC_DEADLINE reads %#llx in one-shot mode (0)", dl_read());
	dl_write(rdtsc() + tsc_from_us(AHEAD_US));
	spin_us(MUST_NOT_US);
	report(IRQ_SEEN(V)->count == 0 && dl_read() == 0,
	       "a deadline written in one-shot mode: %u interrupts, reads %#llx (0 and 0: ignored)",
	       IRQ_SEEN(V)->count, dl_read());
	/* 11.5.4.1: in xAPIC mode an MFENCE orders the LVT write before the WRMSR (the driver adds
	 * it) */
	regs_irq_reset(V);
	apic_timer_deadline_mode(V);
	dl_write(rdtsc() + tsc_from_us(AHEAD_US));
	wait_irq(MUST_COME_US);
	report(IRQ_SEEN(V)->count == 1,
	       "LVT timer to TSC-deadline, MFENCE, the deadline at once: %u interrupts (1: the "
	       "write was not "
	       "dropped)",
	       IRQ_SEEN(V)->count);
}

void deadline_checks(void)
{
	if (!apic_timer_has_tsc_deadline()) {
		report_skip("CPUID.1:ECX[24] is clear: no TSC-deadline mode (QEMU's TCG LAPIC has "
			    "none): its %u "
			    "checks need KVM",
			    DEADLINE_CHECKS);
		return;
	}
	regs_eoi = apic_eoi;
	irq_enable();
	fire_checks();
	mode_checks();
	irq_disable();
	apic_timer_stop_all();
}
