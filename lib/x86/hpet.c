/* SPDX-License-Identifier: GPL-2.0-only */
/* The HPET's registers: discovery, the main counter, and each timer's configuration and comparator. */
#include "x86/hpet.h"
#include "x86/acpi.h"
#include "arch.h"
#include "x86/io.h"
#include "report.h"
#include "units.h"

/* Registers (IA-PC HPET specification 1.0a, 2.3); 64-bit ones are accessed as two dwords. */
#define HPET_TN_ROUTE_CAP(n) (0x104 + 0x20 * (n)) /* high dword of Tn_CONF */

#define HPET_GCAP_NUM_TIM_SHIFT 8
#define HPET_GCAP_NUM_TIM_MASK	0x1f
#define HPET_GCAP_COUNT_SIZE_CAP (1u << 13)
#define HPET_GCAP_LEG_RT_CAP	(1u << 15)
#define HPET_GCAP_VENDOR_SHIFT	16
#define HPET_GEN_LEG_RT_CNF	(1u << 1)

/* ACPI HPET table: the base's Generic Address Structure (space ID, then the address at +4). */
#define ACPI_HPET_BASE_GAS     40
#define ACPI_HPET_BASE_ADDR    44
#define ACPI_GAS_SYSTEM_MEMORY 0

static struct {
	uintptr_t base;
	u32 period_fs;
	u32 cap;
	const char *found_by;
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

bool hpet_counter_is_64bit(void)
{
	return hpet.cap & HPET_GCAP_COUNT_SIZE_CAP;
}

u64 hpet_counter_read64(void)
{
	u32 hi, lo;

	do {
		hi = hpet_read(HPET_MAIN_CNT_HI);
		lo = hpet_read(HPET_MAIN_CNT);
	} while (hpet_read(HPET_MAIN_CNT_HI) != hi);
	return (u64)hi << 32 | lo;
}

/* Rounded to the nearest Hz; QEMU's 10 ns period gives 100 MHz exactly. */
u64 hpet_counter_hz(void)
{
	return (FSEC_PER_SEC + hpet.period_fs / 2) / hpet.period_fs;
}

void hpet_report_found(void)
{
	report_info("HPET by %s: vendor %#x, %u timers, period %u fs (%llu Hz nominal)",
		    hpet.found_by, hpet.cap >> HPET_GCAP_VENDOR_SHIFT, hpet_timers(), hpet.period_fs,
		    (FSEC_PER_SEC / hpet.period_fs));
}

unsigned hpet_timers(void)
{
	return ((hpet.cap >> HPET_GCAP_NUM_TIM_SHIFT) & HPET_GCAP_NUM_TIM_MASK) + 1;
}

bool hpet_has_legacy_replacement(void)
{
	return hpet.cap & HPET_GCAP_LEG_RT_CAP;
}

u32 hpet_route_cap(unsigned n)
{
	return hpet_read(HPET_TN_ROUTE_CAP(n));
}

unsigned hpet_timer_gsi_above_isa(unsigned n)
{
	u32 cap = hpet_route_cap(n);

	for (unsigned gsi = HPET_FIRST_NON_ISA_GSI; gsi < HPET_ROUTE_GSIS; gsi++)
		if (cap & (1u << gsi))
			return gsi;
	return 0;
}

bool hpet_timer_route_above_isa(unsigned n, struct ioapic_route *r)
{
	*r = (struct ioapic_route){hpet_timer_gsi_above_isa(n), IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
	return r->gsi != 0;
}

const char *hpet_timer_route(unsigned n, struct ioapic_route *r, enum hpet_irq *irq)
{
	static const unsigned legacy_isa_irq[] = {HPET_LEGACY_TIMER0_ISA_IRQ,
						  HPET_LEGACY_TIMER1_ISA_IRQ};

	if (hpet_timer_route_above_isa(n, r)) {
		*irq = HPET_IRQ_EDGE;
		return NULL;
	}
	if (!hpet_has_legacy_replacement() || n >= ARRAY_SIZE(legacy_isa_irq))
		return "the timer can reach no IOAPIC pin above 15 and the HPET has no legacy "
		       "replacement for it";
	*irq = HPET_IRQ_LEGACY;
	*r = ioapic_isa_route(legacy_isa_irq[n]);
	return NULL;
}

bool hpet_timer_can_periodic(unsigned n)
{
	return hpet_read(HPET_TN_CONF(n)) & HPET_TN_PER_INT_CAP;
}

u64 hpet_counts_at_hz(u64 hz)
{
	return (FSEC_PER_SEC + (u64)hpet.period_fs * hz / 2) / ((u64)hpet.period_fs * hz);
}

void hpet_halt_and_clear(void)
{
	hpet_write(HPET_GEN_CONF, 0);
	hpet_write(HPET_MAIN_CNT, 0);
	hpet_write(HPET_MAIN_CNT_HI, 0);
}

void hpet_timer_setup(unsigned n, enum hpet_timer_mode mode, enum hpet_irq irq, unsigned gsi)
{
	u32 conf = HPET_TN_INT_ENB_CNF;

	if (mode == HPET_PERIODIC)
		conf |= HPET_TN_TYPE_CNF | HPET_TN_VAL_SET_CNF;
	if (hpet_read(HPET_TN_CONF(n)) & HPET_TN_SIZE_CAP)
		conf |= HPET_TN_32MODE_CNF;
	if (irq != HPET_IRQ_LEGACY)
		conf |= gsi << HPET_TN_INT_ROUTE_SHIFT;
	if (irq == HPET_IRQ_LEVEL)
		conf |= HPET_TN_INT_TYPE_CNF;
	hpet_write(HPET_TN_CONF(n), conf);
}

void hpet_timer_compare(unsigned n, u32 value)
{
	hpet_write(HPET_TN_CMP(n), value);
}

/*
 * A comparator fires when the main counter EQUALS it (IA-PC HPET 1.0a,
 * 2.3.9): one the counter has passed by the time the write lands fires
 * only after the 32-bit wrap, 43 s at 100 MHz. QEMU 7.2 fired a passed
 * comparator at once (hpet_calculate_diff makes a distance below 1 count
 * 1); 9.1 and later (hpet_calculate_cmp64) wait for the wrap, as the spec
 * says. So the counter is read back after the write, as Linux's HPET
 * driver does (its -ETIME): reached, the comparator may have been passed
 * before the write landed, and it is armed again from a fresh read,
 * further out. The read-back cannot tell that from a counter that passed
 * it after the write landed (the comparator fired), nor see QEMU 7.2 fire
 * a passed one: then the re-arm fires a second time. Each comparator write
 * replaces the expiry QEMU had pending for the timer, so an abandoned
 * arming's interrupt, if any, is raised before the next write lands: once
 * the arming in force is written, it is pending at the CPU or never
 * comes. A handler that must not count it takes only interrupts with the
 * counter at or past the comparator in force (hpet_counter_reached()), or
 * tells them apart by what was pending when the arming ended
 * (common/tick/x86/tick_chipset.c).
 */
struct hpet_arming hpet_timer_arm_ahead_paced(unsigned n, u64 counts, void (*between)(void))
{
	struct hpet_arming a = {.rearms = 0};
	u32 margin = (u32)min(max(counts, 1ull), (u64)HPET_ARM_MAX_COUNTS), from, now;

	for (;;) {
		from = hpet_counter_read32();
		a.cmp = from + margin;
		if (between)
			between();
		hpet_timer_compare(n, a.cmp);
		now = hpet_counter_read32();
		a.took = now - from;
		if (!hpet_counter_reached(now, a.cmp) || a.rearms == HPET_ARM_MAX_REARMS)
			return a;
		a.rearms++;
		margin = hpet_arm_next_margin(margin, a.took);
	}
}

struct hpet_arming hpet_timer_arm_ahead(unsigned n, u64 counts)
{
	return hpet_timer_arm_ahead_paced(n, counts, NULL);
}

void hpet_timer_ack(unsigned n)
{
	hpet_write(HPET_GEN_INT_STS, 1u << n);
}

bool hpet_timer_pending(unsigned n)
{
	return hpet_read(HPET_GEN_INT_STS) & (1u << n);
}

void hpet_timer_off(unsigned n)
{
	hpet_write(HPET_TN_CONF(n), 0);
}

u64 hpet_run(enum hpet_irq irq)
{
	u32 gen = hpet_read(HPET_GEN_CONF) | HPET_GEN_ENABLE_CNF;
	u64 t;

	if (irq == HPET_IRQ_LEGACY)
		gen |= HPET_GEN_LEG_RT_CNF;
	t = arch_counter();
	hpet_write(HPET_GEN_CONF, gen);
	return t;
}

/* Raw register access for tests that program the HPET directly (declared in x86/timer_regs.h). */
u32 hpet_reg_read(u32 reg);
void hpet_reg_write(u32 reg, u32 val);

u32 hpet_reg_read(u32 reg)
{
	return hpet_read(reg);
}

void hpet_reg_write(u32 reg, u32 val)
{
	hpet_write(reg, val);
}
