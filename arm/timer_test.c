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
 *  1. tval-read: with CVAL = now + D, TVAL reads CVAL - the counter, a
 *     value between D minus the time the reads took and D.
 *  2. tval-write: TVAL = D sets CVAL to the counter at the write plus D.
 *  3. tval-past: with CVAL = now - D, TVAL reads negative, at most -D.
 *  4. istatus: ISTATUS is clear with CVAL ahead of the counter and set
 *     once the counter has reached it.
 *  5. imask: with IMASK set the condition (ISTATUS) holds but no
 *     interrupt is taken; clearing IMASK delivers it.
 *  6. fire: an interrupt for CVAL = now + D/100 arrives, not before CVAL.
 *  7. level: with IRQs masked at the CPU, a met condition shows as a
 *     pending IRQ in ISR_EL1; disabling the timer (7a) or moving CVAL into
 *     the future (7b) must withdraw it (a level, not a latched edge), and
 *     unmasking then must take no interrupt.
 * Then, all vCPUs at once:
 *  8. counter: the vCPUs take strict turns (a fair lock) and each read
 *     of CNTVCT (then CNTPCT) must not be earlier than the previous one,
 *     whichever vCPU made it. RESULT lines give per-vCPU warps and the
 *     quickest hand-off, below which an offset between vCPUs cannot show.
 * And against the PL031 RTC (lib/arm64/pl031.c; SKIP without one):
 *  9. freq: CNTVCT's rate on vCPU 0 against the PL031's seconds over
 *     window_s (lib/ratecheck.c: the bound is the marks' brackets plus
 *     the RTC's own 1000 ppm tolerance): CNTFRQ must be the rate it keeps.
 * The PL031 itself (time of day, match interrupt) is arm/pl031_test.c.
 * The EL2 view (the virtual counter offset) is arm/cntvoff_test.c.
 *
 * Arguments, key=value:
 *   loops=N       reads per vCPU in step 8 (default 1000)
 *   phases=LIST   which of regs (1-7), counter (8), freq (9) to run
 *                 (default all)
 *   window_s=N    step 9's window, seconds (default 2)
 *   fault=NAME    test-only, makes a check fail to show it can: tval (TVAL
 *                 written as 3D/2 where D is expected), imask (IMASK left
 *                 clear in step 5), latch (step 7 never withdraws the
 *                 condition, as a latched interrupt would stay), warp (the
 *                 last vCPU's counter reads come out 1/10 s early), freq
 *                 (CNTFRQ taken 0.5% high in step 9)
 * Anything else is a failure.
 */
#include "libc.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/pl031.h"
#include "ratecheck.h"
#include "report.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"

#define MAX_LOOPS		10000000ull
/* ISR_EL1.I: an IRQ is pending at this CPU, masked or not */
#define ISR_EL1_I		(1 << 7)
#define D_PER_SECOND		10
/* how long to wait for something that must happen, in D (1/2 s) */
#define WAIT_D			5
/* how long to look for something that must not happen: D/10, thousands of instructions anywhere */
#define QUIET_DIVISOR		10
#define FIRE_DIVISOR		100

#define MAX_WINDOW_S		60
/* a 1 Hz reference: one mark per end, each window measured again when disturbed */
#define RATE_TRIES		1
#define RATE_WINDOWS		3
#define RATE_USABLE_PPB		4000000
#define FAULT_FREQ_PPM		5000

enum fault { FAULT_NONE, FAULT_TVAL, FAULT_IMASK, FAULT_LATCH, FAULT_WARP, FAULT_FREQ };
static const char *const fault_names[] = { "none", "tval", "imask", "latch", "warp", "freq" };

enum phase {
	PHASE_REGS = 1 << 0,
	PHASE_COUNTER = 1 << 1,
	PHASE_FREQ = 1 << 2,
	PHASE_ALL = (1 << 3) - 1,
};
static const char *const phase_names[] = { "regs", "counter", "freq" };

static struct {
	u64 loops;
	unsigned fault;		/* enum fault */
	unsigned phases;
	u64 window_s;
} opt;

static const char *const kind_names[] = { [TIMER_VIRT] = "virt", [TIMER_PHYS] = "phys" };

/* What one vCPU's interrupt handler saw. */
struct vcpu_irqs {
	u32 count;
	u64 at;			/* the counter in the handler */
	bool istatus;		/* ISTATUS in the handler */
} __aligned(64);

static struct vcpu_irqs irqs[NR_CPUS];
static u64 tick_d;		/* D: CNTFRQ / D_PER_SECOND */

/* ---- registers ----------------------------------------------------------- */

static void write_ctl(enum timer_kind k, u64 ctl)
{
	if (k == TIMER_VIRT)
		write_sysreg(ctl, cntv_ctl_el0);
	else
		write_sysreg(ctl, cntp_ctl_el0);
	isb();
}

static s32 read_tval(enum timer_kind k)
{
	isb();
	return (s32)(k == TIMER_VIRT ? read_sysreg(cntv_tval_el0) : read_sysreg(cntp_tval_el0));
}

/* CVAL set and the timer enabled with ctl's IMASK. */
static void arm_at(enum timer_kind k, u64 cval, u64 ctl)
{
	timer_set_cval(k, cval);
	write_ctl(k, CNT_CTL_ENABLE | ctl);
}

static bool irq_pending_at_cpu(void)
{
	isb();
	return read_sysreg(isr_el1) & ISR_EL1_I;
}

/* Wait until cond() or ticks of the counter have passed; returns cond(). */
static bool wait_for(enum timer_kind k, bool (*cond)(enum timer_kind), u64 ticks)
{
	u64 end = timer_count(k) + ticks;

	while (!cond(k) && timer_count(k) < end)
		cpu_relax();
	return cond(k);
}

static bool got_irq(enum timer_kind k)
{
	return atomic_load(&irqs[smp_id()].count) != 0;
}

static bool pending(enum timer_kind k)
{
	return irq_pending_at_cpu();
}

static bool not_pending(enum timer_kind k)
{
	return !irq_pending_at_cpu();
}

static void timer_irq_handler(struct pt_regs *regs, unsigned irq)
{
	enum timer_kind k = irq == timer_irq(TIMER_VIRT) ? TIMER_VIRT : TIMER_PHYS;
	struct vcpu_irqs *v = &irqs[smp_id()];

	v->at = timer_count(k);
	v->istatus = timer_fired(k);
	/* the level stays up until the timer is quieted */
	timer_stop(k);
	atomic_inc(&v->count);
}

/* ---- 1-7. one timer on this vCPU ------------------------------------------ */

static void check_tval(enum timer_kind k, int cpu)
{
	u64 t0, t1, cval, d = tick_d;
	s32 tval;

	t0 = timer_count(k);
	arm_at(k, t0 + d, CNT_CTL_IMASK);
	tval = read_tval(k);
	t1 = timer_count(k);
	report(tval <= (s64)d && tval >= (s64)d - (s64)(t1 - t0),
	       "vCPU %d %s: tval-read: TVAL %d with CVAL = now + %llu (reads took %llu ticks)", cpu, kind_names[k],
	       tval, d, t1 - t0);

	t0 = timer_count(k);
	timer_set_tval(k, (s32)(opt.fault == FAULT_TVAL ? d + d / 2 : d));
	t1 = timer_count(k);
	cval = timer_get_cval(k);
	report(cval >= t0 + d && cval <= t1 + d,
	       "vCPU %d %s: tval-write: TVAL = %llu gives CVAL now + %lld (the write took %llu ticks)", cpu,
	       kind_names[k], d, (s64)(cval - t0), t1 - t0);

	arm_at(k, timer_count(k) - d, CNT_CTL_IMASK);
	tval = read_tval(k);
	report(tval <= -(s64)d, "vCPU %d %s: tval-past: TVAL %d with CVAL = now - %llu", cpu, kind_names[k], tval,
	       d);
	timer_stop(k);
}

static void check_istatus(enum timer_kind k, int cpu)
{
	bool ahead, reached;

	arm_at(k, timer_count(k) + WAIT_D * tick_d, CNT_CTL_IMASK);
	ahead = timer_fired(k);
	arm_at(k, timer_count(k), CNT_CTL_IMASK);
	reached = timer_fired(k);
	timer_stop(k);
	report(!ahead && reached, "vCPU %d %s: istatus: clear before CVAL (%s), set once reached (%s)", cpu,
	       kind_names[k], ahead ? "set" : "clear", reached ? "set" : "clear");
}

/* IRQs are enabled at the CPU around each of these. */
static void check_imask(enum timer_kind k, int cpu)
{
	struct vcpu_irqs *v = &irqs[cpu];
	bool while_masked, met, after;

	v->count = 0;
	arm_at(k, timer_count(k), opt.fault == FAULT_IMASK ? 0 : CNT_CTL_IMASK);
	local_irq_enable();
	while_masked = wait_for(k, got_irq, tick_d / QUIET_DIVISOR);
	met = timer_fired(k) || while_masked;
	write_ctl(k, CNT_CTL_ENABLE);
	after = wait_for(k, got_irq, WAIT_D * tick_d);
	local_irq_disable();
	timer_stop(k);
	report(!while_masked && met && after,
	       "vCPU %d %s: imask: ISTATUS %s and no interrupt while masked (%s), one once unmasked (%s)", cpu,
	       kind_names[k], met ? "set" : "clear", while_masked ? "taken" : "none", after ? "taken" : "none");
}

static void check_fire(enum timer_kind k, int cpu)
{
	struct vcpu_irqs *v = &irqs[cpu];
	u64 cval = timer_count(k) + tick_d / FIRE_DIVISOR;
	bool came;

	v->count = 0;
	arm_at(k, cval, 0);
	local_irq_enable();
	came = wait_for(k, got_irq, WAIT_D * tick_d);
	local_irq_disable();
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

/* Step 7: how the met condition is withdrawn. */
static const struct withdraw {
	const char *name;
	void (*apply)(enum timer_kind k);
} withdrawals[] = {
	{ "disabled", timer_stop },
	{ "CVAL moved ahead", move_cval_ahead },
};

static void check_level(enum timer_kind k, int cpu, const struct withdraw *w)
{
	struct vcpu_irqs *v = &irqs[cpu];
	bool asserted, withdrawn, taken;

	v->count = 0;
	arm_at(k, timer_count(k), 0);
	asserted = wait_for(k, pending, WAIT_D * tick_d);
	/* fault=latch leaves the condition met, as a latched interrupt would stay */
	if (opt.fault != FAULT_LATCH)
		w->apply(k);
	withdrawn = wait_for(k, not_pending, tick_d / QUIET_DIVISOR);
	local_irq_enable();
	taken = wait_for(k, got_irq, tick_d / QUIET_DIVISOR);
	local_irq_disable();
	timer_stop(k);
	report(asserted && withdrawn && !taken,
	       "vCPU %d %s: level: IRQ pending once met (%s), withdrawn when %s (%s), none taken after (%s)", cpu,
	       kind_names[k], asserted ? "yes" : "no", w->name, withdrawn ? "yes" : "no",
	       taken ? "one was" : "none");
}

static void timers_on(void *unused)
{
	int cpu = smp_id();

	for (enum timer_kind k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		gic_enable_irq(timer_irq(k));
		check_tval(k, cpu);
		check_istatus(k, cpu);
		check_imask(k, cpu);
		check_fire(k, cpu);
		for (size_t i = 0; i < ARRAY_SIZE(withdrawals); i++)
			check_level(k, cpu, &withdrawals[i]);
		gic_disable_irq(timer_irq(k));
	}
}

/* ---- 8. counters across vCPUs ------------------------------------------- */

/*
 * The fairest lock there is: strict turns, vCPU 0, 1, ..., n-1, 0, ...
 * Every read but the first follows another vCPU's (a ticket lock under
 * round-robin TCG was seen handing over twice in 2000 reads: one vCPU's
 * time slice covered all its turns). The turn is handed over with
 * release/acquire, so each read is ordered after the previous vCPU's.
 */
struct counter_run {
	enum timer_kind kind;
	u64 turn;
	u64 last;
	int last_cpu;
};

struct vcpu_warps {
	u64 warps, handoffs, min_handoff;
	s64 worst;
} __aligned(64);

static struct vcpu_warps warps[NR_CPUS];

static void counter_on(void *arg)
{
	struct counter_run *run = arg;
	struct vcpu_warps *w = &warps[smp_id()];
	u64 skew = opt.fault == FAULT_WARP && smp_id() == cpu_count() - 1 ? tick_d : 0;

	*w = (struct vcpu_warps){ .min_handoff = ~0ull };
	for (u64 i = 0; i < opt.loops; i++) {
		u64 mine = i * (u64)cpu_count() + (u64)smp_id();
		s64 step;
		int prev_cpu;

		while (__atomic_load_n(&run->turn, __ATOMIC_ACQUIRE) != mine)
			cpu_relax();
		step = (s64)(timer_count(run->kind) - skew - run->last);
		run->last += (u64)step;
		prev_cpu = run->last_cpu;
		run->last_cpu = smp_id();
		__atomic_store_n(&run->turn, mine + 1, __ATOMIC_RELEASE);
		if (step < 0) {
			w->warps++;
			w->worst = min(w->worst, step);
		} else if (prev_cpu != smp_id()) {
			w->handoffs++;
			w->min_handoff = min(w->min_handoff, (u64)step);
		}
	}
}

static void check_counter(enum timer_kind k)
{
	struct counter_run run = { .kind = k };
	u64 total = 0, handoffs = 0, handoff = ~0ull;
	char name[64];

	run.last = timer_count(k);
	on_cpus(counter_on, &run);
	for (int i = 0; i < cpu_count(); i++) {
		total += warps[i].warps;
		handoffs += warps[i].handoffs;
		handoff = min(handoff, warps[i].min_handoff);
		snprintf(name, sizeof(name), "timer.counter.%s.vcpu%d.warps", kind_names[k], i);
		report_result(name, "count", "%llu", warps[i].warps);
		snprintf(name, sizeof(name), "timer.counter.%s.vcpu%d.handoffs", kind_names[k], i);
		report_result(name, "count", "%llu", warps[i].handoffs);
		if (warps[i].min_handoff != ~0ull) {
			snprintf(name, sizeof(name), "timer.counter.%s.vcpu%d.min_handoff_ticks", kind_names[k], i);
			report_result(name, "ticks", "%llu", warps[i].min_handoff);
		}
	}
	if (handoff != ~0ull)
		report_info("%s: quickest hand-off %llu ticks: smaller offsets between vCPUs cannot show",
			    kind_names[k], handoff);
	report(!total, "counter %s never goes backwards across %d vCPUs (%llu warps in %llu reads each, %llu from "
	       "another vCPU's)", kind_names[k], cpu_count(), total,
	       opt.loops, handoffs);
}

/* ---- 9. against the PL031 --------------------------------------------- */

static u64 read_cntvct(void)
{
	return timer_count(TIMER_VIRT);
}

static void check_freq(void)
{
	struct ratecheck rc = {
		.clock = "cntvct",
		.read = read_cntvct,
		.hz = timer_freq(),
		.tries = RATE_TRIES,
		.windows = RATE_WINDOWS,
		.usable_ppb = RATE_USABLE_PPB,
	};

	if (opt.fault == FAULT_FREQ)
		rc.hz += rc.hz / 1000000 * FAULT_FREQ_PPM;
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
	ARG_LIST("phases", &opt.phases, phase_names, "regs,counter,freq", "steps to run"),
	ARG_UINT("window_s", &opt.window_s, 1, MAX_WINDOW_S, "2", "the frequency check's window"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

static void check_regs(void)
{
	if (!gic_version() || !timer_irq(TIMER_VIRT) || !timer_irq(TIMER_PHYS)) {
		report_skip("no GIC or no timer PPIs: the timers' registers and interrupts are not checked");
		return;
	}
	install_irq_handler(timer_irq(TIMER_VIRT), timer_irq_handler);
	install_irq_handler(timer_irq(TIMER_PHYS), timer_irq_handler);
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
	if (opt.phases & PHASE_REGS)
		check_regs();
	if (opt.phases & PHASE_COUNTER) {
		check_counter(TIMER_VIRT);
		check_counter(TIMER_PHYS);
	}
	if (opt.phases & PHASE_FREQ)
		check_freq();
	return report_summary();
}
