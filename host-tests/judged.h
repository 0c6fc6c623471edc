/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A judgment's list for host tests (lib/checks.h), as large as the guest's
 * lifecycle list: test_checks() hands it out emptied, for a test to judge
 * into and read the entries of (the lifecycle's tests: lc_entries.h);
 * PRINTED(call) runs a judge into it (the call names it J) and prints it
 * with the guest's one printer, report_checks(), so what a test of the
 * printed lines captures is what the guest prints. Header-only: static
 * storage per test binary.
 */
#ifndef VMTICK_HOST_JUDGED_H
#define VMTICK_HOST_JUDGED_H

#include "../lib/checks.h"
#include "../lib/report.h"

#define TEST_CHECKS_MAX	 1024
#define TEST_CHECKS_TEXT (256 * 1024)

static inline struct checks *test_checks(void)
{
	static struct check entries[TEST_CHECKS_MAX];
	static char text[TEST_CHECKS_TEXT];
	static struct checks list;

	checks_init(&list, entries, TEST_CHECKS_MAX, text, sizeof(text));
	return &list;
}

#define PRINTED(call)                             \
	do {                                      \
		struct checks *J = test_checks(); \
		call;                             \
		report_checks(J);                 \
	} while (0)

/*
 * A fresh event record to judge, for the lifecycle's tests (those that
 * include lifecycle_state.h first): event 1 of kind on arch's ncpus vCPUs,
 * a counter at counter_hz, the rest zero.
 */
#ifdef VMTICK_LIFECYCLE_STATE_H
static inline struct lc_record *fresh_event(const struct lc_arch *arch, unsigned ncpus,
					    u64 counter_hz, enum lc_event kind)
{
	memset(&lc, 0, sizeof(lc));
	lc.rec.arch = arch;
	lc.rec.ncpus = ncpus;
	lc.rec.counter_hz = counter_hz;
	lc.rec.seq = 1;
	lc.rec.done = (struct lc_done){.kind = kind, .seq = 1};
	return &lc.rec;
}
#endif

#endif
