// SPDX-License-Identifier: GPL-2.0-only
/*
 * Judge recorded timer-tick runs again on the host, with the guest's own
 * judgment (common/tick/tick_judge.c) and reports (common/tick/tick_checks.c): each
 * LOG holds a run's TICK-RECORD lines (timer-tick.flat prints them when a
 * check fails, or always with record=always). Prints the same check lines
 * the guest printed, then one SUMMARY per log. Exit: 0 all passed, 1 a
 * check failed, 2 a log could not be read or holds no whole record.
 * Run through scripts/tick-judge, which builds it.
 */
/* LIBSRC: common/tick/tick_judge.c common/tick/tick_record.c common/tick/tick_checks.c */
/* LIBSRC: common/tick/tick_figure.c common/tick/tick_math.c */
/* LIBSRC: lib/period.c lib/busy.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
/* LIBSRC: lib/mul64.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_shim.h"
#include "../common/tick/tick_engine.h"
#include "../common/tick/tick_record.h"
#include "report.h"
#include "tick_work_host.h"
#include "judge_tool.h"
#include "slurp.h"
#include "judged.h"

/* lib/report.c's lock spins with it; the tool has one thread, so it never spins */
void cpu_relax(void)
{
}

/* Judge one log's record; false when it has none whole. */
static bool judge_log(const char *path)
{
	struct tick_record_text t;
	struct tick_verdict v;
	char *log = slurp(path);
	const char *bad;
	struct tick_work w;

	printf("== %s\n", path);
	if (!log) {
		fprintf(stderr, "tick-judge: %s: cannot read it\n", path);
		return false;
	}
	bad = tick_record_parse(log, &t);
	free(log);
	if (bad) {
		fprintf(stderr, "tick-judge: %s: %s\n", path, bad);
		tick_record_free(&t);
		return false;
	}
	w = tick_work_host(t.rec.n);
	tick_judge(&t.rec, &v, &w);
	/* as the guest: the lost-tick check's resolution where it passed */
	tick_take_resolution(&t.rec, &v, &w, 0);
	report_prefix_push(t.rec.source);
	PRINTED(tick_note_host(J, &t.rec, &v); tick_checks(J, &t.rec, &v));
	report_prefix_pop();
	tick_work_host_free(&w);
	tick_record_free(&t);
	return true;
}

int main(int argc, char **argv)
{
	return judge_tool_main(argc, argv, "tick-judge", judge_log);
}
