/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exit-bench-cpu: what the exits of cache, control- and debug-register,
 * MSR and port instructions cost, measured with lib/bench like exit-bench
 * (whose table is full: these are the rows it lacks).
 *
 * Rows (one operation each; docs/bench.md explains the method):
 *   wbinvd           wbinvd: intercepted by KVM, which flushes only when a
 *                    device makes the guest's caches matter
 *   invd             invd: discards dirty lines unwritten on bare metal, so
 *                    it runs only under a hypervisor (CPUID.1:ECX[31]),
 *                    which must intercept it (VMX always exits on it, KVM
 *                    skips it) and under TCG (a no-op); SKIP on bare metal
 *   cr8_read         mov from CR8 and
 *   cr8_write        mov to CR8, the TPR's priority class: 64-bit only
 *                    (SKIP in an i386 build)
 *   dr7_write        mov to DR7 of a breakpoint set up but not enabled
 *   cr0_wp           CR0.WP cleared and set again (two writes)
 *   cr4_pge          CR4.PGE flipped and restored (two writes); SKIP without
 *                    CPUID.1:EDX[13]
 *   wrmsr_kernel_gs_base  wrmsr IA32_KERNEL_GS_BASE; SKIP without long mode
 *   wrmsr_tsx_ctrl   wrmsr IA32_TSX_CTRL, unchanged; SKIP unless
 *                    IA32_ARCH_CAPABILITIES (CPUID.7.0:EDX[29]) has bit 7
 *   wrmsr_spec_ctrl  wrmsr IA32_SPEC_CTRL with IBRS set; SKIP without
 *                    CPUID.7.0:EDX[26] or CPUID.80000008:EBX[14]
 *   wrmsr_pred_cmd   wrmsr IA32_PRED_CMD = IBPB (write-only); SKIP without
 *                    CPUID.7.0:EDX[26] or CPUID.80000008:EBX[12]
 *   rdmsr_tsc_adjust rdmsr and
 *   wrmsr_tsc_adjust wrmsr (unchanged) of IA32_TSC_ADJUST; SKIP without
 *                    CPUID.7.0:EBX[1]
 *   pmtimer          inl of the ACPI PM timer (QEMU user space under KVM);
 *                    SKIP without one in the FADT
 *   pio_pit          inb of port B (0x61, PIT channel 2 gate): KVM's
 *                    in-kernel PIT
 *   cmos             CMOS index write and data read (0x70/0x71): QEMU's RTC
 *   pio_kernel_out   outb of the slave PIC's mask (0xa1): in-kernel irqchip
 *   pio_user_out     outb of COM1's scratch register: QEMU user space
 *
 * Checks, one or more per row, each on the operation's architectural
 * effect: data written before wbinvd/invd is still there after them; CR8
 * and the APIC's TPR move together both ways; DR7, CR0 and CR4 read back
 * what was written; each MSR reads back what the loop wrote and a
 * different value, and (under KVM) a reserved bit raises #GP; the PM
 * timer never runs backwards and advances; the port writes reach their
 * device and the port reads see what was written.
 *
 * A known host defect: on kvm-pvm IA32_SPEC_CTRL drops the IBRS write
 * (it reads back as before) and neither IA32_SPEC_CTRL nor IA32_PRED_CMD
 * raises #GP for a reserved bit, although CPUID offers both. Those checks,
 * when they fail that way, are report_kfail("kvm-pvm/spec-ctrl"): a KFAIL
 * with host=kvm-pvm under KVM, a FAIL anywhere else (docs/clocks.md).
 *
 * Arguments: batches=N budget_ms=N iters=N only=NAME[,NAME] (lib/bench.h);
 *   host=KIND   the host kind whose known defects apply: kvm-pvm or none
 *               (the runner's {host_kind}; default none)
 *   fault=ROW   test-only: the named row's checks expect a wrong value,
 *               to see them fail
 * Anything else is a failure.
 */
#include "libc.h"
#include "exit-bench-cpu.h"
#include "arch.h"
#include "x86/apic.h"
#include "argv.h"
#include "bench.h"
#include "x86/hypervisor.h"
#include "x86/processor.h"
#include "report.h"
#include "x86/sysreg.h"

#define CACHE_WORDS		512
#define CR8_CLASS		1	/* blocks vectors 0x10-0x1f: none used */
#define TPR_CLASS_SHIFT		4


static const char *fault_row;
static const char *const host_kinds[] = { "none", "kvm-pvm" };

u64 want(const char *row, u64 v)
{
	return fault_row && !strcmp(fault_row, row) ? v ^ 1 : v;
}

/* --- wbinvd, invd ------------------------------------------------------ */

static volatile u32 cache_buf[CACHE_WORDS];

BENCH_LOOP(loop_wbinvd, wbinvd())
BENCH_LOOP(loop_invd, invd())

static const char *prepare_invd(void *ctx)
{
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return "bare metal (no CPUID.1:ECX[31]): invd would drop dirty cache lines";
	return NULL;
}

/* Dirty a buffer, flush (or invalidate) the caches, read it back. */
static void check_cache(void *ctx, const struct bench_result *r)
{
	void (*flush)(void) = ctx;
	const char *row = flush == wbinvd ? "wbinvd" : "invd";
	u32 lost = 0;

	for (u32 i = 0; i < CACHE_WORDS; i++)
		cache_buf[i] = i * 0x9e3779b9u;
	flush();
	for (u32 i = 0; i < CACHE_WORDS; i++)
		lost += cache_buf[i] != (u32)want(row, i * 0x9e3779b9u);
	report(!lost, "%u words written before %s read back unchanged (%u differ)", CACHE_WORDS,
	       row, lost);
}

/* --- CR8 --------------------------------------------------------------- */

#ifdef __x86_64__
BENCH_LOOP(loop_cr8_read, read_cr8())
BENCH_LOOP(loop_cr8_write, write_cr8(CR8_CLASS))

static const char *prepare_cr8(void *ctx)
{
	write_cr8(CR8_CLASS);
	return NULL;
}

/* The APIC's TPR and CR8 are one register: each write shows in the other. */
static void check_cr8(void *ctx, const struct bench_result *r)
{
	const char *row = ctx;
	u32 tpr = apic_read(APIC_TPR);
	unsigned long cr8;

	report(tpr == want(row, CR8_CLASS << TPR_CLASS_SHIFT),
	       "after the loop's CR8 = %d, the APIC's TPR is %#x (%#x expected)", CR8_CLASS, tpr,
	       CR8_CLASS << TPR_CLASS_SHIFT);
	apic_write(APIC_TPR, (CR8_CLASS + 1) << TPR_CLASS_SHIFT);
	cr8 = read_cr8();
	report(cr8 == want(row, CR8_CLASS + 1), "TPR = %#x reads as CR8 = %lu (%d expected)",
	       (CR8_CLASS + 1) << TPR_CLASS_SHIFT, cr8, CR8_CLASS + 1);
	/* as the loop left it: the other CR8 row's check comes next */
	write_cr8(CR8_CLASS);
}

static void cleanup_cr8(void *ctx)
{
	write_cr8(0);
}
#else
static const char *prepare_cr8(void *ctx)
{
	return "CR8 exists in 64-bit mode only (i386 build)";
}
#define loop_cr8_read NULL
#define loop_cr8_write NULL
#define check_cr8 NULL
#define cleanup_cr8 NULL
#endif

/* --- DR7, CR0.WP, CR4.PGE ---------------------------------------------- */

#define DR7_VALUE (DR7_FIXED_1 | DR7_RW0_WRITE | DR7_LEN0_4)

static unsigned long cr0, cr4, dr7;

BENCH_LOOP(loop_dr7, write_dr7(DR7_VALUE))
BENCH_LOOP(loop_cr0_wp, write_cr0(cr0 & ~X86_CR0_WP); write_cr0(cr0))
BENCH_LOOP(loop_cr4_pge, write_cr4(cr4 ^ X86_CR4_PGE); write_cr4(cr4))

static const char *prepare_dr7(void *ctx)
{
	dr7 = read_dr7();
	return NULL;
}

static void check_dr7(void *ctx, const struct bench_result *r)
{
	unsigned long now = read_dr7();

	report(now == want("dr7_write", DR7_VALUE), "DR7 reads back %#lx (wrote %#x)", now,
	       DR7_VALUE);
	write_dr7(dr7);
}

static const char *prepare_cr0(void *ctx)
{
	cr0 = read_cr0() | X86_CR0_WP;
	write_cr0(cr0);
	return NULL;
}

static const char *prepare_cr4(void *ctx)
{
	if (!cpu_has(CPUID_FEATURES, 'd', CPUID_1_EDX_PGE))
		return "no global pages (CPUID.1:EDX[13] clear)";
	cr4 = read_cr4();
	return NULL;
}

/* After the toggles the register is as before; the flipped value reads back. */
static void check_toggle(const char *row, const char *reg, unsigned long (*rd)(void),
			 void (*wr)(unsigned long), unsigned long orig, unsigned long bit)
{
	unsigned long after = rd(), flipped;

	wr(orig ^ bit);
	flipped = rd();
	wr(orig);
	report(after == orig && flipped == want(row, orig ^ bit),
	       "%s is %#lx after the loop (was %#lx); with the bit flipped it reads %#lx", reg,
	       after, orig, flipped);
}

static void check_cr0(void *ctx, const struct bench_result *r)
{
	check_toggle("cr0_wp", "CR0", read_cr0, write_cr0, cr0, X86_CR0_WP);
}

static void check_cr4(void *ctx, const struct bench_result *r)
{
	check_toggle("cr4_pge", "CR4", read_cr4, write_cr4, cr4, X86_CR4_PGE);
}

/* --- the table --------------------------------------------------------- */

/* This file's rows: the caches and the control and debug registers. */
static const struct bench reg_rows[] = {
	{ .name = "wbinvd", .what = "wbinvd", LOOP(loop_wbinvd), .iters = 1024,
	  .check = check_cache, .ctx = wbinvd },
	{ .name = "invd", .what = "invd (under a hypervisor only)", LOOP(loop_invd),
	  .iters = 1024, .prepare = prepare_invd, .check = check_cache, .ctx = invd },
	{ .name = "cr8_read", .what = "mov from CR8", LOOP(loop_cr8_read), .iters = 4096,
	  .prepare = prepare_cr8, .check = check_cr8, .ctx = "cr8_read" },
	{ .name = "cr8_write", .what = "mov to CR8, unchanged class", LOOP(loop_cr8_write),
	  .iters = 4096, .prepare = prepare_cr8, .check = check_cr8, .cleanup = cleanup_cr8,
	  .ctx = "cr8_write" },
	{ .name = "dr7_write", .what = "mov to DR7, breakpoint 0 set but disabled", LOOP(loop_dr7),
	  .iters = 4096, .prepare = prepare_dr7, .check = check_dr7 },
	{ .name = "cr0_wp", .what = "CR0.WP cleared and set (two mov to CR0)", LOOP(loop_cr0_wp),
	  .iters = 2048, .prepare = prepare_cr0, .check = check_cr0 },
	{ .name = "cr4_pge", .what = "CR4.PGE flipped and restored (two mov to CR4)",
	  LOOP(loop_cr4_pge), .iters = 2048, .prepare = prepare_cr4, .check = check_cr4 },
};

static void set_host(const char *kind)
{
	/* kvm-pvm's defects are KVM's: a TCG run on the same host has none of them */
	if (strcmp(kind, "none") && !on_kvm())
		report_info("host=%s, but not running under KVM: its known defects do not apply",
			    kind);
	else
		report_known_defects(kind);
}

/* host=: the check of struct arg. */
static const char *host_arg(const char *kind)
{
	for (size_t k = 0; k < ARRAY_SIZE(host_kinds); k++)
		if (!strcmp(kind, host_kinds[k]))
			return NULL;
	return "a host kind with known defects: none or kvm-pvm";
}

/* The whole table, in the order of the header comment: main() assembles it. */
static struct bench rows[BENCH_MAX_ROWS];
static size_t nrows;

/* fault=: the check of struct arg. */
static const char *fault_arg(const char *row)
{
	return bench_has_row(rows, nrows, row) ? NULL : "a row of this test";
}

int main(int argc, char **argv)
{
	struct bench_config cfg;
	const char *host = NULL;
	const struct arg args[] = {
		BENCH_ARGS(&cfg),
		ARG_TEXT("host", &host, host_arg, NULL, "the host kind whose known defects apply"),
		ARG_TEXT("fault", &fault_row, fault_arg, NULL,
			 "test-only: the row whose checks expect a wrong value"),
	};
	const struct arg_table table = ARG_TABLE(args);

	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), reg_rows, ARRAY_SIZE(reg_rows));
	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), msr_rows, msr_rows_n);
	bench_rows_add(rows, &nrows, ARRAY_SIZE(rows), pio_rows, pio_rows_n);
	bench_config_init(&cfg, "exit");
	args_parse_or_abort(&table, argc, argv);
	if (host)
		set_host(host);
	if (fault_row)
		report_info("fault=%s: that row's checks expect a wrong value (test-only)",
			    fault_row);
	report_info("%s, %d vCPU(s), %s mode", on_kvm() ? "KVM" : "no KVM signature (TCG?)",
		    cpu_count(), apic_x2apic_mode() ? "x2APIC" : "xAPIC");
	bench_run(&cfg, rows, nrows, NULL);
	return report_summary();
}
