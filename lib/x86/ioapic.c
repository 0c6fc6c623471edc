/* SPDX-License-Identifier: GPL-2.0-only */
/* IOAPIC discovery (ACPI MADT) and redirection-table programming; the 8259 PICs only masked. */
#include "x86/ioapic.h"
#include "x86/acpi.h"
#include "x86/io.h"

/* Indirect access: select a register, then read or write the window. */
#define IOAPIC_REGSEL  0x00
#define IOAPIC_IOWIN   0x10
#define IOAPIC_REG_VER 0x01
/* entry n: low dword at 0x10 + 2n, high at 0x11 + 2n */
#define IOAPIC_REG_REDTBL	  0x10
#define IOAPIC_VER_VERSION_MASK	  0xff
#define IOAPIC_VER_MAXREDIR_SHIFT 16
#define IOAPIC_VER_MAXREDIR_MASK  0xff

/* Redirection entry, low dword (delivery mode fixed = 0, destination mode physical = 0) */
#define IOAPIC_RTE_POLARITY_LOW	 (1u << 13)
#define IOAPIC_RTE_TRIGGER_LEVEL (1u << 15)
#define IOAPIC_RTE_MASKED	 (1u << 16)
/* high dword: physical destination APIC ID in bits 63:56 */
#define IOAPIC_RTE_DEST_SHIFT 24

/* MADT (ACPI "APIC"): entries follow the header, the local APIC address and the flags. */
#define MADT_ENTRIES_OFFSET    44
#define MADT_TYPE_IOAPIC       1
#define MADT_TYPE_ISO	       2 /* interrupt source override */
#define MADT_ISO_POLARITY_MASK 0x3
#define MADT_ISO_POLARITY_LOW  0x3
#define MADT_ISO_TRIGGER_SHIFT 2
#define MADT_ISO_TRIGGER_MASK  0x3
#define MADT_ISO_TRIGGER_LEVEL 0x3
#define ISA_IRQS	       16

/* The 8259 interrupt mask registers (OCW1). */
#define PIC1_DATA      0x21
#define PIC2_DATA      0xa1
#define PIC_ALL_MASKED 0xff

struct madt_ioapic {
	u8 type, length, id, reserved;
	u32 address;
	u32 gsi_base;
} __attribute__((packed));

struct madt_iso {
	u8 type, length, bus, source;
	u32 gsi;
	u16 flags;
} __attribute__((packed));

static struct {
	bool probed, present;
	uintptr_t base;
	unsigned pins;
	const char *found_by;
	struct ioapic_route isa[ISA_IRQS];
} ioapic;

static u32 ioapic_read(u32 reg)
{
	mmio_write32(ioapic.base + IOAPIC_REGSEL, reg);
	return mmio_read32(ioapic.base + IOAPIC_IOWIN);
}

static void ioapic_write(u32 reg, u32 val)
{
	mmio_write32(ioapic.base + IOAPIC_REGSEL, reg);
	mmio_write32(ioapic.base + IOAPIC_IOWIN, val);
}

static struct ioapic_route iso_route(const struct madt_iso *e)
{
	struct ioapic_route r = {e->gsi, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};

	/* "conforms to the bus" (0) is edge, active high for ISA */
	if ((e->flags & MADT_ISO_POLARITY_MASK) == MADT_ISO_POLARITY_LOW)
		r.polarity = IOAPIC_ACTIVE_LOW;
	if (((e->flags >> MADT_ISO_TRIGGER_SHIFT) & MADT_ISO_TRIGGER_MASK) ==
	    MADT_ISO_TRIGGER_LEVEL)
		r.trigger = IOAPIC_LEVEL;
	return r;
}

/* The IOAPIC serving GSI 0 and the ISA overrides, from the MADT; false without one. */
static bool read_madt(void)
{
	const struct acpi_header *madt = acpi_find_table("APIC");
	const u8 *p, *end;
	bool found = false;

	if (!madt)
		return false;
	p = (const u8 *)madt + MADT_ENTRIES_OFFSET;
	end = (const u8 *)madt + madt->length;
	for (; p + 2 <= end && p[1] >= 2; p += p[1]) {
		if (p[0] == MADT_TYPE_IOAPIC && !found) {
			const struct madt_ioapic *e = (const void *)p;

			if (e->gsi_base == 0) {
				ioapic.base = e->address;
				found = true;
			}
		} else if (p[0] == MADT_TYPE_ISO) {
			const struct madt_iso *e = (const void *)p;

			if (e->source < ISA_IRQS)
				ioapic.isa[e->source] = iso_route(e);
		}
	}
	return found;
}

bool ioapic_init(void)
{
	u32 ver;

	if (ioapic.probed)
		return ioapic.present;
	ioapic.probed = true;
	for (unsigned i = 0; i < ISA_IRQS; i++)
		ioapic.isa[i] = (struct ioapic_route){i, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
	ioapic.found_by = "the MADT";
	if (!read_madt()) {
		ioapic.base = IOAPIC_DEFAULT_BASE;
		ioapic.found_by = "the default base";
	}
	/* nothing there reads as all ones */
	ver = ioapic_read(IOAPIC_REG_VER);
	if (ver == ~0u || !(ver & IOAPIC_VER_VERSION_MASK))
		return false;
	ioapic.pins = ((ver >> IOAPIC_VER_MAXREDIR_SHIFT) & IOAPIC_VER_MAXREDIR_MASK) + 1;
	ioapic.present = true;
	for (unsigned pin = 0; pin < ioapic.pins; pin++)
		ioapic_mask(pin);
	return true;
}

const char *ioapic_found_by(void)
{
	return ioapic.found_by;
}

struct ioapic_route ioapic_isa_route(unsigned irq)
{
	assert(irq < ISA_IRQS);
	return ioapic.isa[irq];
}

bool ioapic_route(const struct ioapic_route *r, u8 vector, u32 apic_id)
{
	u32 lo = vector;

	if (!ioapic.present || r->gsi >= ioapic.pins)
		return false;
	if (r->polarity == IOAPIC_ACTIVE_LOW)
		lo |= IOAPIC_RTE_POLARITY_LOW;
	if (r->trigger == IOAPIC_LEVEL)
		lo |= IOAPIC_RTE_TRIGGER_LEVEL;
	/* masked while the destination changes; unmasked by the last write */
	ioapic_write(IOAPIC_REG_REDTBL + 2 * r->gsi, IOAPIC_RTE_MASKED);
	ioapic_write(IOAPIC_REG_REDTBL + 2 * r->gsi + 1, apic_id << IOAPIC_RTE_DEST_SHIFT);
	ioapic_write(IOAPIC_REG_REDTBL + 2 * r->gsi, lo);
	return true;
}

const char *ioapic_route_isa(unsigned irq, u8 vector, u32 apic_id, struct ioapic_route *r)
{
	static char why[64];

	if (!ioapic_init()) {
		snprintf(why, sizeof(why), "no IOAPIC to route ISA IRQ %u through", irq);
		return why;
	}
	*r = ioapic_isa_route(irq);
	if (!ioapic_route(r, vector, apic_id)) {
		snprintf(why, sizeof(why), "the IOAPIC has no pin %u for ISA IRQ %u", r->gsi, irq);
		return why;
	}
	return NULL;
}

void ioapic_mask(unsigned gsi)
{
	if (ioapic.present && gsi < ioapic.pins)
		ioapic_write(IOAPIC_REG_REDTBL + 2 * gsi, IOAPIC_RTE_MASKED);
}

void ioapic_set_masked(unsigned gsi, bool masked)
{
	u32 reg = IOAPIC_REG_REDTBL + 2 * gsi, lo;

	if (!ioapic.present || gsi >= ioapic.pins)
		return;
	lo = ioapic_read(reg) & ~IOAPIC_RTE_MASKED;
	ioapic_write(reg, lo | (masked ? IOAPIC_RTE_MASKED : 0));
}

void pic_mask_all(void)
{
	outb(PIC_ALL_MASKED, PIC1_DATA);
	outb(PIC_ALL_MASKED, PIC2_DATA);
}
