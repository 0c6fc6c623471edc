/* SPDX-License-Identifier: GPL-2.0-only */
/* The arm64 half of the lifecycle test (arm/lifecycle.c): the generic counters and timers and the PL031, as struct lc_arch. */
#include "libc.h"
#include "arm64/lifecycle_arch.h"
#include "irq.h"
#include "arch.h"
#include "arm64/el2.h"
#include "arm64/gic.h"
#include "arm64/pl031.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"

/* Slot i of common/lifecycle/lifecycle.h is timer kind i. */
static_assert(TIMER_VIRT == 0 && TIMER_PHYS == 1, "slots are timer kinds");

static u64 period_of[LC_MAX_CPUS][LC_MAX_SLOTS];

static u64 read_virt(void)
{
	isb();
	return timer_count(TIMER_VIRT);
}

static u64 read_phys(void)
{
	isb();
	return timer_count(TIMER_PHYS);
}

/* Measured under TCG on QEMU 7.2 (docs/lifecycle.md). */
static const struct lc_clock clocks[] = {
	{"CNTVCT",
	 read_virt,
	 0,
	 {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
	{"CNTPCT",
	 read_phys,
	 0,
	 {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
};

static enum timer_kind kind_of_irq(unsigned irq)
{
	return irq == timer_irq(TIMER_VIRT) ? TIMER_VIRT : TIMER_PHYS;
}

static void timer_interrupt(struct pt_regs *regs, unsigned irq)
{
	enum timer_kind k = kind_of_irq(irq);

	if (lc_timer_fired(k, read_virt()) == LC_ROLE_PERIODIC)
		timer_set_cval(k, timer_get_cval(k) + period_of[smp_id()][k]);
	else
		timer_stop(k);
}

/* ---- the PL031 ------------------------------------------------------------- */

static u32 pl031_tick(void)
{
	return pl031_seconds();
}

/* RTCDR counts seconds since the epoch: QEMU sets it from the host's time of day (UTC). */
static const char *pl031_epoch(u64 *secs)
{
	*secs = pl031_seconds();
	return NULL;
}

static const char *pl031_set(u64 secs)
{
	if (secs > UINT32_MAX)
		return "RTCLR holds 32 bits of seconds: 2106 at the latest";
	pl031_load((u32)secs);
	return NULL;
}

static const struct lc_rtc pl031 = {"PL031", "pl031", pl031_find, pl031_tick, pl031_epoch,
				    pl031_set};

/* ---- the guest's own CNTVOFF_EL2, through its EL2 ---------------------------- */

/*
 * CNTVCT = CNTPCT - CNTVOFF_EL2: moving the counter ahead lowers the
 * offset, so the register reported is its negation, -CNTVOFF_EL2, which
 * moves forward by what the counter did. Only a kernel entered at EL2
 * can (lib/arm64/el2.h); QEMU gives EL2 under TCG with virtualization=on.
 */
static void cntvoff_write(u64 delta)
{
	el2_cntvoff_set(el2_cntvoff_get() - delta);
}

static u64 cntvoff_read_negated(void)
{
	return -el2_cntvoff_get();
}

/* CNTVCT - CNTPCT with CNTPCT read before and after: -CNTVOFF_EL2 as the counters show it. */
static void cntvoff_view(s64 *lo, s64 *hi)
{
	u64 p1 = read_phys(), v = read_virt(), p2 = read_phys();

	*lo = (s64)(v - p2);
	*hi = (s64)(v - p1);
}

static const struct lc_counter_write cntvoff_counter_write = {
	.reg = "-CNTVOFF_EL2",
	.defect = NULL,
	.find = el2_unavailable,
	.write = cntvoff_write,
	.read_reg = cntvoff_read_negated,
	.view = cntvoff_view,
	.view_name = "CNTVCT - CNTPCT (CNTPCT read before and after)",
};

static const char *probe(void)
{
	if (!gic_version())
		return "no GIC in the device tree to take the timers' interrupts";
	if (!timer_freq())
		return "CNTFRQ_EL0 is 0";
	for (enum timer_kind k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		if (!timer_irq(k))
			return "the device tree names no interrupt for a timer";
		install_irq_handler(timer_irq(k), timer_interrupt);
	}
	return NULL;
}

/* PPIs are per CPU: each vCPU enables its own. */
static void init_cpu(void)
{
	for (enum timer_kind k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		timer_stop(k);
		gic_enable_irq(timer_irq(k));
	}
}

/*
 * Deadlines are CNTVCT values; CNTP compares CNTPCT, so the offset is
 * added, read physical after virtual: the deadline can only come late.
 */
static u64 to_cval(enum timer_kind k, u64 when)
{
	u64 v, p;

	if (k == TIMER_VIRT)
		return when;
	v = read_virt();
	p = read_phys();
	return when + (p - v);
}

static void oneshot_at(unsigned slot, u64 when)
{
	timer_set_cval(slot, to_cval(slot, when));
}

static u64 periodic(unsigned slot, u64 period)
{
	period_of[smp_id()][slot] = period;
	timer_set_cval(slot, to_cval(slot, read_virt() + period));
	return period;
}

static void stop(unsigned slot)
{
	timer_stop(slot);
}

const struct lc_arch lc_arch_arm64 = {
	.name_of_slot = { "vtimer", "ptimer" },
	.periodic_kind = LC_PERIODIC_REARMED,
	.nslots = 2,
	LC_ARCH_HOOKS,
	.tod_ns = NULL,
	.rtc = &pl031,
	.clocks = clocks,
	.nclocks = ARRAY_SIZE(clocks),
	.counter_at_reset = LC_COUNTER_GOES_ON,
	.counter_write = &cntvoff_counter_write,
};
