/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * micro-bench: what the common ways out of an arm64 guest cost - a
 * hypercall, MMIO to QEMU and to the in-kernel GIC, interrupts between
 * vCPUs, the timer - measured with lib/bench (the counter read once before
 * and once after a batch, ISB on both sides, the empty loop subtracted;
 * docs/bench.md). Under TCG there is no hypervisor: every row is QEMU's
 * emulation of the same instruction, and the output says so. KVM is told
 * apart by its answer to the SMCCC vendor hypervisor UID call.
 *
 * Rows (one operation each):
 *   hvc             HVC #0 with PSCI_VERSION: KVM answers PSCI itself and
 *                   returns at once. Under TCG without EL2 (QEMU's virt
 *                   without virtualization=on) an HVC would be undefined,
 *                   but QEMU emulates PSCI firmware on the conduit the tree
 *                   names, so the call returns at once there too. SKIP when
 *                   the conduit is not hvc, or the HVC is undefined.
 *   mmio_read_user  32-bit read of a virtio-mmio transport's MagicValue
 *                   (the first "virtio,mmio" node of the tree), or of
 *                   mmio_addr=ADDR: no memory backs it, KVM hands the
 *                   access to QEMU in user space.
 *   mmio_read_vgic  32-bit read of GICD_IIDR: KVM's in-kernel vGIC answers.
 *   eoi             EOI of the spurious INTID 1023, which the GIC ignores:
 *                   the cost of the EOI path itself (GICv3: ICC_EOIR1_EL1).
 *   ipi             SGI to CPU 1, then wait until its handler has counted
 *                   it; CPU 1 spins with interrupts on (no WFI: the
 *                   delivery to a running vCPU, not a wake-up). SKIP with
 *                   one vCPU.
 *   ipi_hw          the same with GICv4.1 direct vSGIs (GICD_CTLR.nASSGIreq
 *                   set around this row's batches only: the host GIC
 *                   delivers the SGI without KVM). SKIP unless
 *                   GICD_TYPER2.nASSGIcap says the GIC offers them.
 *   lpi             INT command to the ITS for an event mapped to an LPI
 *                   in a collection on CPU 1, then wait for its handler
 *                   (the command queue round trip included). SKIP without
 *                   an ITS (GICv2) or with one vCPU.
 *   timer_10ms      virtual timer armed by CVAL 10 ms ahead while the CPU
 *                   sleeps in WFI: CNTVCT read in its handler minus CVAL,
 *                   per sample (not a loop). Needs the physical timer too,
 *                   as a backstop should the virtual one never fire.
 *
 * Checks: every row costs more than an empty loop iteration (lib/bench);
 * the hypercall returned a PSCI version, the same each time; both MMIO
 * registers read the same after the loop (and MagicValue is "virt"); a
 * self-SGI is still taken after the EOIs (nothing was left in service);
 * every SGI and LPI arrived, on CPU 1 (and nASSGIreq could be set and
 * cleared); every timer fired (within a second) and none before
 * its CVAL; under KVM, the in-kernel read is cheaper than the user-space
 * one (what justifies the names).
 *
 * Arguments: batches=N budget_ms=N iters=N only=NAME[,NAME] (lib/bench.h),
 * mmio_addr=ADDR (device memory for mmio_read_user, 4-byte aligned, below
 * 1 TiB and outside RAM).
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "bench.h"
#include "arm64/gic.h"
#include "arm64/its.h"
#include "arm64/mmu.h"
#include "arm64/processor.h"
#include "arm64/psci.h"
#include "report.h"
#include "units.h"
#include "arm64/setup.h"
#include "arm64/smccc.h"
#include "arm64/smp.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"
#include "wait.h"
#include "arm64/virtio-mmio.h"

#define IPI_SGI				1
#define SELF_SGI			2
#define RESPONDER_CPU			1
#define LPI_DEVICE_ID			0x10
#define LPI_EVENT			0
#define LPI_COLLECTION			RESPONDER_CPU
#define LPI_INTID			GIC_FIRST_LPI
#define TIMER_DELTA_NS			10000000ull	/* 10 ms */
/* Waits for an interrupt: the counter is read only once a wait gets long. */
#define WAIT_TIMEOUT_MS			1000

static bool kvm;

/* --- hvc ------------------------------------------------------------------ */

BENCH_LOOP(loop_hvc, smccc_hvc0(PSCI_0_2_FN_PSCI_VERSION))

static long psci_version;

static const char *prepare_hvc(void *ctx)
{
	if (psci_conduit() != PSCI_CONDUIT_HVC)
		return "the tree's PSCI conduit is not hvc: no hypervisor call to time";
	if (!smccc_try_hvc0(PSCI_0_2_FN_PSCI_VERSION, &psci_version))
		return "HVC is undefined here (no EL2 and no PSCI emulation behind it)";
	report_info("PSCI_VERSION returned %ld.%ld; %s", psci_version >> 16, psci_version & 0xffff,
		    kvm ? "KVM answers it in the kernel" : "TCG: QEMU answers it as firmware would");
	return NULL;
}

static void check_hvc(void *ctx, const struct bench_result *r)
{
	long now = smccc_hvc0(PSCI_0_2_FN_PSCI_VERSION);

	report(now == psci_version && now > 0, "PSCI_VERSION answers %#lx after the loop, as before",
	       now);
}

/* --- MMIO ----------------------------------------------------------------- */

static uintptr_t user_mmio, dist_mmio;
/* mmio_addr=, 0 when not given */
static u64 user_mmio_addr;
static u32 user_first, dist_first;

BENCH_LOOP(loop_mmio_user, readl(user_mmio))
BENCH_LOOP(loop_mmio_vgic, readl(dist_mmio + GICD_IIDR))

static const char *prepare_mmio_user(void *ctx)
{
	u64 addr;

	if (!user_mmio) {
		int node = dt_find_compatible(&boot_dt, -1, "virtio,mmio");

		if (node < 0 || dt_reg(&boot_dt, node, 0, &addr, NULL))
			return "no virtio-mmio transport in the tree: give mmio_addr=ADDR";
		user_mmio = (uintptr_t)addr + VIRTIO_MMIO_MAGIC_VALUE;
	}
	if (!try_readl(user_mmio, &user_first)) {
		report(false, "reading %#lx for mmio_read_user faulted", (unsigned long)user_mmio);
		return "the register cannot be read";
	}
	report_info("%#lx reads %#x; %s", (unsigned long)user_mmio, user_first,
		    kvm ? "KVM hands the access to QEMU in user space" : "TCG: QEMU emulates the device");
	return NULL;
}

static void check_mmio_user(void *ctx, const struct bench_result *r)
{
	u32 now = readl(user_mmio);

	report(now == user_first, "%#lx reads %#x after the loop, as before", (unsigned long)user_mmio,
	       now);
}

static void check_virtio_magic(void *ctx, const struct bench_result *r)
{
	check_mmio_user(ctx, r);
	report(user_first == VIRTIO_MMIO_MAGIC, "it is a virtio-mmio MagicValue (%#x)", user_first);
}

static const char *prepare_mmio_vgic(void *ctx)
{
	if (!gic_version() || !dist_mmio)
		return "no GIC distributor in the tree";
	dist_first = readl(dist_mmio + GICD_IIDR);
	report_info("GICv%d GICD_IIDR %#x; %s", gic_version(), dist_first,
		    kvm ? "KVM's in-kernel vGIC answers" : "TCG: QEMU emulates the GIC, like any device");
	return NULL;
}

static void check_mmio_vgic(void *ctx, const struct bench_result *r)
{
	u32 now = readl(dist_mmio + GICD_IIDR);

	report(now == dist_first, "GICD_IIDR reads %#x after the loop, as before", now);
}

/* --- interrupts ----------------------------------------------------------- */

/*
 * What one interrupt row has sent and seen over all its batches. The bench
 * runs the rows' batches in turns, so each row keeps its own tally and
 * enter() makes it the one the handlers count into.
 */
struct irq_tally {
	unsigned long sent, hits, timeouts, wrong_cpu, gic_errors;
};

static struct irq_tally ipi_tally, ipi_hw_tally, lpi_tally, timer_tally, self_tally;
static struct irq_tally *live;
static u64 wait_timeout;

static void responder_irq(struct pt_regs *regs, unsigned irq)
{
	struct irq_tally *t = READ_ONCE(live);

	if (!t)
		return;
	if (smp_id() != RESPONDER_CPU)
		t->wrong_cpu++;
	atomic_inc(&t->hits);
}

/* CPU 1 takes the interrupts running, not woken from WFI. */
static void enter_responder(void *ctx)
{
	WRITE_ONCE(live, ctx);
	cpu_spin_irqs_on(RESPONDER_CPU);
}

static void leave_responder(void *ctx)
{
	cpu_spin_stop(RESPONDER_CPU);
	WRITE_ONCE(live, NULL);
}

static void check_arrivals(void *ctx, const struct bench_result *r)
{
	struct irq_tally *t = ctx;

	report(!t->timeouts && t->hits == t->sent, "every interrupt arrived (%lu sent, %lu handled)",
	       t->sent, t->hits);
	report(!t->wrong_cpu, "all on CPU %d (%lu elsewhere)", RESPONDER_CPU, t->wrong_cpu);
}

static void ipi_once(struct irq_tally *t)
{
	if (t->timeouts)
		return;
	gic_send_sgi(RESPONDER_CPU, IPI_SGI);
	t->timeouts += !wait_at_least(&t->hits, ++t->sent, WAIT_TIMEOUT_MS);
}

BENCH_LOOP(loop_ipi, ipi_once(ctx))
BENCH_LOOP(loop_eoi, gic_eoi(GIC_SPURIOUS))

static const char *prepare_ipi(void *ctx)
{
	if (!gic_version())
		return "no GIC";
	if (cpu_count() < 2)
		return "needs a second vCPU (run with -smp 2)";
	install_irq_handler(IPI_SGI, responder_irq);
	return NULL;
}

static const char *prepare_eoi(void *ctx)
{
	return gic_version() ? NULL : "no GIC";
}

static void count_self(struct pt_regs *regs, unsigned irq)
{
	atomic_inc(&self_tally.hits);
}

static void check_eoi(void *ctx, const struct bench_result *r)
{
	bool ok;

	install_irq_handler(SELF_SGI, count_self);
	self_tally.hits = 0;
	irq_enable();
	gic_send_sgi(smp_id(), SELF_SGI);
	ok = wait_at_least(&self_tally.hits, 1, WAIT_TIMEOUT_MS);
	irq_disable();
	report(ok, "a self-SGI is still taken after the EOIs: nothing was left in service");
}

/* --- ipi_hw: GICv4.1 direct vSGIs ----------------------------------------- */

static const char *prepare_ipi_hw(void *ctx)
{
	if (gic_version() != 3)
		return "direct vSGIs need a GICv4.1 (this is a GICv2)";
	if (!gicv3_has_direct_vsgi())
		return "GICD_TYPER2.nASSGIcap is 0: the GIC offers no GICv4.1 direct vSGIs";
	return prepare_ipi(ctx);
}

/* Only this row's SGIs go direct: nASSGIreq is set around its batches. */
static void enter_ipi_hw(void *ctx)
{
	struct irq_tally *t = ctx;

	if (!gicv3_set_nassgireq(true))
		t->gic_errors++;
	enter_responder(ctx);
}

static void leave_ipi_hw(void *ctx)
{
	struct irq_tally *t = ctx;

	leave_responder(ctx);
	if (!gicv3_set_nassgireq(false))
		t->gic_errors++;
}

static void check_ipi_hw(void *ctx, const struct bench_result *r)
{
	struct irq_tally *t = ctx;

	report(!t->gic_errors, "GICD_CTLR.nASSGIreq set and cleared around every batch (%lu failed)",
	       t->gic_errors);
	check_arrivals(ctx, r);
}

/* --- lpi ------------------------------------------------------------------ */

static struct its_device *lpi_dev;

static void lpi_once(struct irq_tally *t)
{
	if (t->timeouts)
		return;
	its_int(lpi_dev, LPI_EVENT);
	t->timeouts += !wait_at_least(&t->hits, ++t->sent, WAIT_TIMEOUT_MS);
}

BENCH_LOOP(loop_lpi, lpi_once(ctx))

static const char *prepare_lpi(void *ctx)
{
	if (gic_version() != 3)
		return "LPIs need a GICv3 ITS (this is a GICv2: run with gic-version=3)";
	if (cpu_count() < 2)
		return "needs a second vCPU (run with -smp 2)";
	if (its_init())
		return "no ITS in the device tree";
	lpi_dev = its_map_device(LPI_DEVICE_ID, 1);
	its_map_collection(LPI_COLLECTION, RESPONDER_CPU);
	install_irq_handler(LPI_INTID, responder_irq);
	its_map_lpi(lpi_dev, LPI_EVENT, LPI_INTID, LPI_COLLECTION);
	return NULL;
}

/* --- timer_10ms ----------------------------------------------------------- */

static u64 timer_delta, timer_arrival, early, max_early;
static bool backstop_fired;

static void timer_handler(struct pt_regs *regs, unsigned irq)
{
	timer_arrival = arch_counter();
	/* the line is level: off before the EOI */
	timer_stop(TIMER_VIRT);
	atomic_inc(&timer_tally.hits);
}

static void backstop_handler(struct pt_regs *regs, unsigned irq)
{
	timer_stop(TIMER_PHYS);
	WRITE_ONCE(backstop_fired, true);
}

/*
 * Sleep in WFI, as an idle guest waits for its timer (and leaving the host
 * CPU to others). Interrupts are masked around the check so none is lost
 * between it and the WFI, which wakes on a pending interrupt anyway. The
 * physical timer, armed WAIT_TIMEOUT_MS later in its own counter (no
 * offset to know), ends the wait if the virtual one never fires.
 */
struct hits_wait {
	struct irq_tally *t;
	unsigned long target;
};

/* The hits (or the backstop), else a WFI, the interrupt taken after it: true as soon as it came. */
static bool hits_else_wfi(void *arg)
{
	const struct hits_wait *w = arg;

	if (atomic_load(&w->t->hits) >= w->target || READ_ONCE(backstop_fired))
		return true;
	wfi();
	irq_enable();
	isb();
	irq_disable();
	return atomic_load(&w->t->hits) >= w->target || READ_ONCE(backstop_fired);
}

static bool sleep_until_hits(struct irq_tally *t, unsigned long target)
{
	WRITE_ONCE(backstop_fired, false);
	timer_set_cval(TIMER_PHYS, timer_count(TIMER_PHYS) + timer_delta + wait_timeout);
	wait_cond(hits_else_wfi, &(struct hits_wait){t, target});
	timer_stop(TIMER_PHYS);
	return atomic_load(&t->hits) >= target;
}

static u64 timer_sample(void *ctx)
{
	struct irq_tally *t = ctx;
	u64 deadline, arrival;

	if (t->timeouts)
		return 0;
	deadline = arch_counter() + timer_delta;
	timer_set_cval(TIMER_VIRT, deadline);
	if (!sleep_until_hits(t, ++t->sent)) {
		timer_stop(TIMER_VIRT);
		t->timeouts++;
		return 0;
	}
	arrival = READ_ONCE(timer_arrival);
	if (arrival < deadline) {
		early++;
		max_early = max(max_early, deadline - arrival);
		return 0;
	}
	return arrival - deadline;
}

static const char *prepare_timer(void *ctx)
{
	unsigned virt = timer_irq(TIMER_VIRT), phys = timer_irq(TIMER_PHYS);

	if (!gic_version() || !virt || !phys)
		return "no GIC, or the tree names no virtual or physical timer interrupt";
	timer_delta = ns_to_ticks(TIMER_DELTA_NS, arch_counter_hz());
	install_irq_handler(virt, timer_handler);
	install_irq_handler(phys, backstop_handler);
	/* both timers are stopped between samples: their lines stay low */
	gic_enable_irq(virt);
	gic_enable_irq(phys);
	return NULL;
}

static void check_timer(void *ctx, const struct bench_result *r)
{
	struct irq_tally *t = ctx;

	report(!t->timeouts && t->hits == t->sent, "every timer fired (%lu armed, %lu fired)", t->sent,
	       t->hits);
	report(!early, "no timer fired before its CVAL (%llu early, by up to %llu ticks)",
	       early, max_early);
}

static void cleanup_timer(void *ctx)
{
	gic_disable_irq(timer_irq(TIMER_VIRT));
	gic_disable_irq(timer_irq(TIMER_PHYS));
}

/* --- the table ------------------------------------------------------------ */

enum { ROW_HVC, ROW_MMIO_USER, ROW_MMIO_VGIC, ROW_EOI, ROW_IPI, ROW_IPI_HW, ROW_LPI, ROW_TIMER };

/* Designated fields: the row struct may grow without shifting these. */
static struct bench rows[] = {
	[ROW_HVC] = { .name = "hvc", .what = "HVC #0, PSCI_VERSION", .kind = BENCH_TIMED_LOOP,
		      .loop = loop_hvc, .iters = 4096, .prepare = prepare_hvc, .check = check_hvc },
	[ROW_MMIO_USER] = { .name = "mmio_read_user",
			    .what = "32-bit read of virtio-mmio MagicValue, QEMU user space",
			    .kind = BENCH_TIMED_LOOP, .loop = loop_mmio_user, .iters = 4096,
			    .prepare = prepare_mmio_user, .check = check_virtio_magic },
	[ROW_MMIO_VGIC] = { .name = "mmio_read_vgic", .what = "32-bit read of GICD_IIDR, in-kernel vGIC",
			    .kind = BENCH_TIMED_LOOP, .loop = loop_mmio_vgic, .iters = 4096,
			    .prepare = prepare_mmio_vgic, .check = check_mmio_vgic },
	[ROW_EOI] = { .name = "eoi", .what = "EOI of the spurious INTID", .kind = BENCH_TIMED_LOOP,
		      .loop = loop_eoi, .iters = 16384, .prepare = prepare_eoi, .check = check_eoi },
	[ROW_IPI] = { .name = "ipi", .what = "SGI to CPU 1, until its handler ran",
		      .kind = BENCH_TIMED_LOOP, .loop = loop_ipi, .iters = 1024, .ctx = &ipi_tally,
		      .prepare = prepare_ipi, .enter = enter_responder, .leave = leave_responder,
		      .check = check_arrivals },
	[ROW_IPI_HW] = { .name = "ipi_hw", .what = "GICv4.1 direct vSGI to CPU 1, until its handler ran",
			 .kind = BENCH_TIMED_LOOP, .loop = loop_ipi, .iters = 1024, .ctx = &ipi_hw_tally,
			 .prepare = prepare_ipi_hw, .enter = enter_ipi_hw, .leave = leave_ipi_hw,
			 .check = check_ipi_hw },
	[ROW_LPI] = { .name = "lpi", .what = "ITS INT to an LPI on CPU 1, until its handler ran",
		      .kind = BENCH_TIMED_LOOP, .loop = loop_lpi, .iters = 512, .ctx = &lpi_tally,
		      .prepare = prepare_lpi, .enter = enter_responder, .leave = leave_responder,
		      .check = check_arrivals },
	[ROW_TIMER] = { .name = "timer_10ms",
			.what = "virtual timer 10 ms ahead, asleep in WFI: arrival - CVAL",
			.kind = BENCH_SAMPLES, .sample = timer_sample, .iters = 16, .ctx = &timer_tally,
			.prepare = prepare_timer, .check = check_timer, .cleanup = cleanup_timer },
};

/* Under KVM the in-kernel read must be the cheaper one, or the rows are misnamed. */
static void check_vgic_split(const struct bench_result *res)
{
	const struct bench_result *k = &res[ROW_MMIO_VGIC], *u = &res[ROW_MMIO_USER];

	if (!kvm || !k->batches || !u->batches)
		return;
	report(k->op_ps.median < u->op_ps.median,
	       "under KVM the vGIC read is cheaper than the user-space one (%llu < %llu ps)",
	       k->op_ps.median, u->op_ps.median);
}

/* mmio_addr=: the check of struct arg, after parse_u64() has set user_mmio_addr. */
static const char *mmio_addr_arg(const char *text)
{
	static char must[96];
	u64 addr = user_mmio_addr;

	if (addr % 4 || addr >= MMU_MAP_LIMIT || (addr >= ram_bank.start && addr < ram_bank.end)) {
		snprintf(must, sizeof(must),
			 "a 4-byte aligned device address below %#llx, outside RAM",
			 MMU_MAP_LIMIT);
		return must;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct bench_result res[ARRAY_SIZE(rows)];
	struct bench_config cfg;
	const struct arg args[] = {
		BENCH_ARGS(&cfg),
		{ .key = "mmio_addr", .kind = ARG_KIND_UINT, .to.u64 = &user_mmio_addr,
		  .hi = UINT64_MAX, .check = mmio_addr_arg,
		  .help = "a device address for the mmio_user row to read" },
	};
	const struct arg_table table = ARG_TABLE(args);

	bench_config_init(&cfg, "micro");
	args_parse_or_abort(&table, argc, argv);
	if (user_mmio_addr) {
		user_mmio = (uintptr_t)user_mmio_addr;
		rows[ROW_MMIO_USER].what = "32-bit read of mmio_addr";
		rows[ROW_MMIO_USER].check = check_mmio_user;
	}
	kvm = smccc_hyp_is_kvm();
	dist_mmio = gic_dist_base();
	wait_timeout = ns_to_ticks(WAIT_TIMEOUT_MS * NSEC_PER_MSEC, arch_counter_hz());
	if (!kvm)
		rows[ROW_MMIO_VGIC].what = "32-bit read of GICD_IIDR (TCG: QEMU's GIC, no in-kernel vGIC)";
	report_info("%s; GICv%d, %d vCPU(s), EL%u", kvm ? "KVM (SMCCC vendor hypervisor UID)" :
		    "no KVM UID: TCG, every row is QEMU's emulation", gic_version(), cpu_count(),
		    boot_el());
	bench_run(&cfg, rows, ARRAY_SIZE(rows), res);
	check_vgic_split(res);
	return report_summary();
}
