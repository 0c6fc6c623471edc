/* SPDX-License-Identifier: GPL-2.0-only */
/* exit-bench-cpu's MSR rows: which MSR, when it exists, what the loop writes, and the checks on what it did. */
#include "libc.h"
#include "exit-bench-cpu.h"
#include "report.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/processor.h"
#include "x86/sysreg.h"
#include "x86/tsc_cpuid.h"

#define KERNEL_GS_PATTERN	0x00001234abcd5000ull
#define KERNEL_GS_PROBE		0x00005678dcba9000ull
#define NONCANONICAL		0x8000000000000000ull
#define RESERVED_BIT63		(1ull << 63)

#define PVM_SPEC_CTRL		"kvm-pvm/spec-ctrl"

struct msr_row {
	const char *row;	/* the bench row's name, for fault= */
	const char *name;	/* the manual's name, for messages */
	u32 msr;
	const char *(*missing)(void);	/* why the MSR is not there, or NULL */
	void (*values)(struct msr_row *m);	/* set value and probe from saved */
	u64 reserved;		/* a bit whose write raises #GP; 0 if none */
	bool write_only;
	const char *defect;	/* a known host defect that drops writes, or NULL */
	u64 saved;		/* as found, restored by cleanup */
	u64 value;		/* what the loop writes */
	u64 probe;		/* a second valid value: writes land */
};

static bool basic_leaf(u32 leaf)
{
	return cpuid_max_leaf(CPUID_VENDOR) >= leaf;
}

static bool ext_leaf(u32 leaf)
{
	return cpuid_max_leaf(CPUID_EXT_BASE) >= leaf;
}

static const char *missing_kernel_gs(void)
{
	if (!ext_leaf(CPUID_EXT_FEATURES) ||
	    !cpu_has(CPUID_EXT_FEATURES, 'd', CPUID_80000001_EDX_LM))
		return "no long mode (CPUID.80000001:EDX[29] clear): no IA32_KERNEL_GS_BASE";
	return NULL;
}

static const char *missing_tsx_ctrl(void)
{
	if (!basic_leaf(CPUID_STRUCT_EXT_FEATURES) ||
	    !cpu_has(CPUID_STRUCT_EXT_FEATURES, 'd', CPUID_7_0_EDX_ARCH_CAPABILITIES))
		return "no IA32_ARCH_CAPABILITIES (CPUID.7.0:EDX[29] clear), so no IA32_TSX_CTRL";
	if (!(rdmsr(MSR_IA32_ARCH_CAPABILITIES) & ARCH_CAP_TSX_CTRL_MSR))
		return "IA32_ARCH_CAPABILITIES[7] (TSX_CTRL_MSR) clear: no IA32_TSX_CTRL";
	return NULL;
}

static bool has_spec_ctrl(u32 amd_bit)
{
	if (basic_leaf(CPUID_STRUCT_EXT_FEATURES) &&
	    cpu_has(CPUID_STRUCT_EXT_FEATURES, 'd', CPUID_7_0_EDX_SPEC_CTRL))
		return true;
	return ext_leaf(CPUID_EXT_ADDR_SIZES) && cpu_has(CPUID_EXT_ADDR_SIZES, 'b', amd_bit);
}

static const char *missing_spec_ctrl(void)
{
	if (!has_spec_ctrl(CPUID_80000008_EBX_IBRS))
		return "no IBRS (CPUID.7.0:EDX[26] and CPUID.80000008:EBX[14] clear)";
	return NULL;
}

static const char *missing_pred_cmd(void)
{
	if (!has_spec_ctrl(CPUID_80000008_EBX_IBPB))
		return "no IBPB (CPUID.7.0:EDX[26] and CPUID.80000008:EBX[12] clear)";
	return NULL;
}

static const char *missing_tsc_adjust(void)
{
	if (!(tsc_features() & TSC_FEATURE_ADJUST))
		return "no IA32_TSC_ADJUST (CPUID.7.0:EBX[1] clear)";
	return NULL;
}

static void values_kernel_gs(struct msr_row *m)
{
	m->value = KERNEL_GS_PATTERN;
	m->probe = KERNEL_GS_PROBE;
}

/* The loop rewrites what it found; the probe flips a bit that is safe to flip. */
static void values_tsx_ctrl(struct msr_row *m)
{
	m->value = m->saved;
	m->probe = m->saved ^ TSX_CTRL_RTM_DISABLE;
}

static void values_spec_ctrl(struct msr_row *m)
{
	m->value = m->saved | SPEC_CTRL_IBRS;
	m->probe = m->saved & ~(u64)SPEC_CTRL_IBRS;
}

static void values_pred_cmd(struct msr_row *m)
{
	m->value = PRED_CMD_IBPB;
}

/* Writing IA32_TSC_ADJUST moves the TSC: the probe moves it by one tick, and back. */
static void values_tsc_adjust(struct msr_row *m)
{
	m->value = m->saved;
	m->probe = m->saved + 1;
}

static struct msr_row msr_kernel_gs = {
	"wrmsr_kernel_gs_base", "IA32_KERNEL_GS_BASE", MSR_KERNEL_GS_BASE, missing_kernel_gs,
	values_kernel_gs, NONCANONICAL,
};
static struct msr_row msr_tsx_ctrl = {
	"wrmsr_tsx_ctrl", "IA32_TSX_CTRL", MSR_IA32_TSX_CTRL, missing_tsx_ctrl, values_tsx_ctrl,
	RESERVED_BIT63,
};
static struct msr_row msr_spec_ctrl = {
	"wrmsr_spec_ctrl", "IA32_SPEC_CTRL", MSR_IA32_SPEC_CTRL, missing_spec_ctrl,
	values_spec_ctrl, RESERVED_BIT63, .defect = PVM_SPEC_CTRL,
};
static struct msr_row msr_pred_cmd = {
	"wrmsr_pred_cmd", "IA32_PRED_CMD", MSR_IA32_PRED_CMD, missing_pred_cmd, values_pred_cmd,
	RESERVED_BIT63, .write_only = true, .defect = PVM_SPEC_CTRL,
};
static struct msr_row msr_tsc_adjust_rd = {
	"rdmsr_tsc_adjust", "IA32_TSC_ADJUST", MSR_IA32_TSC_ADJUST, missing_tsc_adjust,
	values_tsc_adjust,
};
static struct msr_row msr_tsc_adjust = {
	"wrmsr_tsc_adjust", "IA32_TSC_ADJUST", MSR_IA32_TSC_ADJUST, missing_tsc_adjust,
	values_tsc_adjust,
};

/*
 * A check that m's known host defect may fail: a KFAIL when it failed the
 * defect's way (defect_way) on a host said to have it, a FAIL otherwise.
 */
static void __printf(4, 5) report_msr(const struct msr_row *m, bool pass, bool defect_way,
				      const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!pass && defect_way && m->defect)
		report_kfail(pass, m->defect, "%s", msg);
	else
		report(pass, "%s", msg);
}

BENCH_LOOP(loop_rdmsr_row, rdmsr(((struct msr_row *)ctx)->msr))
BENCH_LOOP(loop_wrmsr_row, wrmsr(((struct msr_row *)ctx)->msr, ((struct msr_row *)ctx)->value))

/*
 * CPUID says the MSR exists: a #GP on the loop's write would then be a
 * host defect, reported as a failure before the row is skipped.
 */
static const char *prepare_msr_row(void *ctx)
{
	struct msr_row *m = ctx;
	const char *why = m->missing();
	int vec;

	if (why)
		return why;
	if (!m->write_only && (vec = rdmsr_safe(m->msr, &m->saved)) != EXC_NONE) {
		report(false, "CPUID offers %s but rdmsr raised vector %d", m->name, vec);
		return "the MSR cannot be read";
	}
	m->values(m);
	if ((vec = wrmsr_safe(m->msr, m->value)) != EXC_NONE) {
		report(false, "CPUID offers %s but wrmsr %#llx raised vector %d", m->name,
		       m->value, vec);
		return "the MSR cannot be written";
	}
	return NULL;
}

static void cleanup_msr_row(void *ctx)
{
	struct msr_row *m = ctx;

	if (!m->write_only)
		wrmsr(m->msr, m->saved);
}

/* A write of a reserved bit must raise #GP (TCG raises nothing for MSRs: KVM only). */
static void check_msr_reserved(const struct msr_row *m)
{
	int vec;

	if (!m->reserved || !on_kvm())
		return;
	vec = wrmsr_safe(m->msr, m->value | m->reserved);
	report_msr(m, vec == (int)want(m->row, GP_VECTOR), vec == EXC_NONE,
		   "a write of %s with %#llx set raises #GP (vector %d)", m->name,
		   m->reserved, vec);
	if (vec == EXC_NONE)
		wrmsr(m->msr, m->saved);
}

#ifdef __x86_64__
/* swapgs trades IA32_GS_BASE and IA32_KERNEL_GS_BASE: what the MSR is for. */
static void check_swapgs(const struct msr_row *m)
{
	u64 gs = rdmsr(MSR_GS_BASE), seen;

	if (m != &msr_kernel_gs)
		return;
	/* interrupts are off here: no handler runs with the swapped base */
	swapgs();
	seen = rdmsr(MSR_GS_BASE);
	swapgs();
	report(seen == want(m->row, m->probe) && rdmsr(MSR_GS_BASE) == gs,
	       "swapgs brings the written %s into IA32_GS_BASE (%#llx) and back",
	       m->name, seen);
}
#else
static void check_swapgs(const struct msr_row *m)
{
}
#endif

static void check_msr_write(void *ctx, const struct bench_result *r)
{
	struct msr_row *m = ctx;
	u64 now;

	if (m->write_only) {
		int vec = wrmsr_safe(m->msr, m->value);

		report(vec == EXC_NONE, "%s = %#llx is accepted (vector %d)", m->name,
		       m->value, vec);
		check_msr_reserved(m);
		return;
	}
	now = rdmsr(m->msr);
	report_msr(m, now == want(m->row, m->value), now == m->saved,
		   "%s reads back %#llx, the loop wrote %#llx", m->name, now,
		   m->value);
	wrmsr(m->msr, m->probe);
	now = rdmsr(m->msr);
	report(now == want(m->row, m->probe), "a write of %#llx reads back %#llx", m->probe, now);
	check_swapgs(m);
	check_msr_reserved(m);
}

static void check_msr_read(void *ctx, const struct bench_result *r)
{
	struct msr_row *m = ctx;
	u64 now = rdmsr(m->msr);

	report(now == want(m->row, m->saved), "%s reads %#llx after the loop, as before (%#llx)",
	       m->name, now, m->saved);
	wrmsr(m->msr, m->probe);
	now = rdmsr(m->msr);
	wrmsr(m->msr, m->saved);
	report(now == want(m->row, m->probe), "a write of %#llx then reads %#llx", m->probe, now);
}

#define MSR_WRITE(row, msr_name)                                                            \
	.name = row, .what = "wrmsr " msr_name, LOOP(loop_wrmsr_row), .iters = 4096,        \
	.prepare = prepare_msr_row, .check = check_msr_write, .cleanup = cleanup_msr_row

const struct bench msr_rows[] = {
	{ MSR_WRITE("wrmsr_kernel_gs_base", "IA32_KERNEL_GS_BASE"), .ctx = &msr_kernel_gs },
	{ MSR_WRITE("wrmsr_tsx_ctrl", "IA32_TSX_CTRL, unchanged"), .ctx = &msr_tsx_ctrl },
	{ MSR_WRITE("wrmsr_spec_ctrl", "IA32_SPEC_CTRL = IBRS"), .ctx = &msr_spec_ctrl },
	{ MSR_WRITE("wrmsr_pred_cmd", "IA32_PRED_CMD = IBPB"), .ctx = &msr_pred_cmd },
	{ .name = "rdmsr_tsc_adjust", .what = "rdmsr IA32_TSC_ADJUST", LOOP(loop_rdmsr_row),
	  .iters = 4096, .prepare = prepare_msr_row, .check = check_msr_read,
	  .ctx = &msr_tsc_adjust_rd },
	{ MSR_WRITE("wrmsr_tsc_adjust", "IA32_TSC_ADJUST, unchanged"), .ctx = &msr_tsc_adjust },
};
const size_t msr_rows_n = ARRAY_SIZE(msr_rows);
