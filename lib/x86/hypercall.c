/* SPDX-License-Identifier: GPL-2.0-only */
/* Probing KVM hypercalls behind the exception table and an LAPIC-timer watchdog. */
#include "x86/hypercall.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "report.h"

static const char *const insn_names[] = {
	[HYPERCALL_VMCALL] = "vmcall",
	[HYPERCALL_VMMCALL] = "vmmcall",
};

static const char *const probe_names[] = {
	[HYPERCALL_RETURNED] = "returned",
	[HYPERCALL_FAULTED] = "raised an exception",
	[HYPERCALL_HUNG] = "did not complete",
};

const char *hypercall_insn_name(enum hypercall_insn insn)
{
	return insn_names[insn];
}

const char *hypercall_probe_name(enum hypercall_probe outcome)
{
	return probe_names[outcome];
}

/* The probed instruction's address and the one after it, for the watchdog. */
static volatile uintptr_t probe_insn, probe_resume;
static volatile bool watchdog_fired;

/*
 * A host that never completes the instruction still enters the guest to
 * deliver the timer interrupt: move the return address past it.
 */
static void watchdog_handler(struct ex_regs *regs)
{
	if (probe_insn && EX_IP(regs) == probe_insn) {
		EX_IP(regs) = probe_resume;
		watchdog_fired = true;
	}
	apic_eoi();
}

/*
 * #UD is caught by the exception table. The label addresses are published
 * before sti; the nop after sti ends the interrupt shadow before the
 * hypercall, so the watchdog can hit it.
 */
#define PROBE_ASM(insn)                                                        \
	asm volatile("mov $1f, %[tmp]\n\t"                                    \
		     "mov %[tmp], %[at]\n\t"                                  \
		     "mov $2f, %[tmp]\n\t"                                    \
		     "mov %[tmp], %[end]\n\t"                                 \
		     "sti; nop\n"                                             \
		     "1: " insn "\n"                                          \
		     "2: cli\n"                                               \
		     ".pushsection .ex_table, \"a\"\n"                        \
		     ASM_PTR " 1b, 2b\n"                                      \
		     ".popsection"                                            \
		     : "+a"(r), [tmp] "=&r"(tmp), [at] "=m"(probe_insn),      \
		       [end] "=m"(probe_resume)                               \
		     :                                                        \
		     : "memory")

enum hypercall_probe hypercall_probe(enum hypercall_insn insn, unsigned long nr,
				     unsigned long *ret)
{
	exception_handler_t old = handle_exception(HYPERCALL_WATCHDOG_VECTOR, watchdog_handler);
	unsigned long r = nr;
	uintptr_t tmp;

	probe_insn = 0;
	watchdog_fired = false;
	exception_clear();
	apic_timer_oneshot(HYPERCALL_WATCHDOG_VECTOR, HYPERCALL_WATCHDOG_APIC_TICKS);
	if (insn == HYPERCALL_VMMCALL)
		PROBE_ASM("vmmcall");
	else
		PROBE_ASM("vmcall");
	apic_timer_stop();
	probe_insn = 0;
	handle_exception(HYPERCALL_WATCHDOG_VECTOR, old);
	*ret = r;
	if (watchdog_fired)
		return HYPERCALL_HUNG;
	return exception_vector() == EXC_NONE ? HYPERCALL_RETURNED : HYPERCALL_FAULTED;
}

const char *kvm_hypercall_unusable(void)
{
	enum hypercall_insn native = hypercall_native_insn();
	enum hypercall_insn other = native == HYPERCALL_VMMCALL ? HYPERCALL_VMCALL : HYPERCALL_VMMCALL;
	enum hypercall_probe outcome[2];
	unsigned long ret[2];

	outcome[native] = hypercall_probe(native, KVM_HC_UNASSIGNED, &ret[native]);
	/* the other vendor's instruction, for the log (KVM may rewrite it in place) */
	outcome[other] = hypercall_probe(other, KVM_HC_UNASSIGNED, &ret[other]);
	report_info("vmmcall %s (%ld), vmcall %s (%ld); %s is native here",
		    probe_names[outcome[HYPERCALL_VMMCALL]], (long)ret[HYPERCALL_VMMCALL],
		    probe_names[outcome[HYPERCALL_VMCALL]], (long)ret[HYPERCALL_VMCALL],
		    insn_names[native]);
	if (outcome[native] == HYPERCALL_FAULTED)
		return "the hypercall instruction raised an exception (#UD: TCG has no hypercalls)";
	if (outcome[native] == HYPERCALL_HUNG)
		return "the hypercall never completed: the host loops on it (seen with kvm-pvm)";
	if (!on_kvm() || (long)ret[native] != -KVM_ENOSYS)
		return "no KVM hypercall ABI here (no -KVM_ENOSYS for an unassigned number)";
	return NULL;
}
