/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs' HPET family (IA-PC HPET specification 1.0a, section 2.3):
 * the main counter halted, written and going on from its value; its
 * rate; reads on every vCPU never going back while vCPU 0 turns it off
 * and on; a timer's 32-bit mode, its wrap and the 64-bit comparator;
 * periodic mode set with Tn_VAL_SET_CNF and its comparator's read-back;
 * level and edge routing through the IOAPIC and the status register.
 *
 * Needs the HPET (SKIP without) and, for the routing checks, a timer that
 * can drive an IOAPIC input above the ISA lines (q35; SKIP on pc).
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "irq.h"
#include "report.h"
#include "units.h"
#include "x86/apic.h"
#include "x86/hpet.h"
#include "x86/ioapic.h"
#include "x86/layout.h"
#include "x86/processor.h"
#include "x86/timer_regs.h"

#define V REGS_HPET_VECTOR
/* the main counter's rate over this window, within this tolerance */
#define RATE_WINDOW_US	   5000
#define RATE_TRIES	   3
#define RATE_TOLERANCE_PCT 2
/* readers: vCPU 0's halts and restarts */
#define TOGGLES		   2000
#define TOGGLE_HALT_US	   5
/* the timers' distance in the comparator checks: 1 ms, checked at a half and at three */
#define SHORT_US	   1000
/* how long a check waits for what must come (a busy host delays QEMU's timers), and for what must not */
#define MUST_COME_US	   200000
#define MUST_NOT_US	   20000
#define POLL_GAP_US	   20
/* reads of the periodic comparator, 1 ms apart, until QEMU's late callback advanced it */
#define CMP_READS	   50
/* what a read right after the restart may be past the value, beyond the time it took: counts */
#define START_SLACK	   100
#define RESTART_FAULT	   1000
#define PERIOD_FAULT_PCT   5
#define PERIODIC_RUN	   20
/* level interrupts taken before the hook gives up on acking (a storm under a fault) */
#define LEVEL_STORM	   10
#define COUNTER_WRAP32	   (1ull << 32)
/* a counter value as far from the low dword's wrap as can be */
#define HALF_WRAP32	   (1ull << 31)

static struct {
	unsigned t;   /* the timer routed to an IOAPIC input (the last), 0 when none */
	unsigned gsi; /* its input */
	u64 hz;	      /* counts per second, from the capabilities */
} h;

/* ---- access, and the faults that imitate a buggy HPET -------------------------------- */

static void conf_write(unsigned n, u32 conf)
{
	if (opt.fault == FAULT_HPET_WIDTH)
		conf ^= HPET_TN_32MODE_CNF;
	if (opt.fault == FAULT_HPET_VAL_SET)
		conf &= ~HPET_TN_VAL_SET_CNF;
	if (opt.fault == FAULT_HPET_TYPE)
		conf ^= HPET_TN_INT_TYPE_CNF;
	if (opt.fault == FAULT_HPET_ROUTE)
		conf += 1u << HPET_TN_INT_ROUTE_SHIFT;
	hpet_reg_write(HPET_TN_CONF(n), conf);
}

static void status_clear(unsigned n, u32 bits)
{
	hpet_reg_write(HPET_GEN_INT_STS, opt.fault == FAULT_HPET_STATUS ? bits ^ (1u << n) : bits);
}

static bool pending(unsigned n)
{
	return hpet_reg_read(HPET_GEN_INT_STS) & (1u << n);
}

static void halt(void)
{
	if (opt.fault != FAULT_HPET_HALT)
		hpet_reg_write(HPET_GEN_CONF, hpet_reg_read(HPET_GEN_CONF) & ~HPET_GEN_ENABLE_CNF);
}

static void counter_set(u64 v)
{
	hpet_reg_write(HPET_MAIN_CNT, (u32)v);
	hpet_reg_write(HPET_MAIN_CNT_HI, (u32)(v >> 32));
}

static void run(void)
{
	if (opt.fault == FAULT_HPET_RESTART)
		counter_set(hpet_counter_read64() - RESTART_FAULT);
	hpet_reg_write(HPET_GEN_CONF, hpet_reg_read(HPET_GEN_CONF) | HPET_GEN_ENABLE_CNF);
}

static u64 counts_from_us(u64 us)
{
	return h.hz * us / USEC_PER_SEC;
}

static void timer_off(unsigned n)
{
	hpet_reg_write(HPET_TN_CONF(n), 0);
	status_clear(n, 1u << n);
}

/* ---- 2.3.4, 2.3.5, 2.3.7: the main counter ------------------------------------------- */

/* The main counter's rate against the TSC: the try whose reads took least (a delay widens them). */
static u64 rate_hz(void)
{
	u64 best = ~0ull, rate = 0;

	for (unsigned t = 0; t < RATE_TRIES; t++) {
		u64 t0 = rdtsc(), c0 = hpet_counter_read64(), t1 = rdtsc(), t2, c1, t3;

		spin_us(RATE_WINDOW_US);
		t2 = rdtsc();
		c1 = hpet_counter_read64();
		t3 = rdtsc();
		if ((t1 - t0) + (t3 - t2) < best) {
			best = (t1 - t0) + (t3 - t2);
			rate = (c1 - c0) * arch_counter_hz() / ((t2 + t3) / 2 - (t0 + t1) / 2);
		}
	}
	return rate;
}

static void counter_checks(void)
{
	u64 a, b, x = 0x12345678ull << 8, t0, took;
	u32 period = hpet_reg_read(HPET_GCAP_PERIOD);

	/* running first, so that a halt that does not take shows */
	run();
	spin_us(200);
	halt();
	a = hpet_counter_read64();
	spin_us(200);
	b = hpet_counter_read64();
	report(a == b, "halted (ENABLE_CNF 0): the main counter reads %#llx, then %#llx 200 us later (held)",
	       a, b);
	counter_set(x);
	a = hpet_counter_read64();
	report(a == x, "halted: the main counter written %#llx reads back %#llx", x, a);
	t0 = rdtsc();
	run();
	b = hpet_counter_read64();
	took = counts_from_us(us_from_tsc(rdtsc() - t0)) * 2 + START_SLACK;
	report(b >= x && b - x <= took,
	       "restarted: it goes on from %#llx: %#llx (within %llu counts: twice the restart's time, plus %u)",
	       x, b, took, START_SLACK);
	if (opt.fault == FAULT_HPET_PERIOD)
		period += period / 100 * PERIOD_FAULT_PCT;
	{
		u64 want = FSEC_PER_SEC / period, got = rate_hz(), diff = got > want ? got - want : want - got;

		report(diff * 100 <= want * RATE_TOLERANCE_PCT,
		       "the main counter runs at %llu Hz against the TSC: within %u%% of the %llu Hz its "
		       "capabilities' period (%u fs) states", got, RATE_TOLERANCE_PCT, want, period);
	}
}

/* ---- 2.3.5: readers on every vCPU while vCPU 0 halts and restarts it ------------------- */

static volatile bool readers_stop;
static volatile unsigned readers_started;
static struct reader {
	u64 reads, backwards, worst;
} readers[MAX_CPUS];

static void read_on(void *arg)
{
	struct reader *r = &readers[smp_id()];
	u64 last = hpet_counter_read64(), now;

	__atomic_add_fetch(&readers_started, 1, __ATOMIC_SEQ_CST);
	while (!readers_stop) {
		now = hpet_counter_read64();
		if (now < last) {
			r->backwards++;
			r->worst = max(r->worst, last - now);
		}
		last = now;
		r->reads++;
	}
}

static void readers_checks(void)
{
	u64 last = hpet_counter_read64(), now, back = 0;

	if (cpu_count() < 2) {
		report_skip("readers: one vCPU only: the readers on other vCPUs need smp 2 or more");
		return;
	}
	readers_stop = false;
	readers_started = 0;
	memset(readers, 0, sizeof(readers));
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_async(cpu, read_on, NULL);
	while (readers_started < (unsigned)cpu_count() - 1)
		cpu_relax();
	for (unsigned i = 0; i < TOGGLES; i++) {
		halt();
		spin_us(TOGGLE_HALT_US);
		run();
		now = hpet_counter_read64();
		back += now < last;
		last = now;
	}
	readers_stop = true;
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_wait(cpu);
	report(back == 0, "readers: vCPU 0 halted and restarted it %u times: %llu of its own reads went back (0)",
	       TOGGLES, back);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		report(readers[cpu].reads && readers[cpu].backwards == 0,
		       "readers: vCPU %d read it %llu times meanwhile: %llu went back, by up to %llu counts (0)",
		       cpu, readers[cpu].reads, readers[cpu].backwards, readers[cpu].worst);
}

/* ---- 2.3.8, 2.3.9: a timer's width and its comparator -------------------------------- */

/* Whether timer n's status is set within us (level-triggered, its input masked at the IOAPIC). */
static bool pending_within(unsigned n, u64 us)
{
	u64 end = rdtsc() + tsc_from_us(us);

	/* reads apart: back to back they keep QEMU's main loop, which fires the timer, off its lock */
	while (!pending(n)) {
		if (rdtsc() > end)
			return false;
		spin_us(POLL_GAP_US);
	}
	return true;
}

/* Tn_32MODE_CNF: the comparator's upper dword gone, the counter's low dword compared. */
static void mode32_checks(unsigned n, u32 route)
{
	u32 conf = HPET_TN_32MODE_CNF | HPET_TN_INT_TYPE_CNF | HPET_TN_INT_ENB_CNF | route, hi;
	u64 w = counts_from_us(SHORT_US), at = COUNTER_WRAP32 - w, seen;
	bool early, fired;

	halt();
	timer_off(n);
	hpet_reg_write(HPET_TN_CMP_HI(n), 0xffffffff);
	conf_write(n, conf);
	hi = hpet_reg_read(HPET_TN_CMP_HI(n));
	report((hpet_reg_read(HPET_TN_CONF(n)) & HPET_TN_32MODE_CNF) && hi == 0,
	       "timer %u switched to 32-bit mode: Tn_32MODE_CNF reads %u (1), the comparator's upper dword "
	       "%#x (loaded with 0)", n, !!(hpet_reg_read(HPET_TN_CONF(n)) & HPET_TN_32MODE_CNF), hi);
	hpet_reg_write(HPET_TN_CMP_HI(n), 0xffffffff);
	hi = hpet_reg_read(HPET_TN_CMP_HI(n));
	report_kfail(hi == 0, DEFECT_QEMU("hpet-32bit-cmp-hi"),
		     "timer %u in 32-bit mode: its comparator's upper dword reads %#x after a write of all "
		     "ones (0: a 32-bit timer has none)", n, hi);
	/* 32-bit mode compares the counter's low dword: a comparator past the wrap fires at the wrap */
	counter_set(at);
	hpet_reg_write(HPET_TN_CMP(n), (u32)(w / 2));
	status_clear(n, 1u << n);
	run();
	spin_us(SHORT_US / 2);
	/* the counter read after the status: below the wrap, a status set then was set early */
	early = pending(n);
	seen = hpet_counter_read64();
	early = early && seen < COUNTER_WRAP32;
	fired = pending_within(n, MUST_COME_US);
	report(!early && fired,
	       "timer %u in 32-bit mode, comparator %#llx, counter from %#llx: status %s at counter %#llx "
	       "(clear before the low dword's wrap), %s within 200 ms (set: at the wrap and at the comparator "
	       "past it)", n, w / 2, at, early ? "set" : "clear", seen, fired ? "set" : "never set");
	/* 2.3.9.2.1: a comparator the counter has passed fires when the counter comes round to it */
	halt();
	counter_set(HALF_WRAP32);
	status_clear(n, 1u << n);
	hpet_reg_write(HPET_TN_CMP(n), (u32)(HALF_WRAP32 - w));
	run();
	fired = pending_within(n, MUST_NOT_US);
	report_kfail(!fired, DEFECT_QEMU("hpet-passed-comparator-32"),
		     "timer %u in 32-bit mode, comparator %#llx behind the counter (%#llx): status %s over %u ms "
		     "(clear: it fires when the low dword comes round, 43 s at 100 MHz)", n,
		     HALF_WRAP32 - w, HALF_WRAP32, fired ? "set" : "clear", MUST_NOT_US / 1000);
	halt();
	timer_off(n);
}

/* 64-bit mode compares all 64 bits: the low dword 32-bit mode fired at the wrap is behind the counter. */
static void mode64_checks(unsigned n, u32 route)
{
	u32 conf = HPET_TN_INT_TYPE_CNF | HPET_TN_INT_ENB_CNF | route, hi;
	u64 w = counts_from_us(SHORT_US), at = COUNTER_WRAP32 - w;
	bool fired;

	conf_write(n, conf);
	hpet_reg_write(HPET_TN_CMP(n), (u32)(w / 2));
	hpet_reg_write(HPET_TN_CMP_HI(n), 1);
	hi = hpet_reg_read(HPET_TN_CMP_HI(n));
	report(hpet_reg_read(HPET_TN_CMP(n)) == (u32)(w / 2) && hi == 1,
	       "timer %u in 64-bit mode: the comparator written %#llx reads back %#x%08x", n,
	       COUNTER_WRAP32 + w / 2, hi, hpet_reg_read(HPET_TN_CMP(n)));
	hpet_reg_write(HPET_TN_CMP_HI(n), 0);
	counter_set(at);
	status_clear(n, 1u << n);
	run();
	fired = pending_within(n, MUST_NOT_US);
	report_kfail(!fired, DEFECT_QEMU("hpet-passed-comparator"),
		     "timer %u in 64-bit mode, comparator %#llx behind the counter (%#llx): status %s over %u ms "
		     "(clear: it fires when the counter equals it, 2^64 counts away)",
		     n, w / 2, at, fired ? "set" : "clear", MUST_NOT_US / 1000);
	halt();
	timer_off(n);
	run();
}

/* ---- 2.3.9.2.2: periodic mode, Tn_VAL_SET_CNF ---------------------------------------- */

static void periodic_checks(unsigned n, u32 route)
{
	u32 p = (u32)counts_from_us(SHORT_US), cmp;
	u64 c, first, t0, periods;
	unsigned k;

	if (!(hpet_reg_read(HPET_TN_CONF(n)) & HPET_TN_PER_INT_CAP)) {
		report_skip("periodic: timer %u has no Tn_PER_INT_CAP", n);
		return;
	}
	halt();
	timer_off(n);
	hpet_reg_write(HPET_TN_CMP(n), 0xdeadbeef);
	counter_set(0);
	conf_write(n, HPET_TN_TYPE_CNF | HPET_TN_VAL_SET_CNF | HPET_TN_32MODE_CNF | HPET_TN_INT_ENB_CNF |
			      route);
	/* the accumulator (first expiry), then the period: Linux's order, which every reading accepts */
	hpet_reg_write(HPET_TN_CMP(n), p);
	hpet_reg_write(HPET_TN_CMP(n), p);
	cmp = hpet_reg_read(HPET_TN_CMP(n));
	report(cmp == p, "periodic timer %u, Tn_VAL_SET_CNF and %#x written: the comparator reads %#x (the "
	       "first expiry)", n, p, cmp);
	regs_irq_reset(V);
	ioapic_set_masked(h.gsi, false);
	t0 = rdtsc();
	run();
	spin_us(5 * SHORT_US / 2);
	/* QEMU advances it in a timer callback a busy host delays: read again until it caught up */
	for (unsigned i = 0; i < CMP_READS; i++) {
		c = hpet_counter_read64();
		cmp = hpet_reg_read(HPET_TN_CMP(n));
		first = (c / p + 1) * p;
		if (cmp == first || cmp == first + p)
			break;
		spin_us(SHORT_US);
	}
	report(cmp == first || cmp == first + p,
	       "periodic: at counter %#llx the comparator reads %#x (advanced by the period %#x at each "
	       "match: %#llx, the next after the counter, or one more; read for up to %u ms)", c, cmp, p, first,
	       CMP_READS);
	spin_us(PERIODIC_RUN * SHORT_US);
	k = IRQ_SEEN(V)->count;
	periods = us_from_tsc(rdtsc() - t0) / SHORT_US;
	report(k >= 2 && k <= periods + 1,
	       "periodic: %u interrupts in %llu periods' time (2..%llu: one a period at most, more than a "
	       "one-shot's 1 however late a busy host runs them)", k, periods, periods + 1);
	ioapic_set_masked(h.gsi, true);
	halt();
	timer_off(n);
	run();
}

/* ---- 2.3.9.1, 2.3.6: level and edge through the IOAPIC; the status register --------- */

static unsigned level_timer;

static void level_ack(unsigned vector)
{
	if (vector != V)
		return;
	status_clear(level_timer, 1u << level_timer);
	if (IRQ_SEEN(V)->count >= LEVEL_STORM)
		ioapic_set_masked(h.gsi, true);
}

static u64 arm_us(unsigned n, u64 us)
{
	u64 t = rdtsc();

	hpet_reg_write(HPET_TN_CMP(n), hpet_counter_read32() + (u32)counts_from_us(us));
	return t;
}

/*
 * Enable timer n's interrupt (conf) with its comparator armed well past the
 * checks' window first: enabling it with a comparator the counter has
 * passed fires at once on QEMU 7.2 (hpet-passed-comparator-32), and that
 * interrupt, raised from QEMU's main loop, came after the check's reset
 * when a busy host kept the loop back (an edge one-shot "took 2").
 */
static void enable_ahead(unsigned n, u32 conf)
{
	conf_write(n, conf & ~HPET_TN_INT_ENB_CNF);
	arm_us(n, MUST_COME_US + MUST_NOT_US);
	conf_write(n, conf);
}

/*
 * Arm timer n half a period ahead and wait past it: the status bit a status
 * left set from before cannot pass for this expiry, and none stays pending.
 */
static void arm_and_fire(unsigned n)
{
	arm_us(n, SHORT_US / 2);
	spin_us(SHORT_US);
	pending_within(n, MUST_COME_US);
}

static void level_checks(unsigned n, u32 route)
{
	struct ioapic_route r = {h.gsi, IOAPIC_LEVEL, IOAPIC_ACTIVE_HIGH};
	bool set, held;

	ioapic_route(&r, V, apic_id());
	ioapic_set_masked(h.gsi, true);
	timer_off(n);
	enable_ahead(n, HPET_TN_32MODE_CNF | HPET_TN_INT_TYPE_CNF | HPET_TN_INT_ENB_CNF | route);
	arm_us(n, SHORT_US / 2);
	set = pending_within(n, MUST_COME_US);
	spin_us(200);
	held = pending(n);
	report(set, "level: timer %u's status bit %s within 200 ms of a comparator 0.5 ms ahead", n,
	       set ? "set" : "never set");
	report(held, "level: its status bit %s 200 us later (held until cleared)", held ? "still set" : "clear");
	status_clear(n, 0);
	report(pending(n), "level: writing 0 to the status register leaves its bit %s (set)",
	       pending(n) ? "set" : "clear");
	/* set again (whatever the 0 did), then cleared by a 1 */
	arm_and_fire(n);
	status_clear(n, 1u << n);
	report(!pending(n), "level: writing 1 to its bit leaves it %s (clear)", pending(n) ? "set" : "clear");
	/* the line is held: unmasking the input with the status set delivers it */
	arm_and_fire(n);
	regs_irq_reset(V);
	level_timer = n;
	regs_irq_hook = level_ack;
	ioapic_set_masked(h.gsi, false);
	spin_us(SHORT_US);
	regs_irq_hook = NULL;
	ioapic_set_masked(h.gsi, true);
	report(IRQ_SEEN(V)->count == 1,
	       "level: unmasking its input with the status set took %u interrupts (1: the held line, dropped "
	       "by the status clear)", IRQ_SEEN(V)->count);
	/* 2.3.8: "the timer will still operate and generate appropriate status bits" without INT_ENB */
	timer_off(n);
	conf_write(n, HPET_TN_32MODE_CNF | HPET_TN_INT_TYPE_CNF | route);
	arm_us(n, SHORT_US / 2);
	set = pending_within(n, MUST_COME_US);
	report_kfail(set, DEFECT_QEMU("hpet-status-needs-int-enb"),
		     "level, Tn_INT_ENB_CNF 0: timer %u's status bit %s within 200 ms of its comparator (set: "
		     "only the interrupt is disabled)", n, set ? "set" : "never set");
	timer_off(n);
}

static void edge_checks(unsigned n, u32 route)
{
	struct ioapic_route r = {h.gsi, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};
	u64 t0, late;

	ioapic_route(&r, V, apic_id());
	timer_off(n);
	enable_ahead(n, HPET_TN_32MODE_CNF | HPET_TN_INT_ENB_CNF | route);
	regs_irq_reset(V);
	t0 = arm_us(n, SHORT_US / 2);
	{
		u64 end = rdtsc() + tsc_from_us(MUST_COME_US);

		while (!IRQ_SEEN(V)->count && rdtsc() < end)
			cpu_relax();
	}
	spin_us(MUST_NOT_US);
	late = IRQ_SEEN(V)->count ? IRQ_SEEN(V)->last_tsc - t0 : 0;
	report(IRQ_SEEN(V)->count == 1,
	       "edge: timer %u's one-shot took %u interrupts (1 within 200 ms, none in the %u ms after)", n,
	       IRQ_SEEN(V)->count, MUST_NOT_US / 1000);
	report(late >= tsc_from_us(SHORT_US / 2) * (100 - RATE_TOLERANCE_PCT) / 100,
	       "edge: its interrupt came %llu us after the comparator was written 500 us ahead (not before, "
	       "less %u%%)", us_from_tsc(late), RATE_TOLERANCE_PCT);
	ioapic_set_masked(h.gsi, true);
	timer_off(n);
}

void hpet_checks(void)
{
	const char *why = hpet_find();
	u32 route;

	if (why) {
		report_skip("no HPET: %s", why);
		return;
	}
	hpet_report_found();
	h.hz = FSEC_PER_SEC / hpet_reg_read(HPET_GCAP_PERIOD);
	counter_checks();
	readers_checks();
	h.t = hpet_timers() - 1;
	h.gsi = hpet_timer_gsi_above_isa(h.t);
	if (!h.gsi || !ioapic_init()) {
		report_skip("timers: timer %u can drive no IOAPIC input above the ISA lines (route cap %#x): "
			    "run on q35", h.t, hpet_route_cap(h.t));
		return;
	}
	route = h.gsi << HPET_TN_INT_ROUTE_SHIFT;
	irq_enable();
	mode32_checks(h.t, route);
	mode64_checks(h.t, route);
	level_checks(h.t, route);
	edge_checks(h.t, route);
	{
		struct ioapic_route r = {h.gsi, IOAPIC_EDGE, IOAPIC_ACTIVE_HIGH};

		/* timer 0 on the same input, for periodic mode (timer 0 is the one every HPET makes periodic) */
		ioapic_route(&r, V, apic_id());
		ioapic_set_masked(h.gsi, true);
		if (hpet_route_cap(0) & (1u << h.gsi))
			periodic_checks(0, route);
		else
			report_skip("periodic: timer 0 cannot drive input %u (route cap %#x)", h.gsi,
				    hpet_route_cap(0));
	}
	irq_disable();
}
