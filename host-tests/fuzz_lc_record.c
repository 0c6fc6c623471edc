// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for common/lifecycle/lifecycle_record.c and the
 * judgment behind it: arbitrary bytes as a log, every LC-RECORD block in it
 * parsed (lc_record_parse), and each one that parses judged
 * (lc_judge), as scripts/lifecycle-judge does with a log it is handed. A
 * record the parser accepts must be one the judgment can read: no read out
 * of its arrays, no division by zero, whatever the numbers. The judgment's
 * lines go to stdout, sent to /dev/null.
 */
/* LIBSRC: common/lifecycle/lifecycle_judge.c common/lifecycle/lifecycle_record.c */
/* LIBSRC: common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_run_check.c */
/* LIBSRC: common/lifecycle/lifecycle_tod.c common/lifecycle/lifecycle_derived_check.c */
/* LIBSRC: common/lifecycle/lifecycle_agree.c common/lifecycle/lifecycle_counter_check.c */
/* LIBSRC: common/lifecycle/lifecycle_figure.c common/lifecycle/lifecycle_proto.c */
/* LIBSRC: lib/period.c lib/busy.c lib/handoff.c lib/wait.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
/* FUZZFLAGS: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_record.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void cpu_relax(void)
{
}

/* What the judgment must never call: it reads its record only. */
#define CHECKS_NEVER(what) abort()
#define CHECKS_NEVER_HOST
#include "fake_checks_never.h"
#include "judged.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lc_record_text t;
	char *text = malloc(size + 1);
	size_t pos = 0;
	bool found = true;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	while (found) {
		size_t before = pos;

		if (lc_record_parse(text, &pos, &t, &found) || !found)
			break;
		report_prefix_pushf("event %u %s", t.rec.seq, lc_event_name(t.rec.done.kind));
		PRINTED(lc_judge(J, &t.rec));
		report_prefix_pop();
		/* a record moves past its own end */
		if (pos <= before)
			abort();
	}
	free(text);
	return 0;
}
