/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's interrupts: IRQ 8 routed to a handler that records each, timed by the reference clock. */
#include "libc.h"
#include "rtc_test.h"
#include "arch.h"
#include "irq.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/ioapic.h"
#include "x86/processor.h"
#include "report.h"
#include "x86/steal.h"
#include "units.h"
#include "wait.h"

#define RTC_IRQ_VECTOR	     0x68

const struct refclock *rtc_ref;
bool rtc_has_steal;
u64 rtc_steal_at_start; /* when the current wait began */
struct event rtc_events[MAX_EVENTS];
struct update_event rtc_updates[UPDATE_IRQS];
static volatile unsigned n_events;
bool rtc_read_time_in_handler;

/* ---- interrupts and the reference --------------------------------------------- */

static void rtc_irq(struct ex_regs *regs)
{
	unsigned n = n_events;
	u8 c = opt.fault == FAULT_NOACK ? 0 : rtc_irq_ack();

	if (n < MAX_EVENTS) {
		rtc_events[n] = (struct event){rtc_ref->read(), rtc_has_steal ? steal_ns() : 0, c};
		if (rtc_read_time_in_handler && n < UPDATE_IRQS) {
			rtc_updates[n].tsc = arch_counter();
			rtc_updates[n].why = rtc_read_datetime(&rtc_updates[n].dt);
		}
	}
	n_events = n + 1;
	apic_eoi();
}

u64 ref_ns(u64 counts)
{
	return counts * NSEC_PER_SEC / rtc_ref->hz();
}

/* Steal time that can have delayed interrupt k: since the handler before it (the wait's start for
 * 0). */
u64 steal_before(unsigned k)
{
	return rtc_events[k].steal - (k ? rtc_events[k - 1].steal : rtc_steal_at_start);
}

static bool collected(void *n)
{
	return n_events >= *(unsigned *)n;
}

/* Take interrupts until n have come or about timeout_ns have passed (spinning on the TSC); how
 * many. */
unsigned collect(enum rtc_irq irq, unsigned n, u64 timeout_ns)
{
	n_events = 0;
	rtc_steal_at_start = rtc_has_steal ? steal_ns() : 0;
	rtc_irq_ack();
	rtc_irq_enable(irq);
	irq_enable();
	wait_cond_ticks(collected, &n, timeout_ns / NSEC_PER_MSEC * (arch_counter_hz() / MSEC_PER_SEC));
	irq_disable();
	rtc_irq_disable(irq);
	rtc_irq_ack();
	return min(n_events, (unsigned)MAX_EVENTS);
}

bool flags_set(unsigned n, u8 want)
{
	for (unsigned i = 0; i < n; i++)
		if ((rtc_events[i].reg_c & want) != want)
			return false;
	return true;
}

/* ---- set-up ------------------------------------------------------------------------ */

void find_ref(void)
{
	const char *names[] = {"hpet", "pmtimer"};

	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		const struct refclock *r = refclock_find(names[i]);
		const char *why;

		if (opt.ref && strcmp(opt.ref, names[i]))
			continue;
		why = r->probe();
		if (!why) {
			rtc_ref = r;
			report_info("timestamps by the %s (%llu Hz)", r->what, r->hz());
			return;
		}
		report_info("no %s: %s", r->what, why);
	}
	report_abort("no reference clock to time the RTC's interrupts with");
}

void route_irq8(void)
{
	struct ioapic_route route;
	const char *why = steal_init();

	rtc_has_steal = !why;
	if (why)
		report_info("steal time not known (%s): the bounds allow none", why);
	handle_exception(RTC_IRQ_VECTOR, rtc_irq);
	why = ioapic_route_isa(RTC_ISA_IRQ, RTC_IRQ_VECTOR, apic_id(), &route);
	if (why)
		report_abort("%s", why);
	report_info("IRQ 8 reaches IOAPIC pin %u (from %s)", route.gsi, ioapic_found_by());
}
