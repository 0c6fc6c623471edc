/* SPDX-License-Identifier: GPL-2.0-only */
/* PCI configuration space through ports 0xcf8/0xcfc: finding a device, sizing and placing BARs. */
#ifndef VMTICK_X86_PCI_H
#define VMTICK_X86_PCI_H

#include "libc.h"

/* Configuration mechanism #1 (PCI Local Bus spec 3.0, 3.2.2.3.2) */
#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_CONFIG_ENABLE	(1u << 31)

/* Type 0 header registers */
#define PCI_VENDOR_ID		0x00
#define PCI_DEVICE_ID		0x02
#define PCI_COMMAND		0x04
#define PCI_COMMAND_IO		(1u << 0)
#define PCI_COMMAND_MEMORY	(1u << 1)
#define PCI_HEADER_TYPE		0x0e
#define PCI_HEADER_MULTI_FUNCTION 0x80
#define PCI_BASE_ADDRESS_0	0x10
#define PCI_NUM_BARS		6

#define PCI_BAR_SPACE_IO	(1u << 0)
#define PCI_BAR_MEM_TYPE_MASK	(3u << 1)
#define PCI_BAR_MEM_TYPE_64	(2u << 1)
#define PCI_BAR_MEM_MASK	(~0xfu)
#define PCI_BAR_IO_MASK		(~0x3u)

#define PCI_VENDOR_ID_INVALID	0xffff

/* QEMU's devices (docs/specs/pci-ids.rst) */
#define PCI_VENDOR_ID_REDHAT	0x1b36
#define PCI_DEVICE_ID_REDHAT_TEST 0x0005

/* A function's address: bus << 8 | device << 3 | function. */
typedef u16 pci_bdf_t;
#define PCI_BDF(bus, dev, fn)	((pci_bdf_t)((bus) << 8 | (dev) << 3 | (fn)))
#define PCI_NO_DEVICE		(-1)
#define PCI_BDF_BUS(bdf)	((bdf) >> 8)
#define PCI_BDF_DEV(bdf)	(((bdf) >> 3) & 0x1f)
#define PCI_BDF_FN(bdf)		((bdf) & 7)

u32 pci_config_read32(pci_bdf_t bdf, u8 reg);
u16 pci_config_read16(pci_bdf_t bdf, u8 reg);
void pci_config_write32(pci_bdf_t bdf, u8 reg, u32 val);
void pci_config_write16(pci_bdf_t bdf, u8 reg, u16 val);

/* The first function with these IDs on any bus, or PCI_NO_DEVICE. */
int pci_find_device(u16 vendor, u16 device);

struct pci_bar {
	u64 addr;	/* bus address (0: not assigned by firmware) */
	u64 size;	/* bytes decoded; 0 when the BAR is not implemented */
	bool is_io;
	bool is_64bit;
};

/* Read BAR n (sizing it: decoding is off meanwhile and restored after). */
void pci_bar_get(pci_bdf_t bdf, unsigned n, struct pci_bar *bar);
/*
 * Where pci_bar_assign() puts memory BARs the firmware left at 0 (qboot
 * assigns none): above the RAM of any test (-m up to 3 GiB) and below the
 * chipset's fixed MMIO (IOAPIC at 0xfec00000), inside the identity map's
 * uncached top GiB. QEMU's pc and q35 machines route it to PCI.
 */
#define PCI_MMIO_WINDOW_START	0xe0000000ull
#define PCI_MMIO_WINDOW_END	0xfec00000ull

/* Give memory BAR n (bar as read by pci_bar_get) an address in the window; -1 if it does not fit. */
int pci_bar_assign(pci_bdf_t bdf, unsigned n, struct pci_bar *bar);
/* Turn on memory or I/O decoding (PCI_COMMAND_MEMORY / PCI_COMMAND_IO). */
void pci_enable_decoding(pci_bdf_t bdf, u16 command_bits);
/* The number of the first implemented memory BAR, read into bar; -1 if none. */
int pci_first_mem_bar(pci_bdf_t bdf, struct pci_bar *bar);

/*
 * The identity map's uncached top GiB (PD_UNCACHED_FROM in boot.h): a
 * memory BAR must lie here to be read as MMIO through the identity map.
 */
#define PCI_MMIO_UNCACHED_START	0xc0000000ull
#define PCI_MMIO_UNCACHED_END	0x100000000ull

/*
 * The address of pci-testdev's memory BAR (QEMU's -device pci-testdev),
 * ready for uncached access: the device found, the BAR given an address
 * when the firmware left none, memory decoding on; logs where it is.
 * 0 when there is no such BAR, with the reason in why.
 */
uintptr_t pci_testdev_mmio(char *why, size_t size);

#endif
