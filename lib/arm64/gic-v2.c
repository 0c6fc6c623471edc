/* SPDX-License-Identifier: GPL-2.0-only */
/* GICv2: memory-mapped distributor and CPU interface, SGIs by CPU interface mask. */
#include "libc.h"
#include "arch.h"
#include "arm64/gic.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

/* Distributor (GICv2 architecture, 4.3). */
#define GICD_CTLR		0x000
#define GICD_TYPER		0x004
#define GICD_ISENABLER		0x100
#define GICD_ICENABLER		0x180
#define GICD_IPRIORITYR		0x400
#define GICD_ITARGETSR		0x800
#define GICD_ICFGR		0xc00
#define GICD_SGIR		0xf00
#define GICD_CTLR_ENABLE	(1 << 0)
#define GICD_TYPER_ITLINES_MASK	0x1f
#define GICD_SGIR_TARGET_SHIFT	16
#define GICD_SGIR_FILTER_SELF	(2 << 24)	/* TargetListFilter: the requesting CPU only */

/* CPU interface (4.4). */
#define GICC_CTLR		0x000
#define GICC_PMR		0x004
#define GICC_BPR		0x008
#define GICC_IAR		0x00c
#define GICC_EOIR		0x010
#define GICC_CTLR_ENABLE	(1 << 0)

static uintptr_t dist, cpuif;
static unsigned nr_irqs;
/* Each CPU's interface bit for GICD_SGIR/ITARGETSR, read from its banked ITARGETSR0. */
static u8 cpu_if_mask[NR_CPUS];

static void gicv2_cpu_init(void)
{
	unsigned irq;

	cpu_if_mask[smp_id()] = readb(dist + GICD_ITARGETSR);
	/* Banked SGI/PPI state: SGIs on, PPIs off until asked for. */
	writel(0xffff0000, dist + GICD_ICENABLER);
	writel(0x0000ffff, dist + GICD_ISENABLER);
	for (irq = 0; irq < GIC_FIRST_SPI; irq++)
		writeb(GIC_PRIORITY_DEFAULT, dist + GICD_IPRIORITYR + irq);
	writel(GIC_PRIORITY_MASK_ALL, cpuif + GICC_PMR);
	writel(0, cpuif + GICC_BPR);
	writel(GICC_CTLR_ENABLE, cpuif + GICC_CTLR);
}

static void gicv2_enable(unsigned irq, bool on)
{
	if (irq >= GIC_FIRST_SPI) {
		if (irq >= nr_irqs)
			return;
		writeb(cpu_if_mask[smp_id()] ? cpu_if_mask[smp_id()] : 1,
		       dist + GICD_ITARGETSR + irq);
	}
	writel(1u << GIC_REG_BIT(irq),
	       dist + (on ? GICD_ISENABLER : GICD_ICENABLER) + GIC_REG32(irq));
}

static void gicv2_set_trigger(unsigned irq, enum gic_trigger trigger)
{
	uintptr_t reg = dist + GICD_ICFGR + (irq / 16) * 4;
	u32 bit = 2u << ((irq % 16) * 2);	/* Int_config[1]: 1 = edge */

	if (trigger == GIC_TRIGGER_EDGE)
		writel(readl(reg) | bit, reg);
	else
		writel(readl(reg) & ~bit, reg);
}

static void gicv2_send_sgi(int cpu, unsigned sgi)
{
	/* The distributor must see earlier stores (the message) before the SGI. */
	dsb(ishst);
	/* A GIC with one CPU interface reads ITARGETSR as zero: "self" needs no mask. */
	if (cpu == smp_id())
		writel(GICD_SGIR_FILTER_SELF | sgi, dist + GICD_SGIR);
	else
		writel((u32)cpu_if_mask[cpu] << GICD_SGIR_TARGET_SHIFT | sgi, dist + GICD_SGIR);
}

static u32 gicv2_read_iar(void)
{
	return readl(cpuif + GICC_IAR);
}

static void gicv2_eoi(u32 iar)
{
	writel(iar, cpuif + GICC_EOIR);
}

static uintptr_t gicv2_dist_base(void)
{
	return dist;
}

static const struct gic_ops gicv2_ops = {
	.cpu_init = gicv2_cpu_init,
	.enable = gicv2_enable,
	.set_trigger = gicv2_set_trigger,
	.send_sgi = gicv2_send_sgi,
	.read_iar = gicv2_read_iar,
	.eoi = gicv2_eoi,
	.dist_base = gicv2_dist_base,
};

int gicv2_probe(const struct gic_ops **ops)
{
	static const char *const compats[] = { "arm,cortex-a15-gic", "arm,gic-400", "arm,cortex-a9-gic" };
	unsigned i, irq;
	int node = -1;
	u64 d, c;

	for (i = 0; i < ARRAY_SIZE(compats) && node < 0; i++)
		node = dt_find_compatible(&boot_dt, -1, compats[i]);
	if (node < 0 || dt_reg(&boot_dt, node, 0, &d, NULL) || dt_reg(&boot_dt, node, 1, &c, NULL))
		return -1;
	dist = d;
	cpuif = c;
	nr_irqs = min(32 * ((readl(dist + GICD_TYPER) & GICD_TYPER_ITLINES_MASK) + 1),
		      GIC_MAX_SPI + 1);

	writel(0, dist + GICD_CTLR);
	for (irq = GIC_FIRST_SPI; irq < nr_irqs; irq += 32)
		writel(~0u, dist + GICD_ICENABLER + GIC_REG32(irq));
	for (irq = GIC_FIRST_SPI; irq < nr_irqs; irq++)
		writeb(GIC_PRIORITY_DEFAULT, dist + GICD_IPRIORITYR + irq);
	writel(GICD_CTLR_ENABLE, dist + GICD_CTLR);
	*ops = &gicv2_ops;
	return 0;
}
