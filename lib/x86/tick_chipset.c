/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chipset's tick sources, each through the IOAPIC: HPET timer 0
 * (legacy replacement or a pin of its own), the HPET's last timer routed
 * edge-triggered, PIT channel 0, and the CMOS RTC's periodic interrupt.
 * The hooks and the LAPIC timer's sources are in tick.c.
 */
#include "tick.h"
#include "apic.h"
#include "arch.h"
#include "hpet.h"
#include "ioapic.h"
#include "pit.h"
#include "report.h"
#include "rtc.h"
#include "stats.h"

/* In legacy replacement mode timer 0 drives ISA IRQ 0, where the PIT was. */
#define HPET_LEGACY_ISA_IRQ 0
/* A 32-bit periodic comparator holds periods below 2^31 (QEMU keeps 31 bits). */
#define HPET_PERIOD_MAX_COUNTS 0x7fffffffull
/* Lost ticks the guest cannot attribute (tick_source.unseen_host_lost_pct; reason below). */
#define HPET_UNSEEN_HOST_LOST_PCT 8
/* IOAPIC pins from here up are not ISA lines; Tn_INT_ROUTE_CAP has 32 bits. */
#define FIRST_NON_ISA_GSI 16
#define HPET_ROUTE_GSIS	  32

/* Calibration reads: a device's count since the calibration began, its wraps followed. */
static struct {
	u32 last;
	u64 elapsed;
} cal_track;

static u64 hpet_cal_read(void)
{
	u32 now = hpet_counter_read32();

	cal_track.elapsed += (u32)(now - cal_track.last);
	cal_track.last = now;
	return cal_track.elapsed;
}

/* PIT channel 0 counts down and wraps every 65536 counts (55 ms): add up the steps between reads. */
static u64 pit_cal_read(void)
{
	u16 now = pit_ch0_count();

	cal_track.elapsed += (u16)(cal_track.last - now);
	cal_track.last = now;
	return cal_track.elapsed;
}

/* ---- the HPET ---- */

static struct {
	unsigned timer;
	struct ioapic_route route;
	enum hpet_irq irq;
	u64 period;
	struct tick_cal cal; /* one-shot: to turn a deadline into counts */
} hp;

static unsigned first_gsi_above_isa(u32 cap)
{
	for (unsigned gsi = FIRST_NON_ISA_GSI; gsi < HPET_ROUTE_GSIS; gsi++)
		if (cap & (1u << gsi))
			return gsi;
	return 0;
}

/* QEMU's pc offers its timers only GSI 2, which KVM's routing does not connect to the IOAPIC. */
const char *tick_hpet_route(unsigned n, unsigned legacy_irq, struct ioapic_route *route,
			    enum hpet_irq *irq)
{
	unsigned gsi = first_gsi_above_isa(hpet_route_cap(n));

	if (gsi) {
		*irq = HPET_IRQ_EDGE;
		*route = (struct ioapic_route){gsi, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
		return NULL;
	}
	if (!hpet_has_legacy_replacement())
		return "the timer can reach no IOAPIC pin above 15 and the HPET has no legacy "
		       "replacement";
	*irq = HPET_IRQ_LEGACY;
	*route = ioapic_isa_route(legacy_irq);
	return NULL;
}

static void hpet_quiet(void)
{
	hpet_halt_and_clear();
	hpet_timer_off(hp.timer);
}

static const char *hpet_probe(void)
{
	const char *why = hpet_find();

	if (why)
		return why;
	if (!hpet_timer_can_periodic(0))
		return "HPET timer 0 has no periodic mode";
	if (!ioapic_init())
		return "no IOAPIC to route the HPET through";
	return NULL;
}

/* The period for hz, in main counter counts (NULL, or why it cannot be had). */
static const char *hpet_period(u64 hz)
{
	static char why[96];

	hp.period = hpet_counts_at_hz(hz);
	if (!hp.period || hp.period > HPET_PERIOD_MAX_COUNTS) {
		snprintf(why, sizeof(why), "hz=%llu needs a period of %llu counts",
			 (unsigned long long)hz, (unsigned long long)hp.period);
		return why;
	}
	return NULL;
}

/* The main counter against the TSC, from 0; left halted and cleared, hp.timer off. */
static const char *hpet_measure(struct tick_plan *plan)
{
	hpet_quiet();
	cal_track.last = 0;
	cal_track.elapsed = 0;
	hpet_run(HPET_IRQ_EDGE);
	if (!tick_calibrate(hpet_cal_read, &plan->cal)) {
		hpet_quiet();
		return "the main counter does not count";
	}
	hpet_quiet();
	plan->period_counts = hp.period;
	hp.cal = plan->cal;
	hpet_report_found();
	return NULL;
}

static const char *hpet_setup(u64 hz, struct tick_plan *plan)
{
	const char *why = hpet_period(hz);

	hp.timer = 0;
	if (!why)
		why = tick_hpet_route(0, HPET_LEGACY_ISA_IRQ, &hp.route, &hp.irq);
	if (!why)
		why = hpet_measure(plan);
	if (why)
		return why;
	report_info("timer 0 may use GSIs %#x; %s GSI %u", hpet_route_cap(0),
		    hp.irq == HPET_IRQ_LEGACY ? "legacy replacement: ISA IRQ 0, which is"
					      : "routed to",
		    hp.route.gsi);
	if (!ioapic_route(&hp.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no such pin";
	return NULL;
}

/*
 * The main counter starts from 0 when ENABLE_CNF is set: the anchor is
 * read just before. With VAL_SET_CNF the first comparator write sets the
 * first expiry, the second the period.
 */
static u64 hpet_start(void)
{
	hpet_timer_setup(hp.timer, HPET_PERIODIC, hp.irq, hp.route.gsi);
	hpet_timer_compare(hp.timer, (u32)hp.period);
	hpet_timer_compare(hp.timer, (u32)hp.period);
	return hpet_run(hp.irq);
}

static void hpet_stop(void)
{
	hpet_quiet();
	ioapic_mask(hp.route.gsi);
	tick_device_ack = NULL;
}

const struct tick_source tick_source_hpet = {
	.name = "hpet",
	.what = "HPET timer 0, periodic, through the IOAPIC",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	/*
	 * QEMU emulates the HPET in its main loop thread: when the host
	 * delays that thread, the timer skips the periods it missed, and the
	 * vCPU, halted meanwhile, accrues no steal time. Beside two busy loops
	 * on this 2-CPU host up to 5.0 % of the ticks at 1000 Hz went that way
	 * in 14 runs (docs/timers.md); dropping one tick in ten must still fail.
	 */
	.unseen_host_lost_pct = HPET_UNSEEN_HOST_LOST_PCT,
	.refclock = "hpet",
	.probe = hpet_probe,
	.setup = hpet_setup,
	.start = hpet_start,
	.stop = hpet_stop,
};

/*
 * ---- the HPET routed: its last timer, which legacy replacement never
 * takes, on the first IOAPIC input above 15 its Tn_INT_ROUTE_CAP allows,
 * edge-triggered. Level triggering (the driver offers it, with
 * hpet_timer_ack()) made nearly every tick early or late under QEMU 7.2
 * with KVM on q35, whatever the polarity: docs/timers.md.
 */

static const char *routed_probe(void)
{
	static char why[112];
	const char *no_hpet = hpet_find();

	if (no_hpet)
		return no_hpet;
	if (!ioapic_init())
		return "no IOAPIC to route the HPET through";
	hp.timer = hpet_timers() - 1;
	if (!first_gsi_above_isa(hpet_route_cap(hp.timer))) {
		snprintf(why, sizeof(why),
			 "HPET timer %u can reach no IOAPIC input above 15 (Tn_INT_ROUTE_CAP %#x)",
			 hp.timer, hpet_route_cap(hp.timer));
		return why;
	}
	return NULL;
}

static const char *routed_periodic_probe(void)
{
	static char why[64];
	const char *no = routed_probe();

	if (no)
		return no;
	if (!hpet_timer_can_periodic(hp.timer)) {
		snprintf(why, sizeof(why), "HPET timer %u has no periodic mode", hp.timer);
		return why;
	}
	return NULL;
}

static const char *routed_setup(u64 hz, struct tick_plan *plan)
{
	const char *why = hpet_period(hz);

	if (!why)
		why = hpet_measure(plan);
	if (why)
		return why;
	hp.irq = HPET_IRQ_EDGE;
	hp.route = (struct ioapic_route){first_gsi_above_isa(hpet_route_cap(hp.timer)),
					 IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
	report_info("timer %u may use GSIs %#x; routed to GSI %u, edge-triggered, active high",
		    hp.timer, hpet_route_cap(hp.timer), hp.route.gsi);
	if (!ioapic_route(&hp.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no such pin";
	return NULL;
}

/*
 * One-shot: the comparator is parked half a wrap ahead until the engine
 * arms the first slot; each arming is the counter read plus the counts
 * the deadline needs (rounded up, at least one), so it never fires early.
 * A comparator the counter has already passed fires at once in QEMU; real
 * hardware would wait for the 32-bit wrap (42 s at 100 MHz) and the run
 * would end as a stopped source.
 */
static u64 routed_oneshot_start(void)
{
	hpet_timer_setup(hp.timer, HPET_ONESHOT, hp.irq, hp.route.gsi);
	hpet_timer_compare(hp.timer, (u32)HPET_PERIOD_MAX_COUNTS);
	return hpet_run(hp.irq);
}

static void routed_arm_at(u64 when, u64 now)
{
	u64 counts = tick_ticks_to_counts(&hp.cal, when > now ? when - now : 0);

	hpet_timer_compare(hp.timer, hpet_counter_read32() + (u32)max(counts, 1ull));
}

const struct tick_source tick_source_hpet_routed = {
	.name = "hpet-routed",
	.what = "HPET's last timer, periodic, edge-triggered on its own IOAPIC input",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	/* emulated in the same QEMU thread as timer 0: the same unseen delays */
	.unseen_host_lost_pct = HPET_UNSEEN_HOST_LOST_PCT,
	.refclock = "hpet",
	.probe = routed_periodic_probe,
	.setup = routed_setup,
	.start = hpet_start,
	.stop = hpet_stop,
};

const struct tick_source tick_source_hpet_routed_oneshot = {
	.name = "hpet-routed-oneshot",
	.what = "HPET's last timer, one-shot re-armed every tick, edge-triggered on its own "
		"IOAPIC input",
	.kind = TICK_ONESHOT,
	.wake_use = TICK_OWN_TIMER,
	.refclock = "hpet",
	.probe = routed_probe,
	.setup = routed_setup,
	.start = routed_oneshot_start,
	.arm_at = routed_arm_at,
	.stop = hpet_stop,
};

/* ---- PIT channel 0 ---- */

static struct {
	u64 period;
	struct ioapic_route route;
} pit;

/* Channel 0 counting from the largest reload, read as it goes, then stopped again. */
static bool pit_calibrate(struct tick_cal *cal)
{
	bool counts;

	pit_ch0_run_free();
	cal_track.last = pit_ch0_count();
	cal_track.elapsed = 0;
	counts = tick_calibrate(pit_cal_read, cal);
	pit_quiesce();
	return counts;
}

static const char *pit_probe(void)
{
	if (!ioapic_init())
		return "no IOAPIC to route ISA IRQ 0 through";
	return NULL;
}

static const char *pit_setup(u64 hz, struct tick_plan *plan)
{
	static char why[96];

	pit.period = (PIT_HZ + hz / 2) / hz;
	if (pit.period < PIT_RELOAD_MIN || pit.period > PIT_RELOAD_MAX) {
		snprintf(why, sizeof(why), "hz=%llu needs a reload of %llu, outside %u..%u",
			 (unsigned long long)hz, (unsigned long long)pit.period, PIT_RELOAD_MIN,
			 PIT_RELOAD_MAX);
		return why;
	}
	if (!pit_calibrate(&plan->cal))
		return "channel 0 does not count";
	plan->period_counts = pit.period;
	pit.route = ioapic_isa_route(PIT_ISA_IRQ);
	report_info("PIT at %u Hz (nominal); ISA IRQ %d is GSI %u (%s) by %s", PIT_HZ, PIT_ISA_IRQ,
		    pit.route.gsi, pit.route.trigger == IOAPIC_LEVEL ? "level" : "edge",
		    ioapic_found_by());
	if (!ioapic_route(&pit.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no pin for ISA IRQ 0";
	return NULL;
}

static u64 pit_start(void)
{
	return pit_ch0_rate_start((u32)pit.period);
}

static void pit_stop(void)
{
	pit_quiesce();
	ioapic_mask(pit.route.gsi);
}

const struct tick_source tick_source_pit = {
	.name = "pit",
	.what = "PIT channel 0, rate generator, through the IOAPIC",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	.probe = pit_probe,
	.setup = pit_setup,
	.start = pit_start,
	.stop = pit_stop,
};

/*
 * ---- the CMOS RTC's periodic interrupt: PIE in register B, the rate
 * select of register A (hz: a power of two, 2..8192), ISA IRQ 8, and
 * register C read to acknowledge (until then the line stays up and no
 * further edge reaches the IOAPIC).
 *
 * The RTC has no count to read, so its clock is measured by its flags:
 * register C is polled with the pin masked, each PF bracketed between the
 * read before (which did not see it) and the one that did. Its phase is
 * the divider chain's, not the start's: the schedule is anchored on a PF
 * caught the same way, at the lower end of its bracket.
 */

/* Best bracket of this many flags at each end of the calibration, which lasts the window. */
#define RTC_CAL_EDGES	  16
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
} rtc;

struct rtc_flag {
	u64 lo, hi; /* the periodic flag was set after lo and before hi */
};

/* Poll register C from a clearing read until PF shows: false after the timeout. */
static bool rtc_next_flag(struct rtc_flag *f)
{
	u64 prev = arch_counter(), start = prev, a, b;
	u8 c;

	rtc_irq_ack();
	for (;;) {
		a = arch_counter();
		c = rtc_irq_ack();
		b = arch_counter();
		if (c & RTC_C_PF) {
			*f = (struct rtc_flag){prev, b};
			return true;
		}
		if (b - start > rtc.timeout)
			return false;
		prev = a;
	}
}

/* The narrowest bracket of the next RTC_CAL_EDGES flags. */
static const char *rtc_mark(struct rtc_flag *best)
{
	struct rtc_flag f;

	for (unsigned i = 0; i < RTC_CAL_EDGES; i++) {
		if (!rtc_next_flag(&f))
			return "the periodic flag (register C's PF) did not come";
		if (!i || f.hi - f.lo < best->hi - best->lo)
			*best = f;
	}
	return NULL;
}

static u64 flag_mid(const struct rtc_flag *f)
{
	return f->lo + (f->hi - f->lo) / 2;
}

/*
 * Flags over the window: counts of the 32768 Hz time base between the
 * best brackets at each end. Polling (two port exits a read) misses flags
 * and QEMU sets each one when its timer callback runs, late by the main
 * loop's delays: the periods between the two are the gap rounded to whole
 * nominal ones, which must leave no doubt (a quarter period, beyond the
 * brackets' widths) - a rate off by more than that over the window fails.
 */
static const char *rtc_calibrate(u64 hz, struct tick_cal *cal)
{
	static char why[112];
	struct rtc_flag f1, f2;
	u64 end, gap, k, off, slack;
	const char *no;

	rtc_irq_enable(RTC_IRQ_PERIODIC);
	no = rtc_mark(&f1);
	end = arch_counter() + tick_counter_hz() * RTC_CAL_WINDOW_MS / 1000;
	while (!no && arch_counter() < end)
		rtc_irq_ack();
	if (!no)
		no = rtc_mark(&f2);
	rtc_irq_disable(RTC_IRQ_PERIODIC);
	rtc_irq_ack();
	if (no)
		return no;
	gap = flag_mid(&f2) - flag_mid(&f1);
	k = (gap + rtc.nominal / 2) / rtc.nominal;
	off = gap > k * rtc.nominal ? gap - k * rtc.nominal : k * rtc.nominal - gap;
	slack = (f1.hi - f1.lo) / 2 + (f2.hi - f2.lo) / 2;
	if (off > rtc.nominal / 4 + slack) {
		snprintf(why, sizeof(why), "periodic flags %llu us apart: no whole number of periods "
			 "at hz", (unsigned long long)ticks_to_ns(gap, tick_counter_hz()) / 1000);
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
	const char *no_cal;

	if (no_rate) {
		snprintf(why, sizeof(why), "hz=%llu: %s", (unsigned long long)hz, no_rate);
		return why;
	}
	rtc.nominal = tick_counter_hz() / hz;
	rtc.timeout = max(RTC_EDGE_TIMEOUT_PERIODS * rtc.nominal,
			  tick_counter_hz() * RTC_EDGE_TIMEOUT_MIN_MS / 1000);
	rtc.route = ioapic_isa_route(RTC_ISA_IRQ);
	ioapic_mask(rtc.route.gsi);
	no_cal = rtc_calibrate(hz, &plan->cal);
	if (no_cal)
		return no_cal;
	plan->period_counts = RTC_TIME_BASE_HZ / hz;
	rtc.cal = plan->cal;
	rtc.period_counts = plan->period_counts;
	report_info("RTC periodic interrupt: %u Hz time base / %llu; ISA IRQ %d is GSI %u (%s) by %s",
		    RTC_TIME_BASE_HZ, (unsigned long long)plan->period_counts, RTC_ISA_IRQ,
		    rtc.route.gsi, rtc.route.trigger == IOAPIC_LEVEL ? "level" : "edge",
		    ioapic_found_by());
	if (!ioapic_route(&rtc.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no pin for ISA IRQ 8";
	tick_device_ack = rtc_ack;
	return NULL;
}

/*
 * With interrupts off, PIE set and the pin routed: the first flag fixes
 * the phase. Its edge left an interrupt pending, taken as the first tick:
 * the anchor is one period before the flag's lower bound, so that slot 0
 * is no later than that flag.
 */
static u64 rtc_start(void)
{
	struct rtc_flag f;

	rtc_irq_enable(RTC_IRQ_PERIODIC);
	if (!rtc_next_flag(&f))
		return arch_counter(); /* no flag: the run's checks will say so */
	return f.lo - tick_counts_to_ticks(&rtc.cal, rtc.period_counts);
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
	.probe = rtc_probe,
	.setup = rtc_setup,
	.start = rtc_start,
	.stop = rtc_stop,
};
