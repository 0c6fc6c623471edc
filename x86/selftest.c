/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * selftest: checks the vmtick library from inside the guest.
 *
 * What it checks (the common half in common/selftest/selftest_engine.c): the arguments
 * arrived as argv; the vCPU count equals smp=N; on_cpu() and on_cpus() run
 * on every CPU; every CPU has its own APIC ID; a #DE, a #GP from an MSR
 * that does not exist and a #PF from the unmapped NULL page are caught by
 * ASM_TRY with the right vector (TCG never raises #GP for MSRs: a skip
 * there), as is a #GP from a bad segment selector; a self-IPI reaches the
 * handler installed for its vector; 64-bit printf and division are right
 * (on i386 too); the memory size seen matches mem=MiB.
 *
 * Arguments (key=value, any order):
 *   smp=N     expected vCPU count (QEMU -smp)
 *   mem=MiB   expected RAM size (QEMU -m)
 *   mode=M    misbehave on purpose, to test the runner: pass (default),
 *             fail, skip, hang, crash (triple fault), nothing (reports
 *             no check), fault (unexpected exception)
 * Any other argument is a failure naming it.
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "report.h"
#include "selftest.h"
#include "stats.h"
#include "units.h"
#include "wait.h"

/* An MSR index no CPU or hypervisor implements. */
#define MSR_NONEXISTENT 0x4b564dffu

static void check_apic_ids(void)
{
	int dup = 0;
	u32 top = 0;

	for (int i = 0; i < cpu_count(); i++) {
		top = max(top, cpu_data(i)->apic_id);
		for (int j = i + 1; j < cpu_count(); j++)
			dup += cpu_data(i)->apic_id == cpu_data(j)->apic_id;
	}
	report(!dup, "every CPU has its own APIC ID (%s mode, highest ID %u)",
	       apic_x2apic_mode() ? "x2APIC" : "xAPIC", top);
	/* an 8-bit xAPIC ID cannot name more than 255 CPUs besides the broadcast ID */
	if (top > 254)
		report(apic_x2apic_mode(), "APIC IDs above 254 are reached in x2APIC mode");
}

static void check_divide_error(void)
{
	volatile u32 divisor = 0;
	u32 a = 1, d = 0;

	exception_clear();
	asm volatile(ASM_TRY("divl %2") : "+a"(a), "+d"(d) : "r"(divisor));
	report(exception_vector() == DE_VECTOR, "#DE caught from a division by zero (vector %d)",
	       exception_vector());
}

static void check_msr_gp(void)
{
	char sig[13];
	u64 v;
	int rd = rdmsr_safe(MSR_NONEXISTENT, &v);
	int wr = wrmsr_safe(MSR_NONEXISTENT, 0);

	hypervisor_signature(sig);
	report_info("hypervisor signature '%s'", sig);
	if (!on_kvm() && rd == EXC_NONE && wr == EXC_NONE) {
		report_skip("#GP from a missing MSR: not on KVM, and QEMU's TCG ignores unknown MSRs");
	} else {
		report(rd == GP_VECTOR, "#GP from rdmsr of a missing MSR (vector %d)", rd);
		report(wr == GP_VECTOR, "#GP from wrmsr of a missing MSR (vector %d)", wr);
	}
	report(rdmsr_safe(MSR_IA32_APICBASE, &v) == EXC_NONE, "no exception from rdmsr of APIC_BASE");
}

/* A selector beyond the GDT's limit: #GP with the selector as error code. */
#define SELECTOR_BEYOND_GDT 0x1230

static void check_segment_gp(void)
{
	u16 sel = SELECTOR_BEYOND_GDT;

	exception_clear();
	asm volatile(ASM_TRY("mov %0, %%fs") : : "r"(sel));
	report(exception_vector() == GP_VECTOR && exception_error_code() == SELECTOR_BEYOND_GDT,
	       "#GP from loading a selector beyond the GDT (vector %d, error code %#x)",
	       exception_vector(), exception_error_code());
}

static void check_page_fault(void)
{
	volatile uintptr_t null_page = 0;
	u32 v = 0;
	unsigned long cr2;

	exception_clear();
	asm volatile(ASM_TRY("mov (%1), %0") : "+r"(v) : "r"(null_page) : "memory");
	cr2 = read_cr2();
	report(exception_vector() == PF_VECTOR && cr2 == 0,
	       "#PF from the NULL page (vector %d, cr2 %#lx)", exception_vector(), cr2);
}

/*
 * A self-IPI to a free vector reaches the handler installed for it.
 * (Software interrupts are not used: nested KVM on some hosts fails to
 * emulate int3/int n and stops the guest.)
 */
#define TEST_IPI_VECTOR 0x40
#define TEST_IPI_WAIT_NS NSEC_PER_SEC
static volatile int ipi_hits;

static bool ipi_came(void *unused)
{
	return ipi_hits;
}

static void ipi_handler(struct ex_regs *regs)
{
	ipi_hits += regs->vector == TEST_IPI_VECTOR;
	apic_eoi();
}

static void check_handler(void)
{
	exception_handler_t old = handle_exception(TEST_IPI_VECTOR, ipi_handler);

	irq_enable();
	apic_icr_write(APIC_DEST_SELF | APIC_ICR_FIXED | TEST_IPI_VECTOR, 0);
	wait_cond_ticks(ipi_came, NULL, ns_to_ticks(TEST_IPI_WAIT_NS, arch_counter_hz()));
	irq_disable();
	handle_exception(TEST_IPI_VECTOR, old);
	report(ipi_hits == 1, "a self-IPI to vector %#x reached its installed handler once (%d)",
	       TEST_IPI_VECTOR, ipi_hits);
}

static void __noreturn triple_fault(void)
{
	static const struct __attribute__((packed)) {
		u16 limit;
		uintptr_t base;
	} empty_idt = { 0, 0 };

	report_info("triple fault on purpose");
	asm volatile("lidt %0; int3" : : "m"(empty_idt));
	for (;;)
		;
}

static void fault_insn(void)
{
	asm volatile("ud2");
}

static void halt_forever(void)
{
	asm volatile("cli; hlt");
}

static const struct selftest_arch x86_selftest = {
	/* firmware keeps a little for itself: up to 2% below -m */
	.mem_slack_pct = 2,
	.crash = triple_fault,
	.fault = fault_insn,
	.idle = halt_forever,
};

int main(int argc, char **argv)
{
	struct selftest_args args;

	selftest_begin(argc, argv, &x86_selftest, &args);
	selftest_check_argv(argc, argv);
	report_info("%d argument(s)", argc - 1);
	selftest_check_cpu_count(&args);
	selftest_check_on_cpu();
	check_apic_ids();
	check_divide_error();
	check_msr_gp();
	check_segment_gp();
	check_page_fault();
	check_handler();
	selftest_check_64bit();
	selftest_check_memory(&x86_selftest, &args);
	return report_summary();
}
