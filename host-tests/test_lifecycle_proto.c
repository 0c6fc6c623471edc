// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_proto.c, the guest's parser of the runner's answer to an
 * event request ("LIFECYCLE-DONE KIND SEQ key=value ...", docs/lifecycle.md):
 * the line scripts/lifecycle.py writes is read back field by field; every
 * malformed line - another first word, an unknown kind, a zero or
 * non-numeric SEQ, an unknown, repeated or missing fact, a value that is
 * not a decimal or overflows 64 bits, too many or too long words - is
 * refused rather than half read.
 */
/* LIBSRC: common/lifecycle/lifecycle_proto.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../common/lifecycle/lifecycle.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define FACTS " duration_ns=1001216000 qmp_downtime_ns=0 total_ns=1002114000 overhead_ns=4000 " \
	      "host_req_ns=1796094540152458000 host_ns=1796094541154572000"

static void good_lines(void **state)
{
	struct lc_done d;

	assert_true(lc_parse_done("LIFECYCLE-DONE pause 1" FACTS, &d));
	assert_int_equal(d.kind, LC_PAUSE);
	assert_int_equal(d.seq, 1);
	assert_int_equal(d.duration_ns, 1001216000ull);
	assert_int_equal(d.qmp_downtime_ns, 0);
	assert_int_equal(d.total_ns, 1002114000ull);
	assert_int_equal(d.overhead_ns, 4000);
	assert_int_equal(d.host_req_ns, 1796094540152458000ull);
	assert_int_equal(d.host_ns, 1796094541154572000ull);
	assert_true(lc_parse_done(
		"LIFECYCLE-DONE migrate 9999 host_ns=5 overhead_ns=0 total_ns=4 host_req_ns=3 "
		"qmp_downtime_ns=2 duration_ns=18446744073709551615",
		&d));
	assert_int_equal(d.kind, LC_MIGRATE);
	assert_int_equal(d.seq, 9999);
	assert_int_equal(d.duration_ns, UINT64_MAX);
	assert_true(lc_parse_done("LIFECYCLE-DONE  save  2 " FACTS "  ", &d));
	assert_int_equal(d.kind, LC_SAVE);
	/* vcpu_wait_ns is optional (0 without it), and taken when given */
	assert_int_equal(d.vcpu_wait_ns, 0);
	assert_true(lc_parse_done("LIFECYCLE-DONE migrate 3" FACTS " vcpu_wait_ns=233000000", &d));
	assert_int_equal(d.vcpu_wait_ns, 233000000ull);
	assert_false(lc_parse_done("LIFECYCLE-DONE migrate 3" FACTS " vcpu_wait_ns=1 vcpu_wait_ns=2", &d));
	/* the host's waits around the event, optional */
	assert_true(lc_parse_done("LIFECYCLE-DONE pause 4" FACTS " before_wait_ns=7 stamp_wait_ns=8", &d));
	assert_int_equal(d.before_wait_ns, 7);
	assert_int_equal(d.stamp_wait_ns, 8);
}

/* A reset's answers: "reset 0" to a first life's boot request, the facts carried after one. */
static void reset_lines(void **state)
{
	struct lc_done d;

	assert_true(lc_parse_done("LIFECYCLE-DONE reset 0" FACTS, &d));
	assert_int_equal(d.kind, LC_RESET);
	assert_int_equal(d.seq, 0);
	assert_true(lc_parse_done("LIFECYCLE-DONE reset 2" FACTS
				  " counter=123456789 tests=15 failures=1 skipped=2", &d));
	assert_int_equal(d.seq, 2);
	assert_int_equal(d.counter, 123456789);
	assert_int_equal(d.tests, 15);
	assert_int_equal(d.failures, 1);
	assert_int_equal(d.skipped, 2);
	assert_string_equal(lc_event_name(LC_RESET), "reset");
}

/* The answer about the window after an event: its own facts only, none of an event's required. */
static void window_lines(void **state)
{
	struct lc_done d;

	assert_true(lc_parse_done("LIFECYCLE-DONE window 3 after_wait_ns=5 after_stamp_wait_ns=6", &d));
	assert_int_equal(d.kind, LC_ANSWER_WINDOW);
	assert_int_equal(d.seq, 3);
	assert_int_equal(d.after_wait_ns, 5);
	assert_int_equal(d.after_stamp_wait_ns, 6);
	assert_true(lc_parse_done("LIFECYCLE-DONE window 1", &d));
	assert_true(lc_parse_done("LIFECYCLE-DONE window 0", &d));
	assert_false(lc_parse_done("LIFECYCLE-DONE window 10000", &d));
	assert_false(lc_parse_done("LIFECYCLE-DONE window 1 after_wait_ns=x", &d));
	assert_false(lc_parse_done("LIFECYCLE-DONE window 1 junk=1", &d));
	assert_string_equal(lc_event_name(LC_ANSWER_WINDOW), "window");
}

static void bad_lines(void **state)
{
	static const char *const bad[] = {
		"",
		"LIFECYCLE-DONE",
		"LIFECYCLE-DONE pause",
		"LIFECYCLE-DONX pause 1" FACTS,
		"LIFECYCLE-DONE resume 1" FACTS,
		"LIFECYCLE-DONE pause 0" FACTS,
		"LIFECYCLE-DONE migrate 0" FACTS,
		"LIFECYCLE-DONE reset 1 duration_ns=1",
		"LIFECYCLE-DONE pause 1" FACTS " counter=1 counter=2",
		"LIFECYCLE-DONE pause 10000" FACTS,
		"LIFECYCLE-DONE pause x1" FACTS,
		"LIFECYCLE-DONE pause 1 duration_ns=1",
		"LIFECYCLE-DONE pause 1" FACTS " duration_ns=1",
		"LIFECYCLE-DONE pause 1" FACTS " bogus_ns=1",
		"LIFECYCLE-DONE pause 1" FACTS " junk",
		"LIFECYCLE-DONE pause 1 duration_ns=-1 qmp_downtime_ns=0 total_ns=1 overhead_ns=0 "
		"host_req_ns=1 host_ns=1",
		"LIFECYCLE-DONE pause 1 duration_ns= qmp_downtime_ns=0 total_ns=1 overhead_ns=0 "
		"host_req_ns=1 host_ns=1",
		"LIFECYCLE-DONE pause 1 duration_ns=18446744073709551616 qmp_downtime_ns=0 "
		"total_ns=1 overhead_ns=0 "
		"host_req_ns=1 host_ns=1",
		"LIFECYCLE-DONE pause 1 duration_ns=1 qmp_downtime_ns=0 total_ns=1 overhead_ns=0 "
		"host_req_ns=1 "
		"host_ns=100000000000000000000000000000000000000000000000",
		"LIFECYCLE-DONE pause 1 a b c d e f g h i j",
	};
	struct lc_done d = { .seq = 77 };

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		if (lc_parse_done(bad[i], &d))
			fail_msg("accepted: '%s'", bad[i]);
		assert_int_equal(d.seq, 77);
	}
}

static void event_names(void **state)
{
	assert_string_equal(lc_event_name(LC_PAUSE), "pause");
	assert_string_equal(lc_event_name(LC_SAVE), "save");
	assert_string_equal(lc_event_name(LC_MIGRATE), "migrate");
	assert_string_equal(lc_event_name(LC_NR_EVENTS + 1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_lines),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(event_names),
		cmocka_unit_test(reset_lines),
		cmocka_unit_test(window_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
