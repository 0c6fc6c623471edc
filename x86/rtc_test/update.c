/* SPDX-License-Identifier: GPL-2.0-only */
/* rtc_test's steps 1 and 2: the update-ended interrupt, once a second, and the time of day it shows against the host's. */
#include "libc.h"
#include "rtc_test.h"
#include "argv.h"
#include "fixed.h"
#include "report.h"
#include "stats.h"
#include "tod.h"
#include "units.h"

/* fault=tod_stale2s */
#define FAULT_TOD_STALE_S 2

/* ---- 1. update and 2. time of day ----------------------------------------------- */

static void tod_test(const struct update_event *u)
{
	static const struct tod_clock rtc = { .name = "the RTC", .figure = "rtc.tod_offset_ms",
					      .unit = TOD_UNIT_MS, .resolution_ns = NSEC_PER_SEC };
	struct tod_reading r = {
		.host_ns = opt.host_ns,
		.host_time = opt.host_has_fraction ? TOD_HOST_FRACTION : TOD_HOST_WHOLE_SECONDS,
		.elapsed_ns = ticks_to_ns(u->tsc - start_tsc, arch_counter_hz()),
		.threshold_ns = opt.threshold_ns,
	};

	report_prefix_push("tod");
	if (u->why) {
		report(false, "the RTC's date in the update interrupt: %s", u->why);
		report_prefix_pop();
		return;
	}
	r.clock_ns = rtc_datetime_epoch(&u->dt) * NSEC_PER_SEC;
	if (opt.fault == FAULT_TOD_STALE2S)
		r.clock_ns -= FAULT_TOD_STALE_S * NSEC_PER_SEC;
	report_info("RTC %04u-%02u-%02u %02u:%02u:%02u UTC at its edge, %llu ms after this test "
		    "started",
		    u->dt.year, u->dt.month, u->dt.day, u->dt.hour, u->dt.min, u->dt.sec,
		    r.elapsed_ns / NSEC_PER_MSEC);
	tod_check(&rtc, &r);
	report_prefix_pop();
}

static void interval_check(unsigned k)
{
	u64 interval_ns = ref_ns(rtc_events[k].at - rtc_events[k - 1].at);
	/* the reference's tolerance in ppb is its error in ns over the nominal second */
	u64 slack_ns = IRQ_UNEXPLAINED_LATE_MS * NSEC_PER_MSEC + max(steal_before(k - 1), steal_before(k)) +
		       rtc_ref->tolerance_ppb;
	u64 off = interval_ns > NSEC_PER_SEC ? interval_ns - NSEC_PER_SEC
					     : NSEC_PER_SEC - interval_ns;
	u32 s0 = rtc_updates[k - 1].dt.sec, s1 = rtc_updates[k].dt.sec;
	char a[24], b[24];

	report_result("rtc.update.interval_ms", "ms", "%s",
		      fmt_milli(a, sizeof(a), interval_ns / NSEC_PER_USEC));
	report(!rtc_updates[k].why && !rtc_updates[k - 1].why && s1 == (s0 + 1) % 60,
	       "update interrupt %u: the seconds went from %u to %u", k, s0, s1);
	report(off <= slack_ns,
	       "update interrupt %u came %s ms after the one before (1 s +- %s ms)", k, a,
	       fmt_milli(b, sizeof(b), slack_ns / NSEC_PER_USEC));
}

void update_test(void)
{
	unsigned want = arg_listed(opt.phases, PHASE_UPDATE) ? UPDATE_IRQS : 1;
	unsigned n;

	rtc_read_time_in_handler = true;
	n = collect(RTC_IRQ_UPDATE, want, (want + 1) * NSEC_PER_SEC);
	rtc_read_time_in_handler = false;
	if (arg_listed(opt.phases, PHASE_UPDATE)) {
		report_prefix_push("update");
		report(n == want,
		       "%u update-ended interrupts within %u s (want %u, one per second)", n,
		       want + 1, want);
		report(n && flags_set(n, RTC_C_UF | RTC_C_IRQF),
		       "register C has UF and IRQF set in every update interrupt (first: %#x)",
		       n ? rtc_events[0].reg_c : 0);
		for (unsigned k = 1; k < n; k++)
			interval_check(k);
		report_prefix_pop();
	}
	if (!arg_listed(opt.phases, PHASE_TOD))
		return;
	if (!opt.host_ns)
		report_info("tod: no host_time given, not checked");
	else if (!n)
		report(false, "tod: no update interrupt to read the time of day at");
	else
		tod_test(&rtc_updates[0]);
}
