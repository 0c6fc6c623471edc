/* SPDX-License-Identifier: GPL-2.0-only */
/* HPET discovery, its main counter as a clock, timer 0 in periodic mode routed through the IOAPIC,
 * and timer 1 as a one-shot guard. */
#include "x86/hpet.h"
#include "x86/acpi.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/io.h"
#include "x86/ioapic.h"
#include "report.h"
#include "stats.h"

/* Registers (IA-PC HPET specification 1.0a, 2.3); 64-bit ones are accessed as two dwords. */
#define HPET_GCAP_ID	     0x000
#define HPET_GCAP_PERIOD     0x004 /* high dword: counter period in femtoseconds */
#define HPET_GEN_CONF	     0x010
#define HPET_MAIN_CNT	     0x0f0
#define HPET_MAIN_CNT_HI     0x0f4
#define HPET_TN_CONF(n)	     (0x100 + 0x20 * (n))
#define HPET_TN_ROUTE_CAP(n) (0x104 + 0x20 * (n)) /* high dword of Tn_CONF */
#define HPET_TN_CMP(n)	     (0x108 + 0x20 * (n))

#define HPET_GCAP_NUM_TIM_SHIFT 8
#define HPET_GCAP_NUM_TIM_MASK	0x1f
#define HPET_GCAP_LEG_RT_CAP	(1u << 15)
#define HPET_GCAP_VENDOR_SHIFT	16
#define HPET_GEN_ENABLE_CNF	(1u << 0)
#define HPET_GEN_LEG_RT_CNF	(1u << 1)
#define HPET_TN_INT_ENB_CNF	(1u << 2)
#define HPET_TN_TYPE_CNF	(1u << 3) /* periodic */
#define HPET_TN_PER_INT_CAP	(1u << 4)
#define HPET_TN_SIZE_CAP	(1u << 5) /* 64-bit */
#define HPET_TN_VAL_SET_CNF	(1u << 6)
#define HPET_TN_32MODE_CNF	(1u << 8)
#define HPET_TN_INT_ROUTE_SHIFT 9
#define HPET_GUARD_TIMER	1
/* In legacy replacement mode timer 1 drives ISA IRQ 8, where the RTC was. */
#define HPET_LEGACY_GUARD_ISA_IRQ 8
/* A 32-bit comparator: guard waits longer than half the wrap are chained. */
#define HPET_GUARD_MAX_COUNTS 0x7fffffffull
/* Lost ticks the guest cannot attribute (tick_source.unseen_host_lost_pct; reason below). */
#define HPET_UNSEEN_HOST_LOST_PCT 8

#define HPET_PERIOD_MAX_FS 100000000u /* the spec's bound: 100 ns */
#define FS_PER_S	   1000000000000000ull
/* ACPI HPET table: the base's Generic Address Structure (space ID, then the address at +4). */
#define ACPI_HPET_BASE_GAS     40
#define ACPI_HPET_BASE_ADDR    44
#define ACPI_GAS_SYSTEM_MEMORY 0
/* In legacy replacement mode timer 0 drives ISA IRQ 0, where the PIT was. */
#define HPET_LEGACY_ISA_IRQ 0
/* IOAPIC pins from here up are not ISA lines. */
#define FIRST_NON_ISA_GSI 16
/* A 32-bit periodic comparator holds periods below 2^31 (QEMU keeps 31 bits). */
#define HPET_PERIOD_MAX_COUNTS 0x7fffffffull

static struct {
	uintptr_t base;
	u32 period_fs;
	u32 cap;
	const char *found_by;
	bool legacy;
	struct ioapic_route route;
	u64 period;
	u32 last;    /* calibration: last count read */
	u64 elapsed; /* calibration: counts since it began */
	struct ioapic_route guard_route;
	u64 guard_when;	  /* counter value the guard waits for */
	bool guard_ready; /* timer 1 routed and enabled: arming is a comparator write */
} hpet;

static u32 hpet_read(u32 reg)
{
	return mmio_read32(hpet.base + reg);
}

static void hpet_write(u32 reg, u32 val)
{
	mmio_write32(hpet.base + reg, val);
}

static bool hpet_sane(uintptr_t base)
{
	u32 cap, period, vendor;

	hpet.base = base;
	cap = hpet_read(HPET_GCAP_ID);
	period = hpet_read(HPET_GCAP_PERIOD);
	vendor = cap >> HPET_GCAP_VENDOR_SHIFT;
	if (vendor == 0 || vendor == 0xffff || period == 0 || period > HPET_PERIOD_MAX_FS)
		return false;
	hpet.cap = cap;
	hpet.period_fs = period;
	return true;
}

const char *hpet_find(void)
{
	const struct acpi_header *t = acpi_find_table("HPET");

	if (hpet.base)
		return NULL;
	if (t && ((const u8 *)t)[ACPI_HPET_BASE_GAS] == ACPI_GAS_SYSTEM_MEMORY) {
		u64 base = *(const u64 *)((const u8 *)t + ACPI_HPET_BASE_ADDR);

		hpet.found_by = "the ACPI HPET table";
		if (hpet_sane((uintptr_t)base))
			return NULL;
		hpet.base = 0;
		return "the ACPI HPET table's base has no sane capabilities register";
	}
	hpet.found_by = "its default base (no ACPI HPET table), capabilities checked";
	if (hpet_sane(HPET_DEFAULT_BASE))
		return NULL;
	hpet.base = 0;
	return "no ACPI HPET table, and no HPET capabilities register at 0xfed00000";
}

void hpet_counter_run(void)
{
	u32 conf = hpet_read(HPET_GEN_CONF);

	if (!(conf & HPET_GEN_ENABLE_CNF))
		hpet_write(HPET_GEN_CONF, conf | HPET_GEN_ENABLE_CNF);
}

u32 hpet_counter_read32(void)
{
	return hpet_read(HPET_MAIN_CNT);
}

/* Rounded to the nearest Hz; QEMU's 10 ns period gives 100 MHz exactly. */
u64 hpet_counter_hz(void)
{
	return (FS_PER_S + hpet.period_fs / 2) / hpet.period_fs;
}

/* The main counter's low dword, followed across wraps. */
static u64 hpet_cal_read(void)
{
	u32 now = hpet_read(HPET_MAIN_CNT);

	hpet.elapsed += (u32)(now - hpet.last);
	hpet.last = now;
	return hpet.elapsed;
}

static void hpet_halt_and_clear(void)
{
	hpet_write(HPET_GEN_CONF, 0);
	hpet_write(HPET_TN_CONF(0), 0);
	hpet_write(HPET_MAIN_CNT, 0);
	hpet_write(HPET_MAIN_CNT_HI, 0);
}

static const char *hpet_probe(void)
{
	const char *why = hpet_find();

	if (why)
		return why;
	if (!(hpet_read(HPET_TN_CONF(0)) & HPET_TN_PER_INT_CAP))
		return "HPET timer 0 has no periodic mode";
	if (!ioapic_init())
		return "no IOAPIC to route the HPET through";
	return NULL;
}

/*
 * A pin of timer n's own above the ISA range if it has one; else legacy
 * replacement, where timer 0 takes ISA IRQ 0 and timer 1 ISA IRQ 8
 * (legacy_irq): QEMU's pc offers its timers only GSI 2, which KVM's
 * routing does not connect to the IOAPIC.
 */
static const char *hpet_route(unsigned n, unsigned legacy_irq, struct ioapic_route *route)
{
	u32 cap = hpet_read(HPET_TN_ROUTE_CAP(n));

	for (unsigned gsi = FIRST_NON_ISA_GSI; gsi < 32; gsi++) {
		if (cap & (1u << gsi)) {
			hpet.legacy = false;
			*route = (struct ioapic_route){gsi, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
			return NULL;
		}
	}
	if (!(hpet.cap & HPET_GCAP_LEG_RT_CAP))
		return "the timer can reach no IOAPIC pin above 15 and the HPET has no legacy "
		       "replacement";
	hpet.legacy = true;
	*route = ioapic_isa_route(legacy_irq);
	return NULL;
}

static const char *hpet_choose_route(void)
{
	return hpet_route(0, HPET_LEGACY_ISA_IRQ, &hpet.route);
}

static const char *hpet_setup(u64 hz, struct tick_plan *plan)
{
	static char why[96];
	const char *no_route;

	hpet.period = (FS_PER_S + (u64)hpet.period_fs * hz / 2) / ((u64)hpet.period_fs * hz);
	if (!hpet.period || hpet.period > HPET_PERIOD_MAX_COUNTS) {
		snprintf(why, sizeof(why), "hz=%llu needs a period of %llu counts",
			 hz, hpet.period);
		return why;
	}
	no_route = hpet_choose_route();
	if (no_route)
		return no_route;
	hpet_halt_and_clear();
	hpet.last = 0;
	hpet.elapsed = 0;
	hpet_write(HPET_GEN_CONF, HPET_GEN_ENABLE_CNF);
	if (!tick_calibrate(hpet_cal_read, &plan->cal)) {
		hpet_halt_and_clear();
		return "the main counter does not count";
	}
	hpet_halt_and_clear();
	plan->period_counts = hpet.period;
	report_info("HPET by %s: vendor %#x, %u timers, period %u fs (%llu Hz nominal)",
		    hpet.found_by, hpet.cap >> HPET_GCAP_VENDOR_SHIFT,
		    ((hpet.cap >> HPET_GCAP_NUM_TIM_SHIFT) & HPET_GCAP_NUM_TIM_MASK) + 1,
		    hpet.period_fs, FS_PER_S / hpet.period_fs);
	report_info("timer 0 may use GSIs %#x; %s GSI %u", hpet_read(HPET_TN_ROUTE_CAP(0)),
		    hpet.legacy ? "legacy replacement: ISA IRQ 0, which is" : "routed to",
		    hpet.route.gsi);
	if (!ioapic_route(&hpet.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no such pin";
	return NULL;
}

/*
 * The main counter starts from 0 when ENABLE_CNF is set: the anchor is
 * read just before. With VAL_SET_CNF the first comparator write sets the
 * first expiry, the second the period. A 32-bit timer (as Linux uses it):
 * QEMU keeps a 64-bit comparator's upper half at its reset value otherwise.
 */
static u64 hpet_start(void)
{
	u32 conf = HPET_TN_INT_ENB_CNF | HPET_TN_TYPE_CNF | HPET_TN_VAL_SET_CNF;
	u32 gen = HPET_GEN_ENABLE_CNF;
	u64 t;

	if (hpet_read(HPET_TN_CONF(0)) & HPET_TN_SIZE_CAP)
		conf |= HPET_TN_32MODE_CNF;
	if (hpet.legacy)
		gen |= HPET_GEN_LEG_RT_CNF;
	else
		conf |= hpet.route.gsi << HPET_TN_INT_ROUTE_SHIFT;
	hpet_write(HPET_TN_CONF(0), conf);
	hpet_write(HPET_TN_CMP(0), (u32)hpet.period);
	hpet_write(HPET_TN_CMP(0), (u32)hpet.period);
	t = arch_counter();
	hpet_write(HPET_GEN_CONF, gen);
	return t;
}

static void hpet_stop(void)
{
	hpet_halt_and_clear();
	ioapic_mask(hpet.route.gsi);
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
	.probe = hpet_probe,
	.setup = hpet_setup,
	.start = hpet_start,
	.stop = hpet_stop,
};

/* ---- timer 1: the guard of the LAPIC sources (lib/timer_tick.h, tick_arch_guard_at) ---- */

/*
 * Arm timer 1 to fire at least as late as the counter value when: the
 * nominal rates give the count (rounded up, plus one), and the handler
 * re-arms while the counter has not got there, so a long wait is chained
 * in halves of the 32-bit comparator's wrap.
 */
static void hpet_guard_arm(u64 now)
{
	u64 ns = ticks_to_ns(hpet.guard_when > now ? hpet.guard_when - now : 0, tick_counter_hz()),
	    counts = min(ns_to_ticks(ns, FS_PER_S / hpet.period_fs) + 1, HPET_GUARD_MAX_COUNTS);

	hpet_write(HPET_TN_CMP(HPET_GUARD_TIMER), hpet_read(HPET_MAIN_CNT) + (u32)counts);
}

/*
 * The first call routes and configures timer 1, which takes milliseconds
 * under an emulating hypervisor (ACPI tables, IOAPIC and HPET exits);
 * later ones only move the comparator.
 */
const char *hpet_guard_at(u64 when, u8 vector)
{
	u32 conf = HPET_TN_INT_ENB_CNF, gen;
	const char *why;

	hpet.guard_when = when;
	if (hpet.guard_ready) {
		hpet_guard_arm(arch_counter());
		return NULL;
	}
	why = hpet_find();
	if (why)
		return why;
	if (((hpet.cap >> HPET_GCAP_NUM_TIM_SHIFT) & HPET_GCAP_NUM_TIM_MASK) < HPET_GUARD_TIMER)
		return "the HPET has a single timer";
	why = hpet_route(HPET_GUARD_TIMER, HPET_LEGACY_GUARD_ISA_IRQ, &hpet.guard_route);
	if (why)
		return why;
	if (!ioapic_route(&hpet.guard_route, vector, apic_id()))
		return "the IOAPIC has no pin for HPET timer 1";
	if (hpet_read(HPET_TN_CONF(HPET_GUARD_TIMER)) & HPET_TN_SIZE_CAP)
		conf |= HPET_TN_32MODE_CNF;
	if (!hpet.legacy)
		conf |= hpet.guard_route.gsi << HPET_TN_INT_ROUTE_SHIFT;
	/* the main counter keeps running if it was: a reference clock may be reading it */
	gen = hpet_read(HPET_GEN_CONF) | HPET_GEN_ENABLE_CNF;
	if (hpet.legacy)
		gen |= HPET_GEN_LEG_RT_CNF;
	hpet_write(HPET_TN_CONF(HPET_GUARD_TIMER), conf);
	hpet_write(HPET_GEN_CONF, gen);
	hpet.guard_ready = true;
	hpet_guard_arm(arch_counter());
	return NULL;
}

bool hpet_guard_expired(void)
{
	u64 now = arch_counter();

	if (now >= hpet.guard_when)
		return true;
	hpet_guard_arm(now);
	return false;
}

void hpet_guard_cancel(void)
{
	hpet_write(HPET_TN_CONF(HPET_GUARD_TIMER), 0);
	ioapic_mask(hpet.guard_route.gsi);
	hpet.guard_ready = false;
}
