// SPDX-License-Identifier: GPL-2.0-only
/*
 * Judge recorded lifecycle events again on the host, with the guest's own
 * judgment (common/lifecycle/lifecycle_judge.c and the checks it calls):
 * each LOG holds one LC-RECORD block per event (lifecycle.flat prints one
 * when a check of the event fails, or for every event with record=always).
 * Prints the same check lines the guest printed, then one SUMMARY. Exit: 0
 * all passed, 1 a check failed, 2 a log could not be read or holds no whole
 * record. Run through scripts/lifecycle-judge, which builds it.
 */
/* LIBSRC: common/lifecycle/lifecycle_judge.c common/lifecycle/lifecycle_record.c */
/* LIBSRC: common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_run_check.c */
/* LIBSRC: common/lifecycle/lifecycle_tod.c common/lifecycle/lifecycle_derived_check.c */
/* LIBSRC: common/lifecycle/lifecycle_agree.c common/lifecycle/lifecycle_counter_check.c */
/* LIBSRC: common/lifecycle/lifecycle_figure.c common/lifecycle/lifecycle_proto.c */
/* LIBSRC: lib/period.c lib/busy.c lib/handoff.c lib/wait.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
#include <stdio.h>
#include <stdlib.h>
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_record.h"
#include "report.h"
#include "judge_tool.h"
#include "slurp.h"

/* lib/report.c's lock spins with it; the tool has one thread, so it never spins */
void cpu_relax(void)
{
}

/*
 * Linked in with the library the checks share with the engine (lib/handoff.c,
 * lib/wait.c); the judgment reads its record only, never a clock or a vCPU.
 */
#define CHECKS_NEVER(what)                                                                         \
	(fprintf(stderr, "lifecycle-judge: the judgment %s: a defect of the judgment\n", what),   \
	 abort())
#define CHECKS_NEVER_HOST
#include "fake_checks_never.h"
#include "judged.h"

/* Judge every event's record in one log; false when it has none, or one is not whole. */
static bool judge_log(const char *path)
{
	static struct lc_record_text t;
	char *log = slurp(path);
	unsigned events = 0;
	size_t pos = 0;

	printf("== %s\n", path);
	if (!log) {
		fprintf(stderr, "lifecycle-judge: %s: cannot read it\n", path);
		return false;
	}
	for (;;) {
		bool found;
		const char *bad = lc_record_parse(log, &pos, &t, &found);

		if (bad) {
			fprintf(stderr, "lifecycle-judge: %s: %s\n", path, bad);
			free(log);
			return false;
		}
		if (!found)
			break;
		report_prefix_pushf("event %u %s", t.rec.seq, lc_event_name(t.rec.done.kind));
		PRINTED(lc_judge(J, &t.rec));
		report_prefix_pop();
		events++;
	}
	free(log);
	if (!events)
		fprintf(stderr, "lifecycle-judge: %s: no LC-RECORD lines (run with record=always)\n",
			path);
	return events > 0;
}

int main(int argc, char **argv)
{
	return judge_tool_main(argc, argv, "lifecycle-judge", judge_log);
}
