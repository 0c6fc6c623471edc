/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exit-bench: what each kind of exit to the hypervisor costs (or, under
 * TCG, the emulation of the same instruction), measured with lib/bench.
 *
 * Rows (one operation each; docs/bench.md explains the method):
 *   rdtsc       rdtsc itself (it traps on some hosts)
 *   cpuid       cpuid leaf 0: always intercepted, answered in the kernel
 *   vmcall      a KVM hypercall with an unassigned number, which KVM answers
 *               at once with -KVM_ENOSYS; vmmcall on AMD/Hygon, vmcall on
 *               Intel (KVM would rewrite the other one in place). SKIP when
 *               it raises #UD (TCG), never completes, or no KVM signature is
 *               seen (lib/x86/hypercall.c probes it).
 *   pio_kernel  inb of the master PIC's mask register (0x21): KVM's in-kernel
 *               irqchip (QEMU's default with -accel kvm) owns the PIC ports,
 *               so the exit ends in the kernel.
 *   pio_user    inb of COM1's scratch register (0x3ff): KVM has no UART, so
 *               the exit goes to QEMU in user space. The scratch register
 *               is plain storage: no side effect on the console.
 *   mmio_user   a 32-bit read of pci-testdev's memory BAR (placed by
 *               lib/x86/pci.c): no memory slot backs it, KVM emulates the
 *               access and hands it to QEMU. SKIP without -device pci-testdev.
 *   rdmsr       rdmsr of IA32_APIC_BASE and
 *   wrmsr       wrmsr of its unchanged value: KVM keeps this MSR in its
 *               local APIC model, so both end in the kernel; the write
 *               changes nothing and can repeat.
 *   self_ipi    a fixed IPI to self through the ICR shorthand, up to the
 *               handler's EOI
 *   ipi_rt      round trip to CPU 1: its handler answers with an IPI back;
 *               CPU 1 waits in hlt with interrupts on. SKIP with one vCPU.
 *   eoi         an EOI write with nothing in service
 *   tscdeadline latency of the TSC-deadline timer: TSC read in its handler
 *               minus the deadline, per sample (not a loop). SKIP without
 *               CPUID.1:ECX[24].
 *
 * Checks: every row costs more than an empty loop iteration; each row's
 * operation did what it should (same value read back, every IPI answered,
 * the timer never early); under KVM the in-kernel port read is cheaper
 * than the user-space one (what justifies the names).
 *
 * Arguments: batches=N budget_ms=N iters=N only=NAME[,NAME] (lib/bench.h).
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "x86/bench_irq.h"
#include "argv.h"
#include "bench.h"
#include "wait.h"
#include "x86/desc.h"
#include "x86/hypercall.h"
#include "x86/hypervisor.h"
#include "x86/io.h"
#include "x86/pci.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "report.h"
#include "x86/serial.h"
#include "wait.h"

#define PIC_MASTER_IMR		0x21
#define UART_SCR		7
#define SCR_PATTERN		0xa5

/* Our vectors: above the exceptions, below the library's (0x60 up). */
#define SELF_IPI_VECTOR		0x50
#define PING_VECTOR		0x51
#define PONG_VECTOR		0x52
#define TIMER_VECTOR		0x53

#define TIMER_DELTA_NS		50000
#define MONOTONIC_READS		10000

/* --- rdtsc, cpuid ----------------------------------------------------- */

BENCH_LOOP(loop_rdtsc, rdtsc())
BENCH_LOOP(loop_cpuid, cpuid(CPUID_VENDOR))

static void check_rdtsc(void *ctx, const struct bench_result *r)
{
	u64 prev = rdtsc(), back = 0;

	for (int i = 0; i < MONOTONIC_READS; i++) {
		u64 t = rdtsc();

		back += t < prev;
		prev = t;
	}
	report(!back, "%d successive reads never went backwards (%llu did)", MONOTONIC_READS, back);
}

static struct cpuid vendor;

static const char *prepare_cpuid(void *ctx)
{
	vendor = cpuid(CPUID_VENDOR);
	return NULL;
}

static void check_cpuid(void *ctx, const struct bench_result *r)
{
	struct cpuid now = cpuid(CPUID_VENDOR);

	report(!memcmp(&now, &vendor, sizeof(now)), "leaf 0 answers the same after the loop");
}

/* --- hypercall --------------------------------------------------------- */

BENCH_LOOP(loop_vmcall, kvm_vmcall0(KVM_HC_UNASSIGNED))
BENCH_LOOP(loop_vmmcall, kvm_vmmcall0(KVM_HC_UNASSIGNED))

static const char *prepare_vmcall(void *ctx)
{
	return kvm_hypercall_unusable();
}

static void check_vmcall(void *ctx, const struct bench_result *r)
{
	long ret = (long)kvm_hypercall0(KVM_HC_UNASSIGNED);

	report(ret == -KVM_ENOSYS, "the hypercall returned -KVM_ENOSYS (%ld)", ret);
}

/* --- port I/O ---------------------------------------------------------- */

BENCH_LOOP(loop_pio_kernel, inb(PIC_MASTER_IMR))
BENCH_LOOP(loop_pio_user, inb(COM1_BASE + UART_SCR))

static u8 pic_mask, old_scr;

static const char *prepare_pio_kernel(void *ctx)
{
	pic_mask = inb(PIC_MASTER_IMR);
	return NULL;
}

static void check_pio_kernel(void *ctx, const struct bench_result *r)
{
	u8 now = inb(PIC_MASTER_IMR);

	report(now == pic_mask, "the PIC mask reads the same after the loop (%#x, %#x)", pic_mask, now);
}

static const char *prepare_pio_user(void *ctx)
{
	old_scr = inb(COM1_BASE + UART_SCR);
	outb(SCR_PATTERN, COM1_BASE + UART_SCR);
	return NULL;
}

static void check_pio_user(void *ctx, const struct bench_result *r)
{
	u8 now = inb(COM1_BASE + UART_SCR);

	report(now == SCR_PATTERN, "COM1's scratch register still holds %#x (%#x)", SCR_PATTERN, now);
	outb(old_scr, COM1_BASE + UART_SCR);
}

/* --- MMIO to QEMU ------------------------------------------------------ */

static uintptr_t testdev_mmio;
static u32 testdev_first;

BENCH_LOOP(loop_mmio_user, mmio_read32(testdev_mmio))

static const char *prepare_mmio_user(void *ctx)
{
	static char why[128];

	testdev_mmio = pci_testdev_mmio(why, sizeof(why));
	if (!testdev_mmio)
		return why;
	testdev_first = mmio_read32(testdev_mmio);
	return NULL;
}

static void check_mmio_user(void *ctx, const struct bench_result *r)
{
	u32 now = mmio_read32(testdev_mmio);

	/* an address nothing decodes reads as all ones */
	report(now == testdev_first && now != ~0u,
	       "the BAR decodes and its first word reads the same after the loop (%#x)", now);
}

/* --- MSRs -------------------------------------------------------------- */

static u64 apic_base;

BENCH_LOOP(loop_rdmsr, rdmsr(MSR_IA32_APICBASE))
BENCH_LOOP(loop_wrmsr, wrmsr(MSR_IA32_APICBASE, apic_base))

static const char *prepare_msr(void *ctx)
{
	apic_base = rdmsr(MSR_IA32_APICBASE);
	return NULL;
}

static void check_msr(void *ctx, const struct bench_result *r)
{
	u64 now = rdmsr(MSR_IA32_APICBASE);

	report(now == apic_base, "IA32_APIC_BASE unchanged after the loop (%#llx)", now);
}

/* --- interrupts -------------------------------------------------------- */

static struct bench_irq_row self_row, rt_row, timer_row = { .vector = TIMER_VECTOR };
static volatile unsigned long pings, responder_ready;
static volatile bool responder_stop;
static u32 responder_apic_id, sender_apic_id;

static void self_handler(struct ex_regs *regs)
{
	bench_irq_hit(&self_row);
}

static void pong_handler(struct ex_regs *regs)
{
	bench_irq_hit(&rt_row);
}

static void self_ipi_once(void)
{
	if (!bench_irq_send(&self_row))
		return;
	apic_icr_write(APIC_DEST_SELF | APIC_ICR_FIXED | SELF_IPI_VECTOR, 0);
	bench_irq_wait_next(&self_row);
}

static void ipi_rt_once(void)
{
	if (!bench_irq_send(&rt_row))
		return;
	apic_icr_write(APIC_ICR_FIXED | PING_VECTOR, responder_apic_id);
	bench_irq_wait_next(&rt_row);
}

BENCH_LOOP(loop_self_ipi, self_ipi_once())
BENCH_LOOP(loop_ipi_rt, ipi_rt_once())
BENCH_LOOP(loop_eoi, apic_eoi())

static const char *prepare_self_ipi(void *ctx)
{
	self_row.saved[0] = handle_exception(SELF_IPI_VECTOR, self_handler);
	return NULL;
}

static void check_ipis(void *ctx, const struct bench_result *r)
{
	struct bench_irq_row *row = ctx;

	report(bench_irq_all_arrived(row, 0), "every IPI arrived (%lu sent, %lu handled)",
	       row->sent, row->hits);
}

static void cleanup_self_ipi(void *ctx)
{
	handle_exception(SELF_IPI_VECTOR, self_row.saved[0]);
}

/* On CPU 1: the ping's handler answers at once. */
static void ping_handler(struct ex_regs *regs)
{
	pings++;
	apic_icr_write(APIC_ICR_FIXED | PONG_VECTOR, sender_apic_id);
	apic_eoi();
}

/*
 * On CPU 1 for the whole run: it waits halted with interrupts on, so it
 * takes no host CPU while the other rows run; each ping wakes it. (The
 * round trip therefore includes CPU 1's wake-up from hlt.)
 */
static bool stopped_else_halt(void *unused)
{
	if (READ_ONCE(responder_stop))
		return true;
	safe_halt();
	return false;
}

static void responder(void *arg)
{
	WRITE_ONCE(responder_ready, 1);
	wait_cond(stopped_else_halt, NULL);
	irq_disable();
}

static const char *prepare_ipi_rt(void *ctx)
{
	if (cpu_count() < 2)
		return "needs a second vCPU (run with -smp 2)";
	sender_apic_id = apic_id();
	responder_apic_id = cpu_data(1)->apic_id;
	rt_row.saved[0] = handle_exception(PING_VECTOR, ping_handler);
	rt_row.saved[1] = handle_exception(PONG_VECTOR, pong_handler);
	responder_ready = 0;
	responder_stop = false;
	on_cpu_async(1, responder, NULL);
	if (!wait_at_least(&responder_ready, 1, BENCH_IRQ_WAIT_MS))
		return "CPU 1 did not start the IPI responder within a second";
	return NULL;
}

static void check_ipi_rt(void *ctx, const struct bench_result *r)
{
	check_ipis(ctx, r);
	report(pings == rt_row.sent, "CPU 1 answered every ping (%lu of %lu)", pings, rt_row.sent);
}

static void cleanup_ipi_rt(void *ctx)
{
	/* the library's wake-up IPI ends the responder's hlt; it then sees the flag */
	WRITE_ONCE(responder_stop, true);
	apic_send_ipi(1, IPI_WAKE_VECTOR);
	on_cpu_wait(1);
	handle_exception(PING_VECTOR, rt_row.saved[0]);
	handle_exception(PONG_VECTOR, rt_row.saved[1]);
}

static bool isr_empty(void)
{
	for (u32 i = 0; i < 8; i++)
		if (apic_read(APIC_ISR + 0x10 * i))
			return false;
	return true;
}

static const char *prepare_eoi(void *ctx)
{
	if (!isr_empty())
		return "an interrupt is in service: the EOIs would retire it";
	return NULL;
}

static void check_eoi(void *ctx, const struct bench_result *r)
{
	report(isr_empty(), "nothing in service after the EOIs");
}

/* --- TSC-deadline timer ------------------------------------------------ */

static volatile u64 timer_arrival;
static u64 timer_delta, early, max_early;

static void timer_handler(struct ex_regs *regs)
{
	timer_arrival = rdtsc_ordered();
	bench_irq_hit(&timer_row);
}

static u64 timer_sample(void *ctx)
{
	u64 deadline;

	if (!bench_irq_send(&timer_row))
		return 0;
	deadline = rdtsc_ordered() + timer_delta;
	apic_timer_deadline(deadline);
	if (!bench_irq_wait_next(&timer_row)) {
		apic_timer_deadline(0);
		return 0;
	}
	if (timer_arrival < deadline) {
		early++;
		max_early = max(max_early, deadline - timer_arrival);
		return 0;
	}
	return timer_arrival - deadline;
}

static const char *prepare_tscdeadline(void *ctx)
{
	if (!apic_timer_has_tsc_deadline())
		return "no TSC-deadline timer mode (CPUID.1:ECX[24] clear)";
	timer_delta = ns_to_ticks(TIMER_DELTA_NS, arch_counter_hz());
	timer_row.saved[0] = handle_exception(TIMER_VECTOR, timer_handler);
	return NULL;
}

static void check_tscdeadline(void *ctx, const struct bench_result *r)
{
	report(bench_irq_all_arrived(&timer_row, 0),
	       "every deadline fired (%lu armed, %lu fired)", timer_row.sent, timer_row.hits);
	report(!early, "the timer never fired before its deadline (%llu early, by up to %llu ticks)",
	       early, max_early);
}

static void cleanup_tscdeadline(void *ctx)
{
	handle_exception(TIMER_VECTOR, timer_row.saved[0]);
}

/* --- the table --------------------------------------------------------- */

enum { ROW_VMCALL = 2, ROW_PIO_KERNEL = 3, ROW_PIO_USER = 4 };

#define LOOP(fn) .kind = BENCH_TIMED_LOOP, .loop = (fn)

static struct bench rows[] = {
	{ .name = "rdtsc", .what = "rdtsc", LOOP(loop_rdtsc), .iters = 16384,
	  .check = check_rdtsc },
	{ .name = "cpuid", .what = "cpuid leaf 0", LOOP(loop_cpuid), .iters = 4096,
	  .prepare = prepare_cpuid, .check = check_cpuid },
	[ROW_VMCALL] = { .name = "vmcall", .what = "hypercall (vmcall), unassigned number",
			 LOOP(loop_vmcall), .iters = 4096, .prepare = prepare_vmcall,
			 .check = check_vmcall },
	[ROW_PIO_KERNEL] = { .name = "pio_kernel", .what = "inb PIC mask (0x21), in-kernel irqchip",
			     LOOP(loop_pio_kernel), .iters = 4096, .prepare = prepare_pio_kernel,
			     .check = check_pio_kernel },
	[ROW_PIO_USER] = { .name = "pio_user", .what = "inb COM1 scratch (0x3ff), QEMU user space",
			   LOOP(loop_pio_user), .iters = 4096, .prepare = prepare_pio_user,
			   .check = check_pio_user },
	{ .name = "mmio_user", .what = "32-bit read of pci-testdev BAR, QEMU user space",
	  LOOP(loop_mmio_user), .iters = 4096, .prepare = prepare_mmio_user,
	  .check = check_mmio_user },
	{ .name = "rdmsr", .what = "rdmsr IA32_APIC_BASE", LOOP(loop_rdmsr), .iters = 4096,
	  .prepare = prepare_msr, .check = check_msr },
	{ .name = "wrmsr", .what = "wrmsr IA32_APIC_BASE, unchanged value", LOOP(loop_wrmsr),
	  .iters = 4096, .prepare = prepare_msr, .check = check_msr },
	{ .name = "self_ipi", .what = "self-IPI by ICR shorthand, to handler and EOI",
	  LOOP(loop_self_ipi), .iters = 2048, .prepare = prepare_self_ipi, .enter = bench_irqs_on,
	  .leave = bench_irqs_off, .check = check_ipis, .cleanup = cleanup_self_ipi, .ctx = &self_row },
	{ .name = "ipi_rt", .what = "IPI to CPU 1 and its IPI back", LOOP(loop_ipi_rt),
	  .iters = 2048, .prepare = prepare_ipi_rt, .enter = bench_irqs_on, .leave = bench_irqs_off,
	  .check = check_ipi_rt, .cleanup = cleanup_ipi_rt, .ctx = &rt_row },
	{ .name = "eoi", .what = "EOI write, nothing in service", LOOP(loop_eoi), .iters = 4096,
	  .prepare = prepare_eoi, .check = check_eoi },
	{ .name = "tscdeadline", .what = "TSC-deadline timer, arrival - deadline",
	  .kind = BENCH_SAMPLES, .sample = timer_sample, .iters = 64,
	  .prepare = prepare_tscdeadline, .enter = bench_deadline_enter,
	  .leave = bench_deadline_leave, .check = check_tscdeadline, .cleanup = cleanup_tscdeadline,
	  .ctx = &timer_row },
};

static void check_pio_split(const struct bench_result *res)
{
	const struct bench_result *k = &res[ROW_PIO_KERNEL], *u = &res[ROW_PIO_USER];

	if (!on_kvm() || !k->batches || !u->batches)
		return;
	report(k->op_ps.median < u->op_ps.median,
	       "under KVM the in-kernel port read is cheaper than the user-space one (%llu < %llu ps)",
	       k->op_ps.median, u->op_ps.median);
}

int main(int argc, char **argv)
{
	static struct bench_result res[ARRAY_SIZE(rows)];
	struct bench_config cfg;
	const struct arg args[] = { BENCH_ARGS(&cfg) };
	const struct arg_table table = ARG_TABLE(args);

	bench_config_init(&cfg, "exit");
	args_parse_or_abort(&table, argc, argv);
	if (hypercall_native_insn() == HYPERCALL_VMMCALL) {
		rows[ROW_VMCALL].loop = loop_vmmcall;
		rows[ROW_VMCALL].what = "hypercall (vmmcall), unassigned number";
	}
	report_info("%s, %d vCPU(s), %s mode", on_kvm() ? "KVM" : "no KVM signature (TCG?)",
		    cpu_count(), apic_x2apic_mode() ? "x2APIC" : "xAPIC");
	bench_run(&cfg, rows, ARRAY_SIZE(rows), res);
	check_pio_split(res);
	return report_summary();
}
