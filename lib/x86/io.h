/* SPDX-License-Identifier: GPL-2.0-only */
/* Port I/O and MMIO accessors. */
#ifndef VMTICK_X86_IO_H
#define VMTICK_X86_IO_H

#include "libc.h"

/*
 * A pointer to a fixed physical address (identity mapped). The empty asm
 * hides the constant, which compilers otherwise treat as a bad pointer.
 */
static inline void *phys_ptr(uintptr_t addr)
{
	asm("" : "+r"(addr));
	return (void *)addr;
}

static inline u8 inb(u16 port)
{
	u8 v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;

	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(u8 v, u16 port)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(u16 v, u16 port)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u32 v, u16 port)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u32 mmio_read32(uintptr_t addr)
{
	return *(volatile u32 *)addr;
}

static inline void mmio_write32(uintptr_t addr, u32 v)
{
	*(volatile u32 *)addr = v;
}

static inline u64 mmio_read64(uintptr_t addr)
{
	return *(volatile u64 *)addr;
}

static inline void mmio_write64(uintptr_t addr, u64 v)
{
	*(volatile u64 *)addr = v;
}

#endif
