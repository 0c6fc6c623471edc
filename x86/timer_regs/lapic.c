/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs' LAPIC timer family (Intel SDM vol. 3, 11.5.1 "Local Vector
 * Table" and 11.5.4 "APIC Timer"), through x2APIC MSRs where the CPU
 * offers them and through xAPIC MMIO: the LVT timer entry read back, the
 * divide configuration's eight values and the rate each gives, the
 * initial count starting a count and the current count's course in
 * one-shot and periodic mode, what a mode change does to both counts, a
 * masked expiry, the current count read-only, and writing 0 stopping it.
 *
 * A CPU booted in x2APIC mode (lib/x86/apic.c chooses it when offered) runs
 * the checks through MSRs, then leaves x2APIC mode the way the SDM allows
 * (disabled, then xAPIC: 11.12.5), runs them through MMIO, and goes back.
 * Meanwhile this family EOIs its own interrupts (regs_eoi) and sends no
 * IPIs. Everything here runs on vCPU 0.
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "units.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "x86/desc.h"
#include "x86/io.h"
#include "x86/processor.h"
#include "x86/timer_regs.h"

#define V REGS_LAPIC_VECTOR
/* the counts' period in the course checks: 1 ms of the divide-by-1 clock */
#define PERIODS_PER_S 1000
/* the rate measurement: a window, and brackets (reads' own time) of at most 1% of it */
#define RATE_WINDOW_US	 2000
#define RATE_TRIES	 5
#define RATE_BRACKET_DIV 100
/* a divided rate times its divisor against the undivided rate: 3% */
#define RATE_TOLERANCE_PCT 3
/* what a read right after the count's write may be below it, beyond the time it took: counts */
#define START_SLACK 1000
/* how long a check waits for an interrupt that must come: periods */
#define WAIT_PERIODS 50
/* periodic mode's run, and the fewest interrupts it must bring: a one-shot brings 1 */
#define PERIODIC_RUN   20
#define PERIODIC_MIN   2
#define MODE_TRIES     3
#define STOP_SETTLE_US 20

static bool x2;

static const struct {
	u32 code;
	unsigned div;
} divides[] = {
	{APIC_TDCR_DIV_1, 1},	{APIC_TDCR_DIV_2, 2},	  {APIC_TDCR_DIV_4, 4},
	{APIC_TDCR_DIV_8, 8},	{APIC_TDCR_DIV_16, 16},	  {APIC_TDCR_DIV_32, 32},
	{APIC_TDCR_DIV_64, 64}, {APIC_TDCR_DIV_128, 128},
};

/* ---- access, and the faults that imitate a buggy LAPIC ------------------------------ */

static u32 raw_read(u32 reg)
{
	return x2 ? (u32)rdmsr(X2APIC_MSR_BASE + reg / 16) : mmio_read32(APIC_DEFAULT_BASE + reg);
}

/* A WRMSR the SDM makes #GP (the read-only current count) is survived, and its vector returned. */
static int raw_write(u32 reg, u32 val)
{
	if (x2)
		return wrmsr_safe(X2APIC_MSR_BASE + reg / 16, val);
	mmio_write32(APIC_DEFAULT_BASE + reg, val);
	return EXC_NONE;
}

static u32 next_divide_code(u32 code)
{
	for (unsigned i = 0; i < ARRAY_SIZE(divides); i++)
		if (divides[i].code == code)
			return divides[(i + 1) % ARRAY_SIZE(divides)].code;
	return code;
}

static u32 lr(u32 reg)
{
	if (reg == APIC_TMCCT && opt.fault == FAULT_CURRENT)
		reg = APIC_TMICT;
	return raw_read(reg);
}

static int lw(u32 reg, u32 val)
{
	if (reg == APIC_LVTT && opt.fault == FAULT_LVT && !(val & APIC_LVT_TIMER_TSCDEADLINE))
		val ^= APIC_LVT_TIMER_PERIODIC;
	if (reg == APIC_LVTT && opt.fault == FAULT_MASK)
		val &= ~APIC_LVT_MASKED;
	if (reg == APIC_TDCR && opt.fault == FAULT_DIVIDE)
		val = next_divide_code(val);
	if (reg == APIC_TMICT &&
	    ((opt.fault == FAULT_COUNT && val) || (opt.fault == FAULT_STOP && !val)))
		return EXC_NONE;
	if (reg == APIC_TMCCT && opt.fault == FAULT_CURRENT_WRITE)
		reg = APIC_TMICT;
	return raw_write(reg, val);
}

/* How a measurement reaches the registers: as the checks do (faults and all), or around them. */
struct access {
	u32 (*read)(u32 reg);
	int (*write)(u32 reg, u32 val);
};

static const struct access as_tested = {lr, lw}, around_faults = {raw_read, raw_write};

static void lapic_eoi(void)
{
	raw_write(APIC_EOI, 0);
}

static void timer_off(void)
{
	raw_write(APIC_LVTT, APIC_LVT_MASKED | V);
	raw_write(APIC_TMICT, 0);
}

static bool wait_irqs(unsigned n, u64 us)
{
	u64 end = rdtsc() + tsc_from_us(us);

	while (IRQ_SEEN(V)->count < n)
		if (rdtsc() > end)
			return false;
	return true;
}

/* ---- 11.5.1: the LVT timer entry ---------------------------------------------------- */

/* Mode (bits 18:17), mask (16) and vector read back as written; delivery status (12) idle, 0. */
static void lvt_checks(void)
{
	static const u32 values[] = {
		APIC_LVT_TIMER_ONESHOT | APIC_LVT_MASKED | V,
		APIC_LVT_TIMER_PERIODIC | APIC_LVT_MASKED | REGS_SPARE_VECTOR,
		APIC_LVT_TIMER_PERIODIC | V,
		APIC_LVT_TIMER_ONESHOT | 0xef,
	};

	raw_write(APIC_TMICT, 0);
	for (unsigned i = 0; i < ARRAY_SIZE(values); i++) {
		u32 got;

		lw(APIC_LVTT, values[i]);
		got = lr(APIC_LVTT);
		report(got == values[i],
		       "LVT timer written %#x (%s, %s, vector %#x) reads back %#x (as written, "
		       "delivery status 0)",
		       values[i], values[i] & APIC_LVT_TIMER_PERIODIC ? "periodic" : "one-shot",
		       values[i] & APIC_LVT_MASKED ? "masked" : "unmasked", values[i] & 0xff, got);
	}
	timer_off();
}

/* ---- 11.5.4: the divide configuration ---------------------------------------------- */

/* The timer's counts per second at code, against the TSC; 0 when it does not count. */
static u64 rate_at(u32 code, const struct access *a)
{
	u64 window = tsc_from_us(RATE_WINDOW_US), rate = 0, best = ~0ull;

	a->write(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | APIC_LVT_MASKED | V);
	a->write(APIC_TDCR, code);
	/* the try whose reads took least (a host's delay inside a read widens its bracket) */
	for (unsigned t = 0; t < RATE_TRIES && best > window / RATE_BRACKET_DIV; t++) {
		u64 t0, t1, t2, t3;
		u32 c0, c1;

		a->write(APIC_TMICT, (u32)APIC_TIMER_COUNT_MAX);
		t0 = rdtsc();
		c0 = a->read(APIC_TMCCT);
		t1 = rdtsc();
		spin_us(RATE_WINDOW_US);
		t2 = rdtsc();
		c1 = a->read(APIC_TMCCT);
		t3 = rdtsc();
		if ((t1 - t0) + (t3 - t2) < best) {
			best = (t1 - t0) + (t3 - t2);
			rate = (u64)(u32)(c0 - c1) * arch_counter_hz() /
			       ((t2 + t3) / 2 - (t0 + t1) / 2);
		}
	}
	raw_write(APIC_TMICT, 0);
	return rate;
}

static void divide_checks(void)
{
	u64 rate[ARRAY_SIZE(divides)];

	for (unsigned i = 0; i < ARRAY_SIZE(divides); i++) {
		u32 got;

		lw(APIC_TDCR, divides[i].code);
		got = lr(APIC_TDCR) & APIC_TDCR_MASK;
		report(got == divides[i].code,
		       "divide configuration %#x (divide by %u) reads back %#x", divides[i].code,
		       divides[i].div, got);
		rate[i] = rate_at(divides[i].code, &as_tested);
	}
	report_info("divide by 1 counts at %llu Hz (against the TSC)", rate[0]);
	for (unsigned i = 1; i < ARRAY_SIZE(divides); i++) {
		u64 scaled = rate[i] * divides[i].div;
		u64 diff = scaled > rate[0] ? scaled - rate[0] : rate[0] - scaled;

		report(rate[0] && diff * 100 <= rate[0] * RATE_TOLERANCE_PCT,
		       "divide by %u counts at %llu Hz: times %u is %llu Hz, within %u%% of divide "
		       "by 1's %llu Hz",
		       divides[i].div, rate[i], divides[i].div, scaled, RATE_TOLERANCE_PCT,
		       rate[0]);
	}
	lw(APIC_TDCR, APIC_TDCR_DIV_1);
}

/* ---- 11.5.4: the counts' course ----------------------------------------------------- */

struct course {
	u64 hz;		/* counts per second at divide by 1 */
	u32 n;		/* the initial count: one period */
	u64 period_tsc; /* the same in TSC cycles */
};

static void oneshot_checks(const struct course *c)
{
	u64 t0 = 0, t1 = 0, fired;
	u32 c1 = 0, c2 = 0;

	/* a try the host delayed past the count's end before its second read tells nothing: again
	 */
	for (unsigned t = 0; t < MODE_TRIES; t++) {
		timer_off();
		regs_irq_reset(V);
		lw(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | V);
		t0 = rdtsc();
		lw(APIC_TMICT, c->n);
		c1 = lr(APIC_TMCCT);
		t1 = rdtsc();
		spin_us(20);
		c2 = lr(APIC_TMCCT);
		if (rdtsc() - t0 < c->period_tsc / 2)
			break;
	}
	{
		u64 took = (t1 - t0) * c->hz / arch_counter_hz() * 2 + START_SLACK;

		report(c1 <= c->n && c1 + took >= c->n,
		       "one-shot: current count %u right after writing the initial count %u (not "
		       "above it, "
		       "within %llu: twice the counts the write and read took, plus %u)",
		       c1, c->n, took, START_SLACK);
	}
	report(c2 < c1, "one-shot: the current count goes down (%u, then %u 20 us later)", c1, c2);
	report(lr(APIC_TMICT) == c->n, "one-shot: the initial count reads back %u (written %u)",
	       lr(APIC_TMICT), c->n);
	wait_irqs(1, WAIT_PERIODS * USEC_PER_SEC / PERIODS_PER_S);
	fired = IRQ_SEEN(V)->count ? IRQ_SEEN(V)->last_tsc - t0 : 0;
	report(IRQ_SEEN(V)->count && fired >= c->period_tsc * (100 - RATE_TOLERANCE_PCT) / 100,
	       "one-shot: its interrupt came %llu us after the write (%s; not before the count's "
	       "%llu us "
	       "less %u%%)",
	       us_from_tsc(fired), IRQ_SEEN(V)->count ? "came" : "never",
	       us_from_tsc(c->period_tsc), RATE_TOLERANCE_PCT);
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S);
	report(IRQ_SEEN(V)->count == 1,
	       "one-shot: %u interrupts over 3 periods after it (1: no reload)",
	       IRQ_SEEN(V)->count);
	report(lr(APIC_TMCCT) == 0,
	       "one-shot: the current count reads %u after the expiry (stays 0)", lr(APIC_TMCCT));
	report(lr(APIC_TMICT) == c->n,
	       "one-shot: the initial count reads %u after the expiry (kept: %u)", lr(APIC_TMICT),
	       c->n);
}

static void periodic_checks(const struct course *c)
{
	u64 t0, periods;
	unsigned k;
	u32 cur;

	regs_irq_reset(V);
	lw(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | V);
	t0 = rdtsc();
	lw(APIC_TMICT, c->n);
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S / 2);
	cur = lr(APIC_TMCCT);
	report(cur != 0 && cur <= c->n,
	       "periodic: current count %u 1.5 periods in (reloaded: 1..%u)", cur, c->n);
	spin_us(PERIODIC_RUN * USEC_PER_SEC / PERIODS_PER_S);
	/* a host that kept the vCPU away throughout merged them all: the second is waited for */
	wait_irqs(PERIODIC_MIN, WAIT_PERIODS * USEC_PER_SEC / PERIODS_PER_S);
	k = IRQ_SEEN(V)->count;
	periods = (rdtsc() - t0) / c->period_tsc;
	report(k >= PERIODIC_MIN && k <= periods + 1,
	       "periodic: %u interrupts in %llu periods' time (%u..%llu: one a period at most, "
	       "more than a "
	       "one-shot's 1 however late a busy host runs them)",
	       k, periods, PERIODIC_MIN, periods + 1);
	report(lr(APIC_TMICT) == c->n,
	       "periodic: the initial count reads %u while running (kept: %u)", lr(APIC_TMICT),
	       c->n);
}

/*
 * Periodic from the initial count, then one-shot halves periods in: the
 * TSC at the count's write; the current count read before and after the switch.
 */
static u64 switch_to_oneshot(const struct course *c, unsigned halves, u32 *before, u32 *after)
{
	u64 t0;

	lw(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | V);
	t0 = rdtsc();
	lw(APIC_TMICT, c->n);
	spin_us(halves * USEC_PER_SEC / PERIODS_PER_S / 2);
	*before = lr(APIC_TMCCT);
	lw(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | V);
	*after = lr(APIC_TMCCT);
	return t0;
}

/* SDM 11.5.4: a mode change by the LVT timer write neither starts nor restarts the count. */
static void mode_change_checks(const struct course *c)
{
	u32 before, after, end;
	unsigned k;

	/* a try the host delayed past the count's end between the reads tells nothing: again */
	/* ... and one that let the first period end before the switch: that is the next check's */
	for (unsigned t = 0; t < MODE_TRIES; t++) {
		u64 t0, t1;

		t0 = switch_to_oneshot(c, 1, &before, &after);
		t1 = rdtsc();
		if (t1 - t0 < c->period_tsc)
			break;
	}
	k = IRQ_SEEN(V)->count;
	report(lr(APIC_TMICT) == c->n,
	       "periodic -> one-shot: the initial count reads %u (kept: %u)", lr(APIC_TMICT), c->n);
	report(after != 0 && after <= before,
	       "periodic -> one-shot: the current count goes on (%u before the write, %u after: "
	       "not "
	       "restarted, not stopped)",
	       before, after);
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S);
	end = lr(APIC_TMCCT);
	report(end == 0 && IRQ_SEEN(V)->count - k <= 1,
	       "periodic -> one-shot: the count ended at %u with %u interrupts (0, at most 1: no "
	       "reload)",
	       end, IRQ_SEEN(V)->count - k);
	/* the same in the second period: the count goes on from where the reload put it */
	switch_to_oneshot(c, 3, &before, &after);
	report_kfail(after != 0 && after <= before, DEFECT_TCG("apic-periodic-to-oneshot"),
		     "periodic -> one-shot in the second period: the current count %u before the "
		     "write, %u "
		     "after (going on from the reload, not ended)",
		     before, after);
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S);
	k = IRQ_SEEN(V)->count;
	lw(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | V);
	spin_us(2 * USEC_PER_SEC / PERIODS_PER_S);
	end = lr(APIC_TMCCT);
	report_kfail(end == 0 && IRQ_SEEN(V)->count == k, DEFECT_TCG("apic-mode-restart"),
		     "one-shot expired -> periodic: current count %u, %u interrupts over 2 periods "
		     "(0 and 0: "
		     "the mode change does not start the timer)",
		     end, IRQ_SEEN(V)->count - k);
	report(lr(APIC_TMICT) == c->n,
	       "one-shot -> periodic: the initial count reads %u (kept: %u)", lr(APIC_TMICT), c->n);
	timer_off();
}

/*
 * SDM 11.5.1: a masked LVT entry inhibits the interrupt, not the count. The
 * expiry comes with interrupts off at the CPU, so that one the mask let
 * through waits in the IRR where it can be seen.
 */
static void mask_checks(const struct course *c)
{
	unsigned taken;
	u32 irr;

	regs_irq_reset(V);
	irq_disable();
	lw(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | APIC_LVT_MASKED | V);
	lw(APIC_TMICT, c->n);
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S);
	irr = lr(APIC_IRR_REG(V)) & APIC_IRR_BIT(V);
	report(lr(APIC_TMCCT) == 0, "masked one-shot: the count ran to %u all the same (0)",
	       lr(APIC_TMCCT));
	report(!irr, "masked one-shot, interrupts off: vector %#x %s in the IRR (not pending)", V,
	       irr ? "set" : "clear");
	irq_enable();
	spin_us(USEC_PER_SEC / PERIODS_PER_S);
	taken = IRQ_SEEN(V)->count;
	report(taken == 0, "masked one-shot: %u interrupts once interrupts are on (0)", taken);
	lw(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | V);
	spin_us(USEC_PER_SEC / PERIODS_PER_S);
	report(IRQ_SEEN(V)->count == taken,
	       "unmasking after a masked expiry: %u interrupts (0: the expiry is not kept)",
	       IRQ_SEEN(V)->count - taken);
	timer_off();
}

/* SDM 11.5.4: "A write of 0 to the initial-count register effectively stops the local APIC timer".
 */
static void stop_checks(const struct course *c)
{
	unsigned k;

	regs_irq_reset(V);
	lw(APIC_LVTT, APIC_LVT_TIMER_PERIODIC | V);
	lw(APIC_TMICT, c->n);
	spin_us(5 * USEC_PER_SEC / PERIODS_PER_S / 2);
	lw(APIC_TMICT, 0);
	/* an expiry just before the write is taken first */
	spin_us(STOP_SETTLE_US);
	k = IRQ_SEEN(V)->count;
	spin_us(3 * USEC_PER_SEC / PERIODS_PER_S);
	report(lr(APIC_TMCCT) == 0, "periodic, then 0 written: the current count reads %u (0)",
	       lr(APIC_TMCCT));
	report(IRQ_SEEN(V)->count == k,
	       "periodic, then 0 written: %u interrupts over 3 periods after (0)",
	       IRQ_SEEN(V)->count - k);
	report(lr(APIC_TMICT) == 0, "periodic, then 0 written: the initial count reads %u (0)",
	       lr(APIC_TMICT));
	timer_off();
}

/* SDM 11.5.4 (figure 11-11) and table 11-6: the current count is read-only. */
static void current_readonly_check(void)
{
	u32 c0, c1;
	int vec;

	lw(APIC_LVTT, APIC_LVT_TIMER_ONESHOT | APIC_LVT_MASKED | V);
	lw(APIC_TMICT, (u32)APIC_TIMER_COUNT_MAX);
	c0 = lr(APIC_TMCCT);
	vec = lw(APIC_TMCCT, 5);
	c1 = lr(APIC_TMCCT);
	if (x2)
		report_kfail(vec == GP_VECTOR, DEFECT_TCG("x2apic-readonly-wrmsr"),
			     "WRMSR to the read-only current count (MSR 839H) raised vector %d "
			     "(#GP, %d: table 11-6)",
			     vec, GP_VECTOR);
	report(c1 > 5 && c1 <= c0,
	       "the current count is read-only: after writing 5 it reads %u (still counting down "
	       "from %u)",
	       c1, c0);
	timer_off();
}

static void run_all(void)
{
	struct course c;

	lvt_checks();
	divide_checks();
	/* the course checks' clock, read past the faults: a fault must fail its checks, not hang
	 * them */
	c.hz = rate_at(APIC_TDCR_DIV_1, &around_faults);
	c.n = (u32)max(c.hz / PERIODS_PER_S, 1ull);
	c.period_tsc = arch_counter_hz() / PERIODS_PER_S;
	current_readonly_check();
	irq_enable();
	oneshot_checks(&c);
	periodic_checks(&c);
	mode_change_checks(&c);
	mask_checks(&c);
	stop_checks(&c);
	irq_disable();
	timer_off();
}

/* 11.12.5: x2APIC -> disabled -> xAPIC is the way out of x2APIC mode; the state resets. */
static void enter_xapic(void)
{
	u64 base = rdmsr(MSR_IA32_APICBASE) &
		   ~(u64)(MSR_IA32_APICBASE_ENABLE | MSR_IA32_APICBASE_EXTD);

	wrmsr(MSR_IA32_APICBASE, base);
	wrmsr(MSR_IA32_APICBASE, base | MSR_IA32_APICBASE_ENABLE);
	x2 = false;
	raw_write(APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
	raw_write(APIC_TPR, 0);
	raw_write(APIC_LVT0, APIC_LVT_MASKED);
	raw_write(APIC_LVT1, APIC_LVT_MASKED);
	timer_off();
}

void lapic_checks(void)
{
	regs_eoi = lapic_eoi;
	if (apic_x2apic_mode()) {
		x2 = true;
		report_prefix_push("x2apic");
		run_all();
		report_prefix_pop();
		enter_xapic();
	} else {
		report_skip("x2apic: CPUID.1:ECX[21] is clear (no x2APIC offered): the MSR path is "
			    "not checked");
	}
	report_prefix_push("xapic");
	run_all();
	report_prefix_pop();
	if (x2 != apic_x2apic_mode())
		apic_enable();
	regs_eoi = apic_eoi;
}
