/* SPDX-License-Identifier: GPL-2.0-only */
/* Finds ACPI tables the firmware left in low memory, and powers off through the FADT. */
#include "x86/acpi.h"
#include "x86/io.h"

#define RSDP_SEARCH_START	0x000e0000
#define RSDP_SEARCH_END		0x00100000
#define RSDP_ALIGN		16

struct acpi_rsdp {
	char signature[8];	/* "RSD PTR " */
	u8 checksum;
	char oem_id[6];
	u8 revision;
	u32 rsdt_address;
	u32 length;
	u64 xsdt_address;
	u8 ext_checksum;
	u8 reserved[3];
} __attribute__((packed));

/* FADT fields used here (ACPI spec, table "FADT format"). */
#define FADT_DSDT_OFFSET	40
#define FADT_PM1A_CNT_OFFSET	64
#define PM1_CNT_SLP_TYP_SHIFT	10
#define PM1_CNT_SLP_EN		(1u << 13)
#define AML_PACKAGE_OP		0x12
#define AML_BYTE_PREFIX		0x0a
#define AML_ZERO_OP		0x00
#define AML_ONE_OP		0x01

static u8 checksum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum;
}

static const struct acpi_rsdp *scan_rsdp(uintptr_t start, uintptr_t end)
{
	for (uintptr_t a = start; a + sizeof(struct acpi_rsdp) <= end; a += RSDP_ALIGN) {
		const struct acpi_rsdp *r = phys_ptr(a);

		if (!memcmp(r->signature, "RSD PTR ", 8) && !checksum(r, 20))
			return r;
	}
	return NULL;
}

/*
 * The RSDP lies in the BIOS area 0xe0000-0xfffff (SeaBIOS, qboot) or in the
 * EBDA; the EBDA is not searched: its segment is kept in page 0, which the
 * identity map leaves out so that NULL dereferences fault.
 */
static const struct acpi_rsdp *find_rsdp(void)
{
	/* scanned once: 8192 candidates take tens of ms where guest code is emulated */
	static const struct acpi_rsdp *rsdp;

	if (!rsdp)
		rsdp = scan_rsdp(RSDP_SEARCH_START, RSDP_SEARCH_END);
	return rsdp;
}

const struct acpi_header *acpi_find_table(const char *sig)
{
	const struct acpi_rsdp *rsdp = find_rsdp();
	const struct acpi_header *rsdt;
	unsigned n;

	if (!rsdp || !rsdp->rsdt_address)
		return NULL;
	rsdt = (const void *)(uintptr_t)rsdp->rsdt_address;
	if (memcmp(rsdt->signature, "RSDT", 4) || rsdt->length < sizeof(*rsdt))
		return NULL;
	n = (rsdt->length - sizeof(*rsdt)) / 4;
	for (unsigned i = 0; i < n; i++) {
		u32 addr;
		const struct acpi_header *t;

		memcpy(&addr, (const u8 *)(rsdt + 1) + 4 * i, 4);
		t = (const void *)(uintptr_t)addr;
		if (t && !memcmp(t->signature, sig, 4))
			return t;
	}
	return NULL;
}

/* SLP_TYPa for S5 from the DSDT's "_S5_" package; QEMU's tables use 0. */
static u32 s5_sleep_type(const struct acpi_header *fadt)
{
	u32 dsdt_addr;
	const struct acpi_header *dsdt;
	const u8 *p, *end;

	memcpy(&dsdt_addr, (const u8 *)fadt + FADT_DSDT_OFFSET, 4);
	dsdt = (const void *)(uintptr_t)dsdt_addr;
	if (!dsdt || memcmp(dsdt->signature, "DSDT", 4))
		return 0;
	p = (const u8 *)(dsdt + 1);
	end = (const u8 *)dsdt + dsdt->length;
	for (; p + 8 < end; p++) {
		if (memcmp(p, "_S5_", 4) || p[4] != AML_PACKAGE_OP)
			continue;
		/* package length (1 byte when small), element count, then SLP_TYPa */
		p += 7;
		if (*p == AML_BYTE_PREFIX)
			return p[1];
		return *p == AML_ONE_OP ? 1 : 0;
	}
	return 0;
}

void acpi_poweroff(void)
{
	const struct acpi_header *fadt = acpi_find_table("FACP");
	u32 pm1a_cnt;

	if (!fadt || fadt->length < FADT_PM1A_CNT_OFFSET + 4)
		return;
	memcpy(&pm1a_cnt, (const u8 *)fadt + FADT_PM1A_CNT_OFFSET, 4);
	if (!pm1a_cnt || pm1a_cnt > 0xffff)
		return;
	outw((u16)((s5_sleep_type(fadt) << PM1_CNT_SLP_TYP_SHIFT) | PM1_CNT_SLP_EN), (u16)pm1a_cnt);
}
