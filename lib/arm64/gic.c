/* SPDX-License-Identifier: GPL-2.0-only */
/* GIC front end: picks the v2 or v3 driver from the tree, keeps the IRQ handler table. */
#include "libc.h"
#include "arch.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/setup.h"

static const struct gic_ops *ops;
static int version;
static irq_handler_fn handlers[GIC_MAX_SPI + 1];
static irq_handler_fn lpi_handlers[GIC_NR_LPIS];

int gic_version(void)
{
	return version;
}

uintptr_t gic_dist_base(void)
{
	return ops ? ops->dist_base() : 0;
}

int gic_init(void)
{
	if (gicv3_probe(&ops) == 0)
		version = 3;
	else if (gicv2_probe(&ops) == 0)
		version = 2;
	else
		return -1;
	ops->cpu_init();
	return 0;
}

void gic_cpu_init(void)
{
	if (ops)
		ops->cpu_init();
}

static void need_gic(const char *what)
{
	if (!ops) {
		printf("FAIL: %s: no GIC in the device tree\n", what);
		abort();
	}
}

void gic_enable_irq(unsigned irq)
{
	need_gic(__func__);
	ops->enable(irq, true);
}

void gic_disable_irq(unsigned irq)
{
	need_gic(__func__);
	ops->enable(irq, false);
}

void gic_set_trigger(unsigned irq, enum gic_trigger trigger)
{
	need_gic(__func__);
	if (irq >= GIC_FIRST_PPI && irq <= GIC_MAX_SPI)
		ops->set_trigger(irq, trigger);
}

void gic_send_sgi(int cpu, unsigned sgi)
{
	need_gic(__func__);
	assert(sgi < GIC_NR_SGIS && cpu >= 0 && cpu < cpu_count());
	ops->send_sgi(cpu, sgi);
}

u32 gic_read_iar(void)
{
	return ops->read_iar();
}

unsigned gic_iar_irq(u32 iar)
{
	/* v2 puts the source CPU of an SGI in bits [12:10]; v3 INTIDs use up to 24 bits. */
	return version == 2 ? iar & 0x3ff : iar & 0xffffff;
}

void gic_eoi(u32 iar)
{
	ops->eoi(iar);
}

static irq_handler_fn *handler_slot(unsigned irq)
{
	if (irq <= GIC_MAX_SPI)
		return &handlers[irq];
	if (irq >= GIC_FIRST_LPI && irq - GIC_FIRST_LPI < GIC_NR_LPIS)
		return &lpi_handlers[irq - GIC_FIRST_LPI];
	return NULL;
}

irq_handler_fn install_irq_handler(unsigned irq, irq_handler_fn fn)
{
	irq_handler_fn *slot = handler_slot(irq), old;

	assert(slot);
	old = *slot;
	WRITE_ONCE(*slot, fn);
	smp_mb();
	return old;
}

void gic_handle_irq(struct pt_regs *regs)
{
	u32 iar;
	unsigned irq;
	irq_handler_fn *slot, fn;

	if (!ops)
		unexpected_exception(regs, VEC_CUR_SPX_IRQ, 0);
	iar = ops->read_iar();
	irq = gic_iar_irq(iar);
	if (irq == GIC_SPURIOUS)
		return;
	slot = handler_slot(irq);
	fn = slot ? READ_ONCE(*slot) : NULL;
	if (!fn) {
		printf("FAIL: cpu %d: interrupt %u with no handler\n", smp_id(), irq);
		ops->eoi(iar);
		unexpected_exception(regs, VEC_CUR_SPX_IRQ, 0);
	}
	fn(regs, irq);
	ops->eoi(iar);
}
