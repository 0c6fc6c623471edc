/* SPDX-License-Identifier: GPL-2.0-only */
/* Calls into the kernel's own EL2 (el2.h): CNTVOFF_EL2 read and set from EL1. */
#include "arm64/el2.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

#define ID_AA64PFR0_EL2_MASK 0xf

u32 boot_entry_el;

const char *el2_unavailable(void)
{
	u64 pfr0 = read_sysreg(id_aa64pfr0_el1);

	if (!((pfr0 >> ID_AA64PFR0_EL2_SHIFT) & ID_AA64PFR0_EL2_MASK))
		return "no EL2 (ID_AA64PFR0_EL1.EL2 is 0: QEMU's virt machine gives one with "
		       "virtualization=on, under TCG)";
	if (boot_entry_el != 2)
		return "the kernel was entered at EL1: nobody at EL2 to call";
	if (boot_el() != 1)
		return "the kernel runs at EL2 itself (STAY_AT_EL2)";
	return NULL;
}

/* Each call is HVC #imm with x0 in and out; the handler clobbers x1 (el2_vectors.S). */
u64 el2_cntvoff_get(void)
{
	register u64 x0 asm("x0");

	asm volatile("hvc %[n]" : "=r"(x0) : [n] "i"(EL2_HVC_CNTVOFF_GET) : "x1", "memory");
	return x0;
}

void el2_cntvoff_set(u64 offset)
{
	register u64 x0 asm("x0") = offset;

	asm volatile("hvc %[n]" : "+r"(x0) : [n] "i"(EL2_HVC_CNTVOFF_SET) : "x1", "memory");
	/* CNTVCT reads after this see the new offset */
	isb();
}
