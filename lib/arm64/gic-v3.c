/* SPDX-License-Identifier: GPL-2.0-only */
/* GICv3: distributor with affinity routing, per-CPU redistributors, CPU interface in system registers. */
#include "libc.h"
#include "arch.h"
#include "units.h"
#include "wait.h"
#include "arm64/gic.h"
#include "arm64/setup.h"
#include "arm64/smp.h"
#include "arm64/sysreg.h"

/* Distributor (GICv3 architecture, 12.9). */
#define GICD_CTLR		0x0000
#define GICD_TYPER		0x0004
#define GICD_IGROUPR		0x0080
#define GICD_ISENABLER		0x0100
#define GICD_ICENABLER		0x0180
#define GICD_IPRIORITYR		0x0400
#define GICD_ICFGR		0x0c00
#define GICD_IROUTER		0x6000
#define GICD_CTLR_RWP		(1u << 31)
/* Both encodings at once: EnableGrp0/1 with DS = 1, EnableGrp1/Grp1A seen from Non-secure. */
#define GICD_CTLR_ENABLE_G0_OR_G1NS (1 << 0)
#define GICD_CTLR_ENABLE_G1_OR_G1A (1 << 1)
#define GICD_CTLR_ARE_NS	(1 << 4)
#define GICD_TYPER_ITLINES_MASK	0x1f
/* GICv4.1 direct vSGIs. */
#define GICD_TYPER2		0x000c
#define GICD_TYPER2_nASSGIcap	(1u << 8)
#define GICD_CTLR_nASSGIreq	(1u << 8)

/* Redistributor: RD_base frame, then SGI_base 64 KiB above (12.10, 12.11). */
#define GICR_CTLR		0x0000
#define GICR_TYPER		0x0008
#define GICR_WAKER		0x0014
#define GICR_CTLR_RWP		(1 << 3)
#define GICR_TYPER_VLPIS	(1 << 1)
#define GICR_TYPER_LAST		(1 << 4)
#define GICR_TYPER_PROC_NUM_SHIFT 8
#define GICR_TYPER_PROC_NUM_MASK 0xffff
#define GICR_TYPER_AFF_SHIFT	32
#define GICR_WAKER_PROCESSOR_SLEEP (1 << 1)
#define GICR_WAKER_CHILDREN_ASLEEP (1 << 2)
#define GICR_SGI_BASE		0x10000
#define GICR_IGROUPR0		(GICR_SGI_BASE + 0x0080)
#define GICR_ISENABLER0		(GICR_SGI_BASE + 0x0100)
#define GICR_ICENABLER0		(GICR_SGI_BASE + 0x0180)
#define GICR_IPRIORITYR0	(GICR_SGI_BASE + 0x0400)
#define GICR_ICFGR1		(GICR_SGI_BASE + 0x0c04)
#define GICR_FRAME_V3		0x20000	/* RD_base + SGI_base */
#define GICR_FRAME_V4		0x40000	/* + VLPI_base + reserved */

/* ICC_SGI1R_EL1 fields. */
#define ICC_SGI1R_AFF1_SHIFT	16
#define ICC_SGI1R_INTID_SHIFT	24
#define ICC_SGI1R_AFF2_SHIFT	32
#define ICC_SGI1R_RS_SHIFT	44
#define ICC_SGI1R_AFF3_SHIFT	48
#define ICC_IGRPEN1_EN		1

#define MAX_RDIST_REGIONS	8
/*
 * A bit the GIC should clear in microseconds still set after this long:
 * it never will, and the test cannot go on (a hang detector, no bound).
 */
#define GIC_STUCK_TIMEOUT_S	10
/* For the RWP waits that report a timeout instead of failing the test. */
#define RWP_TIMEOUT_MS		1000

static uintptr_t dist;
static unsigned nr_irqs;
static struct {
	u64 base, size;
} regions[MAX_RDIST_REGIONS];
static int nr_regions;
static uintptr_t rdist[NR_CPUS];

/* A register bit to see clear: wait_rwp()'s and the redistributor's wake-up waits. */
struct reg_bit {
	uintptr_t reg;
	u32 bit;
};

static bool reg_bit_clear(void *arg)
{
	struct reg_bit *rb = arg;

	return !(readl(rb->reg) & rb->bit);
}

static void wait_rwp(uintptr_t reg, u32 bit)
{
	struct reg_bit rb = {reg, bit};

	if (!wait_cond_ticks(reg_bit_clear, &rb, GIC_STUCK_TIMEOUT_S * arch_counter_hz())) {
		printf("FAIL: GICv3 register write still pending at 0x%lx after %d s\n",
		       (unsigned long)reg, GIC_STUCK_TIMEOUT_S);
		abort();
	}
}

/* The redistributor frame whose GICR_TYPER affinity is mpidr's. */
static uintptr_t find_rdist(u64 mpidr)
{
	u32 aff = (u32)(((mpidr >> MPIDR_AFF3_SHIFT) & 0xff) << 24 | (mpidr & 0xffffff));
	int r;

	for (r = 0; r < nr_regions; r++) {
		uintptr_t frame = regions[r].base, end = regions[r].base + regions[r].size;

		while (frame < end) {
			u64 typer = readq(frame + GICR_TYPER);

			if ((u32)(typer >> GICR_TYPER_AFF_SHIFT) == aff)
				return frame;
			if (typer & GICR_TYPER_LAST)
				break;
			frame += (typer & GICR_TYPER_VLPIS) ? GICR_FRAME_V4 : GICR_FRAME_V3;
		}
	}
	return 0;
}

uintptr_t gicv3_dist_base(void)
{
	return dist;
}

uintptr_t gicv3_rdist_base(int cpu)
{
	return rdist[cpu];
}

unsigned gicv3_processor_number(int cpu)
{
	return (readq(rdist[cpu] + GICR_TYPER) >> GICR_TYPER_PROC_NUM_SHIFT) &
	       GICR_TYPER_PROC_NUM_MASK;
}

static void gicv3_cpu_init(void)
{
	int cpu = smp_id();
	uintptr_t rd = find_rdist(read_sysreg(mpidr_el1));
	struct reg_bit waker = {0, GICR_WAKER_CHILDREN_ASLEEP};
	unsigned irq;

	if (!rd) {
		printf("FAIL: no GICv3 redistributor for cpu %d\n", cpu);
		abort();
	}
	rdist[cpu] = rd;
	writel(readl(rd + GICR_WAKER) & ~GICR_WAKER_PROCESSOR_SLEEP, rd + GICR_WAKER);
	waker.reg = rd + GICR_WAKER;
	if (!wait_cond_ticks(reg_bit_clear, &waker, GIC_STUCK_TIMEOUT_S * arch_counter_hz())) {
		printf("FAIL: GICv3 redistributor of cpu %d still asleep after %d s "
		       "(GICR_WAKER.ChildrenAsleep)\n", cpu, GIC_STUCK_TIMEOUT_S);
		abort();
	}

	/* Non-secure Group 1 for everything: the group EL1 acknowledges through IAR1. */
	writel(~0u, rd + GICR_IGROUPR0);
	writel(0xffff0000, rd + GICR_ICENABLER0);
	writel(0x0000ffff, rd + GICR_ISENABLER0);
	for (irq = 0; irq < GIC_FIRST_SPI; irq++)
		writeb(GIC_PRIORITY_DEFAULT, rd + GICR_IPRIORITYR0 + irq);
	wait_rwp(rd + GICR_CTLR, GICR_CTLR_RWP);

	write_sysreg(read_sysreg(SYS_ICC_SRE_EL1) | ICC_SRE_SRE, SYS_ICC_SRE_EL1);
	isb();
	write_sysreg(GIC_PRIORITY_MASK_ALL, SYS_ICC_PMR_EL1);
	write_sysreg(0, SYS_ICC_BPR1_EL1);
	write_sysreg(0, SYS_ICC_CTLR_EL1);	/* EOImode 0: EOI also deactivates */
	write_sysreg(ICC_IGRPEN1_EN, SYS_ICC_IGRPEN1_EL1);
	isb();
}

static void gicv3_enable(unsigned irq, bool on)
{
	uintptr_t base;
	u32 off;

	if (irq < GIC_FIRST_SPI) {
		base = rdist[smp_id()];
		off = on ? GICR_ISENABLER0 : GICR_ICENABLER0;
	} else {
		if (irq >= nr_irqs)
			return;
		base = dist;
		off = (on ? GICD_ISENABLER : GICD_ICENABLER) + GIC_REG32(irq);
		writeq(read_sysreg(mpidr_el1) & MPIDR_HWID_MASK, dist + GICD_IROUTER + 8 * irq);
	}
	writel(1u << GIC_REG_BIT(irq), base + off);
	wait_rwp(irq < GIC_FIRST_SPI ? base + GICR_CTLR : dist + GICD_CTLR,
		 irq < GIC_FIRST_SPI ? GICR_CTLR_RWP : GICD_CTLR_RWP);
}

static void gicv3_set_trigger(unsigned irq, enum gic_trigger trigger)
{
	uintptr_t reg = irq < GIC_FIRST_SPI ? rdist[smp_id()] + GICR_ICFGR1
					    : dist + GICD_ICFGR + (irq / 16) * 4;
	u32 bit = 2u << ((irq % 16) * 2);	/* Int_config[1]: 1 = edge */

	if (trigger == GIC_TRIGGER_EDGE)
		writel(readl(reg) | bit, reg);
	else
		writel(readl(reg) & ~bit, reg);
}

static void gicv3_send_sgi(int cpu, unsigned sgi)
{
	u64 mpidr = cpu_mpidr(cpu), aff0 = mpidr & 0xff;
	u64 v = ((mpidr >> MPIDR_AFF3_SHIFT) & 0xff) << ICC_SGI1R_AFF3_SHIFT |
		((mpidr >> MPIDR_AFF2_SHIFT) & 0xff) << ICC_SGI1R_AFF2_SHIFT |
		((mpidr >> MPIDR_AFF1_SHIFT) & 0xff) << ICC_SGI1R_AFF1_SHIFT |
		(u64)sgi << ICC_SGI1R_INTID_SHIFT |
		(aff0 >> 4) << ICC_SGI1R_RS_SHIFT | 1u << (aff0 % 16);

	/* Earlier stores (the message) must be visible before the SGI is. */
	dsb(ishst);
	write_sysreg(v, SYS_ICC_SGI1R_EL1);
	isb();
}

static u32 gicv3_read_iar(void)
{
	u32 iar = (u32)read_sysreg(SYS_ICC_IAR1_EL1);

	dsb(sy);	/* the acknowledge completes before the handler's accesses */
	return iar;
}

static void gicv3_eoi(u32 iar)
{
	write_sysreg(iar, SYS_ICC_EOIR1_EL1);
	isb();
}

static const struct gic_ops gicv3_ops = {
	.cpu_init = gicv3_cpu_init,
	.enable = gicv3_enable,
	.set_trigger = gicv3_set_trigger,
	.send_sgi = gicv3_send_sgi,
	.read_iar = gicv3_read_iar,
	.eoi = gicv3_eoi,
	.dist_base = gicv3_dist_base,
};

int gicv3_probe(const struct gic_ops **ops)
{
	int node = dt_find_compatible(&boot_dt, -1, "arm,gic-v3"), r;
	u32 n = 1;
	u64 d;
	unsigned irq;

	if (node < 0 || dt_reg(&boot_dt, node, 0, &d, NULL))
		return -1;
	dt_read_u32(&boot_dt, node, "#redistributor-regions", &n);
	for (r = 0; r < (int)n && r < MAX_RDIST_REGIONS; r++)
		if (dt_reg(&boot_dt, node, 1 + r, &regions[r].base, &regions[r].size))
			return -1;
	nr_regions = r;
	dist = d;
	nr_irqs = min(32 * ((readl(dist + GICD_TYPER) & GICD_TYPER_ITLINES_MASK) + 1),
		      GIC_MAX_SPI + 1);

	writel(0, dist + GICD_CTLR);
	wait_rwp(dist + GICD_CTLR, GICD_CTLR_RWP);
	for (irq = GIC_FIRST_SPI; irq < nr_irqs; irq += 32) {
		writel(~0u, dist + GICD_ICENABLER + GIC_REG32(irq));
		writel(~0u, dist + GICD_IGROUPR + GIC_REG32(irq));
	}
	for (irq = GIC_FIRST_SPI; irq < nr_irqs; irq++)
		writeb(GIC_PRIORITY_DEFAULT, dist + GICD_IPRIORITYR + irq);
	wait_rwp(dist + GICD_CTLR, GICD_CTLR_RWP);
	writel(GICD_CTLR_ARE_NS | GICD_CTLR_ENABLE_G1_OR_G1A | GICD_CTLR_ENABLE_G0_OR_G1NS,
	       dist + GICD_CTLR);
	wait_rwp(dist + GICD_CTLR, GICD_CTLR_RWP);
	*ops = &gicv3_ops;
	return 0;
}

/* GICD_TYPER2 is reserved before GICv4.1: a hypervisor may fault the read. */
bool gicv3_has_direct_vsgi(void)
{
	u32 typer2;

	return dist && try_readl(dist + GICD_TYPER2, &typer2) && (typer2 & GICD_TYPER2_nASSGIcap);
}

/* Like wait_rwp() on the distributor, but bounded in time and told to the caller. */
static bool dist_rwp_settled(void)
{
	struct reg_bit rwp = {dist + GICD_CTLR, GICD_CTLR_RWP};

	return wait_cond_ticks(reg_bit_clear, &rwp,
			       RWP_TIMEOUT_MS * arch_counter_hz() / MSEC_PER_SEC);
}

/*
 * nASSGIreq may change only while the distributor is disabled. The enables
 * are written back whatever happens, or no interrupt is delivered after.
 */
bool gicv3_set_nassgireq(bool on)
{
	u32 enables = GICD_CTLR_ENABLE_G0_OR_G1NS | GICD_CTLR_ENABLE_G1_OR_G1A;
	u32 want = on ? GICD_CTLR_nASSGIreq : 0, ctlr;
	bool ok;

	if (!dist)
		return false;
	ctlr = readl(dist + GICD_CTLR) & ~GICD_CTLR_RWP;
	writel(ctlr & ~enables, dist + GICD_CTLR);
	ok = dist_rwp_settled();
	writel((ctlr & ~GICD_CTLR_nASSGIreq) | want, dist + GICD_CTLR);
	ok = dist_rwp_settled() && ok;
	return ok && (readl(dist + GICD_CTLR) & GICD_CTLR_nASSGIreq) == want;
}
