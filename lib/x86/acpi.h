/* SPDX-License-Identifier: GPL-2.0-only */
/* ACPI table lookup (RSDP, RSDT/XSDT) and S5 power-off. */
#ifndef VMTICK_X86_ACPI_H
#define VMTICK_X86_ACPI_H

#include "libc.h"

struct acpi_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __attribute__((packed));

/* The table with this signature ("FACP", "APIC", "HPET"...), or NULL. */
const struct acpi_header *acpi_find_table(const char *sig);
/* Enter S5 through the FADT's PM1a control block; returns if that did not work. */
void acpi_poweroff(void);

#endif
