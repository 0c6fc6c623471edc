/* SPDX-License-Identifier: GPL-2.0-only */
/* Builds the identity-mapped page tables with the MMU still off, from the tree's memory nodes. */
#include "libc.h"
#include "fdt.h"
#include "arm64/mmu.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

/* Stage 1, 4 KiB granule, 48-bit VA: level 0 (512 GiB), 1 (1 GiB), 2 (2 MiB). */
#define PTRS_PER_TABLE		512
#define L0_SHIFT		39
#define L1_SHIFT		30
#define L2_SHIFT		21
#define PTE_VALID		(1UL << 0)
#define PTE_TYPE_TABLE		(1UL << 1)	/* with VALID, at levels 0-2 */
#define PTE_TYPE_BLOCK		0		/* with VALID, at levels 1-2 */
#define PTE_ATTRINDX(i)		((u64)(i) << 2)
#define PTE_SH_INNER		(3UL << 8)
#define PTE_AF			(1UL << 10)
#define PTE_PXN			(1UL << 53)
#define PTE_UXN			(1UL << 54)
#define PTE_ADDR_MASK		0x0000fffffffff000UL

#define PTE_NORMAL (PTE_VALID | PTE_TYPE_BLOCK | PTE_ATTRINDX(MT_NORMAL) | PTE_SH_INNER | PTE_AF | PTE_UXN)
#define PTE_DEVICE (PTE_VALID | PTE_TYPE_BLOCK | PTE_ATTRINDX(MT_DEVICE_nGnRE) | PTE_AF | PTE_PXN | PTE_UXN)

/* One level-0, two level-1 (1 TiB) and level-2 tables for GiBs partly RAM. */
#define MMU_TABLES		16
#define MAX_BANKS		8

static u64 tables[MMU_TABLES][PTRS_PER_TABLE] __aligned(PAGE_SIZE);
static int tables_used;
u64 mmu_ttbr0;
struct mem_range ram_bank;
static struct dt_range banks[MAX_BANKS];
static int nr_banks;

static u64 *new_table(void)
{
	if (tables_used == MMU_TABLES)
		halt();	/* no console yet: a tree with this many RAM holes is not QEMU's */
	return tables[tables_used++];
}

/* How the range [start, start + size) relates to RAM: none, part or all of it. */
enum ram_cover { RAM_NONE, RAM_PART, RAM_ALL };

static enum ram_cover ram_cover(u64 start, u64 size)
{
	u64 covered = 0;
	int i;

	for (i = 0; i < nr_banks; i++) {
		u64 lo = max(start, banks[i].start & ~(SZ_2M - 1));
		u64 hi = min(start + size, ALIGN_UP(banks[i].start + banks[i].size, SZ_2M));

		if (lo < hi)
			covered += hi - lo;
	}
	if (!covered)
		return RAM_NONE;
	return covered >= size ? RAM_ALL : RAM_PART;
}

static u64 level2_table(u64 base)
{
	u64 *l2 = new_table();
	int i;

	for (i = 0; i < PTRS_PER_TABLE; i++) {
		u64 addr = base + ((u64)i << L2_SHIFT);

		l2[i] = addr | (ram_cover(addr, SZ_2M) == RAM_NONE ? PTE_DEVICE : PTE_NORMAL);
	}
	return (u64)l2 | PTE_VALID | PTE_TYPE_TABLE;
}

static void read_banks(const void *fdt)
{
	struct dt dt;

	if (!dt_init(&dt, fdt, DT_MAX_BLOB))
		nr_banks = dt_memory(&dt, banks, MAX_BANKS);
	if (nr_banks > MAX_BANKS)
		nr_banks = MAX_BANKS;
	if (nr_banks <= 0) {
		/* No usable tree: map the 1 GiB around the kernel so boot_main can give up cleanly. */
		banks[0].start = (u64)_text & ~(SZ_1G - 1);
		banks[0].size = SZ_1G;
		nr_banks = 1;
	}
}

void mmu_build_tables(const void *fdt)
{
	u64 *l0 = new_table(), *l1 = NULL;
	u64 gib;
	int i;

	read_banks(fdt);
	for (gib = 0; gib < MMU_MAP_LIMIT; gib += SZ_1G) {
		if (!(gib & ((1UL << L0_SHIFT) - 1))) {
			l1 = new_table();
			l0[gib >> L0_SHIFT] = (u64)l1 | PTE_VALID | PTE_TYPE_TABLE;
		}
		switch (ram_cover(gib, SZ_1G)) {
		case RAM_NONE:
			l1[(gib >> L1_SHIFT) % PTRS_PER_TABLE] = gib | PTE_DEVICE;
			break;
		case RAM_ALL:
			l1[(gib >> L1_SHIFT) % PTRS_PER_TABLE] = gib | PTE_NORMAL;
			break;
		case RAM_PART:
			l1[(gib >> L1_SHIFT) % PTRS_PER_TABLE] = level2_table(gib);
			break;
		}
	}
	mmu_ttbr0 = (u64)l0;

	for (i = 0; i < nr_banks; i++)
		if ((u64)_text >= banks[i].start && (u64)_text - banks[i].start < banks[i].size) {
			ram_bank.start = banks[i].start;
			ram_bank.end = banks[i].start + banks[i].size;
		}
}

void dcache_clean_range(const void *start, size_t len)
{
	u64 line = 4UL << ((read_sysreg(ctr_el0) >> 16) & 0xf);	/* CTR_EL0.DminLine, words */
	u64 p = (u64)start & ~(line - 1), end = (u64)start + len;

	for (; p < end; p += line)
		asm volatile("dc cvac, %0" : : "r"(p) : "memory");
	dsb(sy);
}
