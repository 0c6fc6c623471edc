/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cntvoff_test: the virtual counter offset a hypervisor sets (CNTVOFF_EL2),
 * as the guest sees it, on every vCPU.
 *
 * Why: an arm64 hypervisor gives each guest a virtual counter of its own
 * by subtracting an offset from the physical count (KVM starts it near 0,
 * and moves it to hide a pause or a migration). The guest reads CNTVCT and
 * programs CNTV_CVAL in that offset count; the physical timer stays in the
 * physical count. A hypervisor (or an emulation of EL2) that applies the
 * offset to the counter but not to the comparator fires the virtual timer
 * at once or hours late; one that offsets the physical side too breaks
 * every guest that uses CNTP.
 *
 * How: entered at EL2 (QEMU's virt machine with virtualization=on),
 * start-up sets CNTVOFF_EL2 to OFFSET on every CPU before dropping to EL1
 * (lib/arm64/head.S, BOOT_CNTVOFF). OFFSET is minus 2^40 ticks: the
 * virtual count runs 2^40 ticks (hours at any CNTFRQ) ahead of the
 * physical one, so a comparator in the wrong count is never near the
 * right time. Then on each vCPU:
 *  1. offset: CNTPCT - CNTVCT, read between two CNTVCT reads, is OFFSET
 *     (bracketed by the reads: no slack beyond them).
 *  2. virt: CNTV_CVAL = CNTVCT + D (D = 10 ms): ISTATUS clear at once, set
 *     once CNTVCT has passed CVAL, within WAIT_D times D.
 *  3. phys: CNTP_CVAL = CNTPCT + D: the same, in the physical count.
 *  4. wrap: the virtual timer's interrupt, unmasked, for CVAL = CNTVCT + D:
 *     CVAL + CNTVOFF, the physical count it is due at, passes 2^64 (the
 *     sum wraps to CNTPCT + D). Not at once (ISTATUS clear when armed, no
 *     interrupt before CNTVCT reaches CVAL), not never (within WAIT_D
 *     times D), once. An emulation that treats the wrapped sum as "beyond
 *     any time" never fires it; one that takes the sum as it wraps is right.
 *  5. far: the virtual timer, unmasked, with CVAL 2^64 - 1024 and 2^64 - 1
 *     (CNTVCT near 2^40): no interrupt and ISTATUS never set over D.
 * BOUND lines: cntvoff.cpuN.met.{virt,phys} (steps 2-3: 1 when the
 * condition was clear when armed and met within the wait, want 1..1) and
 * cntvoff.cpuN.wrap_irqs.virt (step 4: the interrupts taken, want 1..1;
 * where one came, a second check says it came at or after CVAL).
 * RESULT lines: cntvoff.cpuN.fire_late_ticks.{virt,phys} (how far past
 * CVAL the counter was when ISTATUS was first seen set), and
 * cntvoff.cpuN.irq_late_ticks.virt (step 4, in the handler).
 * Not reached with this offset: a CNTVOFF below CNTPCT (KVM's own, the
 * count at VM creation) puts CVAL + CNTVOFF past 2^64, so behind CNTPCT,
 * for a CVAL near 2^64. QEMU's TCG re-arms its timer for that past moment
 * over and over, a host storm that stops the guest (QEMU issue 60; 7.2.22
 * does it with CNTVOFF 1 and CVAL 2^64 - 1). It needs a second offset.
 * SKIP when the CPU has no EL2 (ID_AA64PFR0_EL1.EL2 is 0): no offset.
 *
 * Arguments, key=value:
 *   fault=NAME     test-only, as a buggy emulation would behave: crossed
 *                  (each timer's CVAL is taken from the other counter,
 *                  the two counts mixed: step 2 fires at once, step 3
 *                  never), saturate (a CVAL whose sum with CNTVOFF wraps
 *                  is written as 2^64 - 1, "never": steps 2 and 4), signed
 *                  (step 5: a CVAL with bit 63 set taken as 0)
 * Anything else is a failure.
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "report.h"
#include "arm64/gic.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"
#include "units.h"
#include "wait.h"

/* The virtual count 2^40 ticks ahead of the physical one: CNTVCT = CNTPCT - OFFSET. */
#define OFFSET			(0ull - (1ull << 40))
BOOT_CNTVOFF(OFFSET);

/* ID_AA64PFR0_EL1.EL2 [11:8]: 0 when EL2 is not implemented. */
#define ID_AA64PFR0_EL2_SHIFT	8
#define ID_AA64PFR0_EL2_MASK	0xfull
#define D_PER_SECOND		100
/* how long a timer may take past its CVAL to show ISTATUS, in D */
#define WAIT_D			50

enum fault { FAULT_NONE, FAULT_CROSSED, FAULT_SATURATE, FAULT_SIGNED };
static const char *const fault_names[] = { "none", "crossed", "saturate", "signed" };
static unsigned fault;		/* enum fault */

/* Step 5: virtual CVALs that CNTVCT, near 2^40, reaches in centuries. */
static const u64 far_cvals[] = { 0ull - 1024, UINT64_MAX };

static const char *const kind_names[] = { [TIMER_VIRT] = "virt", [TIMER_PHYS] = "phys" };

/* What each vCPU saw, reported by vCPU 0. */
struct seen {
	s64 lo, hi;		/* CNTPCT - CNTVCT lies in [lo, hi] */
	struct {
		bool early;	/* ISTATUS set right after arming */
		bool fired;	/* ISTATUS set within the wait */
		u64 late;	/* counter past CVAL when ISTATUS was seen */
	} t[2];
	struct {
		bool wraps;	/* CVAL + CNTVOFF passed 2^64 */
		bool early;	/* ISTATUS set right after arming */
		s64 at;		/* CNTVCT - CVAL in the handler */
		u32 count;	/* interrupts taken */
	} wrap;
	struct {
		u64 count;	/* CNTVCT when armed */
		u32 irqs;	/* interrupts taken */
		bool istatus;	/* ISTATUS seen set */
	} far[ARRAY_SIZE(far_cvals)];
};
static struct seen seen[NR_CPUS];
static u64 tick_d;
static bool with_irqs;		/* steps 4-5: the GIC has the virtual timer's PPI */

static void read_offset(struct seen *s)
{
	u64 v1 = timer_count(TIMER_VIRT), p = timer_count(TIMER_PHYS), v2 = timer_count(TIMER_VIRT);

	s->lo = (s64)(p - v2);
	s->hi = (s64)(p - v1);
}

/* The virtual CVAL as written; fault=saturate: 2^64 - 1 when CVAL + CNTVOFF wraps. */
static u64 virt_cval(u64 cval)
{
	return fault == FAULT_SATURATE && cval + OFFSET < cval ? UINT64_MAX : cval;
}

static bool timer_met(void *k)
{
	return timer_fired(*(enum timer_kind *)k);
}

/* Arm kind at its own counter + D (fault=crossed: the other's), masked; watch ISTATUS. */
static void watch_timer(enum timer_kind k, struct seen *s)
{
	enum timer_kind from = fault == FAULT_CROSSED ? (enum timer_kind)!k : k;
	u64 cval = timer_count(from) + tick_d, now;

	timer_set_cval(k, k == TIMER_VIRT ? virt_cval(cval) : cval);
	s->t[k].early = timer_fired(k);
	/* the counters differ by the offset alone: WAIT_D of either is WAIT_D of arch_counter()'s */
	s->t[k].fired = wait_cond_ticks(timer_met, &k, WAIT_D * tick_d);
	now = timer_count(k);
	s->t[k].late = now > cval ? now - cval : 0;
	timer_stop(k);
}

static bool got_irq(void *unused)
{
	return atomic_load(&timer_irq_seen(smp_id())->count) != 0;
}

/* For step 5: an interrupt taken, or the virtual timer's ISTATUS seen set (in *set). */
static bool irq_or_istatus(void *set)
{
	return got_irq(NULL) || (*(bool *)set = timer_fired(TIMER_VIRT));
}

/* Step 4, IRQs on at the CPU around the wait. */
static void wrap_fire(struct seen *s)
{
	struct timer_irq_seen *v = timer_irq_seen(smp_id());
	u64 cval = timer_count(TIMER_VIRT) + tick_d;

	s->wrap.wraps = cval + OFFSET < cval;
	v->count = 0;
	timer_arm(TIMER_VIRT, virt_cval(cval), 0);
	s->wrap.early = timer_fired(TIMER_VIRT);
	irq_enable();
	/* until CVAL and WAIT_D beyond it */
	wait_cond_ticks(got_irq, NULL, (WAIT_D + 1) * tick_d);
	irq_disable();
	timer_stop(TIMER_VIRT);
	s->wrap.count = v->count;
	s->wrap.at = (s64)(v->at - cval);
}

/* Step 5: the far CVALs, unmasked; fault=signed writes one with bit 63 set as 0. */
static void far_quiet(struct seen *s)
{
	struct timer_irq_seen *v = timer_irq_seen(smp_id());

	for (size_t i = 0; i < ARRAY_SIZE(far_cvals); i++) {
		u64 now = timer_count(TIMER_VIRT);
		bool set = false;

		v->count = 0;
		s->far[i].count = now;
		timer_arm(TIMER_VIRT, fault == FAULT_SIGNED && (s64)far_cvals[i] < 0 ? 0 : far_cvals[i], 0);
		irq_enable();
		wait_cond_ticks(irq_or_istatus, &set, tick_d);
		irq_disable();
		timer_stop(TIMER_VIRT);
		s->far[i].irqs = v->count;
		s->far[i].istatus = set;
	}
}

static void on_each(void *unused)
{
	struct seen *s = &seen[smp_id()];

	read_offset(s);
	watch_timer(TIMER_VIRT, s);
	watch_timer(TIMER_PHYS, s);
	if (!with_irqs)
		return;
	gic_enable_irq(timer_irq(TIMER_VIRT));
	wrap_fire(s);
	far_quiet(s);
	gic_disable_irq(timer_irq(TIMER_VIRT));
}

/* Steps 2-3: the timer's condition clear when armed and met within the wait, a BOUND of 1..1. */
static void report_met(int cpu, const struct seen *s, enum timer_kind k)
{
	char name[48];

	snprintf(name, sizeof(name), "cntvoff.cpu%d.met.%s", cpu, kind_names[k]);
	report_bounded_count(name, "count", !s->t[k].early && s->t[k].fired, 1, 1,
			     "cpu%d: %s timer, CVAL its counter + %llu ticks: condition clear when armed "
			     "(%s), met within %llu ms (%s)",
			     cpu, kind_names[k], tick_d, s->t[k].early ? "was set" : "yes",
			     WAIT_D * MSEC_PER_SEC / D_PER_SECOND, s->t[k].fired ? "yes" : "never");
	snprintf(name, sizeof(name), "cntvoff.cpu%d.fire_late_ticks.%s", cpu, kind_names[k]);
	report_result(name, "ticks", "%llu", s->t[k].late);
}

/* Step 4: one interrupt (a BOUND on their count), then when it came. */
static void report_wrap(int cpu, const struct seen *s)
{
	char name[48];

	snprintf(name, sizeof(name), "cntvoff.cpu%d.wrap_irqs.virt", cpu);
	report_bounded_count(name, "count", s->wrap.count, 1, 1,
			     "cpu%d: virt timer, CVAL CNTVCT + %llu with CVAL + CNTVOFF past 2^64 (%s): "
			     "%u interrupts within %llu ms of CVAL (want one)",
			     cpu, tick_d, s->wrap.wraps ? "yes" : "no", s->wrap.count,
			     WAIT_D * MSEC_PER_SEC / D_PER_SECOND);
	if (!s->wrap.count)
		return;
	report(s->wrap.wraps && !s->wrap.early && s->wrap.at >= 0,
	       "cpu%d: virt timer, CVAL CNTVCT + %llu with CVAL + CNTVOFF past 2^64 (%s): clear when "
	       "armed (%s), the interrupt at CVAL%+lld (want at or after CVAL)",
	       cpu, tick_d, s->wrap.wraps ? "yes" : "no", s->wrap.early ? "was set" : "yes", s->wrap.at);
	snprintf(name, sizeof(name), "cntvoff.cpu%d.irq_late_ticks.virt", cpu);
	report_result(name, "ticks", "%lld", s->wrap.at);
}

/* Step 5: the far CVALs never fire. */
static void report_far(int cpu, const struct seen *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(far_cvals); i++)
		report(!s->far[i].irqs && !s->far[i].istatus,
		       "cpu%d: virt timer, CVAL %#llx with CNTVCT %#llx: no interrupt (%s), ISTATUS clear "
		       "throughout (%s) over %llu ms", cpu, far_cvals[i], s->far[i].count,
		       s->far[i].irqs ? "taken" : "none",
		       s->far[i].istatus ? "set" : "yes", MSEC_PER_SEC / D_PER_SECOND);
}

static void report_cpu(int cpu)
{
	const struct seen *s = &seen[cpu];

	report(s->lo <= (s64)OFFSET && (s64)OFFSET <= s->hi,
	       "cpu%d: CNTPCT - CNTVCT is CNTVOFF_EL2 %lld (read as %lld..%lld)", cpu,
	       (s64)OFFSET, s->lo, s->hi);
	for (int k = TIMER_VIRT; k <= TIMER_PHYS; k++)
		report_met(cpu, s, (enum timer_kind)k);
	if (!with_irqs)
		return;
	report_wrap(cpu, s);
	report_far(cpu, s);
}

static const struct arg args[] = {
	ARG_ONE_OF("fault", &fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

int main(int argc, char **argv)
{
	u64 el2 = (read_sysreg(ID_AA64PFR0_EL1) >> ID_AA64PFR0_EL2_SHIFT) & ID_AA64PFR0_EL2_MASK;

	args_parse_or_abort(&arg_table, argc, argv);
	if (!el2) {
		report_skip("no EL2 here (ID_AA64PFR0_EL1.EL2 is 0; QEMU: -machine virt,virtualization=on): "
			    "nobody sets a virtual counter offset");
		return report_summary();
	}
	if (boot_el() != 1) {
		report_skip("running at EL%u: the offset is only seen from EL1", boot_el());
		return report_summary();
	}
	tick_d = timer_freq() / D_PER_SECOND;
	report_info("CNTFRQ %llu Hz, CNTVOFF_EL2 %#llx set at start-up, %d vCPUs",
		    timer_freq(), OFFSET, cpu_count());
	with_irqs = timer_irq_record_install();
	if (!with_irqs)
		report_skip("no GIC or no timer PPI: the virtual timer's interrupt (steps 4-5) is not checked");
	on_cpus(on_each, NULL);
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		report_cpu(cpu);
	return report_summary();
}
