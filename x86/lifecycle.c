/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lifecycle: x86's clocks, the time of day and the LAPIC timer across host
 * events - pause, save/restore, live migration - that the runner performs
 * when the guest asks (docs/lifecycle.md).
 *
 * Which clocks depends on the accelerator, and so does what QEMU does to
 * each while the VM is stopped (the tables below, measured here):
 *  - KVM: the TSC and this vCPU's kvmclock; the TSC runs on through a
 *    pause and a save/restore, kvmclock stands still. The one-shot is the
 *    LAPIC timer in TSC-deadline mode; the time of day is kvmclock plus
 *    the wall clock MSR; the stopped flag is PVCLOCK_GUEST_STOPPED in
 *    each vCPU's own kvmclock area.
 *  - TCG: the TSC, the HPET's main counter (64 bits) and the ACPI PM timer
 *    (24 bits on QEMU's pc machine, 32 where the FADT says so; extended to
 *    64 by each vCPU so that a wrap is not a step back); all three stand still while the VM is stopped and carry on
 *    from there after a restore or a migration. TCG's LAPIC has no
 *    TSC-deadline mode: the one-shot is its one-shot mode, the deadline
 *    turned into LAPIC counts by the timer's calibration against the TSC
 *    and lengthened by the calibration's error, so it cannot fire early.
 *    No time of day to the ms and no stopped flag: the one clock that
 *    follows the host's time of day under TCG is the CMOS RTC, in whole
 *    seconds, checked under both (below).
 * Why TCG too: clocks have broken across these events in QEMU's own device
 * models (the HPET, the PM timer, the emulated LAPIC, TCG's TSC), which a
 * KVM run does not touch. KVM without kvmclock, or another hypervisor,
 * SKIPs: the semantics are measured for these two only.
 *
 * What it checks, for each event, on every vCPU (common/lifecycle.c):
 *  - every clock never goes backwards, and its largest step over the
 *    event is no more than the time QEMU says the guest was stopped plus
 *    what the window before the event saw;
 *  - each clock does what the table says while the guest is stopped (not
 *    judged for a stop too short to tell, a live migration's few ms);
 *  - KVM: the time of day keeps its offset to the host's, within 50 ms;
 *  - KVM: every vCPU finds PVCLOCK_GUEST_STOPPED set in its own kvmclock
 *    area after the event, none before it, and once it has cleared the
 *    flag (as Linux's watchdogs do) it stays clear to the end of the
 *    window after. QEMU asks KVM for it (KVM_KVMCLOCK_CTRL, each vCPU) as
 *    the VM runs again after any stop; a guest that does not find it
 *    takes the stop for a soft lockup. Measured here (QEMU 7.2,
 *    kvm-pvm): set on both vCPUs after every pause, save/restore and
 *    migration;
 *  - the CMOS RTC (KVM and TCG) reads the host's time of day after the
 *    event: timed at an edge of its seconds, it is behind the host's by
 *    less than a second (give or take 50 ms), and its offset to the
 *    host's moved over the event by at most 50 ms (plus the edges'
 *    uncertainty). Its time base must move with the host's across the
 *    stop (QEMU's default -rtc clock=host, carried in the migration):
 *    measured here, the offset moved by 0-5 ms, and with -rtc clock=vm
 *    by -1107 ms over a 1 s save;
 *  - the LAPIC timer: on vCPUs whose turn it is, a one-shot armed as the
 *    request goes out fires after its deadline and within 0.5 s of the
 *    runner's answer; on the others it ticks periodically at 100 Hz
 *    across the event and keeps its rate after it (within 10% of nominal
 *    or of the rate before by its tick counts; on a quiet KVM host also
 *    its period, timed by the ticks, against the period before, within the
 *    ticks' measured spread: about 0.1%; TCG has no steal time to tell a
 *    quiet host by), with no more catch-up ticks (closer than half a
 *    period) than the bound (default 16) plus those the vCPU's own delays
 *    explain. Turns alternate per event.
 * Each event prints its figures as RESULT lines: host-measured stop,
 * QMP downtime, each clock's step, one-shot lateness, catch-up ticks,
 * the period's change (when timed), the RTC's offset to the host's time
 * of day and how far it moved, the vCPUs that found the stopped flag.
 *
 * How: every vCPU samples its clocks in a loop with interrupts on (and
 * takes its stopped flag); the boot vCPU samples 0.5 s, prints
 * "LIFECYCLE-REQUEST: KIND SEQ", samples while it polls COM1's input for
 * the runner's "LIFECYCLE-DONE" line, then samples 0.5 s more. Before
 * and after, alone, it polls the RTC for an edge of its seconds (up to
 * 1 s each), carried to the host's stamps on the request and the answer
 * by the counter.
 *
 * Arguments (key=value):
 *   events=LIST  required: pause, save, migrate, each optionally *N,
 *                comma-separated; the cfg's events key must match
 *   catchup=N    catch-up ticks allowed beyond those explained (default 16)
 *   fault=NAME   test-only, every check must be seen failing: back, jump,
 *                flip, rearm, rate, rate5 (the period check: KVM only),
 *                storm, tod (KVM only; a SKIP under TCG), stopped_flag
 *                (the flag cleared unseen from the request on, as if the
 *                VMM never had it set; KVM only), stopped_reset (set again
 *                once after the guest cleared it; KVM only), rtc_behind
 *                (the RTC read after the event less the stop, as a time
 *                base left behind would read; the few ms of a live
 *                migration's stop stay within the bound)
 *                (common/lifecycle.c)
 */
#include "libc.h"
#include "irq.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/desc.h"
#include "x86/hpet.h"
#include "x86/hypervisor.h"
#include "x86/ioapic.h"
#include "x86/kvmclock.h"
#include "lifecycle.h"
#include "x86/pit.h"
#include "x86/pmtimer.h"
#include "x86/processor.h"
#include "report.h"
#include "x86/rtc.h"
#include "x86/tick.h"

/* QEMU's signature at CPUID 0x40000000 under TCG. */
#define TCG_CPUID_SIGNATURE "TCGTCGTCGTCG"

static struct tick_cal lapic_cal;
/* Each vCPU follows the PM timer's wraps on its own (lib/x86/pmtimer.h). */
static struct pmtimer_ext pm_ext[LC_MAX_CPUS];

/* ---- the clocks ------------------------------------------------------------ */

static u64 read_tsc(void)
{
	return rdtsc_ordered();
}

static u64 read_hpet(void)
{
	return hpet_counter_read64();
}

static u64 read_pmtimer(void)
{
	return pmtimer_read_ext(&pm_ext[smp_id()]);
}

/*
 * As measured on QEMU 7.2 with KVM (docs/lifecycle.md): QEMU reads
 * kvmclock when the VM stops and writes the value back before it runs
 * again, so kvmclock does not see a stop; the TSC runs on through a pause
 * (its offset is not touched) and through a save/restore (it has advanced
 * by the time the state sat on disk).
 */
static const struct lc_clock kvm_clocks[] = {
	{"TSC", read_tsc, 0, {[LC_PAUSE] = LC_RUNS, [LC_SAVE] = LC_RUNS, [LC_MIGRATE] = LC_RUNS}},
	{"kvmclock",
	 kvmclock_read_raw,
	 1000000000ull,
	 {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
};

enum { TCG_TSC, TCG_HPET, TCG_PMTIMER };

/*
 * As measured on QEMU 7.2 under TCG (docs/lifecycle.md): every clock
 * stands still while the VM is stopped - over a 1 s pause or a 1 s save
 * and restore each stepped by no more than the vCPUs' own scheduling
 * shows before the event (4-16 ms) - and after a live migration carries
 * on from where it was. QEMU stops the TSC's ticks and its virtual clock,
 * which drives the HPET and the PM timer, with the VM, and migrates both.
 * The HPET's rate is its capability register's, filled in by tcg_start().
 */
static struct lc_clock tcg_clocks[] = {
	[TCG_TSC] = {"TSC",
		     read_tsc,
		     0,
		     {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
	[TCG_HPET] = {"HPET",
		      read_hpet,
		      0,
		      {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
	[TCG_PMTIMER] = {"pmtimer",
			 read_pmtimer,
			 PMTIMER_HZ,
			 {[LC_PAUSE] = LC_FROZEN, [LC_SAVE] = LC_FROZEN, [LC_MIGRATE] = LC_FROZEN}},
};

/* ---- the LAPIC timer ------------------------------------------------------- */

static void timer_irq(struct ex_regs *regs)
{
	lc_timer_fired(0, rdtsc_ordered());
	apic_eoi();
}

static void init_cpu(void)
{
	apic_timer_mask();
	apic_timer_divide(APIC_TDCR_DIV_1);
}

static void periodic(unsigned slot, u64 period)
{
	u64 counts = tick_ticks_to_counts(&lapic_cal, period);

	apic_timer_periodic(TIMER_TICK_VECTOR, (u32)min(max(counts, 1ull), APIC_TIMER_COUNT_MAX));
}

/* KVM: the one-shot in TSC-deadline mode. */
static void deadline_oneshot_at(unsigned slot, u64 when)
{
	/* the mode fenced first: lib/x86/apic_timer.h */
	apic_timer_deadline_mode(TIMER_TICK_VECTOR);
	apic_timer_deadline(when);
}

static void deadline_stop(unsigned slot)
{
	apic_timer_stop_all();
}

/*
 * LAPIC counts from now until when, lengthened by the calibration's
 * error so that they cannot run out before it; capped by the initial
 * count register (4.3 s at the 1 GHz QEMU's LAPIC counts at).
 */
static u32 counts_until(u64 when)
{
	u64 now = arch_counter(), ticks = when > now ? when - now : 0;
	u64 margin = mul_u64_u64_shr32(ticks, tick_ppb_to_fx(lapic_cal.err_ppb)) + 1;

	return (u32)min(max(tick_ticks_to_counts(&lapic_cal, ticks + margin), 1ull),
			APIC_TIMER_COUNT_MAX);
}

/* TCG: the one-shot in one-shot mode; writing the count again re-arms it. */
static void count_oneshot_at(unsigned slot, u64 when)
{
	apic_timer_oneshot_mode(TIMER_TICK_VECTOR);
	apic_timer_count(counts_until(when));
}

static void count_stop(unsigned slot)
{
	apic_timer_stop();
}

/* ---- the CMOS RTC ---------------------------------------------------------- */

static const char *rtc_epoch(u64 *secs)
{
	struct rtc_datetime t;
	const char *why = rtc_read_datetime(&t);

	if (!why)
		*secs = rtc_datetime_epoch(&t);
	return why;
}

static const char *rtc_find(void)
{
	u64 secs;

	return rtc_epoch(&secs);
}

static u32 rtc_tick(void)
{
	return rtc_seconds_reg();
}

/* Under KVM and TCG alike: QEMU's own device model, its time base the host's time of day. */
static const struct lc_rtc cmos_rtc = {"RTC", "rtc", rtc_find, rtc_tick, rtc_epoch};

/* ---- the accelerators ------------------------------------------------------ */

/* What differs between KVM and TCG: how to tell, the clocks, the one-shot, the time of day. */
struct accel {
	const char *name;
	bool (*running)(void);
	/* Before the LAPIC timer's calibration: NULL, or why the test cannot run (a SKIP). */
	const char *(*find)(void);
	/* After it: NULL, or why not. */
	const char *(*start)(void);
	const struct lc_clock *clocks;
	unsigned nclocks;
	void (*oneshot_at)(unsigned slot, u64 when);
	void (*stop)(unsigned slot);
	u64 (*tod_ns)(void);
	bool (*take_stopped_flag)(void);
	void (*set_stopped_flag)(void);
};

static const char *kvm_find(void)
{
	const char *why = kvmclock_unavailable();

	if (why)
		return why;
	if (!apic_timer_has_tsc_deadline())
		return "the LAPIC timer has no TSC-deadline mode here";
	return NULL;
}

static const char *kvm_start(void)
{
	return kvmclock_init() ? "kvmclock could not be registered" : NULL;
}

static bool on_tcg(void)
{
	char sig[13];

	hypervisor_signature(sig);
	return !strcmp(sig, TCG_CPUID_SIGNATURE);
}

static const char *tcg_find(void)
{
	const char *why = hpet_find();

	if (why)
		return why;
	if (!hpet_counter_is_64bit())
		return "the HPET's main counter is 32 bits wide (COUNT_SIZE_CAP clear)";
	return pmtimer_find();
}

static const char *tcg_start(void)
{
	hpet_counter_run();
	tcg_clocks[TCG_HPET].hz = hpet_counter_hz();
	return NULL;
}

static const struct accel accels[] = {
	{"KVM", on_kvm, kvm_find, kvm_start, kvm_clocks, ARRAY_SIZE(kvm_clocks),
	 deadline_oneshot_at, deadline_stop, kvmclock_wall_ns, kvmclock_take_guest_stopped,
	 kvmclock_set_guest_stopped},
	{"TCG", on_tcg, tcg_find, tcg_start, tcg_clocks, ARRAY_SIZE(tcg_clocks),
	 count_oneshot_at, count_stop, NULL, NULL, NULL},
};

static const struct accel *accel;

static void oneshot_at(unsigned slot, u64 when)
{
	accel->oneshot_at(slot, when);
}

static void stop(unsigned slot)
{
	accel->stop(slot);
}

static const char *probe(void);

/* The clocks and the time of day are the accelerator's: probe() fills them in. */
static struct lc_arch x86_lifecycle = {
	.name_of_slot = { "lapic" },
	.periodic_kind = LC_PERIODIC_RELOAD,
	.nslots = 1,
	.probe = probe,
	.init_cpu = init_cpu,
	.oneshot_at = oneshot_at,
	.periodic = periodic,
	.stop = stop,
	.rtc = &cmos_rtc,
	.stopped_flag_name = "PVCLOCK_GUEST_STOPPED",
	.counter_at_reset = LC_COUNTER_RESTARTS,
};

static const struct accel *find_accel(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(accels); i++)
		if (accels[i].running())
			return &accels[i];
	return NULL;
}

static const char *probe(void)
{
	const char *why;

	accel = find_accel();
	if (!accel)
		return "neither KVM nor TCG: the clocks' semantics are measured for those only";
	why = accel->find();
	if (why)
		return why;
	pic_mask_all();
	pit_quiesce();
	if (!tick_lapic_calibrate(&lapic_cal))
		return "the LAPIC timer does not count";
	why = accel->start();
	if (why)
		return why;
	handle_exception(TIMER_TICK_VECTOR, timer_irq);
	x86_lifecycle.clocks = accel->clocks;
	x86_lifecycle.nclocks = accel->nclocks;
	x86_lifecycle.tod_ns = accel->tod_ns;
	x86_lifecycle.take_stopped_flag = accel->take_stopped_flag;
	x86_lifecycle.set_stopped_flag = accel->set_stopped_flag;
	report_info("%s: LAPIC timer at %llu counts per ms by its calibration (+-%llu ppm)",
		    accel->name, tick_ticks_to_counts(&lapic_cal, arch_counter_hz() / 1000),
		    lapic_cal.err_ppb / 1000);
	return NULL;
}

int main(int argc, char **argv)
{
	return lc_main(argc, argv, &x86_lifecycle);
}
