/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lifecycle test's reset event: a guest that asks the host for a
 * system_reset ends its life there; the runner carries what the next life
 * needs (the counter as the request went out, the report counts so far)
 * and hands it back as the answer to that life's first words, the boot
 * request. The next life checks the counter against the host's time.
 *
 * Why: QEMU before 7.0 left the TSC counting from its old value across a
 * reset under KVM (KVM took a write of 0 for a hot-plugged vCPU), and
 * guests that calibrate from it (Windows' Hyper-V reference time) hung on
 * reboot (docs/real-bugs.md).
 */
#include "lifecycle_state.h"
#include "fixed.h"
#include "report.h"
#include "wait.h"

/*
 * The counter against the host's time from the reset: its frequency may be
 * off by what the arch could tell of it (a TCG TSC's is a guess within a
 * few per mille), and the host's stamps by a console line's delay.
 */
#define LC_RESET_RATE_TOL_PPT 20
#define LC_RESET_SLACK_NS     50000000ull
/*
 * A life lasts at least this long by the counter before it asks for a
 * reset, so that a counter that did not start again reads more after the
 * reset than before it, however long the host took over the reset.
 */
#define LC_RESET_MIN_LIFE_NS NSEC_PER_SEC

bool lc_has_reset(void)
{
	for (unsigned i = 0; i < lc.nevents; i++)
		if (lc.events[i] == LC_RESET)
			return true;
	return false;
}

void lc_request_reset(void)
{
	unsigned tests, failures, skipped;

	spin_until(ns_to_ticks(LC_RESET_MIN_LIFE_NS, arch_counter_hz()));
	report_counts(&tests, &failures, &skipped);
	printf(LC_REQUEST "reset %u counter=%llu tests=%u failures=%u skipped=%u\n", lc.rec.seq,
	       arch_counter(), tests, failures, skipped);
	spin_ns(LC_ANSWER_WAIT_NS);
	report_abort("event %u reset: still running %llu s after asking for it", lc.rec.seq,
		     LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
}

/* The host's time from t0 to the boot request, as a bound on counter time: rate tolerance and slack added. */
static u64 bound_ns(u64 host_ns)
{
	return host_ns + host_ns / MILLI_PER_UNIT * LC_RESET_RATE_TOL_PPT + LC_RESET_SLACK_NS;
}

/*
 * x86: the counter counts from the reset; the host saw duration_ns from
 * sending system_reset to this life's boot request, which the counter's
 * time since the reset cannot exceed. It also reads less than it did as
 * the reset was asked for (a life lasts LC_RESET_MIN_LIFE_NS at least),
 * which a counter that went on never does, however slow the reset.
 */
static void check_restarted(struct checks *out, u64 at_boot)
{
	u64 value = at_boot + (lc.rec.fault == LC_FAULT_RESET_COUNTER ? lc.rec.done.counter : 0);
	u64 ns = counter_ns(value), bound = bound_ns(lc.rec.done.duration_ns);
	char v[FIXED_BUF_SIZE], was[FIXED_BUF_SIZE], h[FIXED_BUF_SIZE], b[FIXED_BUF_SIZE];
	char defect[32];

	/* a known defect of the host kind the runner named, if it has one: tcg/ or kvm-pvm/ */
	snprintf(defect, sizeof(defect), "%s/tsc-reset", lc.host_kind);
	checks_kfail(
		out, ns <= bound && value < lc.rec.done.counter, defect,
		"the counter started again from zero at the reset: it read %s ms at the boot "
		"request "
		"(%s ms as the reset was asked for), the host saw %s ms from system_reset to it "
		"(bound %s ms)",
		fmt_milli(v, sizeof(v), ns / NSEC_PER_USEC),
		fmt_milli(was, sizeof(was), counter_ns(lc.rec.done.counter) / NSEC_PER_USEC),
		fmt_milli(h, sizeof(h), lc.rec.done.duration_ns / NSEC_PER_USEC),
		fmt_milli(b, sizeof(b), bound / NSEC_PER_USEC));
	lc_result_ms(out, &lc.rec, "counter", "at_boot", ns);
}

/*
 * arm64: the counter goes on; from the reset request to the boot request
 * it moved forward by no more than the host saw pass (total_ns).
 */
static void check_went_on(struct checks *out, u64 at_boot)
{
	u64 value = at_boot - (lc.rec.fault == LC_FAULT_RESET_COUNTER ? min(at_boot, lc.rec.done.counter) : 0);
	u64 bound = bound_ns(lc.rec.done.total_ns);
	bool forward = value >= lc.rec.done.counter;
	u64 moved = counter_ns(forward ? value - lc.rec.done.counter : lc.rec.done.counter - value);
	char m[FIXED_BUF_SIZE], h[FIXED_BUF_SIZE], b[FIXED_BUF_SIZE];

	checks_plain(
		out, forward && moved <= bound,
		"the counter went on across the reset: %s%s ms from the reset request to the boot "
		"request, the host saw %s ms (bound 0 to %s ms)",
		forward ? "+" : "-", fmt_milli(m, sizeof(m), moved / NSEC_PER_USEC),
		fmt_milli(h, sizeof(h), lc.rec.done.total_ns / NSEC_PER_USEC),
		fmt_milli(b, sizeof(b), bound / NSEC_PER_USEC));
	lc_result_ms(out, &lc.rec, "counter", "moved", forward ? moved : 0);
}

unsigned lc_boot_handshake(void)
{
	static struct lc_answer a;
	struct checks *out;
	u64 give_up;

	printf(LC_REQUEST "boot 0");
	a.nl_at = arch_counter();
	putchar('\n');
	give_up = a.nl_at + ns_to_ticks(LC_ANSWER_WAIT_NS, arch_counter_hz());
	if (!lc_read_answer(NULL, &a, give_up))
		report_abort("no answer from the runner to the boot request in %llu s",
			     LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
	if (!lc_parse_done(a.line, &lc.rec.done) || lc.rec.done.kind != LC_RESET ||
	    lc.rec.done.seq > lc.nevents || (lc.rec.done.seq && lc.events[lc.rec.done.seq - 1] != LC_RESET))
		report_abort("the runner's answer to the boot request is not one: '%s'", a.line);
	if (!lc.rec.done.seq)
		return 1;
	lc.rec.seq = lc.rec.done.seq;
	report_carry((unsigned)lc.rec.done.tests, (unsigned)lc.rec.done.failures, (unsigned)lc.rec.done.skipped);
	report_info("event %u reset: a new life; %llu checks, %llu failed, %llu skipped before it",
		    lc.rec.seq, lc.rec.done.tests, lc.rec.done.failures, lc.rec.done.skipped);
	out = lc_checks();
	report_prefix_pushf("event %u reset", lc.rec.seq);
	lc_result_ms(out, &lc.rec, "host", "down", lc.rec.done.duration_ns);
	lc_result_ms(out, &lc.rec, "host", "total", lc.rec.done.total_ns);
	if (lc.rec.arch->counter_at_reset == LC_COUNTER_RESTARTS)
		check_restarted(out, a.nl_at);
	else
		check_went_on(out, a.nl_at);
	report_checks(out);
	report_prefix_pop();
	return lc.rec.seq + 1;
}
