/* SPDX-License-Identifier: GPL-2.0-only */
/* The CMOS RTC's periodic interrupt as a tick source, ISA IRQ 8 through the IOAPIC (beside tick_chipset.c). */
#include "x86/tick.h"
#include "x86/apic.h"
#include "arch.h"
#include "x86/ioapic.h"
#include "report.h"
#include "x86/rtc.h"
#include "stats.h"
#include "units.h"
#include "wait.h"

/*
 * The periodic interrupt: PIE in register B, the rate
 * select of register A (hz: a power of two, 2..8192), ISA IRQ 8, and
 * register C read to acknowledge (until then the line stays up and no
 * further edge reaches the IOAPIC).
 *
 * The RTC has no count to read, so its clock is measured by its flags:
 * register C is polled, each PF bracketed between the read before (which
 * did not see it) and the one that did. QEMU sets a flag when its timer
 * callback runs in the main loop thread: on time or late by that thread's
 * delays, never early. So a mark (the calibration's two ends, the run's
 * anchor) catches several flags in a row and takes the one earliest on the
 * period grid, the least delayed (rtc_mark). Its phase is the divider
 * chain's, not the start's.
 */

/* Flags a mark catches: hz / RTC_MARK_PER_HZ, 2 to RTC_MARK_FLAGS (at most 1/16 s from 32 Hz up). */
#define RTC_MARK_FLAGS	  16
#define RTC_MARK_PER_HZ	  16
#define RTC_CAL_WINDOW_MS 200
/* A flag not seen within this many nominal periods, and at least this long: the interrupt does not run. */
#define RTC_EDGE_TIMEOUT_PERIODS 4
#define RTC_EDGE_TIMEOUT_MIN_MS	 100

static struct {
	struct ioapic_route route;
	u64 nominal; /* counter ticks per period, from the nominal rate */
	u64 timeout; /* counter ticks to wait for a flag */
	struct tick_cal cal;
	u64 period_counts;
	unsigned mark_flags; /* flags a mark catches */
} rtc;

struct rtc_flag {
	u64 lo, hi; /* the periodic flag was set after lo and before hi */
};

struct flag_poll {
	struct rtc_flag *f;
	u64 prev; /* the read before the poll before this one */
};

/* One clearing read of register C, the round's read (now) before it: true once PF shows. */
static bool flag_poll(void *arg, u64 now)
{
	struct flag_poll *p = arg;

	if (rtc_irq_ack() & RTC_C_PF) {
		*p->f = (struct rtc_flag){p->prev, arch_counter()};
		return true;
	}
	p->prev = now;
	return false;
}

/* Poll register C from a clearing read until PF shows: false after the timeout. */
static bool rtc_next_flag(struct rtc_flag *f)
{
	u64 start = arch_counter();

	rtc_irq_ack();
	return work_until(flag_poll, &(struct flag_poll){f, start}, start + rtc.timeout);
}

struct rtc_mark {
	u64 due;   /* when the last flag caught was due, by the earliest flag */
	u64 slack; /* the earliest flag's bracket and the spread after it */
};

/*
 * Catch the next flags (rtc_mark_flags of them) and say when the last one
 * was due: the least delayed flag's lower bound (lib/stats.h,
 * least_delayed), moved by whole periods to the last flag's slot (at or
 * before its lower bound: its flag too came no earlier than due).
 */
static const char *rtc_mark(u64 period, struct rtc_mark *m)
{
	struct rtc_flag f[RTC_MARK_FLAGS] = {0};
	u64 lo[RTC_MARK_FLAGS] = {0}, limit;
	unsigned n = rtc.mark_flags;
	struct least_delayed best;

	for (unsigned i = 0; i < n; i++) {
		if (!rtc_next_flag(&f[i]))
			return "the periodic flag (register C's PF) did not come";
		lo[i] = f[i].lo;
	}
	best = least_delayed(lo, n, period);
	limit = f[n - 1].lo + period / 4;
	m->due = f[best.k].lo + (limit - f[best.k].lo) / period * period;
	m->slack = f[best.k].hi - f[best.k].lo + best.spread[0];
	return NULL;
}

/* Register C read (its flags cleared) through the window between the marks. */
static bool ack_flags(void *unused, u64 now)
{
	rtc_irq_ack();
	return false;
}

/*
 * Flags over the window: counts of the 32768 Hz time base between the
 * marks at each end. The periods between the two are the gap rounded to
 * whole nominal ones, which must leave no doubt (a quarter period, beyond
 * the marks' slack) - a rate off by more than that over the window fails.
 */
static const char *rtc_calibrate(u64 hz, struct tick_cal *cal)
{
	static char why[112];
	struct rtc_mark m1, m2;
	u64 end, gap, k, off, slack;
	const char *no;

	rtc_irq_enable(RTC_IRQ_PERIODIC);
	no = rtc_mark(rtc.nominal, &m1);
	end = arch_counter() + tick_counter_hz() * RTC_CAL_WINDOW_MS / MSEC_PER_SEC;
	if (!no)
		work_until(ack_flags, NULL, end);
	if (!no)
		no = rtc_mark(rtc.nominal, &m2);
	rtc_irq_disable(RTC_IRQ_PERIODIC);
	rtc_irq_ack();
	if (no)
		return no;
	gap = m2.due - m1.due;
	k = (gap + rtc.nominal / 2) / rtc.nominal;
	off = gap > k * rtc.nominal ? gap - k * rtc.nominal : k * rtc.nominal - gap;
	slack = m1.slack + m2.slack;
	if (off > rtc.nominal / 4 + slack) {
		snprintf(why, sizeof(why), "periodic flags %llu us apart: no whole number of periods "
			 "at hz", ticks_to_ns(gap, tick_counter_hz()) / NSEC_PER_USEC);
		return why;
	}
	if (!tick_cal_from(cal, gap, k * (RTC_TIME_BASE_HZ / hz), slack))
		return "the periodic flags gave no rate";
	return NULL;
}

static void rtc_ack(void)
{
	rtc_irq_ack();
}

static const char *rtc_probe(void)
{
	u32 seconds;
	const char *why = rtc_seconds_of_day(&seconds);

	if (why)
		return why;
	if (!ioapic_init())
		return "no IOAPIC to route ISA IRQ 8 through";
	return NULL;
}

static const char *rtc_setup(u64 hz, struct tick_plan *plan)
{
	static char why[112];
	const char *no_rate = hz <= RTC_PERIODIC_HZ_MAX ? rtc_set_periodic_hz((unsigned)hz)
							: "above 8192 Hz";
	const char *no_cal, *no_route;

	if (no_rate) {
		snprintf(why, sizeof(why), "hz=%llu: %s", hz, no_rate);
		return why;
	}
	rtc.nominal = tick_counter_hz() / hz;
	rtc.timeout = max(RTC_EDGE_TIMEOUT_PERIODS * rtc.nominal,
			  tick_counter_hz() * RTC_EDGE_TIMEOUT_MIN_MS / MSEC_PER_SEC);
	rtc.mark_flags = (unsigned)min(max(hz / RTC_MARK_PER_HZ, 2ull), (u64)RTC_MARK_FLAGS);
	rtc.route = ioapic_isa_route(RTC_ISA_IRQ);
	ioapic_mask(rtc.route.gsi);
	no_cal = rtc_calibrate(hz, &plan->cal);
	if (no_cal)
		return no_cal;
	plan->period_counts = RTC_TIME_BASE_HZ / hz;
	rtc.cal = plan->cal;
	rtc.period_counts = plan->period_counts;
	no_route = ioapic_route_isa(RTC_ISA_IRQ, TIMER_TICK_VECTOR, apic_id(), &rtc.route);
	report_info("RTC periodic interrupt: %u Hz time base / %llu; ISA IRQ %d is GSI %u (%s) by %s",
		    RTC_TIME_BASE_HZ, plan->period_counts, RTC_ISA_IRQ,
		    rtc.route.gsi, rtc.route.trigger == IOAPIC_LEVEL ? "level" : "edge",
		    ioapic_found_by());
	if (no_route)
		return no_route;
	tick_device_ack = rtc_ack;
	return NULL;
}

/*
 * With interrupts off, PIE set and the pin routed: a mark fixes the phase,
 * then one more flag is caught and nothing slow done after it (a mark's
 * sums in emulated guest code made the first tick come about two periods
 * late at 1024 Hz, measured). That flag's edge left an interrupt pending, taken as the first
 * tick: the anchor is one period before the flag's slot on the mark's
 * grid, so that slot 0 is no later than it, even when the flag came late,
 * and the mark's own slack earlier still: beside two busy loops a mark
 * taken late put a tick 79 us before its slot (an early tick, a FAIL).
 */
static u64 rtc_start(void)
{
	u64 period = tick_counts_to_ticks(&rtc.cal, rtc.period_counts);
	struct rtc_mark m;
	struct rtc_flag f;

	rtc_irq_enable(RTC_IRQ_PERIODIC);
	if (rtc_mark(period, &m) || !rtc_next_flag(&f))
		return arch_counter(); /* no flag: the run's checks will say so */
	return m.due + (f.lo + period / 4 - m.due) / period * period - period - m.slack;
}

static void rtc_mute(bool on)
{
	ioapic_set_masked(rtc.route.gsi, on);
}

static void rtc_stop(void)
{
	rtc_irq_disable(RTC_IRQ_PERIODIC);
	rtc_irq_ack();
	ioapic_mask(rtc.route.gsi);
	tick_device_ack = NULL;
}

const struct tick_source tick_source_rtc = {
	.name = "rtc",
	.what = "CMOS RTC periodic interrupt, through the IOAPIC",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	/*
	 * QEMU runs the RTC's periodic timer in its main loop thread, as it
	 * does the HPET: ticks that thread's delays cost, the halted vCPU
	 * does not see as steal time; the runner's agent measures them.
	 */
	.probe = rtc_probe,
	.setup = rtc_setup,
	.start = rtc_start,
	.mute = rtc_mute,
	.stop = rtc_stop,
};
