/* SPDX-License-Identifier: GPL-2.0-only */
/* The IOAPIC (from the ACPI MADT) routing device interrupts to a CPU; the 8259 PICs kept masked. */
#ifndef VMTICK_X86_IOAPIC_H
#define VMTICK_X86_IOAPIC_H

#include "libc.h"

#define IOAPIC_DEFAULT_BASE 0xfec00000

enum ioapic_trigger {
	IOAPIC_EDGE,
	IOAPIC_LEVEL,
};

enum ioapic_polarity {
	IOAPIC_ACTIVE_HIGH,
	IOAPIC_ACTIVE_LOW,
};

/* Where an interrupt enters the IOAPIC, and how it signals. */
struct ioapic_route {
	unsigned gsi;
	enum ioapic_trigger trigger;
	enum ioapic_polarity polarity;
};

/*
 * Find the IOAPIC: the MADT's first one, else the default base when its
 * version register reads sanely. Masks every pin. false when there is none.
 * Safe to call again (returns the first answer).
 */
bool ioapic_init(void);
/* "the MADT" or "the default base": for messages. */
const char *ioapic_found_by(void);
/* How ISA IRQ irq reaches the IOAPIC: the MADT's override, else the same pin, edge, active high. */
struct ioapic_route ioapic_isa_route(unsigned irq);
/*
 * Deliver r as vector to the CPU with APIC ID apic_id (fixed, physical), unmasked.
 * false if the pin does not exist.
 */
bool ioapic_route(const struct ioapic_route *r, u8 vector, u32 apic_id);
/*
 * ISA IRQ irq delivered as vector to the CPU with APIC ID apic_id, by the
 * route the MADT gives it (ioapic_init() first, so callable first): NULL,
 * or why not. *r gets the route, for messages and for masking the pin.
 */
const char *ioapic_route_isa(unsigned irq, u8 vector, u32 apic_id, struct ioapic_route *r);
void ioapic_mask(unsigned gsi);
/* Set or clear the mask bit of a routed pin, its route kept (an edge that comes while masked is lost). */
void ioapic_set_masked(unsigned gsi, bool masked);

/* Mask every line of both 8259 PICs, so that only the IOAPIC delivers. */
void pic_mask_all(void);

#endif
