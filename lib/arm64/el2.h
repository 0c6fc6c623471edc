/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's own EL2 under an EL1 kernel: its HVC calls and their C API (el2.c). */
#ifndef VMTICK_ARM64_EL2_H
#define VMTICK_ARM64_EL2_H

/*
 * An EL1 kernel that start-up dropped from EL2 (lib/arm64/head.S,
 * el_setup) leaves behind, on every CPU, a minimal hypervisor: VBAR_EL2
 * points at el2_vectors (lib/arm64/el2_vectors.S), whose only service is
 * an HVC from EL1. The call is chosen by the HVC's immediate, so SMCCC's
 * HVC #0 stays apart: it is answered with EL2_HVC_NOT_SUPPORTED in x0, as
 * a hypervisor that implements no SMCCC function. The value goes in and
 * comes back in x0; x1 is clobbered. Anything else taken to EL2 (another
 * immediate, another exception) halts the CPU at EL2: a bug of the kernel.
 */
#define EL2_HVC_SMCCC	      0	   /* SMCCC's own immediate: not ours */
#define EL2_HVC_CNTVOFF_GET   1	   /* x0 = CNTVOFF_EL2 */
#define EL2_HVC_CNTVOFF_SET   2	   /* CNTVOFF_EL2 = x0 */
#define EL2_HVC_NOT_SUPPORTED (-1) /* SMCCC's NOT_SUPPORTED */

#ifndef __ASSEMBLY__
#include "libc.h"

/* The EL (1 or 2) the boot CPU was entered at, before start-up dropped to EL1 (head.S). */
extern u32 boot_entry_el;

/*
 * NULL when the calls below reach the kernel's EL2 here, else why not (no
 * EL2 implemented, entered at EL1, or the kernel runs at EL2 itself).
 */
const char *el2_unavailable(void);

/* On the calling CPU, through its EL2: CNTVCT_EL0 = CNTPCT_EL0 - CNTVOFF_EL2. */
u64 el2_cntvoff_get(void);
void el2_cntvoff_set(u64 offset);

#endif /* !__ASSEMBLY__ */
#endif
