/* SPDX-License-Identifier: GPL-2.0-only */
/* catchup's tick source: the RTC's periodic interrupt (ISA IRQ 8) or the PIT's channel 0 (ISA IRQ
 * 0), through the IOAPIC. */
#include "libc.h"
#include "catchup.h"
#include "catchup_source.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/hpet.h"
#include "x86/ioapic.h"
#include "x86/pit.h"
#include "x86/pmtimer.h"
#include "x86/rtc.h"

#define TICK_VECTOR 0x70

static struct {
	bool rtc;
	volatile unsigned n;
	u64 stamp[CU_MAX_TICKS];
} src;

/*
 * A tick: its TSC first, then the RTC's acknowledgement (reading register
 * C lowers IRQ 8; under driftfix=slew it is also where QEMU raises a
 * counted one again).
 */
static void tick_irq(struct ex_regs *regs)
{
	unsigned n = src.n;

	if (n < CU_MAX_TICKS) {
		src.stamp[n] = arch_counter();
		src.n = n + 1;
	}
	if (src.rtc)
		rtc_irq_ack();
	apic_eoi();
}

void source_list_offered(void)
{
	const char *hpet = hpet_find(), *pm = pmtimer_find();

	report_info("periodic tick sources this machine offers: the LAPIC timer, the PIT, the "
		    "RTC%s%s%s",
		    hpet ? "" : ", the HPET", pm ? "; no ACPI PM timer: " : "", pm ? pm : "");
	if (hpet)
		report_info("no HPET: %s", hpet);
}

static void route(unsigned isa_irq)
{
	struct ioapic_route r;
	const char *why;

	handle_exception(TICK_VECTOR, tick_irq);
	why = ioapic_route_isa(isa_irq, TICK_VECTOR, apic_id(), &r);
	if (why)
		report_abort("%s", why);
	report_info("ISA IRQ %u reaches IOAPIC pin %u (from %s)", isa_irq, r.gsi,
		    ioapic_found_by());
}

void source_start(const char *source, unsigned hz)
{
	const char *no;

	pic_mask_all();
	pit_quiesce();
	src.rtc = !strcmp(source, "rtc");
	if (src.rtc) {
		route(RTC_ISA_IRQ);
		no = rtc_set_periodic_hz(hz);
		if (no)
			report_abort("rtc: %s", no);
		rtc_irq_ack();
		rtc_irq_enable(RTC_IRQ_PERIODIC);
	} else {
		u32 reload = (PIT_HZ + hz / 2) / hz;

		route(PIT_ISA_IRQ);
		pit_ch0_rate_start(reload);
	}
	report_info("the %s ticks at %u Hz",
		    src.rtc ? "RTC's periodic interrupt" : "PIT's channel 0", hz);
	irq_enable();
}

void source_stop(void)
{
	irq_disable();
	if (src.rtc) {
		rtc_irq_disable(RTC_IRQ_PERIODIC);
		rtc_irq_ack();
	} else {
		pit_quiesce();
	}
}

void source_restart_record(void)
{
	irq_disable();
	src.n = 0;
	irq_enable();
}

unsigned source_ticks(void)
{
	return src.n;
}

u64 source_stamp(unsigned i)
{
	return src.stamp[i];
}

bool source_full(void)
{
	return src.n >= CU_MAX_TICKS;
}
