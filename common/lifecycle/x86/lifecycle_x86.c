/* SPDX-License-Identifier: GPL-2.0-only */
/* The x86 half of the lifecycle test (x86/lifecycle.c): x86's clocks, the time of day and the LAPIC timer, as struct lc_arch. */
#include "libc.h"
#include "x86/lifecycle_arch.h"
#include "irq.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/desc.h"
#include "x86/hpet.h"
#include "x86/hypervisor.h"
#include "x86/ioapic.h"
#include "x86/kvmclock.h"
#include "x86/pit.h"
#include "x86/pmtimer.h"
#include "x86/processor.h"
#include "report.h"
#include "units.h"
#include "x86/rtc.h"
#include "x86/tick.h"
#include "x86/tsc_cpuid.h"

/* QEMU's signature at CPUID 0x40000000 under TCG. */
#define TCG_CPUID_SIGNATURE "TCGTCGTCGTCG"

/* The machine's timers' interrupts, on the boot vCPU (beside the LAPIC timer's TIMER_TICK_VECTOR). */
#define LC_RTC_VECTOR  0x64
#define LC_HPET_VECTOR 0x65

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
	[LC_X86_TSC] = {"TSC",
			read_tsc,
			0,
			{[LC_PAUSE] = LC_RUNS, [LC_SAVE] = LC_RUNS, [LC_MIGRATE] = LC_RUNS}},
	[LC_X86_KVMCLOCK] = {"kvmclock",
	 kvmclock_read_raw,
	 NSEC_PER_SEC,
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

/* Slot 0 is every vCPU's LAPIC timer; the devices' slots follow where the machine has them. */
#define SLOT_LAPIC 0
#define SLOT_NONE  LC_MAX_SLOTS

static void timer_irq(struct ex_regs *regs)
{
	lc_timer_fired(SLOT_LAPIC, rdtsc_ordered());
	apic_eoi();
}

static void init_cpu(void)
{
	apic_timer_mask();
	apic_timer_divide(APIC_TDCR_DIV_1);
}

static u64 lapic_periodic(u64 period)
{
	u64 counts = tick_ticks_to_counts(&lapic_cal, period);

	apic_timer_periodic(TIMER_TICK_VECTOR, (u32)min(max(counts, 1ull), APIC_TIMER_COUNT_MAX));
	return period;
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

/* ---- the machine's timers on the boot vCPU: the RTC's periodic interrupt, an HPET comparator ---- */

static struct {
	unsigned rtc_slot, hpet_slot;
	unsigned hpet_timer, hpet_gsi;
	u32 hpet_cmp; /* the comparator armed, while hpet_armed */
	bool hpet_armed;
	struct tick_cal hpet_cal;
} dev = {.rtc_slot = SLOT_NONE, .hpet_slot = SLOT_NONE};

/* Register C read first: the RTC raises no other interrupt until it is. */
static void rtc_irq(struct ex_regs *regs)
{
	u64 now = rdtsc_ordered();

	rtc_irq_ack();
	lc_timer_fired(dev.rtc_slot, now);
	apic_eoi();
}

/* The RTC's rates are 32768 Hz over a power of two: the fastest whose period is at least period. */
static u64 rtc_periodic(u64 period)
{
	u64 counter_hz = arch_counter_hz();
	unsigned hz = RTC_PERIODIC_HZ_MAX;

	while (hz > RTC_PERIODIC_HZ_MIN && counter_hz / hz < period)
		hz /= 2;
	rtc_set_periodic_hz(hz);
	rtc_irq_ack();
	rtc_irq_enable(RTC_IRQ_PERIODIC);
	return counter_hz / hz;
}

static void rtc_periodic_stop(void)
{
	rtc_irq_disable(RTC_IRQ_PERIODIC);
	rtc_irq_ack();
}

/* ISA IRQ 8 through the IOAPIC to the boot vCPU: NULL, or why not. */
static const char *rtc_periodic_find(void)
{
	struct ioapic_route route;

	rtc_periodic_stop();
	handle_exception(LC_RTC_VECTOR, rtc_irq);
	return ioapic_route_isa(RTC_ISA_IRQ, LC_RTC_VECTOR, apic_id(), &route);
}

/*
 * A 32-bit one-shot also interrupts when the counter's low half wraps
 * (the HPET specification; QEMU does): only an interrupt with the counter
 * at or past the comparator armed is the one-shot's.
 */
static void hpet_irq(struct ex_regs *regs)
{
	u64 now = rdtsc_ordered();

	if (dev.hpet_armed && (s32)(hpet_counter_read32() - dev.hpet_cmp) >= 0)
		lc_timer_fired(dev.hpet_slot, now);
	apic_eoi();
}

/*
 * Main counter counts from now until when, lengthened by the
 * calibration's error so that they cannot run out before it; the
 * comparator is 32 bits (42 s at QEMU's 100 MHz), armed at most half a
 * wrap ahead (HPET_ARM_MAX_COUNTS: fault=rearm's hour, still never within
 * the test).
 */
static void hpet_oneshot_at(u64 when)
{
	u64 now = arch_counter(), ticks = when > now ? when - now : 0;
	u64 margin = mul_u64_u64_shr32(ticks, tick_ppb_to_fx(dev.hpet_cal.err_ppb)) + 1;
	u64 counts = tick_ticks_to_counts(&dev.hpet_cal, ticks + margin) + 1;

	/*
	 * Parked half a wrap ahead before its interrupt is enabled (an old
	 * value would fire at once), then armed with the interrupt on: QEMU
	 * weighs the comparator against the counter again when the
	 * configuration is written, so only a read-back after that says
	 * whether it was passed. Deadlines are milliseconds ahead: none fires
	 * before hpet_armed says which comparator is in force.
	 */
	hpet_timer_off(dev.hpet_timer);
	dev.hpet_armed = false;
	hpet_timer_compare(dev.hpet_timer, hpet_counter_read32() + HPET_ARM_MAX_COUNTS);
	hpet_timer_setup(dev.hpet_timer, HPET_ONESHOT, HPET_IRQ_EDGE, dev.hpet_gsi);
	dev.hpet_cmp = hpet_timer_arm_ahead(dev.hpet_timer, counts).cmp;
	barrier(); /* hpet_irq() finds the comparator in force once it finds the flag */
	dev.hpet_armed = true;
}

static void hpet_oneshot_stop(void)
{
	hpet_timer_off(dev.hpet_timer);
	dev.hpet_armed = false;
}

static u64 hpet_cal_read(void)
{
	return hpet_counter_read64();
}

/*
 * The HPET's last timer, one-shot, edge-triggered on the first IOAPIC
 * input above the ISA lines it can drive (q35), to the boot vCPU; its main
 * counter running and calibrated against the TSC. Legacy replacement (pc)
 * would take the RTC's IRQ 8 and the PIT's IRQ 0: not used.
 */
static const char *hpet_oneshot_find(void)
{
	struct ioapic_route route;
	const char *why = hpet_find();

	if (why)
		return why;
	if (!hpet_counter_is_64bit())
		return "the HPET's main counter is 32 bits wide";
	if (!ioapic_init())
		return "no IOAPIC";
	dev.hpet_timer = hpet_timers() - 1;
	if (!hpet_timer_route_above_isa(dev.hpet_timer, &route))
		return "its last timer reaches no IOAPIC input above 15 (QEMU's pc: its legacy "
		       "replacement would take the RTC's IRQ 8)";
	hpet_counter_run();
	if (!tick_calibrate(hpet_cal_read, &dev.hpet_cal))
		return "its main counter does not count";
	dev.hpet_gsi = route.gsi;
	hpet_oneshot_stop();
	handle_exception(LC_HPET_VECTOR, hpet_irq);
	if (!ioapic_route(&route, LC_HPET_VECTOR, apic_id()))
		return "the IOAPIC has no such input";
	return NULL;
}

/* A device's slot after the LAPIC's, where the machine has it; else an INFO line says why not. */
static void add_slot(const char *name, enum lc_slot_use use, const char *(*find)(void),
		     unsigned *slot)
{
	const char *why = lc_arch_x86.nslots < LC_MAX_SLOTS ? find() : "no timer slot left";

	if (why) {
		report_info("%s timer not checked across events: %s", name, why);
		return;
	}
	*slot = lc_arch_x86.nslots++;
	lc_arch_x86.name_of_slot[*slot] = name;
	lc_arch_x86.slot_use[*slot] = use;
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

static const char *rtc_set(u64 secs)
{
	struct rtc_datetime t;

	rtc_epoch_datetime(secs, &t);
	return rtc_write_datetime(&t);
}

/* Under KVM and TCG alike: QEMU's own device model, its time base the host's time of day. */
static const struct lc_rtc cmos_rtc = {"RTC", "rtc", rtc_find, rtc_tick, rtc_epoch, rtc_set};

/* ---- the guest's own write of the TSC ------------------------------------- */

static const char *tsc_write_find(void)
{
	return tsc_features() & TSC_FEATURE_ADJUST ? NULL
						   : "CPUID.7.0:EBX[1] offers no IA32_TSC_ADJUST";
}

/* IA32_TSC written: the SDM moves IA32_TSC_ADJUST by what the write moved the TSC. */
static void tsc_write(u64 delta)
{
	wrmsr(MSR_IA32_TSC, rdtsc_ordered() + delta);
}

static u64 tsc_adjust_read(void)
{
	return rdmsr(MSR_IA32_TSC_ADJUST);
}

static const struct lc_counter_write tsc_counter_write = {
	"IA32_TSC_ADJUST", "kvm-pvm/tsc-adjust", tsc_write_find, tsc_write, tsc_adjust_read,
};

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
	const struct lc_derived *derived;
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
	 kvmclock_set_guest_stopped, &lc_kvmclock_derived},
	{"TCG", on_tcg, tcg_find, tcg_start, tcg_clocks, ARRAY_SIZE(tcg_clocks),
	 count_oneshot_at, count_stop, NULL, NULL, NULL, NULL},
};

static const struct accel *accel;

static void oneshot_at(unsigned slot, u64 when)
{
	if (slot == dev.hpet_slot)
		hpet_oneshot_at(when);
	else
		accel->oneshot_at(slot, when);
}

static u64 periodic(unsigned slot, u64 period)
{
	return slot == dev.rtc_slot ? rtc_periodic(period) : lapic_periodic(period);
}

static void stop(unsigned slot)
{
	if (slot == dev.rtc_slot)
		rtc_periodic_stop();
	else if (slot == dev.hpet_slot)
		hpet_oneshot_stop();
	else
		accel->stop(slot);
}

static const char *probe(void);

/* The clocks and the time of day are the accelerator's: probe() fills them in. */
struct lc_arch lc_arch_x86 = {
	.name_of_slot = { "lapic" },
	.slot_use = { LC_SLOT_EVERY_CPU },
	.periodic_kind = LC_PERIODIC_RELOAD,
	.nslots = 1,
	LC_ARCH_HOOKS,
	.rtc = &cmos_rtc,
	.stopped_flag_name = "PVCLOCK_GUEST_STOPPED",
	.counter_at_reset = LC_COUNTER_RESTARTS,
	.counter_write = &tsc_counter_write,
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
	add_slot("rtc-periodic", LC_SLOT_BOOT_PERIODIC, rtc_periodic_find, &dev.rtc_slot);
	add_slot("hpet-timer", LC_SLOT_BOOT_ONESHOT, hpet_oneshot_find, &dev.hpet_slot);
	lc_arch_x86.clocks = accel->clocks;
	lc_arch_x86.nclocks = accel->nclocks;
	lc_arch_x86.tod_ns = accel->tod_ns;
	lc_arch_x86.take_stopped_flag = accel->take_stopped_flag;
	lc_arch_x86.set_stopped_flag = accel->set_stopped_flag;
	lc_arch_x86.derived = accel->derived;
	report_info("%s: LAPIC timer at %llu counts per ms by its calibration (+-%llu ppm)",
		    accel->name, tick_ticks_to_counts(&lapic_cal, arch_counter_hz() / MSEC_PER_SEC),
		    lapic_cal.err_ppb / PPB_PER_PPM);
	return NULL;
}
