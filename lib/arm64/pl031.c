// SPDX-License-Identifier: GPL-2.0-only
/* The PL031 real-time clock (ARM DDI 0224): base from the device tree, RTCDR read as seconds. */
#include "arm64/pl031.h"
#include "arm64/gic.h"
#include "arm64/processor.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

/* Registers (PL031 TRM, 3.2) */
#define RTCDR	     0x000 /* data: the current count, seconds */
#define RTCLR	     0x008 /* load: a write sets the count */
#define RTCCR	     0x00c /* control: bit 0 starts the counter (QEMU's always runs) */
#define RTCPERIPHID0 0xfe0 /* PrimeCell peripheral ID, 4 registers of 8 bits */
#define RTCPCELLID0  0xff0 /* PrimeCell ID, 4 registers of 8 bits */
#define RTCCR_START  (1u << 0)
/*
 * The IDs' low bytes, read as one 32-bit value each (TRM 3.3.9, 3.3.10):
 * part number 0x031 and designer 0x41 (ARM) in the low 20 bits; the
 * revision above them differs between models (QEMU's reads 1).
 */
#define PL031_PERIPH_ID	     0x00041031
#define PL031_PERIPH_ID_MASK 0x000fffff
#define PRIMECELL_ID	     0xb105f00d

static uintptr_t pl031_base;

/* Four registers of which the low byte counts, as one 32-bit value (ID0 lowest). */
static bool read_id(uintptr_t reg, u32 *id)
{
	u32 v;

	*id = 0;
	for (unsigned i = 0; i < 4; i++) {
		if (!try_readl(reg + 4 * i, &v))
			return false;
		*id |= (v & 0xff) << (8 * i);
	}
	return true;
}

const char *pl031_find(void)
{
	static char why[96];
	int node;
	u64 base;
	u32 periph, cell;

	if (pl031_base)
		return NULL;
	node = dt_find_compatible(&boot_dt, -1, "arm,pl031");
	if (node < 0)
		return "no \"arm,pl031\" node in the device tree";
	if (!dt_is_enabled(&boot_dt, node))
		return "the device tree's PL031 is disabled";
	if (dt_reg(&boot_dt, node, 0, &base, NULL))
		return "the device tree's PL031 has no reg";
	if (!read_id(base + RTCPERIPHID0, &periph) || !read_id(base + RTCPCELLID0, &cell)) {
		snprintf(why, sizeof(why), "reading the PL031's ID at %#llx faulted", base);
		return why;
	}
	if ((periph & PL031_PERIPH_ID_MASK) != PL031_PERIPH_ID || cell != PRIMECELL_ID) {
		snprintf(why, sizeof(why), "the device at %#llx has IDs %#x/%#x, not a PL031's",
			 base, periph, cell);
		return why;
	}
	/* the counter runs once started; QEMU's starts at reset, real ones may not */
	if (!(readl(base + RTCCR) & RTCCR_START))
		writel(RTCCR_START, base + RTCCR);
	pl031_base = base;
	return NULL;
}

u32 pl031_seconds(void)
{
	return readl(pl031_base + RTCDR);
}

void pl031_load(u32 seconds)
{
	writel(seconds, pl031_base + RTCLR);
}

/* ---- the match interrupt (TRM 3.3.2-3.3.8) ---- */

#define RTCMR	     0x004 /* match: the interrupt is raised when RTCDR equals it */
#define RTCIMSC	     0x010 /* interrupt mask set/clear: bit 0 set lets it out */
#define RTCRIS	     0x014 /* raw interrupt status */
#define RTCMIS	     0x018 /* masked interrupt status: RTCRIS & RTCIMSC */
#define RTCICR	     0x01c /* interrupt clear: writing bit 0 clears it */
#define RTCINTR	     (1u << 0)
/* The tree's interrupt specifier: type (0: SPI), number, flags (GIC binding) */
#define DT_IRQ_CELLS	3
#define DT_IRQ_TYPE_SPI 0

unsigned pl031_irq(void)
{
	int node = dt_find_compatible(&boot_dt, -1, "arm,pl031");
	u32 cells[DT_IRQ_CELLS];

	if (node < 0 || dt_read_cells(&boot_dt, node, "interrupts", cells, DT_IRQ_CELLS) < DT_IRQ_CELLS ||
	    cells[0] != DT_IRQ_TYPE_SPI)
		return 0;
	return GIC_FIRST_SPI + cells[1];
}

void pl031_set_match(u32 seconds)
{
	writel(seconds, pl031_base + RTCMR);
}

void pl031_irq_unmask(void)
{
	writel(RTCINTR, pl031_base + RTCIMSC);
}

void pl031_irq_mask(void)
{
	writel(0, pl031_base + RTCIMSC);
}

bool pl031_irq_raw(void)
{
	return readl(pl031_base + RTCRIS) & RTCINTR;
}

bool pl031_irq_masked_status(void)
{
	return readl(pl031_base + RTCMIS) & RTCINTR;
}

void pl031_irq_clear(void)
{
	writel(RTCINTR, pl031_base + RTCICR);
}
