/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC access: xAPIC through MMIO, x2APIC through MSRs, chosen once at boot. */
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "wait.h"
#include "x86/io.h"
#include "x86/percpu.h"
#include "x86/processor.h"

static bool x2apic;

/* An ICR busy this long never clears (several seconds at any TSC rate): a hang detector. */
#define ICR_STUCK_CYCLES (10ull * 1000 * 1000 * 1000)

bool apic_x2apic_mode(void)
{
	return x2apic;
}

u32 apic_read(u32 reg)
{
	if (x2apic)
		return (u32)rdmsr(X2APIC_MSR_BASE + reg / 16);
	return mmio_read32(APIC_DEFAULT_BASE + reg);
}

void apic_write(u32 reg, u32 val)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + reg / 16, val);
	else
		mmio_write32(APIC_DEFAULT_BASE + reg, val);
}

u32 apic_id(void)
{
	u32 id = apic_read(APIC_ID);

	/* xAPIC keeps the ID in bits 31:24; x2APIC uses the whole register. */
	return x2apic ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* The IRR: eight 32-bit registers 16 bytes apart, vector v at bit v % 32 of the (v / 32)-th. */
bool apic_irr_pending(u8 vector)
{
	return apic_read(APIC_IRR + APIC_IRR_STRIDE * (vector / 32)) & (1u << (vector % 32));
}

static bool icr_idle(void *unused)
{
	return !(apic_read(APIC_ICR) & APIC_ICR_BUSY);
}

/*
 * The previous IPI still being sent: wait, in TSC cycles (the TSC may not
 * be calibrated yet, smp_init() sends the first IPIs). Checked once
 * before, so an idle ICR costs one read, as on the benchmarks' IPI path.
 */
static void wait_icr_idle(void)
{
	if (icr_idle(NULL))
		return;
	if (!wait_cond_ticks(icr_idle, NULL, ICR_STUCK_CYCLES)) {
		printf("FAIL: xAPIC ICR still busy (delivery status) after %llu TSC cycles\n",
		       ICR_STUCK_CYCLES);
		abort();
	}
}

void apic_icr_write(u32 flags, u32 dest)
{
	if (x2apic) {
		/* one 64-bit MSR write; no delivery-status bit to poll */
		wrmsr(X2APIC_MSR_BASE + APIC_ICR / 16, flags | ((u64)dest << 32));
		return;
	}
	wait_icr_idle();
	apic_write(APIC_ICR2, dest << 24);
	apic_write(APIC_ICR, flags);
}

void apic_enable(void)
{
	u64 base = rdmsr(MSR_IA32_APICBASE);

	/* decided on the boot CPU; the APs follow it */
	if (smp_id() == 0)
		x2apic = cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_X2APIC);
	base |= MSR_IA32_APICBASE_ENABLE;
	if (x2apic)
		base |= MSR_IA32_APICBASE_EXTD;
	wrmsr(MSR_IA32_APICBASE, base);
	apic_write(APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT0, APIC_LVT_MASKED);
	apic_write(APIC_LVT1, APIC_LVT_MASKED);
	apic_timer_mask();
}

void apic_send_ipi(int cpu, u8 vector)
{
	apic_icr_write(APIC_ICR_FIXED | vector, cpu_data(cpu)->apic_id);
}
