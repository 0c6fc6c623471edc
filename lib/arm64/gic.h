/* SPDX-License-Identifier: GPL-2.0-only */
/* The GIC (v2 or v3, found in the device tree): enabling, sending and acknowledging interrupts. */
#ifndef VMTICK_ARM64_GIC_H
#define VMTICK_ARM64_GIC_H

#include "libc.h"
#include "arm64/processor.h"

/* INTID ranges (GICv3 architecture, 2.2). */
#define GIC_FIRST_SGI		0
#define GIC_NR_SGIS		16
#define GIC_FIRST_PPI		16
#define GIC_FIRST_SPI		32
#define GIC_MAX_SPI		1019
#define GIC_SPURIOUS		1023
#define GIC_FIRST_LPI		8192
/* LPIs vmtick hands out: INTIDs GIC_FIRST_LPI .. + GIC_NR_LPIS - 1. */
#define GIC_NR_LPIS		1024

/* Every interrupt gets this priority; the mask lets all through. */
#define GIC_PRIORITY_DEFAULT	0xa0
#define GIC_PRIORITY_MASK_ALL	0xff

/* Distributor registers at the same offset in GICv2 and GICv3. */
#define GICD_IIDR		0x0008

/* 0 when the tree has no GIC vmtick knows, else 2 or 3. */
int gic_version(void);
/* The distributor's address (the GIC node's first reg entry); 0 without a GIC. */
uintptr_t gic_dist_base(void);
/* Boot CPU: distributor and own CPU interface. Each secondary: gic_cpu_init(). */
int gic_init(void);
void gic_cpu_init(void);

/*
 * Enable or disable irq. SGIs and PPIs are per CPU: these act on the calling
 * CPU's. SPIs are routed to the calling CPU. LPIs: see its.h.
 */
void gic_enable_irq(unsigned irq);
void gic_disable_irq(unsigned irq);
/* Level or edge for an SPI or PPI (ICFGR); SGIs are always edge. */
enum gic_trigger {
	GIC_TRIGGER_LEVEL,
	GIC_TRIGGER_EDGE,
};
void gic_set_trigger(unsigned irq, enum gic_trigger trigger);

/* SGI sgi (0..15) to CPU cpu (a dense id, smp_id() numbering). */
void gic_send_sgi(int cpu, unsigned sgi);

/* Acknowledge the highest-priority pending interrupt; the raw IAR value. */
u32 gic_read_iar(void);
/* The INTID part of an IAR value (GIC_SPURIOUS when nothing was pending). */
unsigned gic_iar_irq(u32 iar);
/* End of interrupt for an acknowledged IAR value. */
void gic_eoi(u32 iar);

/*
 * IRQ handlers, shared by all CPUs, for SGI/PPI/SPI INTIDs and for LPIs
 * below GIC_FIRST_LPI + GIC_NR_LPIS. The GIC layer acknowledges before and
 * EOIs after calling fn; an interrupt with no handler fails the test.
 */
typedef void (*irq_handler_fn)(struct pt_regs *regs, unsigned irq);
irq_handler_fn install_irq_handler(unsigned irq, irq_handler_fn fn);
/* From the IRQ vector. */
void gic_handle_irq(struct pt_regs *regs);

/*
 * GICv4.1 direct vSGIs: does the GIC offer them (GICD_TYPER2.nASSGIcap)?
 * false on a GICv2, or where reading GICD_TYPER2 faults.
 */
bool gicv3_has_direct_vsgi(void);
/*
 * Set or clear GICD_CTLR.nASSGIreq: SGIs then go to the vPE directly,
 * without the hypervisor. The distributor is disabled around the change, as
 * GICv4.1 requires, and always re-enabled; false if a write stayed pending
 * or the bit did not take.
 */
bool gicv3_set_nassgireq(bool on);

/* Driver internals shared by gic.c, gic-v2.c, gic-v3.c and its.c. */
struct gic_ops {
	void (*cpu_init)(void);
	void (*enable)(unsigned irq, bool on);
	void (*set_trigger)(unsigned irq, enum gic_trigger trigger);
	void (*send_sgi)(int cpu, unsigned sgi);
	u32 (*read_iar)(void);
	void (*eoi)(u32 iar);
	uintptr_t (*dist_base)(void);
};
int gicv2_probe(const struct gic_ops **ops);
int gicv3_probe(const struct gic_ops **ops);
/* GICv3 redistributor of cpu: RD_base, and the GICR_TYPER Processor_Number. */
uintptr_t gicv3_rdist_base(int cpu);
uintptr_t gicv3_dist_base(void);
unsigned gicv3_processor_number(int cpu);
/* Register offset of irq's field in a 1-, 2- or 8-bit-per-INTID register bank. */
#define GIC_REG_BIT(irq)	((irq) % 32)
#define GIC_REG32(irq)		(((irq) / 32) * 4)

#endif
