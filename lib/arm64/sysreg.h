/* SPDX-License-Identifier: GPL-2.0-only */
/* AArch64 system-register names, fields and accessors shared by C and the start-up assembly. */
#ifndef VMTICK_ARM64_SYSREG_H
#define VMTICK_ARM64_SYSREG_H

#define BIT_U(n)		(1 << (n))
#define BIT_UL(n)		(1UL << (n))

/* CurrentEL: the level sits in bits [3:2]. */
#define CURRENTEL_SHIFT		2
#define CURRENTEL_EL1		(1 << 2)
#define CURRENTEL_EL2		(2 << 2)

/* SPSR / PSTATE */
#define PSR_MODE_EL1h		0x5
#define PSR_MODE_EL2h		0x9
#define PSR_MODE_MASK		0xf
#define PSR_F_BIT		(1 << 6)
#define PSR_I_BIT		(1 << 7)
#define PSR_A_BIT		(1 << 8)
#define PSR_D_BIT		(1 << 9)
#define PSR_DAIF_MASK		(PSR_D_BIT | PSR_A_BIT | PSR_I_BIT | PSR_F_BIT)

/* HCR_EL2 */
#define HCR_EL2_RW		(1 << 31)
#define HCR_EL2_E2H_SHIFT	34
#define HCR_EL2_TGE		(1 << 27)

/* CNTHCTL_EL2 (E2H == 0 layout): EL1 may read the physical counter and use the physical timer. */
#define CNTHCTL_EL1PCTEN	(1 << 0)
#define CNTHCTL_EL1PCEN		(1 << 1)

/* CPTR_EL2 with E2H == 0: RES1 bits, no traps of FP/SIMD. */
#define CPTR_EL2_RES1		0x33ff

/* ICC_SRE_ELx */
#define ICC_SRE_SRE		(1 << 0)
#define ICC_SRE_DFB		(1 << 1)
#define ICC_SRE_DIB		(1 << 2)
#define ICC_SRE_EL2_ENABLE	(1 << 3)

/* ID_AA64PFR0_EL1.GIC [27:24]: system-register GIC CPU interface present. */
#define ID_AA64PFR0_GIC_SHIFT	24
/* ID_AA64PFR0_EL1.EL2 [11:8]: 0 when EL2 is not implemented. */
#define ID_AA64PFR0_EL2_SHIFT	8
/* ID_AA64MMFR0_EL1.PARange [3:0] */
#define ID_AA64MMFR0_PARANGE_MASK 0xf
#define ID_AA64MMFR0_PARANGE_48	5
/* ID_AA64MMFR1_EL1.VH [11:8] */
#define ID_AA64MMFR1_VH_SHIFT	8

/* SCTLR_EL1 */
#define SCTLR_EL1_RES1		0x30d00800
#define SCTLR_M			(1 << 0)
#define SCTLR_A			(1 << 1)
#define SCTLR_C			(1 << 2)
#define SCTLR_SA		(1 << 3)
#define SCTLR_I			(1 << 12)

/* MAIR_EL1 attribute indices used by the page tables (mmu.c). */
#define MT_DEVICE_nGnRnE	0
#define MT_DEVICE_nGnRE		1
#define MT_NORMAL_NC		2
#define MT_NORMAL		3
#define MAIR_ATTR_DEVICE_nGnRnE	0x00
#define MAIR_ATTR_DEVICE_nGnRE	0x04
#define MAIR_ATTR_NORMAL_NC	0x44
#define MAIR_ATTR_NORMAL_WBWA	0xff
#define MAIR_EL1_VALUE                                                     \
	((MAIR_ATTR_DEVICE_nGnRnE << (8 * MT_DEVICE_nGnRnE)) |             \
	 (MAIR_ATTR_DEVICE_nGnRE << (8 * MT_DEVICE_nGnRE)) |               \
	 (MAIR_ATTR_NORMAL_NC << (8 * MT_NORMAL_NC)) |                     \
	 (MAIR_ATTR_NORMAL_WBWA << (8 * MT_NORMAL)))

/* TCR_EL1: 48-bit VA in TTBR0 only, 4 KiB granule, walks cacheable inner-shareable. */
#define VA_BITS			48
#define TCR_T0SZ		(64 - VA_BITS)
#define TCR_IRGN0_WBWA		(1 << 8)
#define TCR_ORGN0_WBWA		(1 << 10)
#define TCR_SH0_INNER		(3 << 12)
#define TCR_TG0_4K		(0 << 14)
#define TCR_EPD1		(1 << 23)
#define TCR_IPS_SHIFT		32
#define TCR_EL1_VALUE                                                      \
	(TCR_T0SZ | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER |      \
	 TCR_TG0_4K | TCR_EPD1)

/* ESR_ELx */
#define ESR_EC_SHIFT		26
#define ESR_EC_MASK		0x3f
#define ESR_IL			(1 << 25)
#define ESR_ISS_MASK		0x1ffffff
/* ISS of an HVC or SVC: the instruction's 16-bit immediate. */
#define ESR_ISS_IMM16_MASK	0xffff
#define ESR_EC_UNKNOWN		0x00
#define ESR_EC_WFX		0x01
#define ESR_EC_SVC64		0x15
#define ESR_EC_HVC64		0x16
#define ESR_EC_SMC64		0x17
#define ESR_EC_SYS64		0x18
#define ESR_EC_IABT_LOW		0x20
#define ESR_EC_IABT_CUR		0x21
#define ESR_EC_PC_ALIGN		0x22
#define ESR_EC_DABT_LOW		0x24
#define ESR_EC_DABT_CUR		0x25
#define ESR_EC_SP_ALIGN		0x26
#define ESR_EC_SERROR		0x2f
#define ESR_EC_BRK64		0x3c
#define ESR_EC_COUNT		64

/* Generic timer CNT{P,V}_CTL_EL0 */
#define CNT_CTL_ENABLE		(1 << 0)
#define CNT_CTL_IMASK		(1 << 1)
#define CNT_CTL_ISTATUS		(1 << 2)

/* MPIDR_EL1 affinity fields */
#define MPIDR_AFF0_SHIFT	0
#define MPIDR_AFF1_SHIFT	8
#define MPIDR_AFF2_SHIFT	16
#define MPIDR_AFF3_SHIFT	32
#define MPIDR_HWID_MASK		0xff00ffffffUL

/* GIC CPU interface system registers, by encoding (older assemblers lack the names). */
#define SYS_ICC_PMR_EL1		S3_0_C4_C6_0
#define SYS_ICC_IAR1_EL1	S3_0_C12_C12_0
#define SYS_ICC_EOIR1_EL1	S3_0_C12_C12_1
#define SYS_ICC_BPR1_EL1	S3_0_C12_C12_3
#define SYS_ICC_CTLR_EL1	S3_0_C12_C12_4
#define SYS_ICC_SRE_EL1		S3_0_C12_C12_5
#define SYS_ICC_IGRPEN1_EL1	S3_0_C12_C12_7
#define SYS_ICC_SGI1R_EL1	S3_0_C12_C11_5
#define SYS_ICC_SRE_EL2		S3_4_C12_C9_5

#ifndef __ASSEMBLY__
#include "libc.h"
#include "irq.h"

#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)

#define read_sysreg(r) ({                                              \
	u64 __v;                                                       \
	asm volatile("mrs %0, " __stringify(r) : "=r"(__v));          \
	__v;                                                           \
})
#define write_sysreg(v, r) do {                                        \
	u64 __v = (u64)(v);                                            \
	asm volatile("msr " __stringify(r) ", %x0" : : "rZ"(__v));    \
} while (0)

#define isb() asm volatile("isb" ::: "memory")
#define dsb(opt) asm volatile("dsb " #opt ::: "memory")
#define dmb(opt) asm volatile("dmb " #opt ::: "memory")
#define wfi() asm volatile("wfi" ::: "memory")
#define wfe() asm volatile("wfe" ::: "memory")
#define sev() asm volatile("sev" ::: "memory")

static inline unsigned current_el(void)
{
	return (read_sysreg(CurrentEL) >> 2) & 3;
}

/* MMIO accessors: single-copy-atomic accesses with no compiler reordering. */
static inline u32 readl(uintptr_t addr)
{
	u32 v;

	asm volatile("ldr %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline void writel(u32 v, uintptr_t addr)
{
	asm volatile("str %w0, [%1]" : : "rZ"(v), "r"(addr) : "memory");
}

static inline u64 readq(uintptr_t addr)
{
	u64 v;

	asm volatile("ldr %0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline void writeq(u64 v, uintptr_t addr)
{
	asm volatile("str %x0, [%1]" : : "rZ"(v), "r"(addr) : "memory");
}

static inline void writeb(u8 v, uintptr_t addr)
{
	asm volatile("strb %w0, [%1]" : : "rZ"(v), "r"(addr) : "memory");
}

static inline u8 readb(uintptr_t addr)
{
	u8 v;

	asm volatile("ldrb %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline u16 readw(uintptr_t addr)
{
	u16 v;

	asm volatile("ldrh %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline void writew(u16 v, uintptr_t addr)
{
	asm volatile("strh %w0, [%1]" : : "rZ"(v), "r"(addr) : "memory");
}

#endif /* !__ASSEMBLY__ */
#endif
