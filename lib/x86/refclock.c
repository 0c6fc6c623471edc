/* SPDX-License-Identifier: GPL-2.0-only */
/* x86's reference clocks: the HPET main counter, the ACPI PM timer, PIT channel 2 and the CMOS RTC's seconds. */
#include "refclock.h"
#include "x86/hpet.h"
#include "x86/pit.h"
#include "x86/pmtimer.h"
#include "x86/rtc.h"
#include "units.h"

/*
 * Why the clocks may drift from their nominal rate without the clock
 * under test being wrong. QEMU computes each device's count from a host
 * clock: the HPET and the PM timer from QEMU_CLOCK_VIRTUAL, which under
 * KVM is the host's CLOCK_MONOTONIC while the VM runs; the PIT is KVM's
 * in-kernel one (QEMU's own with kernel-irqchip=split or off), counting
 * from the host kernel's ktime_get(), CLOCK_MONOTONIC again; the RTC
 * from QEMU_CLOCK_HOST (-rtc clock=host, the default), CLOCK_REALTIME,
 * which runs at CLOCK_MONOTONIC's rate but is also stepped when the
 * host's time is set (a step shows as a failure). kvmclock instead
 * scales the TSC by the host's TSC frequency, the raw crystal rate that
 * NTP does not slew. The two rates therefore differ by NTP's frequency
 * correction, at most 500 ppm (the kernel's MAXFREQ), plus the error of
 * the host's own TSC calibration, allowed as much again: 1000 ppm.
 */
#define HOST_CLOCK_TOLERANCE_PPB (1000 * PPB_PER_PPM)
/* Follow wraps at least twice per wrap period. */
#define HALF_WRAP_NS(bits, hz)	 ((1ull << (bits)) * NSEC_PER_SEC / (hz) / 2)

/* A counter of `bits` bits followed across its wraps; up or down. */
struct extended {
	u32 last;
	u64 total;
};

static u64 extend_up(struct extended *e, u32 now, unsigned bits)
{
	u32 mask = bits == 32 ? ~0u : (1u << bits) - 1;

	e->total += (now - e->last) & mask;
	e->last = now;
	return e->total;
}

static u64 extend_down(struct extended *e, u32 now, unsigned bits)
{
	u32 mask = bits == 32 ? ~0u : (1u << bits) - 1;

	e->total += (e->last - now) & mask;
	e->last = now;
	return e->total;
}

/* ---- HPET main counter: 32-bit reads, one MMIO exit each ---- */

static struct extended hpet_ext;

static const char *hpet_ref_probe(void)
{
	const char *why = hpet_find();

	if (why)
		return why;
	hpet_counter_run();
	hpet_ext.last = hpet_counter_read32();
	return NULL;
}

static u64 hpet_ref_read(void)
{
	return extend_up(&hpet_ext, hpet_counter_read32(), 32);
}

static const struct refclock refclock_hpet = {
	.name = "hpet",
	.what = "HPET main counter",
	.probe = hpet_ref_probe,
	.hz = hpet_counter_hz,
	.read = hpet_ref_read,
	/* 2^32 counts at the spec's slowest 10 MHz is 429 s: assume QEMU's 100 MHz, 21 s */
	.max_poll_ns = HALF_WRAP_NS(32, 100000000),
	.tolerance_ppb = HOST_CLOCK_TOLERANCE_PPB,
};

/* ---- ACPI PM timer: 24 or 32 bits, one port read each ---- */

static struct extended pm_ext;

static const char *pm_ref_probe(void)
{
	const char *why = pmtimer_find();

	if (why)
		return why;
	pm_ext.last = pmtimer_read();
	return NULL;
}

static u64 pm_ref_hz(void)
{
	return PMTIMER_HZ;
}

static u64 pm_ref_read(void)
{
	return extend_up(&pm_ext, pmtimer_read(), pmtimer_bits());
}

static const struct refclock refclock_pmtimer = {
	.name = "pmtimer",
	.what = "ACPI PM timer",
	.probe = pm_ref_probe,
	.hz = pm_ref_hz,
	.read = pm_ref_read,
	.max_poll_ns = HALF_WRAP_NS(24, PMTIMER_HZ),
	.tolerance_ppb = HOST_CLOCK_TOLERANCE_PPB,
};

/* ---- PIT channel 2: a 16-bit down-counter, a latch and two port reads each ---- */

static struct extended pit_ext;

static const char *pit_ref_probe(void)
{
	pit_ch2_run();
	pit_ext.last = pit_ch2_count();
	return NULL;
}

static u64 pit_ref_hz(void)
{
	return PIT_HZ;
}

static u64 pit_ref_read(void)
{
	return extend_down(&pit_ext, pit_ch2_count(), 16);
}

static const struct refclock refclock_pit = {
	.name = "pit",
	.what = "PIT channel 2",
	.probe = pit_ref_probe,
	.hz = pit_ref_hz,
	.read = pit_ref_read,
	.max_poll_ns = HALF_WRAP_NS(16, PIT_HZ),
	.tolerance_ppb = HOST_CLOCK_TOLERANCE_PPB,
};

/* ---- CMOS RTC: seconds of the day, extended across midnight ---- */

static struct {
	u32 last;
	u64 days;
} rtc_ext;

static const char *rtc_ref_probe(void)
{
	return rtc_seconds_of_day(&rtc_ext.last);
}

static u64 rtc_ref_hz(void)
{
	return 1;
}

/* A read that fails repeats the last count: the caller's wait for a change then times out. */
static u64 rtc_ref_read(void)
{
	u32 now;

	if (!rtc_seconds_of_day(&now)) {
		rtc_ext.days += now < rtc_ext.last;
		rtc_ext.last = now;
	}
	return rtc_ext.days * RTC_SECONDS_PER_DAY + rtc_ext.last;
}

static const struct refclock refclock_rtc = {
	.name = "rtc",
	.what = "CMOS RTC seconds",
	.probe = rtc_ref_probe,
	.hz = rtc_ref_hz,
	.read = rtc_ref_read,
	/* a day's wrap is told from a step back: any gap under a day follows it */
	.max_poll_ns = (RTC_SECONDS_PER_DAY / 2) * NSEC_PER_SEC,
	.tolerance_ppb = HOST_CLOCK_TOLERANCE_PPB,
};

static const struct refclock *const x86_refclocks[] = {
	&refclock_hpet,
	&refclock_pmtimer,
	&refclock_pit,
	&refclock_rtc,
};

const struct refclock *const *refclock_table(size_t *n)
{
	*n = ARRAY_SIZE(x86_refclocks);
	return x86_refclocks;
}
