/* SPDX-License-Identifier: GPL-2.0-only */
/* The TSC as the arch counter, and its frequency: from the hypervisor's timing leaf, kvmclock, the ACPI PM timer or the PIT. */
#include "arch.h"
#include "x86/io.h"
#include "x86/kvmclock.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "x86/tsc.h"
#include "refclock.h"
#include "units.h"
#include "wait.h"

/* Hypervisor timing leaf (KVM, VMware): EAX = TSC frequency in kHz. */
#define CPUID_HV_TIMING_LEAF	0x40000010
/* Time Stamp Counter and Nominal Core Crystal Clock leaf: TSC = ECX Hz * EBX / EAX. */
#define CPUID_TSC_CRYSTAL_LEAF	0x15
#define CALIBRATE_MS		25
#define CALIBRATE_RUNS		16
#define CALIBRATE_NARROW_PPM	1000
/* Give up on a PIT that never counts down (several seconds at any TSC rate). */
#define PIT_WAIT_CYCLES		(10ull * 1000 * 1000 * 1000)

u64 arch_counter(void)
{
	return rdtsc_ordered();
}

/* rdtsc_ordered() already fences on both sides. */
void arch_bench_fence(void)
{
	barrier();
}

u64 tsc_hz_from_hv_leaf(void)
{
	if (!cpu_has(CPUID_FEATURES, 'c', CPUID_1_ECX_HYPERVISOR))
		return 0;
	if (cpuid(CPUID_HYPERVISOR_BASE).a < CPUID_HV_TIMING_LEAF)
		return 0;
	return (u64)cpuid(CPUID_HV_TIMING_LEAF).a * HZ_PER_KHZ;
}

u64 tsc_hz_from_crystal_leaf(void)
{
	struct cpuid c;

	if (cpuid(0).a < CPUID_TSC_CRYSTAL_LEAF)
		return 0;
	c = cpuid(CPUID_TSC_CRYSTAL_LEAF);
	if (!c.a || !c.b || !c.c)
		return 0;
	return (u64)c.c * c.b / c.a;
}

/*
 * One measurement of TSC cycles while PIT channel 2 counts down about
 * CALIBRATE_MS, each end bracketed by TSC reads. The count starts at the
 * write that arms the channel (QEMU starts mode 0's count at the count's
 * last byte), between the reads either side of it. The channel ran out
 * after the last poll that saw it counting and before the poll that saw
 * it done: between the read before the one poll and the read after the
 * other. A read taken after a poll says nothing of when the poll looked:
 * under TCG beside two busy loops QEMU's thread was held 10 to 60 % of
 * the 25 ms between a poll that saw the channel counting and the read
 * after it, and a bracket that began at that read was narrow and wrong.
 * A delay (a VM exit, a descheduled vCPU) anywhere in a bracket widens
 * it, whichever way it would have moved the figure.
 */
struct pit_measure {
	u64 cycles; /* for PIT_CAL_COUNTS counts */
	u64 width;  /* the two brackets' widths summed */
};

#define PIT_CAL_COUNTS (PIT_HZ * CALIBRATE_MS / MSEC_PER_SEC)

struct pit_polls {
	u64 before_last, before; /* the reads before the last two polls */
	u64 after;		 /* the read after the poll that saw the channel done */
};

/* One poll of the channel, the round's read (now) before it: true once it ran out. */
static bool pit_poll(void *arg, u64 now)
{
	struct pit_polls *p = arg;

	p->before_last = p->before;
	p->before = now;
	if (!pit_ch2_done())
		return false;
	p->after = rdtsc_ordered();
	return true;
}

static bool tsc_pit_measure(struct pit_measure *m)
{
	u64 a0, a1;
	struct pit_polls p;
	bool done;

	a0 = rdtsc_ordered();
	pit_ch2_oneshot(PIT_CAL_COUNTS);
	a1 = rdtsc_ordered();
	/* a channel done at the first poll ran out after the write */
	p = (struct pit_polls){.before = a0};
	/* arch_counter() is the TSC: each round's read is also the read after the poll before it */
	done = work_until(pit_poll, &p, a1 + PIT_WAIT_CYCLES);
	pit_ch2_stop();
	if (!done)
		return false;
	/* the poll before the one that saw it done looked after before_last */
	m->cycles = (p.before_last + (p.after - p.before_last) / 2) - (a0 + (a1 - a0) / 2);
	m->width = (a1 - a0) + (p.after - p.before_last);
	return true;
}

/*
 * Measurements until one's brackets are narrow (under CALIBRATE_NARROW_PPM
 * of it), at most CALIBRATE_RUNS, the narrowest kept: under a busy host
 * one unbracketed run was seen 20% high, and (a delay between arming the
 * channel and the first read) 24% low. With both ends bracketed as above,
 * 18 runs under TCG in real time beside two busy loops were 17 to 99 ppm
 * off the PM timer or HPET over the run (before, 4 of them 10 to 60 %
 * off). The count is a whole number of PIT
 * clocks: the frequency is taken from it, not from CALIBRATE_MS.
 */
static u64 tsc_hz_from_pit_best(void)
{
	struct pit_measure m, best = { 0, 0 };

	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		if (!tsc_pit_measure(&m))
			continue;
		if (!best.cycles || m.width < best.width)
			best = m;
		if (best.width * PPM_PER_UNIT < best.cycles * CALIBRATE_NARROW_PPM)
			break;
	}
	return best.cycles * PIT_HZ / PIT_CAL_COUNTS;
}

/*
 * The TSC against the ACPI PM timer, by marks (lib/refclock.h): an edge
 * of its count bracketed by TSC reads at each end of about
 * CALIBRATE_REF_MS, the narrowest of CALIBRATE_MARK_TRIES each, until
 * the brackets are narrow (CALIBRATE_NARROW_PPM), at most CALIBRATE_RUNS
 * times, the narrowest kept. The reference check judges the run by the
 * same marks. Under TCG in real time beside two busy loops the PIT's
 * count, bracketed at both ends, still left 2 runs in 70 1.7 and 5.1 %
 * off (narrow brackets: the PIT, read through port 0x61, disagreed); the
 * PM timer is QEMU's virtual clock read directly, with no side effect.
 * 0 when the machine has no PM timer.
 */
#define CALIBRATE_REF_MS	50
#define CALIBRATE_MARK_TRIES	4

/* One measurement: TSC cycles between two marks' midpoints, the brackets' widths summed, the counts between. */
struct ref_measure {
	u64 cycles, width, counts;
};

struct ref_count {
	const struct refclock *ref;
	u64 from, want; /* want counts past from */
};

static bool ref_counted(void *arg)
{
	const struct ref_count *c = arg;

	return c->ref->read() - c->from >= c->want;
}

static bool tsc_ref_measure(const struct refclock *ref, struct ref_measure *m)
{
	u64 want = ref->hz() * CALIBRATE_REF_MS / MSEC_PER_SEC;
	struct refclock_mark m0, m1;

	if (!refclock_mark_best(ref, rdtsc_ordered, PIT_WAIT_CYCLES, CALIBRATE_MARK_TRIES, &m0))
		return false;
	/*
	 * A reference that stops short of want counts (PIT_WAIT_CYCLES, seconds
	 * at any TSC rate, for 50 ms of counts) fails this measurement, as one
	 * that never marks does: the caller tries again, then falls back.
	 */
	if (!wait_cond_ticks(ref_counted, &(struct ref_count){ref, m0.count, want},
			     PIT_WAIT_CYCLES))
		return false;
	if (!refclock_mark_best(ref, rdtsc_ordered, PIT_WAIT_CYCLES, CALIBRATE_MARK_TRIES, &m1) ||
	    m1.count <= m0.count)
		return false;
	m->counts = m1.count - m0.count;
	m->cycles = (m1.lo + (m1.hi - m1.lo) / 2) - (m0.lo + (m0.hi - m0.lo) / 2);
	/* a fast reference's edge is up to a count before its mark (slack): that many more cycles */
	m->width = (m1.hi - m1.lo) + (m0.hi - m0.lo) +
		   (m0.slack + m1.slack) * m->cycles / m->counts;
	return true;
}

static u64 tsc_hz_from_ref_best(void)
{
	const struct refclock *ref = refclock_find("pmtimer");
	struct ref_measure m, best = { 0, 0, 0 };

	if (!ref || ref->probe())
		return 0;
	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		if (!tsc_ref_measure(ref, &m))
			continue;
		/* narrower relative to its length: width / cycles, compared crosswise */
		if (!best.cycles || m.width * best.cycles < best.width * m.cycles)
			best = m;
		if (best.width * PPM_PER_UNIT < best.cycles * CALIBRATE_NARROW_PPM)
			break;
	}
	return best.counts ? best.cycles * ref->hz() / best.counts : 0;
}

u64 arch_counter_hz(void)
{
	static u64 hz;

	if (!hz)
		hz = tsc_hz_from_hv_leaf();
	if (!hz)
		hz = kvmclock_tsc_hz();
	if (!hz)
		hz = tsc_hz_from_ref_best();
	if (!hz)
		hz = tsc_hz_from_pit_best();
	return hz;
}
