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
 * RESULT lines: cntvoff.cpuN.fire_late_ticks.{virt,phys} (how far past
 * CVAL the counter was when ISTATUS was first seen set).
 * SKIP when the CPU has no EL2 (ID_AA64PFR0_EL1.EL2 is 0): no offset.
 *
 * Arguments, key=value:
 *   fault=crossed  test-only: each timer's CVAL is taken from the other
 *                  counter, as an emulation that mixes the two counts
 *                  would behave (step 2 fires at once, step 3 never)
 * Anything else is a failure.
 */
#include "libc.h"
#include "arch.h"
#include "argv.h"
#include "report.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"

/* The virtual count 2^40 ticks ahead of the physical one: CNTVCT = CNTPCT - OFFSET. */
#define OFFSET			(0ull - (1ull << 40))
BOOT_CNTVOFF(OFFSET);

/* ID_AA64PFR0_EL1.EL2 [11:8]: 0 when EL2 is not implemented. */
#define ID_AA64PFR0_EL2_SHIFT	8
#define ID_AA64PFR0_EL2_MASK	0xfull
#define D_PER_SECOND		100
/* how long a timer may take past its CVAL to show ISTATUS, in D */
#define WAIT_D			50

enum fault { FAULT_NONE, FAULT_CROSSED };
static const char *const fault_names[] = { "none", "crossed" };
static unsigned fault;		/* enum fault */

static const char *const kind_names[] = { [TIMER_VIRT] = "virt", [TIMER_PHYS] = "phys" };

/* What each vCPU saw, reported by vCPU 0. */
struct seen {
	s64 lo, hi;		/* CNTPCT - CNTVCT lies in [lo, hi] */
	struct {
		bool early;	/* ISTATUS set right after arming */
		bool fired;	/* ISTATUS set within the wait */
		u64 late;	/* counter past CVAL when ISTATUS was seen */
	} t[2];
};
static struct seen seen[NR_CPUS];
static u64 tick_d;

static void read_offset(struct seen *s)
{
	u64 v1 = timer_count(TIMER_VIRT), p = timer_count(TIMER_PHYS), v2 = timer_count(TIMER_VIRT);

	s->lo = (s64)(p - v2);
	s->hi = (s64)(p - v1);
}

/* Arm kind at its own counter + D (fault=crossed: the other's), masked; watch ISTATUS. */
static void watch_timer(enum timer_kind k, struct seen *s)
{
	enum timer_kind from = fault == FAULT_CROSSED ? (enum timer_kind)!k : k;
	u64 cval = timer_count(from) + tick_d, give_up = timer_count(k) + WAIT_D * tick_d, now;

	timer_set_cval(k, cval);
	s->t[k].early = timer_fired(k);
	while (!(s->t[k].fired = timer_fired(k)) && timer_count(k) < give_up)
		;
	now = timer_count(k);
	s->t[k].late = now > cval ? now - cval : 0;
	timer_stop(k);
}

static void on_each(void *unused)
{
	struct seen *s = &seen[smp_id()];

	read_offset(s);
	watch_timer(TIMER_VIRT, s);
	watch_timer(TIMER_PHYS, s);
}

static void report_cpu(int cpu)
{
	const struct seen *s = &seen[cpu];

	report(s->lo <= (s64)OFFSET && (s64)OFFSET <= s->hi,
	       "cpu%d: CNTPCT - CNTVCT is CNTVOFF_EL2 %lld (read as %lld..%lld)", cpu,
	       (s64)OFFSET, s->lo, s->hi);
	for (int k = TIMER_VIRT; k <= TIMER_PHYS; k++) {
		char name[48];

		report(!s->t[k].early && s->t[k].fired,
		       "cpu%d: %s timer, CVAL its counter + %llu ticks: condition clear when armed "
		       "(%s), met within %u ms (%s)",
		       cpu, kind_names[k], tick_d, s->t[k].early ? "was set" : "yes",
		       WAIT_D * 1000 / D_PER_SECOND, s->t[k].fired ? "yes" : "never");
		snprintf(name, sizeof(name), "cntvoff.cpu%d.fire_late_ticks.%s", cpu, kind_names[k]);
		report_result(name, "ticks", "%llu", s->t[k].late);
	}
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
	on_cpus(on_each, NULL);
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		report_cpu(cpu);
	return report_summary();
}
