/* SPDX-License-Identifier: GPL-2.0-only */
/* Generic timer access and the counter hooks (arch_counter, arch_counter_hz). */
#include "libc.h"
#include "arch.h"
#include "atomic.h"
#include "units.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"
#include "arm64/gic.h"

/* Order of the "interrupts" of "arm,armv8-timer" (timer binding). */
enum {
	DT_TIMER_SEC_PHYS,
	DT_TIMER_PHYS,
	DT_TIMER_VIRT,
	DT_TIMER_HYP_PHYS,
	DT_TIMER_HYP_VIRT,
	DT_TIMER_COUNT,
};
#define DT_IRQ_CELLS		3
#define DT_IRQ_TYPE_PPI		1

/*
 * Defaults from the Server Base System Architecture PPI assignments, but
 * none for the EL2 virtual timer: only a tree that lists it says it is
 * wired (QEMU 7.2's virt machine does not).
 */
static unsigned timer_ppi[DT_TIMER_COUNT] = { 29, 30, 27, 26, 0 };

void timer_init(void)
{
	int node = dt_find_compatible(&boot_dt, -1, "arm,armv8-timer"), n, i;
	u32 cells[DT_TIMER_COUNT * DT_IRQ_CELLS];

	if (node < 0)
		return;
	n = dt_read_cells(&boot_dt, node, "interrupts", cells, ARRAY_SIZE(cells));
	for (i = 0; i + 1 < n && i / DT_IRQ_CELLS < DT_TIMER_COUNT; i += DT_IRQ_CELLS)
		if (cells[i] == DT_IRQ_TYPE_PPI)
			timer_ppi[i / DT_IRQ_CELLS] = GIC_FIRST_PPI + cells[i + 1];
}

u64 arch_counter(void)
{
	isb();	/* no reading the counter ahead of earlier instructions */
	return read_sysreg(cntvct_el0);
}

u64 arch_counter_hz(void)
{
	return read_sysreg(cntfrq_el0);
}

u64 timer_freq(void)
{
	return read_sysreg(cntfrq_el0);
}

u64 timer_count(enum timer_kind kind)
{
	isb();
	return kind == TIMER_VIRT ? read_sysreg(cntvct_el0) : read_sysreg(cntpct_el0);
}

unsigned timer_irq(enum timer_kind kind)
{
	if (boot_el() == 2)
		return timer_ppi[kind == TIMER_VIRT ? DT_TIMER_HYP_VIRT : DT_TIMER_HYP_PHYS];
	return timer_ppi[kind == TIMER_VIRT ? DT_TIMER_VIRT : DT_TIMER_PHYS];
}

void timer_set_ctl(enum timer_kind kind, u64 ctl)
{
	if (kind == TIMER_VIRT)
		write_sysreg(ctl, cntv_ctl_el0);
	else
		write_sysreg(ctl, cntp_ctl_el0);
	isb();
}

void timer_set_cval(enum timer_kind kind, u64 cval)
{
	if (kind == TIMER_VIRT)
		write_sysreg(cval, cntv_cval_el0);
	else
		write_sysreg(cval, cntp_cval_el0);
	timer_set_ctl(kind, CNT_CTL_ENABLE);
}

void timer_arm(enum timer_kind kind, u64 cval, u64 ctl)
{
	if (kind == TIMER_VIRT)
		write_sysreg(cval, cntv_cval_el0);
	else
		write_sysreg(cval, cntp_cval_el0);
	timer_set_ctl(kind, CNT_CTL_ENABLE | ctl);
}

/*
 * TVAL's bits [63:32] are RES0: the value goes in as 32 bits and the timer
 * sign-extends it. Writing it sign-extended to 64 bits would hide an
 * emulation that adds the whole register unsigned.
 */
void timer_write_tval(enum timer_kind kind, s32 tval)
{
	if (kind == TIMER_VIRT)
		write_sysreg((u32)tval, cntv_tval_el0);
	else
		write_sysreg((u32)tval, cntp_tval_el0);
	isb();
}

void timer_set_tval(enum timer_kind kind, s32 tval)
{
	timer_write_tval(kind, tval);
	timer_set_ctl(kind, CNT_CTL_ENABLE);
}

s32 timer_get_tval(enum timer_kind kind)
{
	isb();
	return (s32)(u32)(kind == TIMER_VIRT ? read_sysreg(cntv_tval_el0) : read_sysreg(cntp_tval_el0));
}

u64 timer_get_cval(enum timer_kind kind)
{
	return kind == TIMER_VIRT ? read_sysreg(cntv_cval_el0) : read_sysreg(cntp_cval_el0);
}

void timer_stop(enum timer_kind kind)
{
	timer_set_ctl(kind, 0);
}

bool timer_fired(enum timer_kind kind)
{
	u64 ctl = kind == TIMER_VIRT ? read_sysreg(cntv_ctl_el0) : read_sysreg(cntp_ctl_el0);

	return ctl & CNT_CTL_ISTATUS;
}

u64 timer_ns_to_ticks(u64 ns)
{
	u64 hz = timer_freq();

	/* Split to keep ns * hz from overflowing for long intervals. */
	return ns / NSEC_PER_SEC * hz + ns % NSEC_PER_SEC * hz / NSEC_PER_SEC;
}

static struct timer_irq_seen irq_seen[NR_CPUS];

static void timer_irq_record(struct pt_regs *regs, unsigned irq)
{
	enum timer_kind kind = irq == timer_irq(TIMER_VIRT) ? TIMER_VIRT : TIMER_PHYS;
	struct timer_irq_seen *s = &irq_seen[smp_id()];

	s->at = timer_count(kind);
	s->istatus = timer_fired(kind);
	/* the level stays up until the timer is quieted */
	timer_stop(kind);
	atomic_inc(&s->count);
}

bool timer_irq_record_install(void)
{
	if (!gic_version() || !timer_irq(TIMER_VIRT) || !timer_irq(TIMER_PHYS))
		return false;
	install_irq_handler(timer_irq(TIMER_VIRT), timer_irq_record);
	install_irq_handler(timer_irq(TIMER_PHYS), timer_irq_record);
	return true;
}

struct timer_irq_seen *timer_irq_seen(int cpu)
{
	return &irq_seen[cpu];
}
