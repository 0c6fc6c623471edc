/* SPDX-License-Identifier: GPL-2.0-only */
/* Constants that start-up assembly, the linker script and C share: selectors, stacks, boot protocol. */
#ifndef VMTICK_X86_LAYOUT_H
#define VMTICK_X86_LAYOUT_H

/* Where the kernel is linked and loaded (above the BIOS areas and the real-mode trampoline). */
#define KERNEL_LOAD_ADDR	0x400000

/* GDT selectors: the same table serves 32-bit and 64-bit kernels. */
#define KERNEL_CS32		0x08
#define KERNEL_DS		0x10
#define KERNEL_CS64		0x18
#define GDT_ENTRIES		4

/*
 * Flat descriptors, base 0 and limit 4 GiB (G=1): access byte 0x9a
 * (present, ring 0, code, readable) or 0x92 (data, writable); flags 0xc
 * (G, D=32-bit) or 0xa (G, L=64-bit code).
 */
#define GDT_DESC_CODE32		0x00cf9a000000ffff
#define GDT_DESC_DATA		0x00cf92000000ffff
#define GDT_DESC_CODE64		0x00af9a000000ffff

/*
 * Each CPU's stack is STACK_SIZE bytes, aligned to STACK_SIZE, with the
 * CPU's struct percpu at its lowest address: smp_id() masks the stack
 * pointer to find it.
 */
#define STACK_SHIFT		14
#define STACK_SIZE		(1 << STACK_SHIFT)
#define MAX_CPUS		512

/* Real-mode AP start-up code is copied here; the SIPI vector is its page number. */
#define TRAMPOLINE_ADDR		0x8000
#define TRAMPOLINE_SIPI_VECTOR	(TRAMPOLINE_ADDR >> 12)

/* Multiboot (version 1) header and hand-off. */
#define MULTIBOOT_HEADER_MAGIC	0x1badb002
#define MULTIBOOT_BOOT_MAGIC	0x2badb002
#define MULTIBOOT_PAGE_ALIGN	(1 << 0)
#define MULTIBOOT_MEMORY_INFO	(1 << 1)
#define MULTIBOOT_HEADER_FLAGS	(MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

#define PAGE_SIZE		4096
#define LARGE_PAGE_SIZE_64	(2 << 20)
#define LARGE_PAGE_SIZE_32	(4 << 20)

#endif
