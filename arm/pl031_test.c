/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pl031_test: the PL031 real-time clock a guest boots its time of day
 * from, and its match interrupt.
 *
 * Why: an arm64 guest without a paravirtual clock takes the date from the
 * PL031 (Linux's rtc-pl031 at boot, hwclock), and its alarm wakes it from
 * suspend. A clock set from the wrong time zone or never started, or an
 * alarm that fires early, late, or forever, is the hypervisor's bug.
 *
 * What it checks (phases=):
 *  1. tod (only with host_time=): RTCDR against the host's time of day H
 *     when QEMU started, by lib/tod.h's one rule: the figure is RTCDR - H
 *     - e, e the time since this test started (the counter), that is
 *     QEMU's start-up less what RTCDR lost; RTCDR counts whole seconds (it
 *     truncates), so the figure may be 1 s below 0, and up to threshold
 *     above (+1 s for a host time without a fraction); each end 1000 ppm
 *     of e wider for the counter's drift.
 *  2. match: with the interrupt unmasked, RTCMR = RTCDR + 2 raises its
 *     SPI once, not before RTCDR reaches RTCMR and not a second after;
 *     in the handler RTCRIS and RTCMIS are set, and clearing (RTCICR)
 *     drops RTCRIS.
 *  3. mask: with the interrupt masked, a match sets RTCRIS but not
 *     RTCMIS, and no interrupt is taken.
 * RESULT lines: pl031.tod_offset_s (RTCDR - H - e, s to the ns), pl031.match_late_s.
 *
 * Arguments, key=value:
 *   host_time=S   the host's time of day when QEMU started ({host_time}),
 *                 optionally with up to 9 fraction digits; absent: no step 1
 *   threshold=S   step 1's allowance for QEMU's start-up, seconds (default 5)
 *   phases=LIST   which of tod, match, mask to run (default all)
 *   fault=NAME    test-only: unmasked (step 3 leaves the interrupt
 *                 unmasked), noclear (the handler masks but does not
 *                 clear), early (RTCMR set 2 s nearer than step 2 expects),
 *                 tod_stale2s (RTCDR taken 2 s behind in step 1)
 * Anything else is a failure. SKIP without a PL031.
 */
#include "libc.h"
#include "irq.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/pl031.h"
#include "report.h"
#include "arm64/sysreg.h"
#include "tod.h"
#include "stats.h"
#include "units.h"
#include "wait.h"

#define MATCH_AHEAD_S		2
/* how long to wait for the match: ahead plus two seconds, in seconds of the counter */
#define MATCH_WAIT_S		(MATCH_AHEAD_S + 2)

/* The steps of phases=, each its index in phase_names[]. */
enum phase { PHASE_TOD, PHASE_MATCH, PHASE_MASK };
static const char *const phase_names[] = {
	[PHASE_TOD] = "tod", [PHASE_MATCH] = "match", [PHASE_MASK] = "mask"};
enum fault { FAULT_NONE, FAULT_UNMASKED, FAULT_NOCLEAR, FAULT_EARLY, FAULT_TOD_STALE2S };
static const char *const fault_names[] = { "none", "unmasked", "noclear", "early", "tod_stale2s" };
/* fault=early: RTCMR set this much nearer than the check expects, as an alarm firing early would look */
#define FAULT_EARLY_S		2
/* fault=tod_stale2s: RTCDR taken this much behind, as a clock set from a stale time would read */
#define FAULT_TOD_STALE_S	2
/*
 * Step 3 reads the device between spins of this long: every read is an
 * exit that takes the VMM's device lock, and QEMU's main loop, which runs
 * the timer that sets RTCRIS at the match, needs it too. RTCDR is computed
 * at each read, so back-to-back reads saw the match's second come with
 * RTCRIS still clear (once, in a make check under TCG); RTCRIS then has
 * until this long after that second to be set.
 */
#define MASK_POLL_US		100
#define MASK_SETTLE_MS		500

static struct {
	u64 host_ns;
	bool host_has_fraction;
	u64 threshold_ns;
	unsigned phases;
	unsigned fault;		/* enum fault */
} opt;

/* What the handler saw. */
static struct {
	u32 count;
	u32 at;			/* RTCDR */
	bool raw, masked;
} seen;

static void pl031_handler(struct pt_regs *regs, unsigned irq)
{
	seen.at = pl031_seconds();
	seen.raw = pl031_irq_raw();
	seen.masked = pl031_irq_masked_status();
	/* the line is a level: quiet it, or it is taken again at once */
	pl031_irq_mask();
	if (opt.fault != FAULT_NOCLEAR)
		pl031_irq_clear();
	atomic_inc(&seen.count);
}

static bool irq_seen(void *unused)
{
	return atomic_load(&seen.count) != 0;
}

/* The match has passed (RTCDR beyond match), or an interrupt came. */
static bool match_passed(void *match)
{
	return pl031_seconds() > *(u32 *)match || irq_seen(NULL);
}

/* RTCRIS is set, or an interrupt came. */
static bool raw_or_irq(void *unused)
{
	return pl031_irq_raw() || irq_seen(NULL);
}

/* Wait for an interrupt or MATCH_WAIT_S of the counter; true if one came. */
static bool wait_irq(void)
{
	return wait_cond_ticks(irq_seen, NULL, MATCH_WAIT_S * arch_counter_hz());
}

/* arch_counter() when main() began: the start of what step 1 counts as elapsed */
static u64 start_counter;

static void check_tod(void)
{
	static const struct tod_clock pl031 = { .name = "PL031", .figure = "pl031.tod_offset_s",
						.unit = TOD_UNIT_S, .resolution_ns = NSEC_PER_SEC };
	struct tod_reading r = {
		.clock_ns = pl031_seconds() * NSEC_PER_SEC,
		.host_ns = opt.host_ns,
		.host_time = opt.host_has_fraction ? TOD_HOST_FRACTION : TOD_HOST_WHOLE_SECONDS,
		.elapsed_ns = ticks_to_ns(arch_counter() - start_counter, arch_counter_hz()),
		.threshold_ns = opt.threshold_ns,
	};

	if (opt.fault == FAULT_TOD_STALE2S)
		r.clock_ns -= FAULT_TOD_STALE_S * NSEC_PER_SEC;
	report_prefix_push("tod");
	tod_check(&pl031, &r);
	report_prefix_pop();
}

static void check_match(void)
{
	u32 match;
	bool came;

	memset(&seen, 0, sizeof(seen));
	pl031_irq_clear();
	match = pl031_seconds() + MATCH_AHEAD_S;
	pl031_set_match(opt.fault == FAULT_EARLY ? match - FAULT_EARLY_S : match);
	pl031_irq_unmask();
	irq_enable();
	came = wait_irq();
	irq_disable();
	if (!came) {
		pl031_irq_mask();
		report(false, "match: no interrupt within %d s of RTCMR = now + %d", MATCH_WAIT_S, MATCH_AHEAD_S);
		return;
	}
	report_result("pl031.match_late_s", "s", "%lld", seen.at - (s64)match);
	report(seen.count == 1 && seen.at >= match && seen.at <= match + 1 && seen.raw && seen.masked,
	       "match: one interrupt (%u) at RTCDR %+lld s from RTCMR, RTCRIS %d and RTCMIS %d in the handler",
	       seen.count, seen.at - (s64)match, seen.raw, seen.masked);
	report(!pl031_irq_raw(), "match: RTCICR clears RTCRIS (now %d)", pl031_irq_raw());
	pl031_irq_clear();
}

static void check_mask(void)
{
	u32 match = pl031_seconds() + 1;
	bool raw, masked, taken;

	memset(&seen, 0, sizeof(seen));
	pl031_irq_clear();
	pl031_set_match(match);
	if (opt.fault == FAULT_UNMASKED)
		pl031_irq_unmask();
	else
		pl031_irq_mask();
	irq_enable();
	poll_cond_ticks(match_passed, &match, WAIT_FOREVER, MASK_POLL_US * NSEC_PER_USEC);
	poll_cond_ticks(raw_or_irq, NULL, arch_counter_hz() * MASK_SETTLE_MS / MSEC_PER_SEC,
			MASK_POLL_US * NSEC_PER_USEC);
	taken = atomic_load(&seen.count) != 0;
	irq_disable();
	raw = pl031_irq_raw() || seen.raw;
	masked = pl031_irq_masked_status() || seen.masked;
	pl031_irq_mask();
	pl031_irq_clear();
	report(raw && !masked && !taken, "mask: a masked match sets RTCRIS (%d), not RTCMIS (%d), takes none (%s)",
	       raw, masked, taken ? "one taken" : "none");
}

static const struct arg args[] = {
	ARG_HOST_TIME(&opt.host_ns, &opt.host_has_fraction, 1,
		      "the host's time of day when QEMU started; absent: no time of day check"),
	ARG_SECONDS("threshold", &opt.threshold_ns, 0, UINT64_MAX, "5",
		    "the time of day check's allowance for start-up and boot"),
	ARG_LIST("phases", &opt.phases, phase_names, "tod,match,mask", "steps to run"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

int main(int argc, char **argv)
{
	const char *why;
	unsigned irq;

	start_counter = arch_counter();
	args_parse_or_abort(&arg_table, argc, argv);
	why = pl031_find();
	if (why) {
		report_skip("PL031: %s", why);
		return report_summary();
	}
	/* first: the host's time of day is from before QEMU started, and the match steps take seconds */
	if (arg_listed(opt.phases, PHASE_TOD) && opt.host_ns)
		check_tod();
	else if (arg_listed(opt.phases, PHASE_TOD))
		report_info("tod: no host_time given, not checked");
	if (!arg_listed(opt.phases, PHASE_MATCH) && !arg_listed(opt.phases, PHASE_MASK))
		return report_summary();
	irq = pl031_irq();
	if (!gic_version() || !irq) {
		report_skip("match: %s", gic_version() ? "the device tree names no PL031 interrupt" : "no GIC");
		return report_summary();
	}
	install_irq_handler(irq, pl031_handler);
	gic_set_trigger(irq, GIC_TRIGGER_LEVEL);
	gic_enable_irq(irq);
	if (arg_listed(opt.phases, PHASE_MATCH))
		check_match();
	if (arg_listed(opt.phases, PHASE_MASK))
		check_mask();
	gic_disable_irq(irq);
	return report_summary();
}
