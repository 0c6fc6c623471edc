/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 registers, instructions and the architectural constants the library and tests name. */
#ifndef VMTICK_X86_PROCESSOR_H
#define VMTICK_X86_PROCESSOR_H

/* Bit n, usable from C and assembly alike (the assembler knows no 'u' suffix). */
#ifdef __ASSEMBLY__
#define BIT(n)			(1 << (n))
#else
#define BIT(n)			(1u << (n))
#endif

#define X86_CR0_PE		BIT(0)
#define X86_CR0_WP		BIT(16)
#define X86_CR0_PG		BIT(31)
#define X86_CR4_PSE		BIT(4)
#define X86_CR4_PAE		BIT(5)
#define X86_EFLAGS_IF		BIT(9)

#define MSR_EFER		0xc0000080
#define EFER_LME		BIT(8)
#define EFER_NX			BIT(11)
#define MSR_IA32_APICBASE	0x0000001b
#define MSR_IA32_APICBASE_BSP	BIT(8)
#define MSR_IA32_APICBASE_EXTD	BIT(10)
#define MSR_IA32_APICBASE_ENABLE BIT(11)
#define MSR_IA32_TSC		0x00000010
#define MSR_IA32_TSC_DEADLINE	0x000006e0
#define MSR_IA32_MISC_ENABLE	0x000001a0

/* Page-table entry bits (the same in 32-bit, PAE and 4-level paging). */
#define PT_PRESENT		BIT(0)
#define PT_WRITABLE		BIT(1)
#define PT_PWT			BIT(3)
#define PT_PCD			BIT(4)
#define PT_PAGE_SIZE		BIT(7)

/* Exception vectors */
#define DE_VECTOR	0
#define DB_VECTOR	1
#define NMI_VECTOR	2
#define BP_VECTOR	3
#define OF_VECTOR	4
#define BR_VECTOR	5
#define UD_VECTOR	6
#define NM_VECTOR	7
#define DF_VECTOR	8
#define TS_VECTOR	10
#define NP_VECTOR	11
#define SS_VECTOR	12
#define GP_VECTOR	13
#define PF_VECTOR	14
#define MF_VECTOR	16
#define AC_VECTOR	17
#define MC_VECTOR	18
#define XM_VECTOR	19
#define VE_VECTOR	20
#define CP_VECTOR	21

/* CPUID leaves and bits */
#define CPUID_VENDOR			0x00000000
#define CPUID_FEATURES			0x00000001
#define CPUID_1_ECX_X2APIC		BIT(21)
#define CPUID_1_ECX_TSC_DEADLINE	BIT(24)
#define CPUID_1_ECX_HYPERVISOR		BIT(31)
#define CPUID_1_EDX_TSC			BIT(4)
#define CPUID_1_EDX_MSR			BIT(5)
#define CPUID_1_EDX_APIC		BIT(9)
#define CPUID_EXT_FEATURES		0x80000001
#define CPUID_80000001_EDX_LM		BIT(29)
#define CPUID_POWER_MGMT		0x80000007
#define CPUID_80000007_EDX_INVTSC	BIT(8)
#define CPUID_HYPERVISOR_BASE		0x40000000

#ifndef __ASSEMBLY__
#include "libc.h"
#include "irq.h"

struct cpuid {
	u32 a, b, c, d;
};

static inline struct cpuid cpuid_count(u32 leaf, u32 subleaf)
{
	struct cpuid r;

	asm volatile("cpuid"
		     : "=a"(r.a), "=b"(r.b), "=c"(r.c), "=d"(r.d)
		     : "0"(leaf), "2"(subleaf));
	return r;
}

static inline struct cpuid cpuid(u32 leaf)
{
	return cpuid_count(leaf, 0);
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr) : "memory");
	return lo | ((u64)hi << 32);
}

static inline void wrmsr(u32 msr, u64 val)
{
	asm volatile("wrmsr"
		     :
		     : "a"((u32)val), "d"((u32)(val >> 32)), "c"(msr)
		     : "memory");
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | ((u64)hi << 32);
}

/*
 * rdtsc ordered against earlier and later instructions: lfence before
 * keeps it from running ahead, lfence after keeps later loads from
 * starting before it (Intel SDM; AMD with LFENCE made serialising).
 */
static inline u64 rdtsc_ordered(void)
{
	u64 t;

	asm volatile("lfence" ::: "memory");
	t = rdtsc();
	asm volatile("lfence" ::: "memory");
	return t;
}

static inline u64 rdtscp(u32 *aux)
{
	u32 lo, hi, c;

	asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
	if (aux)
		*aux = c;
	return lo | ((u64)hi << 32);
}

/*
 * read_REG() and write_REG(v) for a control or debug register REG (cr0,
 * dr7): one mov each; a write is a compiler barrier, as what it changes
 * (paging, caching, breakpoints) bears on the memory accesses around it.
 */
#define DEFINE_REG_READ(reg)                                  \
	static inline unsigned long read_##reg(void)          \
	{                                                     \
		unsigned long v;                              \
                                                              \
		asm volatile("mov %%" #reg ", %0" : "=r"(v)); \
		return v;                                     \
	}
#define DEFINE_REG_WRITE(reg)                                          \
	static inline void write_##reg(unsigned long v)                \
	{                                                              \
		asm volatile("mov %0, %%" #reg : : "r"(v) : "memory"); \
	}

/* read_cr0(), read_cr2(), read_cr3(), read_cr4() */
DEFINE_REG_READ(cr0)
DEFINE_REG_READ(cr2)
DEFINE_REG_READ(cr3)
DEFINE_REG_READ(cr4)

/* sti takes effect after the next instruction: no interrupt slips in before hlt. */
static inline void safe_halt(void)
{
	asm volatile("sti; hlt" ::: "memory");
}

static inline void pause(void)
{
	asm volatile("pause" ::: "memory");
}

static inline unsigned long read_flags(void)
{
	unsigned long f;

	asm volatile("pushf; pop %0" : "=r"(f));
	return f;
}

static inline bool cpu_has(u32 leaf, char reg, u32 bit)
{
	struct cpuid r = cpuid(leaf);
	u32 v = reg == 'a' ? r.a : reg == 'b' ? r.b : reg == 'c' ? r.c : r.d;

	return (v & bit) != 0;
}

/* "AuthenticAMD" or "HygonGenuine" (AMD's design under licence): SVM, vmmcall. */
static inline bool cpu_is_amd(void)
{
	struct cpuid v = cpuid(CPUID_VENDOR);

	/* EBX holds the first four letters */
	return !memcmp(&v.b, "Auth", 4) || !memcmp(&v.b, "Hygo", 4);
}

#endif /* !__ASSEMBLY__ */
#endif
