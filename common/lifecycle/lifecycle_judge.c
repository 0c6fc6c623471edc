/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lifecycle test's judgment of one event: every check, in order, as a
 * function of the event's const record. The guest calls it once the
 * sampling is over (common/lifecycle/lifecycle_engine.c); the host calls it
 * on a record read back from a log (host-tests/tool_lifecycle_judge.c).
 */
#include "lifecycle_judge.h"

/* The runner's figures of the event, as RESULT lines. */
static void host_figures(struct checks *out, const struct lc_record *r)
{
	lc_result_ms(out, r, "host", "stopped", (s64)r->done.duration_ns);
	lc_result_ms(out, r, "host", "qmp_downtime", (s64)r->done.qmp_downtime_ns);
	lc_result_ms(out, r, "host", "total", (s64)r->done.total_ns);
	lc_result_ms(out, r, "host", "vcpu_wait", (s64)r->done.vcpu_wait_ns);
}

void lc_judge(struct checks *out, const struct lc_record *r)
{
	host_figures(out, r);
	for (unsigned i = 0; i < r->arch->nclocks; i++)
		lc_check_clock(out, r, i);
	if (r->arch->derived)
		lc_check_derived(out, r);
	lc_check_agree(out, r);
	if (r->counter_set)
		lc_check_counter_kept(out, r);
	lc_check_timers(out, r);
	if (r->run.n)
		lc_check_run(out, r);
	if (r->has_tod)
		lc_check_tod(out, r);
	if (r->rtc)
		lc_check_rtc(out, r);
	if (r->has_flag)
		lc_check_stopped_flag(out, r);
}
