/* SPDX-License-Identifier: GPL-2.0-only */
/* GICv3 LPIs: redistributor property/pending tables, ITS tables and its command queue. */
#include "libc.h"
#include "alloc.h"
#include "arch.h"
#include "wait.h"
#include "arm64/gic.h"
#include "arm64/its.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

/* Redistributor LPI registers (GICv3 architecture, 12.11). */
#define GICR_CTLR		0x0000
#define GICR_CTLR_ENABLE_LPIS	(1 << 0)
#define GICR_PROPBASER		0x0070
#define GICR_PENDBASER		0x0078
#define GICR_PENDBASER_PTZ	(1UL << 62)
#define GICD_TYPER		0x0004
#define GICD_TYPER_LPIS		(1 << 17)

/* Shared by *BASER registers: cacheability and shareability of the tables. */
#define GIC_BASER_INNER_RAWAWB	(7UL << 7)	/* PROPBASER/PENDBASER InnerCache */
#define GIC_BASER_SH_INNER	(1UL << 10)
#define GITS_BASER_INNER_RAWAWB	(7UL << 59)	/* GITS_BASER/CBASER InnerCache */

/* ITS control registers (12.19) and the translation frame. */
#define GITS_CTLR		0x0000
#define GITS_TYPER		0x0008
#define GITS_CBASER		0x0080
#define GITS_CWRITER		0x0088
#define GITS_CREADR		0x0090
#define GITS_BASER(n)		(0x0100 + 8 * (n))
#define GITS_BASER_NR		8
#define GITS_TRANSLATER		0x10040
#define GITS_CTLR_ENABLED	(1 << 0)
#define GITS_CTLR_QUIESCENT	(1u << 31)
#define GITS_TYPER_ITT_SIZE_SHIFT 4
#define GITS_TYPER_IDBITS_SHIFT	8
#define GITS_TYPER_PTA		(1UL << 19)
#define GITS_CREADR_STALLED	(1 << 0)
#define GITS_VALID		(1UL << 63)
#define GITS_BASER_TYPE_SHIFT	56
#define GITS_BASER_TYPE_DEVICE	1
#define GITS_BASER_TYPE_COLLECTION 4
#define GITS_BASER_ENTRY_SIZE_SHIFT 48
#define GITS_BASER_PAGE_SIZE_SHIFT 8
#define GITS_BASER_ADDR_MASK	0x0000fffffffff000UL

/* Command encodings (12.21 / 6.3). */
#define ITS_CMD_MOVI		0x01
#define ITS_CMD_INT		0x03
#define ITS_CMD_SYNC		0x05
#define ITS_CMD_MAPD		0x08
#define ITS_CMD_MAPC		0x09
#define ITS_CMD_MAPTI		0x0a
#define ITS_CMD_INV		0x0c
#define ITS_CMD_SIZE		32
#define ITS_RDBASE_SHIFT	16
#define ITS_ITT_ALIGN		256

/* LPI configuration byte: priority [7:2], bit 1 RES1, Enable bit 0. */
#define LPI_PROP_ENABLED	(1 << 0)
#define LPI_PROP_RES1		(1 << 1)
#define LPI_ID_BITS		14	/* INTIDs below 16384: room for GIC_NR_LPIS */
#define LPI_PROP_SIZE		((1UL << LPI_ID_BITS) - GIC_FIRST_LPI)
#define LPI_PEND_SIZE		((1UL << LPI_ID_BITS) / 8)
#define LPI_PEND_ALIGN		0x10000

#define ITS_QUEUE_SIZE		0x1000		/* 128 commands */
#define ITS_TABLE_SIZE		0x10000		/* per BASER: 64 KiB */
#define ITS_TIMEOUT_S		5

static uintptr_t its_base;
static u64 typer;
static u8 *cmdq, *lpi_prop;
static u64 cwriter;

_Static_assert(GIC_NR_LPIS <= LPI_PROP_SIZE, "LPI table too small");

static void lpi_tables_init(void)
{
	int cpu;

	lpi_prop = memalign(0x1000UL, LPI_PROP_SIZE);
	dcache_clean_range(lpi_prop, LPI_PROP_SIZE);
	for (cpu = 0; cpu < cpu_count(); cpu++) {
		uintptr_t rd = gicv3_rdist_base(cpu);
		void *pend = memalign(LPI_PEND_ALIGN, LPI_PEND_SIZE);

		dcache_clean_range(pend, LPI_PEND_SIZE);
		writeq((u64)lpi_prop | GIC_BASER_INNER_RAWAWB | GIC_BASER_SH_INNER | (LPI_ID_BITS - 1),
		       rd + GICR_PROPBASER);
		writeq((u64)pend | GIC_BASER_INNER_RAWAWB | GIC_BASER_SH_INNER | GICR_PENDBASER_PTZ,
		       rd + GICR_PENDBASER);
		writel(readl(rd + GICR_CTLR) | GICR_CTLR_ENABLE_LPIS, rd + GICR_CTLR);
	}
	dsb(sy);
}

/* Give BASER n a table, trying 4, 16 and 64 KiB pages (the ITS picks which it supports). */
static void setup_baser(int n)
{
	u64 baser = readq(its_base + GITS_BASER(n));
	unsigned type = (baser >> GITS_BASER_TYPE_SHIFT) & 7, psz;
	void *table;

	if (type != GITS_BASER_TYPE_DEVICE && type != GITS_BASER_TYPE_COLLECTION)
		return;
	table = memalign(ITS_TABLE_SIZE, ITS_TABLE_SIZE);
	dcache_clean_range(table, ITS_TABLE_SIZE);
	for (psz = 0; psz < 3; psz++) {
		u64 page = 0x1000UL << (2 * psz);
		u64 v = GITS_VALID | GITS_BASER_INNER_RAWAWB |
			(baser & (0xffUL << GITS_BASER_ENTRY_SIZE_SHIFT)) |	/* type, entry size: RO */
			((u64)table & GITS_BASER_ADDR_MASK) | GIC_BASER_SH_INNER |
			(u64)psz << GITS_BASER_PAGE_SIZE_SHIFT | (ITS_TABLE_SIZE / page - 1);

		writeq(v, its_base + GITS_BASER(n));
		if (((readq(its_base + GITS_BASER(n)) >> GITS_BASER_PAGE_SIZE_SHIFT) & 3) == psz)
			return;
	}
	printf("FAIL: ITS BASER%d takes none of the 4/16/64 KiB page sizes\n", n);
	abort();
}

static bool its_quiescent(void *base)
{
	return readl(*(u64 *)base + GITS_CTLR) & GITS_CTLR_QUIESCENT;
}

int its_init(void)
{
	int node = dt_find_compatible(&boot_dt, -1, "arm,gic-v3-its"), n;
	u64 base;

	if (its_base)
		return 0;
	if (gic_version() != 3 || node < 0 || dt_reg(&boot_dt, node, 0, &base, NULL))
		return -1;
	if (!(readl(gicv3_dist_base() + GICD_TYPER) & GICD_TYPER_LPIS))
		return -1;
	lpi_tables_init();

	writel(0, base + GITS_CTLR);
	if (!wait_cond_ticks(its_quiescent, &base, ITS_TIMEOUT_S * arch_counter_hz())) {
		printf("FAIL: ITS not quiescent %d s after it was disabled (GITS_CTLR.Quiescent)\n",
		       ITS_TIMEOUT_S);
		abort();
	}
	its_base = base;
	typer = readq(base + GITS_TYPER);
	for (n = 0; n < GITS_BASER_NR; n++)
		setup_baser(n);
	cmdq = memalign(ITS_QUEUE_SIZE, ITS_QUEUE_SIZE);
	dcache_clean_range(cmdq, ITS_QUEUE_SIZE);
	writeq(GITS_VALID | GITS_BASER_INNER_RAWAWB | (u64)cmdq | GIC_BASER_SH_INNER |
	       (ITS_QUEUE_SIZE / 0x1000UL - 1), base + GITS_CBASER);
	cwriter = 0;
	writeq(0, base + GITS_CWRITER);
	writel(GITS_CTLR_ENABLED, base + GITS_CTLR);
	return 0;
}

bool its_present(void)
{
	return its_base != 0;
}

u64 its_translater_addr(void)
{
	return its_base + GITS_TRANSLATER;
}

/* its_send()'s wait ends once the command is consumed or the ITS stalls; *creadr: the last read. */
static bool its_consumed_or_stalled(void *creadr)
{
	u64 *r = creadr;

	*r = readq(its_base + GITS_CREADR);
	return *r == cwriter || (*r & GITS_CREADR_STALLED);
}

/* Queue one command and wait until the ITS has consumed it. */
static void its_send(u64 dw0, u64 dw1, u64 dw2)
{
	u64 *slot = (u64 *)(cmdq + cwriter), creadr;

	slot[0] = dw0;
	slot[1] = dw1;
	slot[2] = dw2;
	slot[3] = 0;
	/* The table may be non-shareable to the ITS: put the command in memory. */
	dcache_clean_range(slot, ITS_CMD_SIZE);
	cwriter = (cwriter + ITS_CMD_SIZE) % ITS_QUEUE_SIZE;
	writeq(cwriter, its_base + GITS_CWRITER);

	wait_cond_ticks(its_consumed_or_stalled, &creadr, ITS_TIMEOUT_S * arch_counter_hz());
	if (creadr != cwriter) {
		printf("FAIL: ITS command 0x%llx not consumed (CREADR 0x%llx)\n", dw0 & 0xff,
		       creadr);
		abort();
	}
}

/* RDbase field of MAPC/SYNC: the redistributor's address or its processor number. */
static u64 rdbase(int cpu)
{
	if (typer & GITS_TYPER_PTA)
		return gicv3_rdist_base(cpu) & ~((1UL << ITS_RDBASE_SHIFT) - 1);
	return (u64)gicv3_processor_number(cpu) << ITS_RDBASE_SHIFT;
}

static void its_sync(int cpu)
{
	its_send(ITS_CMD_SYNC, 0, rdbase(cpu));
}

static void need_its(const char *what)
{
	if (!its_base) {
		printf("FAIL: %s: its_init() has not found an ITS\n", what);
		abort();
	}
}

struct its_device *its_map_device(u32 devid, unsigned nr_events)
{
	unsigned itt_entry = ((typer >> GITS_TYPER_ITT_SIZE_SHIFT) & 0xf) + 1;
	unsigned bits = 1;
	struct its_device *dev = malloc(sizeof(*dev));

	need_its(__func__);
	while ((1u << bits) < nr_events)
		bits++;
	dev->id = devid;
	dev->nr_events = nr_events;
	dev->itt = memalign(ITS_ITT_ALIGN, ALIGN_UP((size_t)itt_entry << bits, ITS_ITT_ALIGN));
	dcache_clean_range(dev->itt, (size_t)itt_entry << bits);
	its_send(ITS_CMD_MAPD | (u64)devid << 32, bits - 1, GITS_VALID | (u64)dev->itt);
	return dev;
}

void its_map_collection(u16 icid, int cpu)
{
	need_its(__func__);
	its_send(ITS_CMD_MAPC, 0, GITS_VALID | rdbase(cpu) | icid);
	its_sync(cpu);
}

void its_lpi_set_enabled(struct its_device *dev, u32 event, unsigned lpi, bool enabled)
{
	u8 *prop = &lpi_prop[lpi - GIC_FIRST_LPI];

	need_its(__func__);
	assert(lpi >= GIC_FIRST_LPI && lpi - GIC_FIRST_LPI < GIC_NR_LPIS);
	*prop = GIC_PRIORITY_DEFAULT | LPI_PROP_RES1 | (enabled ? LPI_PROP_ENABLED : 0);
	dcache_clean_range(prop, 1);
	its_send(ITS_CMD_INV | (u64)dev->id << 32, event, 0);
	its_sync(0);
}

void its_map_lpi(struct its_device *dev, u32 event, unsigned lpi, u16 icid)
{
	need_its(__func__);
	assert(event < dev->nr_events);
	its_send(ITS_CMD_MAPTI | (u64)dev->id << 32, (u64)lpi << 32 | event, icid);
	its_lpi_set_enabled(dev, event, lpi, true);
}

void its_int(struct its_device *dev, u32 event)
{
	its_send(ITS_CMD_INT | (u64)dev->id << 32, event, 0);
}
