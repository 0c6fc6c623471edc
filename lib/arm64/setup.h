/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 platform as start-up sets it up: limits, the boot tree, and what head.S calls. */
#ifndef VMTICK_ARM64_SETUP_H
#define VMTICK_ARM64_SETUP_H

/* Per-CPU stack, boot CPU included. */
#define STACK_SIZE		0x4000
/* CPUs beyond this many in the tree are left off (reported at boot). */
#define NR_CPUS			64
/* Most of the device tree start-up reads in place (QEMU's: 1 MiB with padding). */
#define DT_MAX_BLOB		(2UL << 20)

#ifndef __ASSEMBLY__
#include "libc.h"
#include "fdt.h"

/*
 * A kernel that must run at EL2 (with VHE) defines STAY_AT_EL2; by default
 * start-up drops to EL1. Read by head.S before anything else runs.
 */
extern const u8 boot_stay_el2;
#define STAY_AT_EL2 const u8 boot_stay_el2 = 1

/*
 * The virtual counter offset (CNTVOFF_EL2) start-up sets on every CPU it
 * drops from EL2 to EL1, as a hypervisor would: CNTVCT = CNTPCT - offset.
 * 0 unless a kernel says otherwise with BOOT_CNTVOFF(value); no effect
 * when the CPU starts at EL1 (no EL2: nobody sets an offset).
 */
extern const u64 boot_cntvoff;
#define BOOT_CNTVOFF(value) const u64 boot_cntvoff = (value)

/* The device tree QEMU passed in x0; valid once boot_main() has run. */
extern struct dt boot_dt;

/* RAM the tree describes, the bank holding the kernel. */
struct mem_range {
	u64 start, end;
};
extern struct mem_range ram_bank;

/* Called from head.S. */
void mmu_build_tables(const void *fdt);
void boot_main(const void *fdt) __noreturn;
void secondary_main(int cpu) __noreturn;
void mmu_enable(void);
void halt(void) __noreturn;
extern u64 mmu_ttbr0;
extern uintptr_t secondary_stacks[NR_CPUS];
extern char secondary_entry[];
extern char _text[], _end[];

/* Exception level the kernel runs at (1, or 2 with STAY_AT_EL2). */
unsigned boot_el(void);

/* Clean [start, start + len) to the point of coherency, for CPUs with the MMU off. */
void dcache_clean_range(const void *start, size_t len);

/* Drivers set up by boot_main(), in this order. */
int pl011_init(void);
void virtio_testdev_init(void);
void virtio_testdev_exit(int code);
bool virtio_testdev_present(void);
void pl011_flush(void);
void smp_init(void);
void exceptions_init_cpu(void);

#endif /* !__ASSEMBLY__ */
#endif
