/* SPDX-License-Identifier: GPL-2.0-only */
/* PCI configuration space by I/O ports: BAR sizing and placement, and pci-testdev's MMIO. */
#include "x86/pci.h"
#include "x86/io.h"
#include "report.h"

#define PCI_MAX_BUS		256
#define PCI_MAX_DEV		32
#define PCI_MAX_FN		8

static u32 config_address(pci_bdf_t bdf, u8 reg)
{
	/* dword-aligned register; bits 1:0 select the byte lanes on the data port */
	return PCI_CONFIG_ENABLE | (u32)bdf << 8 | (reg & 0xfc);
}

u32 pci_config_read32(pci_bdf_t bdf, u8 reg)
{
	outl(config_address(bdf, reg), PCI_CONFIG_ADDRESS);
	return inl(PCI_CONFIG_DATA);
}

u16 pci_config_read16(pci_bdf_t bdf, u8 reg)
{
	outl(config_address(bdf, reg), PCI_CONFIG_ADDRESS);
	return inw(PCI_CONFIG_DATA + (reg & 2));
}

void pci_config_write32(pci_bdf_t bdf, u8 reg, u32 val)
{
	outl(config_address(bdf, reg), PCI_CONFIG_ADDRESS);
	outl(val, PCI_CONFIG_DATA);
}

void pci_config_write16(pci_bdf_t bdf, u8 reg, u16 val)
{
	outl(config_address(bdf, reg), PCI_CONFIG_ADDRESS);
	outw(val, PCI_CONFIG_DATA + (reg & 2));
}

int pci_find_device(u16 vendor, u16 device)
{
	for (unsigned bus = 0; bus < PCI_MAX_BUS; bus++) {
		for (unsigned dev = 0; dev < PCI_MAX_DEV; dev++) {
			for (unsigned fn = 0; fn < PCI_MAX_FN; fn++) {
				pci_bdf_t bdf = PCI_BDF(bus, dev, fn);
				u32 id = pci_config_read32(bdf, PCI_VENDOR_ID);

				if ((id & 0xffff) == PCI_VENDOR_ID_INVALID) {
					/* no function 0: no device; functions may be sparse */
					if (fn == 0)
						break;
					continue;
				}
				if ((id & 0xffff) == vendor && id >> 16 == device)
					return bdf;
				/* single-function devices may answer for every function number */
				if (fn == 0 && !(pci_config_read16(bdf, PCI_HEADER_TYPE) &
						 PCI_HEADER_MULTI_FUNCTION))
					break;
			}
		}
	}
	return PCI_NO_DEVICE;
}

/* Write all ones, read back the bits the device decodes, put the value back. */
static u32 bar_probe(pci_bdf_t bdf, u8 reg)
{
	u32 old = pci_config_read32(bdf, reg), mask;

	pci_config_write32(bdf, reg, ~0u);
	mask = pci_config_read32(bdf, reg);
	pci_config_write32(bdf, reg, old);
	return mask;
}

void pci_bar_get(pci_bdf_t bdf, unsigned n, struct pci_bar *bar)
{
	u8 reg = PCI_BASE_ADDRESS_0 + 4 * n;
	u32 lo, mask_lo;
	u64 mask;
	u16 cmd;

	memset(bar, 0, sizeof(*bar));
	if (n >= PCI_NUM_BARS)
		return;
	cmd = pci_config_read16(bdf, PCI_COMMAND);
	lo = pci_config_read32(bdf, reg);
	/* while all ones sit in the BAR the device would decode a bogus range */
	pci_config_write16(bdf, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	mask_lo = bar_probe(bdf, reg);
	if (lo & PCI_BAR_SPACE_IO) {
		bar->is_io = true;
		bar->addr = lo & PCI_BAR_IO_MASK;
		/* I/O BARs may leave the upper 16 bits unimplemented (read as 0) */
		mask = (mask_lo & PCI_BAR_IO_MASK) | 0xffff0000u;
		bar->size = mask_lo ? (u32)(~mask + 1) : 0;
	} else {
		u32 hi = 0, mask_hi = ~0u;

		bar->is_64bit = (lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64 &&
				n + 1 < PCI_NUM_BARS;
		if (bar->is_64bit) {
			hi = pci_config_read32(bdf, reg + 4);
			mask_hi = bar_probe(bdf, reg + 4);
		}
		bar->addr = ((u64)hi << 32) | (lo & PCI_BAR_MEM_MASK);
		mask = ((u64)mask_hi << 32) | (mask_lo & PCI_BAR_MEM_MASK);
		bar->size = mask_lo & PCI_BAR_MEM_MASK ? ~mask + 1 : 0;
	}
	pci_config_write16(bdf, PCI_COMMAND, cmd);
}

void pci_enable_decoding(pci_bdf_t bdf, u16 command_bits)
{
	u16 cmd = pci_config_read16(bdf, PCI_COMMAND);

	pci_config_write16(bdf, PCI_COMMAND, cmd | command_bits);
}

int pci_bar_assign(pci_bdf_t bdf, unsigned n, struct pci_bar *bar)
{
	static u64 next = PCI_MMIO_WINDOW_START;
	u8 reg = PCI_BASE_ADDRESS_0 + 4 * n;
	u64 addr;

	if (bar->is_io || !bar->size || n >= PCI_NUM_BARS)
		return -1;
	/* a BAR decodes a naturally aligned range */
	addr = ALIGN_UP(next, bar->size);
	if (addr + bar->size > PCI_MMIO_WINDOW_END)
		return -1;
	pci_config_write32(bdf, reg, (u32)addr);
	if (bar->is_64bit)
		pci_config_write32(bdf, reg + 4, 0);
	next = addr + bar->size;
	bar->addr = addr;
	return 0;
}

int pci_first_mem_bar(pci_bdf_t bdf, struct pci_bar *bar)
{
	for (unsigned n = 0; n < PCI_NUM_BARS; n++) {
		pci_bar_get(bdf, n, bar);
		if (bar->size && !bar->is_io)
			return n;
	}
	memset(bar, 0, sizeof(*bar));
	return -1;
}

static uintptr_t no_mmio(char *why, size_t size, const char *reason)
{
	snprintf(why, size, "%s", reason);
	return 0;
}

uintptr_t pci_testdev_mmio(char *why, size_t size)
{
	int bdf = pci_find_device(PCI_VENDOR_ID_REDHAT, PCI_DEVICE_ID_REDHAT_TEST);
	struct pci_bar bar;
	int n;

	if (bdf == PCI_NO_DEVICE)
		return no_mmio(why, size, "no pci-testdev (1b36:0005) on the PCI bus: add -device pci-testdev");
	n = pci_first_mem_bar((pci_bdf_t)bdf, &bar);
	if (n < 0)
		return no_mmio(why, size, "pci-testdev has no memory BAR");
	if (!bar.addr && pci_bar_assign((pci_bdf_t)bdf, n, &bar))
		return no_mmio(why, size,
			       "pci-testdev's memory BAR is unassigned and does not fit the PCI window");
	if (bar.addr < PCI_MMIO_UNCACHED_START || bar.addr + bar.size > PCI_MMIO_UNCACHED_END) {
		snprintf(why, size,
			 "pci-testdev's memory BAR %d is at %#llx: unassigned or outside the uncached 3-4 GiB map",
			 n, bar.addr);
		return 0;
	}
	pci_enable_decoding((pci_bdf_t)bdf, PCI_COMMAND_MEMORY);
	report_info("pci-testdev at %02x:%02x.%x, memory BAR %#llx (%llu bytes)", PCI_BDF_BUS(bdf),
		    PCI_BDF_DEV(bdf), PCI_BDF_FN(bdf), bar.addr, bar.size);
	return (uintptr_t)bar.addr;
}
