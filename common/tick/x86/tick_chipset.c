/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chipset's tick sources, each through the IOAPIC: HPET timer 0
 * (legacy replacement or a pin of its own), the HPET's last timer routed
 * edge-triggered, and PIT channel 0 as a rate generator and as a re-armed
 * one-shot (the CMOS RTC's is in tick_rtc.c).
 * The hooks and the LAPIC timer's sources are in tick.c.
 */
#include "x86/tick.h"
#include "x86/apic.h"
#include "arch.h"
#include "x86/hpet.h"
#include "x86/ioapic.h"
#include "x86/pit.h"
#include "report.h"
#include "stats.h"
#include "units.h"

/* A 32-bit periodic comparator holds periods below 2^31 (QEMU keeps 31 bits). */
#define HPET_PERIOD_MAX_COUNTS 0x7fffffffull

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
	/* one-shot: armings made, armings missed and made again further out, the slowest */
	u64 armings, rearmed;
	u32 took_max;
	u32 cmp; /* one-shot: the comparator in force */
	/*
	 * One-shot: an interrupt not of the arming in force was pending when it
	 * was made (owed), or may have been when the last tick came (took_owed).
	 */
	bool owed, took_owed;
} hp;

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
			 hz, hp.period);
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
		why = hpet_timer_route(0, &hp.route, &hp.irq);
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

/* The IOAPIC pin masked: an edge that comes meanwhile is dropped there. */
static void hpet_mute(bool on)
{
	ioapic_set_masked(hp.route.gsi, on);
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
	 * delays that thread, the timer skips the periods it missed and fires
	 * once, late, and the vCPU, halted meanwhile, accrues no steal time;
	 * the runner's agent measures that thread's waits (common/tick/tick_judge.c).
	 */
	.refclock = "hpet",
	.probe = hpet_probe,
	.setup = hpet_setup,
	.start = hpet_start,
	.mute = hpet_mute,
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
	if (!hpet_timer_gsi_above_isa(hp.timer)) {
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
	hpet_timer_route_above_isa(hp.timer, &hp.route); /* routed_probe() found one */
	report_info("timer %u may use GSIs %#x; routed to GSI %u, edge-triggered, active high",
		    hp.timer, hpet_route_cap(hp.timer), hp.route.gsi);
	if (!ioapic_route(&hp.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no such pin";
	return NULL;
}

/*
 * One-shot: the comparator is parked half a wrap ahead of the cleared,
 * halted counter until the engine arms the first slot; each arming is
 * the counter read plus the counts the deadline needs (rounded up, at
 * least one), so it never fires early, then read back: a comparator the
 * counter had passed by the time the write landed waits for the 32-bit
 * wrap (43 s at 100 MHz) under the spec and QEMU 9.1 and later, so it is
 * armed again further out, a late tick (hpet_timer_arm_ahead()).
 */
static u64 routed_oneshot_start(void)
{
	hp.armings = hp.rearmed = 0;
	hp.took_max = 0;
	hp.owed = hp.took_owed = false;
	hpet_timer_setup(hp.timer, HPET_ONESHOT, hp.irq, hp.route.gsi);
	hpet_timer_compare(hp.timer, (u32)HPET_PERIOD_MAX_COUNTS);
	return hpet_run(hp.irq);
}

/*
 * Each comparator write replaces the expiry QEMU had pending, so once the
 * arming in force is written no earlier arming can raise its interrupt
 * any more: one that did is pending at the LAPIC (IRR; the handler runs
 * with interrupts off), or was taken. Only an arming that abandoned one,
 * or that follows a tick taken while one was pending (which may have been
 * that one, the arming's own raised after it), can leave such an
 * interrupt; any other pending before its comparator is an early one.
 */
static void routed_arm_at(u64 when, u64 now)
{
	u64 counts = tick_ticks_to_counts(&hp.cal, when > now ? when - now : 0);
	struct hpet_arming a = hpet_timer_arm_ahead_paced(hp.timer, counts, tick_slow_arm);

	hp.cmp = a.cmp;
	hp.owed = (a.rearms || hp.took_owed) && apic_irr_pending(TIMER_TICK_VECTOR);
	hp.armings++;
	hp.rearmed += a.rearms != 0;
	hp.took_max = max(hp.took_max, a.took);
}

/*
 * An interrupt before the comparator in force is not its arming's (the
 * spec's one-shot fires when the counter equals the comparator, IA-PC HPET
 * 1.0a 2.3.9.2.1): an abandoned arming's where one was owed, else an
 * early tick, which the engine counts and the judgment fails.
 */
static bool routed_stale(void)
{
	bool reached = hpet_counter_reached(hpet_counter_read32(), hp.cmp), owed = hp.owed;

	hp.owed = false;
	if (!reached && owed)
		return true;
	hp.took_owed = owed;
	return false;
}

static void routed_oneshot_stop(void)
{
	hpet_stop();
	report_info("%llu of %llu armings found the counter at or past the comparator and were "
		    "made again further out; the slowest write and read-back took %u counts",
		    hp.rearmed, hp.armings, hp.took_max);
}

const struct tick_source tick_source_hpet_routed = {
	.name = "hpet-routed",
	.what = "HPET's last timer, periodic, edge-triggered on its own IOAPIC input",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	/* emulated in the same QEMU thread as timer 0 */
	.refclock = "hpet",
	.probe = routed_periodic_probe,
	.setup = routed_setup,
	.start = hpet_start,
	.mute = hpet_mute,
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
	.stale = routed_stale,
	.stop = routed_oneshot_stop,
};

/* ---- PIT channel 0 ---- */

static struct {
	u64 period;
	struct ioapic_route route;
	struct tick_cal cal; /* one-shot: to turn a deadline into counts */
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

/* The period for hz in the rate generator's reload (NULL, or why it does not fit). */
static const char *pit_rate_period(u64 hz)
{
	static char why[96];

	pit.period = (PIT_HZ + hz / 2) / hz;
	if (pit.period < PIT_RELOAD_MIN || pit.period > PIT_RELOAD_MAX) {
		snprintf(why, sizeof(why), "hz=%llu needs a reload of %llu, outside %u..%u",
			 hz, pit.period, PIT_RELOAD_MIN,
			 PIT_RELOAD_MAX);
		return why;
	}
	return NULL;
}

/* Channel 0 against the counter, and ISA IRQ 0 routed; nothing ticks yet. */
static const char *pit_calibrate_and_route(struct tick_plan *plan)
{
	const char *why;

	if (!pit_calibrate(&plan->cal))
		return "channel 0 does not count";
	plan->period_counts = pit.period;
	pit.cal = plan->cal;
	why = ioapic_route_isa(PIT_ISA_IRQ, TIMER_TICK_VECTOR, apic_id(), &pit.route);
	report_info("PIT at %u Hz (nominal); ISA IRQ %d is GSI %u (%s) by %s", PIT_HZ, PIT_ISA_IRQ,
		    pit.route.gsi, pit.route.trigger == IOAPIC_LEVEL ? "level" : "edge",
		    ioapic_found_by());
	return why;
}

static const char *pit_setup(u64 hz, struct tick_plan *plan)
{
	const char *why = pit_rate_period(hz);

	return why ? why : pit_calibrate_and_route(plan);
}

static u64 pit_start(void)
{
	return pit_ch0_rate_start((u32)pit.period);
}

static void pit_mute(bool on)
{
	ioapic_set_masked(pit.route.gsi, on);
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
	.mute = pit_mute,
	.stop = pit_stop,
};

/*
 * ---- PIT channel 0 one-shot: mode 0 (interrupt on terminal count),
 * re-armed from every interrupt with the counts to the next slot. KVM's
 * in-kernel PIT runs mode 0 on a one-shot hrtimer of its own, not mode 2's
 * periodic one with its re-injection of missed periods.
 */

/* One arm is one 16-bit count: a period past 2^16 counts (54.9 ms: hz 18 or less) cannot be. */
static const char *pit_oneshot_period(u64 hz)
{
	static char why[128];

	pit.period = (PIT_HZ + hz / 2) / hz;
	if (pit.period < PIT_ONESHOT_COUNT_MIN || pit.period > PIT_ONESHOT_COUNT_MAX) {
		snprintf(why, sizeof(why),
			 "hz=%llu needs one arm of %llu counts (%llu us), more than mode 0's "
			 "16-bit count holds (%u counts, %llu us at %u Hz)",
			 hz, pit.period, pit.period * USEC_PER_SEC / PIT_HZ, PIT_ONESHOT_COUNT_MAX,
			 (u64)PIT_ONESHOT_COUNT_MAX * USEC_PER_SEC / PIT_HZ, PIT_HZ);
		return why;
	}
	return NULL;
}

static const char *pit_oneshot_setup(u64 hz, struct tick_plan *plan)
{
	const char *why = pit_oneshot_period(hz);

	return why ? why : pit_calibrate_and_route(plan);
}

/* Mode 0 with no count loaded: nothing counts until the engine arms the first slot. */
static u64 pit_oneshot_start(void)
{
	pit_ch0_oneshot_mode();
	return arch_counter();
}

/* Counts rounded up, at least one: the count starts after the write, so it never fires early. */
static void pit_oneshot_arm_at(u64 when, u64 now)
{
	u64 counts = tick_ticks_to_counts(&pit.cal, when > now ? when - now : 0);

	counts = max(counts, (u64)PIT_ONESHOT_COUNT_MIN);
	pit_ch0_oneshot((u32)min(counts, (u64)PIT_ONESHOT_COUNT_MAX));
}

const struct tick_source tick_source_pit_oneshot = {
	.name = "pit-oneshot",
	.what = "PIT channel 0, mode 0 (one-shot) re-armed every tick, through the IOAPIC",
	.kind = TICK_ONESHOT,
	.wake_use = TICK_OWN_TIMER,
	/* channel 2, the reference called "pit", runs on the same input clock */
	.refclock = "pit",
	.probe = pit_probe,
	.setup = pit_oneshot_setup,
	.start = pit_oneshot_start,
	.arm_at = pit_oneshot_arm_at,
	.stop = pit_stop,
};
