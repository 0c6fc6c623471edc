/* SPDX-License-Identifier: GPL-2.0-only */
/* The identity map start-up builds: what is mapped how, and an address that is not mapped. */
#ifndef VMTICK_ARM64_MMU_H
#define VMTICK_ARM64_MMU_H

#include "libc.h"

/*
 * Everything below MMU_MAP_LIMIT is identity mapped at EL1 (or EL2 with
 * VHE): the RAM banks of the device tree as normal write-back memory in
 * 2 MiB blocks, the rest as Device-nGnRE (MMIO: GIC, UART, virtio-mmio,
 * PCIe windows), never executable. Nothing at or above the limit is mapped,
 * so an access there is a translation fault: tests use MMU_UNMAPPED_ADDR.
 */
#define MMU_MAP_LIMIT		(1ULL << 40)
#define MMU_UNMAPPED_ADDR	(MMU_MAP_LIMIT + 0x1000)

#define PAGE_SIZE		4096UL
#define SZ_2M			0x200000UL
#define SZ_1G			0x40000000UL

#endif
