/* SPDX-License-Identifier: GPL-2.0-only */
/* Control and debug register writes, CR8, the cache-flush instructions and the speculation-control MSRs, for tests that exercise them. */
#ifndef VMTICK_X86_SYSREG_H
#define VMTICK_X86_SYSREG_H

#include "x86/processor.h"

#define X86_CR4_PGE			BIT(7)
#define CPUID_1_EDX_PGE			BIT(13)

/* DR7: bit 10 reads as 1; per breakpoint n, enables at 2n and 2n+1, R/W at 16+4n, LEN at 18+4n */
#define DR7_FIXED_1			BIT(10)
#define DR7_RW0_WRITE			(1u << 16)
#define DR7_LEN0_4			(3u << 18)

#define MSR_IA32_SPEC_CTRL		0x00000048
#define SPEC_CTRL_IBRS			BIT(0)
#define MSR_IA32_PRED_CMD		0x00000049
#define PRED_CMD_IBPB			BIT(0)
#define MSR_IA32_ARCH_CAPABILITIES	0x0000010a
#define ARCH_CAP_TSX_CTRL_MSR		BIT(7)
#define MSR_IA32_TSX_CTRL		0x00000122
#define TSX_CTRL_RTM_DISABLE		BIT(0)
#define MSR_GS_BASE			0xc0000101
#define MSR_KERNEL_GS_BASE		0xc0000102

#define CPUID_7_0_EDX_SPEC_CTRL		BIT(26)	/* IBRS and IBPB (Intel's enumeration) */
#define CPUID_7_0_EDX_ARCH_CAPABILITIES	BIT(29)
#define CPUID_EXT_BASE			0x80000000
#define CPUID_EXT_ADDR_SIZES		0x80000008
#define CPUID_80000008_EBX_IBPB		BIT(12)	/* AMD's enumeration */
#define CPUID_80000008_EBX_IBRS		BIT(14)

/* write_cr0(), write_cr4(), read_dr7(), write_dr7() (x86/processor.h's accessors) */
DEFINE_REG_WRITE(cr0)
DEFINE_REG_WRITE(cr4)
DEFINE_REG_READ(dr7)
DEFINE_REG_WRITE(dr7)

#ifdef __x86_64__
/* CR8 (the TPR's priority class, TPR[7:4]) exists in 64-bit mode only: read_cr8(), write_cr8(). */
DEFINE_REG_READ(cr8)
DEFINE_REG_WRITE(cr8)

static inline void swapgs(void)
{
	asm volatile("swapgs" ::: "memory");
}
#endif

static inline void wbinvd(void)
{
	asm volatile("wbinvd" ::: "memory");
}

/* Discards dirty cache lines unwritten: only ever under a hypervisor that intercepts it. */
static inline void invd(void)
{
	asm volatile("invd" ::: "memory");
}

/* Highest basic (0) or extended (0x80000000) CPUID leaf. */
static inline u32 cpuid_max_leaf(u32 base)
{
	return cpuid(base).a;
}

#endif
