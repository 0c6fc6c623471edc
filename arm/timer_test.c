/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_test: the arm64 generic timer as the architecture defines it, on
 * every vCPU and for both EL1 timers (virtual CNTV, physical CNTP), and
 * the counters never going backwards between vCPUs.
 *
 * Why: a guest kernel programs its tick and every hrtimer through these
 * registers and trusts the interrupt to be a level that follows ISTATUS.
 * A hypervisor that gets TVAL's sign, IMASK or the level wrong loses or
 * repeats interrupts; one whose counters differ between vCPUs breaks
 * every clock built on them.
 *
 * What it checks, per vCPU and timer (D is 1/10 s of CNTFRQ):
 *  1. tval-write: TVAL = D, IMASK set, sets CVAL to the counter at the
 *     write plus D; ISTATUS stays clear.
 *  2. tval-read: with CVAL = now + D, then now - D, TVAL reads D (-D)
 *     less the time the reads took.
 *  3. istatus: ISTATUS is clear with CVAL ahead of the counter and set
 *     once the counter has reached it.
 *  4. imask: with IMASK set the condition (ISTATUS) holds but no
 *     interrupt is taken; clearing IMASK delivers it.
 *  5. fire: an interrupt for CVAL = now + D/100 arrives, not before CVAL.
 *  6. level: with IRQs masked at the CPU, a met condition shows as a
 *     pending IRQ in ISR_EL1; disabling the timer (6a) or moving CVAL into
 *     the future (6b) must withdraw it (a level, not a latched edge), and
 *     unmasking then must take no interrupt.
 * Then, all vCPUs at once:
 *  7. counter: the warp check of common/warp/warp.c: the vCPUs take strict
 *     turns (common/warp/arm64/warp_arm64.c) and each read
 *     of CNTVCT (then CNTPCT) must not be earlier than the previous one,
 *     whichever vCPU made it. RESULT lines give per-vCPU warps and the
 *     quickest hand-off, below which an offset between vCPUs cannot show;
 *     the total, timer.counter.<kind>.warps, is the check's BOUND line (0..0).
 * And against the PL031 RTC (lib/arm64/pl031.c; SKIP without one):
 *  8. freq: CNTVCT's rate on vCPU 0 against the PL031's seconds over
 *     window_s (lib/ratecheck.c: the bound is the marks' brackets plus
 *     the RTC's own 1000 ppm tolerance): CNTFRQ must be the rate it keeps.
 * And the edges emulations got wrong, per vCPU and timer:
 *  9. tval-write (as 1) of 0, -1000 and INT32_MIN (no lower than minus
 *     the counter): CVAL is the counter plus the value sign-extended and
 *     the condition is met at once, ISTATUS set right after the write's
 *     ISB (taken unsigned, -1000 lands 2^32 - 1000 ticks ahead: over 4 s
 *     at any CNTFRQ up to 1 GHz). Then INT32_MIN as it is: below 2^31 of
 *     count (34 s at 62.5 MHz) CVAL wraps to the top of the 64-bit
 *     comparison, a future, and ISTATUS must stay clear.
 * 10. tval-irq: the same values written unmasked: the interrupt is taken
 *     within D/100 (1 ms) of the write, the best of 3 tries (a retry keeps
 *     a host's preemption out; TCG takes it at the next translation block,
 *     KVM on the next entry: microseconds).
 * 11. tval-read (as 2) with CVAL = now + 2^31 + D, now - 2^31 - D and now +
 *     2^32 + D: TVAL is (CVAL - counter)[31:0] read signed, so negative,
 *     positive and D.
 * 12. far: CVAL 2^63, 2^64 - 1024 and 2^64 - 1 with the counter below
 *     2^62, unmasked: no interrupt and ISTATUS never set over D/10 (no
 *     early fire, no storm: the 64-bit comparison is centuries away).
 * The PL031 itself (time of day, match interrupt) is arm/pl031_test.c.
 * The EL2 view (the virtual counter offset) is arm/cntvoff_test.c.
 *
 * Arguments, key=value:
 *   loops=N       reads per vCPU in step 7 (default 1000)
 *   phases=LIST   which of regs (1-6), counter (7), freq (8), tval (9-11),
 *                 far (12) to run (default all)
 *   window_s=N    step 8's window, seconds (default 2)
 *   fault=NAME    test-only, makes a check fail to show it can: tval (TVAL
 *                 written as 3D/2 where D is expected), imask (IMASK left
 *                 clear in step 4), latch (step 6 never withdraws the
 *                 condition), warp (the last vCPU's counter reads come out
 *                 1/10 s early), freq (CNTFRQ taken 0.5% high in step 8);
 *                 and as a buggy emulation behaves: tval_unsigned (CVAL =
 *                 counter + (u32)TVAL written in place of TVAL), tval_clamp
 *                 (TVAL read as the time left, clamped to 0..INT32_MAX),
 *                 istatus (ISTATUS read clear while IMASK is set),
 *                 cval_signed (a CVAL with bit 63 set taken as 0),
 *                 cval_wrap (CVAL plus the counter, as an offset, summed in
 *                 64 bits and left wrapped)
 * Anything else is a failure.
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/pl031.h"
#include "ratecheck.h"
#include "report.h"
#include "units.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"
#include "arm64/warp_arch.h"
#include "wait.h"

#define MAX_LOOPS		10000000ull
/* ISR_EL1.I: an IRQ is pending at this CPU, masked or not */
#define ISR_EL1_I		(1 << 7)
#define D_PER_SECOND		10
/* how long to wait for something that must happen, in D (1/2 s) */
#define WAIT_D			5
/* how long to look for something that must not happen: D/10, thousands of instructions anywhere */
#define QUIET_DIVISOR		10
#define FIRE_DIVISOR		100
/* step 10: the bound on an interrupt already due, D/100 (1 ms), and tries at it */
#define PROMPT_DIVISOR		100
#define PROMPT_TRIES		3
/* step 12: how far ahead of the counter a CVAL must be to count as far */
#define FAR_MIN			(1ull << 62)

#define MAX_WINDOW_S		60
/* a 1 Hz reference: one mark per end (each costs a second); lib/ratecheck.h's windows */
#define PL031_RATE_TRIES	1
#define FAULT_FREQ_PPM		5000

enum fault {
	FAULT_NONE, FAULT_TVAL, FAULT_IMASK, FAULT_LATCH, FAULT_WARP, FAULT_FREQ,
	FAULT_TVAL_UNSIGNED, FAULT_TVAL_CLAMP, FAULT_ISTATUS, FAULT_CVAL_SIGNED, FAULT_CVAL_WRAP,
};
static const char *const fault_names[] = {
	"none", "tval", "imask", "latch", "warp", "freq",
	"tval_unsigned", "tval_clamp", "istatus", "cval_signed", "cval_wrap",
};

/* The steps of phases=, each its index in phase_names[]. */
enum phase { PHASE_REGS, PHASE_COUNTER, PHASE_FREQ, PHASE_TVAL, PHASE_FAR };
static const char *const phase_names[] = {
	[PHASE_REGS] = "regs", [PHASE_COUNTER] = "counter", [PHASE_FREQ] = "freq",
	[PHASE_TVAL] = "tval", [PHASE_FAR] = "far",
};

static struct {
	u64 loops;
	unsigned fault;		/* enum fault */
	unsigned phases;
	u64 window_s;
} opt;

static const char *const kind_names[] = { [TIMER_VIRT] = "virt", [TIMER_PHYS] = "phys" };

static u64 tick_d;		/* D: CNTFRQ / D_PER_SECOND */

/* ---- registers ----------------------------------------------------------- */

/* TVAL; fault=tval_clamp reads it as the time left, clamped to 0..INT32_MAX. */
static s32 read_tval(enum timer_kind k)
{
	s64 left;

	if (opt.fault != FAULT_TVAL_CLAMP)
		return timer_get_tval(k);
	left = (s64)(timer_get_cval(k) - timer_count(k));
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (s32)left;
}

/* TVAL; fault=tval_unsigned sets CVAL = counter + (u32)tval instead (ctl as it is). */
static void write_tval(enum timer_kind k, s32 tval, u64 ctl)
{
	if (opt.fault == FAULT_TVAL_UNSIGNED)
		timer_arm(k, timer_count(k) + (u32)tval, ctl);
	else
		timer_write_tval(k, tval);
}

/* ISTATUS with IMASK set; fault=istatus reads it as the (masked) interrupt output. */
static bool masked_istatus(enum timer_kind k)
{
	return opt.fault != FAULT_ISTATUS && timer_fired(k);
}

static bool irq_pending_at_cpu(void)
{
	isb();
	return read_sysreg(isr_el1) & ISR_EL1_I;
}

/* A condition on one timer, as wait_cond_ticks() asks it. */
struct timer_cond {
	enum timer_kind k;
	bool (*cond)(enum timer_kind);
	bool seen;		/* check_far(): ISTATUS seen set */
};

static bool timer_cond_holds(void *arg)
{
	struct timer_cond *tc = arg;

	return tc->cond(tc->k);
}

/* Wait until cond() or ticks of the counter have passed; returns cond(), asked once more at the end. */
static bool wait_for(enum timer_kind k, bool (*cond)(enum timer_kind), u64 ticks)
{
	struct timer_cond tc = { .k = k, .cond = cond };

	wait_cond_ticks(timer_cond_holds, &tc, ticks);
	return cond(k);
}

static bool got_irq(enum timer_kind k)
{
	return atomic_load(&timer_irq_seen(smp_id())->count) != 0;
}

static bool pending(enum timer_kind k)
{
	return irq_pending_at_cpu();
}

static bool not_pending(enum timer_kind k)
{
	return !irq_pending_at_cpu();
}

/* ---- 3-6. one timer on this vCPU ------------------------------------------ */

static void check_istatus(enum timer_kind k, int cpu)
{
	bool ahead, reached;

	timer_arm(k, timer_count(k) + WAIT_D * tick_d, CNT_CTL_IMASK);
	ahead = masked_istatus(k);
	timer_arm(k, timer_count(k), CNT_CTL_IMASK);
	reached = masked_istatus(k);
	timer_stop(k);
	report(!ahead && reached, "vCPU %d %s: istatus: clear before CVAL (%s), set once reached (%s)", cpu,
	       kind_names[k], ahead ? "set" : "clear", reached ? "set" : "clear");
}

/* IRQs are enabled at the CPU around each of these. */
static void check_imask(enum timer_kind k, int cpu)
{
	struct timer_irq_seen *v = timer_irq_seen(cpu);
	bool while_masked, met, after;

	v->count = 0;
	timer_arm(k, timer_count(k), opt.fault == FAULT_IMASK ? 0 : CNT_CTL_IMASK);
	irq_enable();
	while_masked = wait_for(k, got_irq, tick_d / QUIET_DIVISOR);
	met = masked_istatus(k) || while_masked;
	timer_set_ctl(k, CNT_CTL_ENABLE);
	after = wait_for(k, got_irq, WAIT_D * tick_d);
	irq_disable();
	timer_stop(k);
	report(!while_masked && met && after,
	       "vCPU %d %s: imask: ISTATUS %s and no interrupt while masked (%s), one once unmasked (%s)", cpu,
	       kind_names[k], met ? "set" : "clear", while_masked ? "taken" : "none", after ? "taken" : "none");
}

static void check_fire(enum timer_kind k, int cpu)
{
	struct timer_irq_seen *v = timer_irq_seen(cpu);
	u64 cval = timer_count(k) + tick_d / FIRE_DIVISOR;
	bool came;

	v->count = 0;
	timer_arm(k, cval, 0);
	irq_enable();
	came = wait_for(k, got_irq, WAIT_D * tick_d);
	irq_disable();
	timer_stop(k);
	if (!came) {
		report(false, "vCPU %d %s: fire: no interrupt within %d/%d s of CVAL", cpu, kind_names[k], WAIT_D,
		       D_PER_SECOND);
		return;
	}
	report(v->at >= cval && v->istatus && v->count == 1,
	       "vCPU %d %s: fire: one interrupt (%u), %llu ticks after CVAL, ISTATUS %s in the handler", cpu,
	       kind_names[k], v->count, v->at - cval, v->istatus ? "set" : "clear");
}

static void move_cval_ahead(enum timer_kind k)
{
	timer_set_cval(k, timer_count(k) + WAIT_D * tick_d);
}

/* Step 6: how the met condition is withdrawn. */
static const struct withdraw {
	const char *name;
	void (*apply)(enum timer_kind k);
} withdrawals[] = {
	{ "disabled", timer_stop },
	{ "CVAL moved ahead", move_cval_ahead },
};

static void check_level(enum timer_kind k, int cpu, const struct withdraw *w)
{
	struct timer_irq_seen *v = timer_irq_seen(cpu);
	bool asserted, withdrawn, taken;

	v->count = 0;
	timer_arm(k, timer_count(k), 0);
	asserted = wait_for(k, pending, WAIT_D * tick_d);
	/* fault=latch leaves the condition met, as a latched interrupt would stay */
	if (opt.fault != FAULT_LATCH)
		w->apply(k);
	withdrawn = wait_for(k, not_pending, tick_d / QUIET_DIVISOR);
	irq_enable();
	taken = wait_for(k, got_irq, tick_d / QUIET_DIVISOR);
	irq_disable();
	timer_stop(k);
	report(asserted && withdrawn && !taken,
	       "vCPU %d %s: level: IRQ pending once met (%s), withdrawn when %s (%s), none taken after (%s)", cpu,
	       kind_names[k], asserted ? "yes" : "no", w->name, withdrawn ? "yes" : "no",
	       taken ? "one was" : "none");
}

/* ---- TVAL: steps 1, 2 and 9-11 --------------------------------------------- */

/*
 * TVAL = ds * D + ticks; a row runs in its phase. CVAL = counter + TVAL
 * wraps to the top (a future) while the counter is below -TVAL: a row
 * that must be met at once is kept from below -counter.
 */
enum tval_floor { TVAL_AS_IS, TVAL_ABOVE_MINUS_COUNTER };
static const struct tval_write {
	unsigned phase;
	s64 ds;
	s32 ticks;
	enum tval_floor floor;
} tval_writes[] = {
	{ PHASE_REGS, 1, 0, TVAL_AS_IS },
	{ PHASE_TVAL, 0, 0, TVAL_AS_IS },
	{ PHASE_TVAL, 0, -1000, TVAL_AS_IS },
	{ PHASE_TVAL, 0, INT32_MIN, TVAL_ABOVE_MINUS_COUNTER },
	{ PHASE_TVAL, 0, INT32_MIN, TVAL_AS_IS },
};

/* CVAL = now + ds * D + extra. */
static const struct tval_read {
	unsigned phase;
	s64 ds, extra;
} tval_reads[] = {
	{ PHASE_REGS, 1, 0 }, { PHASE_REGS, -1, 0 },
	{ PHASE_TVAL, 1, 1ll << 31 }, { PHASE_TVAL, -1, -(1ll << 31) }, { PHASE_TVAL, 1, 1ll << 32 },
};

static s32 tval_of(const struct tval_write *c, u64 counter)
{
	s64 tval = c->ds * (s64)tick_d + c->ticks;

	if (c->floor == TVAL_ABOVE_MINUS_COUNTER && counter < (u64)-tval)
		return (s32)-(s64)counter;
	return (s32)tval;
}

static void check_tval_write(enum timer_kind k, int cpu, const struct tval_write *c)
{
	u64 t0, t1, cval;
	s64 moved;
	s32 tval;
	bool set, want_set, want_clear;

	timer_arm(k, timer_count(k) + WAIT_D * tick_d, CNT_CTL_IMASK);
	t0 = timer_count(k);
	tval = tval_of(c, t0);
	write_tval(k, opt.fault == FAULT_TVAL && tval > 0 ? tval + tval / 2 : tval, CNT_CTL_IMASK);
	set = masked_istatus(k);
	t1 = timer_count(k);
	cval = timer_get_cval(k);
	moved = (s64)(cval - t0);
	timer_stop(k);
	/*
	 * ISTATUS is read after the write, before t1: met for TVAL <= 0 unless
	 * CVAL wrapped to the top (then beyond t1), not met for CVAL beyond t1.
	 */
	want_clear = cval > t1;
	want_set = !want_clear && tval <= 0;
	report((want_set ? set : want_clear ? !set : true) && moved >= tval && moved <= tval + (s64)(t1 - t0),
	       "vCPU %d %s: tval-write: TVAL = %d, masked: ISTATUS %s right after (want %s), CVAL now%+lld (want "
	       "%d..%+lld)", cpu, kind_names[k], tval, set ? "set" : "clear",
	       want_set ? "set" : want_clear ? "clear" : "either", moved, tval, tval + (s64)(t1 - t0));
}

/* A row met at once (TVAL <= 0 and CVAL not wrapped to the top). */
static void check_tval_irq(enum timer_kind k, int cpu, const struct tval_write *c)
{
	struct timer_irq_seen *v = timer_irq_seen(cpu);
	u64 prompt = tick_d / PROMPT_DIVISOR, best = ~0ull, t0;
	s32 tval = 0;
	int tries;

	for (tries = 1;; tries++) {
		tval = tval_of(c, timer_count(k));
		if (tval > 0 || timer_count(k) < (u64)-(s64)tval)
			return;	/* not met at once: step 9 checked that */
		v->count = 0;
		timer_arm(k, timer_count(k) + WAIT_D * tick_d, 0);
		irq_enable();
		t0 = timer_count(k);
		write_tval(k, tval, 0);
		wait_for(k, got_irq, WAIT_D * tick_d);
		irq_disable();
		timer_stop(k);
		if (!v->count) {
			report(false, "vCPU %d %s: tval-irq: TVAL = %d written unmasked: no interrupt within %d/%d s",
			       cpu, kind_names[k], tval, WAIT_D, D_PER_SECOND);
			return;
		}
		best = min(best, v->at - t0);
		if (best <= prompt || tries == PROMPT_TRIES)
			break;
	}
	report(best <= prompt, "vCPU %d %s: tval-irq: TVAL = %d written unmasked: interrupt %llu ticks after "
	       "(best of %d, bound %llu)", cpu, kind_names[k], tval, best, tries, prompt);
}

static void check_tval_read(enum timer_kind k, int cpu, const struct tval_read *c)
{
	s64 d = c->ds * (s64)tick_d + c->extra;
	u64 t0, t1;
	s32 tval;

	t0 = timer_count(k);
	timer_arm(k, t0 + (u64)d, CNT_CTL_IMASK);
	tval = read_tval(k);
	t1 = timer_count(k);
	timer_stop(k);
	/* TVAL is (d - e)[31:0] for the e (counter - t0) at the read, 0 <= e <= t1 - t0 */
	report((u32)((u64)d - (u64)(s64)tval) <= t1 - t0,
	       "vCPU %d %s: tval-read: CVAL = now%+lld: TVAL %d, want %d less up to %llu ticks of reads", cpu,
	       kind_names[k], d, tval, (s32)(u32)d, t1 - t0);
}

static void tval_on(enum timer_kind k, int cpu)
{
	for (size_t i = 0; i < ARRAY_SIZE(tval_writes); i++) {
		if (!arg_listed(opt.phases, tval_writes[i].phase))
			continue;
		check_tval_write(k, cpu, &tval_writes[i]);
		check_tval_irq(k, cpu, &tval_writes[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(tval_reads); i++)
		if (arg_listed(opt.phases, tval_reads[i].phase))
			check_tval_read(k, cpu, &tval_reads[i]);
}

/* ---- 12. far ------------------------------------------------------------------ */

/* An interrupt taken, or ISTATUS seen set (in tc->seen). */
static bool irq_or_istatus(void *arg)
{
	struct timer_cond *tc = arg;

	return tc->cond(tc->k) || (tc->seen = timer_fired(tc->k));
}

/* Comparisons a 64-bit counter reaches in centuries. */
static const u64 far_cvals[] = { 1ull << 63, 0ull - 1024, UINT64_MAX };

static void check_far(enum timer_kind k, int cpu, u64 cval)
{
	struct timer_irq_seen *v = timer_irq_seen(cpu);
	u64 now = timer_count(k), written = cval;
	struct timer_cond tc = { .k = k, .cond = got_irq };

	if (cval - now < FAR_MIN) {
		report_skip("vCPU %d %s: far: counter %#llx too near CVAL %#llx", cpu, kind_names[k], now, cval);
		return;
	}
	if (opt.fault == FAULT_CVAL_SIGNED && (s64)cval < 0)
		written = 0;
	else if (opt.fault == FAULT_CVAL_WRAP)
		written = cval + now;
	v->count = 0;
	timer_arm(k, written, 0);
	irq_enable();
	wait_cond_ticks(irq_or_istatus, &tc, tick_d / QUIET_DIVISOR);
	irq_disable();
	timer_stop(k);
	report(!v->count && !tc.seen, "vCPU %d %s: far: CVAL %#llx, counter %#llx: no interrupt (%s), ISTATUS "
	       "clear throughout (%s) over %llu ms", cpu, kind_names[k], cval, now, v->count ? "taken" : "none",
	       tc.seen ? "set" : "yes", MSEC_PER_SEC / D_PER_SECOND / QUIET_DIVISOR);
}

static void timers_on(void *unused)
{
	int cpu = smp_id();

	for (enum timer_kind k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		gic_enable_irq(timer_irq(k));
		tval_on(k, cpu);
		if (arg_listed(opt.phases, PHASE_REGS)) {
			check_istatus(k, cpu);
			check_imask(k, cpu);
			check_fire(k, cpu);
			for (size_t i = 0; i < ARRAY_SIZE(withdrawals); i++)
				check_level(k, cpu, &withdrawals[i]);
		}
		for (size_t i = 0; i < ARRAY_SIZE(far_cvals) && arg_listed(opt.phases, PHASE_FAR); i++)
			check_far(k, cpu, far_cvals[i]);
		gic_disable_irq(timer_irq(k));
	}
}

/* ---- 7. counters across vCPUs ------------------------------------------- */

static u64 read_cntvct(void)
{
	return timer_count(TIMER_VIRT);
}

static u64 read_cntpct(void)
{
	return timer_count(TIMER_PHYS);
}

static u64 (*const counter_reads[])(void) = {
	[TIMER_VIRT] = read_cntvct,
	[TIMER_PHYS] = read_cntpct,
};

/* RESULT lines timer.counter.<kind>.vcpuN.<figure> */
static const struct warp_result warp_vcpu_results[] = {
	{ WARP_WARPS, "warps", "count" },
	{ WARP_HANDOFFS, "handoffs", "count" },
	{ WARP_MIN_HANDOFF, "min_handoff_ticks", "ticks" },
};
static const struct warp_report warp_results = {
	warp_vcpu_results, ARRAY_SIZE(warp_vcpu_results), NULL, 0,
};

/* The warp check of common/warp/warp.c, in strict turns (common/warp/arm64/warp_arm64.c); fault=warp: the last vCPU's reads D early. */
static void check_counter(enum timer_kind k)
{
	struct warp_check check = {
		.arch = &warp_arch_arm64,
		.read = counter_reads[k],
		.mask = WARP_MASK_64,
		.loops = opt.loops,
		.fault_skew = opt.fault == FAULT_WARP ? tick_d : 0,
	};
	struct warp_findings t;
	char prefix[32], lead[16];

	warp_run(&check, &t);
	snprintf(prefix, sizeof(prefix), "timer.counter.%s.", kind_names[k]);
	snprintf(lead, sizeof(lead), "%s: ", kind_names[k]);
	warp_report_vcpus(&warp_results, prefix);
	warp_report_handoff(&t, lead, "ticks");
	warp_report_check(prefix, &t,
			  "counter %s never goes backwards across %d vCPUs (%llu warps in %llu "
			  "reads each, %llu from another vCPU's)",
			  kind_names[k], cpu_count(), t.warps, opt.loops, t.handoffs);
}

/* ---- 8. against the PL031 --------------------------------------------- */

static void check_freq(void)
{
	struct ratecheck rc = {
		.clock = "cntvct",
		.read = read_cntvct,
		.hz = timer_freq(),
		.tries = PL031_RATE_TRIES,
		.windows = RATECHECK_WINDOWS,
		.usable_ppb = RATECHECK_USABLE_PPB,
	};

	if (opt.fault == FAULT_FREQ)
		rc.hz += rc.hz / PPM_PER_UNIT * FAULT_FREQ_PPM;
	rc.window = rc.hz * opt.window_s;
	report_prefix_push("freq");
	if (ratecheck_set_refs(&rc, "pl031"))
		report_abort("no pl031 in this arch's reference clocks");
	if (rc.n)
		ratecheck_run(&rc, 0);
	report_prefix_pop();
}

/* ---- main ------------------------------------------------------------------ */

static const struct arg args[] = {
	ARG_UINT("loops", &opt.loops, 1, MAX_LOOPS, "1000", "reads per vCPU in each warp run"),
	ARG_LIST("phases", &opt.phases, phase_names, "regs,counter,freq,tval,far", "steps to run"),
	ARG_UINT("window_s", &opt.window_s, 1, MAX_WINDOW_S, "2", "the frequency check's window"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

static void check_regs(void)
{
	if (!timer_irq_record_install()) {
		report_skip("no GIC or no timer PPIs: the timers' registers and interrupts are not checked");
		return;
	}
	on_cpus(timers_on, NULL);
}

int main(int argc, char **argv)
{
	args_parse_or_abort(&arg_table, argc, argv);
	if (cpu_count() > NR_CPUS)
		report_abort("%d vCPUs, this test keeps results for %d", cpu_count(), NR_CPUS);
	tick_d = timer_freq() / D_PER_SECOND;
	if (!tick_d)
		report_abort("CNTFRQ_EL0 is %llu: no counter frequency", timer_freq());
	report_info("CNTFRQ %llu Hz, running at EL%u", timer_freq(), boot_el());
	report_result("timer.cntfrq_hz", "Hz", "%llu", timer_freq());
	/* the steps each vCPU runs on its own timers */
	if (arg_listed(opt.phases, PHASE_REGS) || arg_listed(opt.phases, PHASE_TVAL) ||
	    arg_listed(opt.phases, PHASE_FAR))
		check_regs();
	if (arg_listed(opt.phases, PHASE_COUNTER)) {
		check_counter(TIMER_VIRT);
		check_counter(TIMER_PHYS);
	}
	if (arg_listed(opt.phases, PHASE_FREQ))
		check_freq();
	return report_summary();
}
