/* SPDX-License-Identifier: GPL-2.0-only */
/* KVM hypercalls (vmcall/vmmcall) and a probe surviving hosts that lack them or never return. */
#ifndef VMTICK_X86_HYPERCALL_H
#define VMTICK_X86_HYPERCALL_H

#include "libc.h"
#include "x86/processor.h"

/* Any number KVM does not assign (uapi kvm_para.h): answered with -KVM_ENOSYS. */
#define KVM_HC_UNASSIGNED	0x7fff
#define KVM_ENOSYS		1000

/*
 * The probe's watchdog: a one-shot LAPIC timer at divide-by-1, which KVM
 * counts at 1 ns per tick, so 200 ms: the longest a probe may take. The
 * vector sits below the library's IPI_WAKE_VECTOR, clear of the tests' own.
 */
#define HYPERCALL_WATCHDOG_VECTOR	0xef
#define HYPERCALL_WATCHDOG_APIC_TICKS	200000000u

/* VMX (Intel) has vmcall, SVM (AMD, Hygon) vmmcall; KVM would rewrite the other one in place. */
enum hypercall_insn { HYPERCALL_VMCALL, HYPERCALL_VMMCALL };

/* A hypercall without arguments: nr in, KVM's answer out, in rax. */
static inline unsigned long kvm_vmcall0(unsigned long nr)
{
	asm volatile("vmcall" : "+a"(nr) : : "memory");
	return nr;
}

static inline unsigned long kvm_vmmcall0(unsigned long nr)
{
	asm volatile("vmmcall" : "+a"(nr) : : "memory");
	return nr;
}

static inline enum hypercall_insn hypercall_native_insn(void)
{
	return cpu_is_amd() ? HYPERCALL_VMMCALL : HYPERCALL_VMCALL;
}

/* By this CPU's own instruction (asks CPUID which: keep it out of timed loops). */
static inline unsigned long kvm_hypercall0(unsigned long nr)
{
	if (hypercall_native_insn() == HYPERCALL_VMMCALL)
		return kvm_vmmcall0(nr);
	return kvm_vmcall0(nr);
}

/* "vmcall" or "vmmcall" */
const char *hypercall_insn_name(enum hypercall_insn insn);

enum hypercall_probe {
	HYPERCALL_RETURNED,	/* it completed: *ret holds KVM's answer */
	HYPERCALL_FAULTED,	/* it raised an exception: #UD where nothing handles it (TCG) */
	HYPERCALL_HUNG,		/* the host never completed it (kvm-pvm loops on it) */
};

/* "returned", "raised an exception", "did not complete" */
const char *hypercall_probe_name(enum hypercall_probe outcome);

/*
 * One hypercall nr by insn, whatever the host does with it; *ret is rax
 * afterwards (nr unchanged unless it returned). Call with interrupts off
 * and the LAPIC enabled: the probe briefly enables interrupts, and takes
 * the LAPIC timer (left masked) and HYPERCALL_WATCHDOG_VECTOR for its run.
 */
enum hypercall_probe hypercall_probe(enum hypercall_insn insn, unsigned long nr,
				     unsigned long *ret);

/*
 * NULL when KVM's hypercall ABI answers the native instruction (an
 * unassigned number returns -KVM_ENOSYS), else why not. Probes both
 * instructions and logs what each did. Same conditions as hypercall_probe().
 */
const char *kvm_hypercall_unusable(void);

#endif
