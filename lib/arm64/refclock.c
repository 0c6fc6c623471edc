// SPDX-License-Identifier: GPL-2.0-only
/* arm64's reference clocks: the PL031 RTC's seconds, independent of the generic timer's counter. */
#include "refclock.h"
#include "arm64/pl031.h"
#include "units.h"

/*
 * Why the PL031 may drift from its nominal 1 Hz without CNTVCT being
 * wrong. QEMU computes RTCDR from its RTC clock: QEMU_CLOCK_HOST
 * (-rtc clock=host, the default), the host's CLOCK_REALTIME, which NTP
 * slews by up to 500 ppm (the kernel's MAXFREQ) and which a time step
 * moves at once (a step shows as a failure); with -rtc clock=vm, as the
 * tick entries run under -icount, QEMU_CLOCK_VIRTUAL, the clock CNTVCT
 * is scaled from, exactly. Allowed: 500 ppm, and as much again for the
 * host's own clock calibration, as for x86's references.
 */
#define PL031_TOLERANCE_PPB (1000 * PPB_PER_PPM)
#define PL031_HZ	    1
#define SECONDS_PER_2_31    (1ull << 31)

static struct {
	u32 last;
	u64 total;
} pl031_ext;

static const char *pl031_ref_probe(void)
{
	const char *why = pl031_find();

	if (!why)
		pl031_ext.last = pl031_seconds();
	return why;
}

static u64 pl031_ref_hz(void)
{
	return PL031_HZ;
}

/* RTCDR counts up through 2^32 seconds; the total follows it from the first read. */
static u64 pl031_ref_read(void)
{
	u32 now = pl031_seconds();

	pl031_ext.total += now - pl031_ext.last;
	pl031_ext.last = now;
	return pl031_ext.total;
}

static const struct refclock refclock_pl031 = {
	.name = "pl031",
	.what = "PL031 RTC seconds",
	.probe = pl031_ref_probe,
	.hz = pl031_ref_hz,
	.read = pl031_ref_read,
	/* a 32-bit count of seconds: any gap under half its wrap follows it */
	.max_poll_ns = SECONDS_PER_2_31 * NSEC_PER_SEC,
	.tolerance_ppb = PL031_TOLERANCE_PPB,
};

static const struct refclock *const arm64_refclocks[] = {
	&refclock_pl031,
};

const struct refclock *const *refclock_table(size_t *n)
{
	*n = ARRAY_SIZE(arm64_refclocks);
	return arm64_refclocks;
}
