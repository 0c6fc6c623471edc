// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recorded lifecycle runs judged again on the host with the guest's own
 * judgment (common/lifecycle/lifecycle_judge.c from records parsed by
 * common/lifecycle/lifecycle_record.c).
 * What: each log of host-tests/data/lifecycle-records/ (real runs with
 * record=always: x86 and arm64, TCG at rest and beside two busy loops, QEMU
 * 7.2 and 10, a fault of each arch) holds every event's LC-RECORD block;
 * each event judged again must print the very lines the guest printed for
 * it (every PASS, FAIL, KFAIL, INFO, BOUND and RESULT line, figures and
 * bounds to the last digit), or, for a record kept from before a rule
 * changed, the verdict the index gives it. A bad record is refused with
 * what was wrong.
 * Why: the lifecycle's bounds are judged from what the host measured; a
 * change to any constant or rule of the judgment moves a BOUND line of some
 * recorded event, and this test says which (host-tests/mutants doubles and
 * halves each constant and needs this test to fail).
 * How: the log's lines of the event are those from its first figure
 * (RESULT eSEQ.KIND.host.stopped) to its record; the replay's are
 * captured from stdout (console_capture.h).
 */
/* LIBSRC: common/lifecycle/lifecycle_judge.c common/lifecycle/lifecycle_record.c */
/* LIBSRC: common/lifecycle/lifecycle_check.c common/lifecycle/lifecycle_run_check.c */
/* LIBSRC: common/lifecycle/lifecycle_tod.c common/lifecycle/lifecycle_derived_check.c */
/* LIBSRC: common/lifecycle/lifecycle_agree.c common/lifecycle/lifecycle_counter_check.c */
/* LIBSRC: common/lifecycle/lifecycle_figure.c common/lifecycle/lifecycle_proto.c */
/* LIBSRC: lib/period.c lib/busy.c lib/handoff.c lib/wait.c */
/* LIBSRC: lib/report.c lib/checks.c lib/stats.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_record.h"
#include "slurp.h"

#define NCPUS 2
#include "fake_checks_arch.h"
#include "fake_checks_never.h"

/* Room for one event's replayed lines (a run of 10 migrations on 4 vCPUs prints about 20 KB). */
#define REPLAY_MAX (256 * 1024)
#define LINE_MAX_LEN 1024

/* What judging a recorded event again must give. */
enum replay_want {
	REPLAY_SAME,	 /* the very lines the guest printed */
	REPLAY_PASSES,	 /* every check passes (a record from before a rule changed) */
};

struct replay_fixture {
	const char *file;
	enum replay_want want;
	unsigned events; /* the records it holds */
};

#include "data/lifecycle-records/index.h"
#include "judged.h"

static struct lc_record_text parsed;
/* the log being replayed: a failed check leaves the test at once, the teardown frees it */
static char *log;

static void judge_parsed(const void *arg)
{
	report_prefix_pushf("event %u %s", parsed.rec.seq, lc_event_name(parsed.rec.done.kind));
	PRINTED(lc_judge(J, &parsed.rec));
	report_prefix_pop();
}

/* A report line: the kinds lib/report.c prints. */
static bool report_line(const char *s, size_t len)
{
	static const char *const kinds[] = {"PASS: ", "FAIL: ", "KFAIL: ", "SKIP: ",
					    "INFO: ", "BOUND: ", "RESULT: "};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (len >= strlen(kinds[k]) && !strncmp(s, kinds[k], strlen(kinds[k])))
			return true;
	return false;
}

/* The next report line of [*s, end) into line (no '\r'); false when there is none. */
static bool next_report_line(const char **s, const char *end, char *line)
{
	while (*s < end) {
		const char *nl = memchr(*s, '\n', (size_t)(end - *s));
		const char *e = nl ? nl : end;
		size_t len = (size_t)(e - *s);

		if (len && (*s)[len - 1] == '\r')
			len--;
		if (report_line(*s, len)) {
			snprintf(line, LINE_MAX_LEN, "%.*s", (int)len, *s);
			*s = nl ? nl + 1 : end;
			return true;
		}
		*s = nl ? nl + 1 : end;
	}
	return false;
}

/* Where the guest's lines of the record at begin start: its first figure's line. */
static const char *event_lines(const char *log, const char *begin, const struct lc_record *r)
{
	char marker[64];
	const char *at = log, *last = NULL;

	snprintf(marker, sizeof(marker), "RESULT: e%u.%s.host.stopped ", r->seq,
		 lc_event_name(r->done.kind));
	while ((at = strstr(at, marker)) && at < begin)
		last = at++;
	return last;
}

/* The replay's lines equal the guest's, one by one. */
static void expect_same(const char *file, const char *guest, const char *guest_end,
			const char *replay)
{
	static char g[LINE_MAX_LEN], h[LINE_MAX_LEN];
	const char *replay_end = replay + strlen(replay);
	unsigned n = 0;

	for (;;) {
		bool more_g = next_report_line(&guest, guest_end, g);
		bool more_h = next_report_line(&replay, replay_end, h);

		n++;
		if (!more_g && !more_h)
			return;
		if (!more_g || !more_h || strcmp(g, h))
			fail_msg("%s: line %u of the event judged again differs\n  guest:  %s\n  "
				 "replay: %s",
				 file, n, more_g ? g : "(no more lines)", more_h ? h : "(no more lines)");
	}
}

static void expect_passes(const char *file, const char *replay)
{
	const char *bad = strstr(replay, "FAIL: ");

	if (bad)
		fail_msg("%s: judged again, a check fails: %.*s", file,
			 (int)strcspn(bad, "\n"), bad);
}

static char *fixture_log(const char *file)
{
	char path[512];
	char *dir = strdup(__FILE__), *slash = strrchr(dir, '/'), *text;

	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/data/lifecycle-records/%s", slash ? dir : ".", file);
	free(dir);
	text = slurp(path);
	if (!text)
		fail_msg("%s: cannot read it", path);
	return text;
}

static void replay_fixture(const struct replay_fixture *fx)
{
	static char out[REPLAY_MAX];
	unsigned events = 0;
	size_t pos = 0;

	free(log);
	log = fixture_log(fx->file);
	for (;;) {
		const char *begin = strstr(log + pos, LC_RECORD_PREFIX "begin"), *lines, *bad;
		bool found;

		bad = lc_record_parse(log, &pos, &parsed, &found);
		if (bad)
			fail_msg("%s: %s", fx->file, bad);
		if (!found)
			break;
		events++;
		capture(judge_parsed, NULL, out, sizeof(out));
		lines = event_lines(log, begin, &parsed.rec);
		if (!lines)
			fail_msg("%s: event %u: no figure of it before its record", fx->file,
				 parsed.rec.seq);
		if (fx->want == REPLAY_SAME)
			expect_same(fx->file, lines, begin, out);
		else
			expect_passes(fx->file, out);

	}
	if (events != fx->events)
		fail_msg("%s: %u records, the index says %u", fx->file, events, fx->events);
}

static int free_log(void **state)
{
	free(log);
	log = NULL;
	return 0;
}

static void test_recorded(void **state)
{
	for (size_t i = 0; i < sizeof(replays) / sizeof(replays[0]); i++)
		replay_fixture(&replays[i]);
}

/* The least record the parser takes: one clock, one timer slot, one vCPU, a counter. */
#define MINIMAL                                                                                    \
	LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "arch nclocks 1\n" LC_RECORD_PREFIX          \
			 "arch nslots 1\n" LC_RECORD_PREFIX "rec ncpus 1\n" LC_RECORD_PREFIX          \
			 "rec counter_hz 1000\n"

/* A record's bad lines, each refused with what was wrong. */
static const struct {
	const char *text, *why;
} bad_records[] = {
	{LC_RECORD_PREFIX "begin 9\n", "a record of another format"},
	{LC_RECORD_PREFIX "rec seq 1\n", "a record that does not begin with 'begin'"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "rec seq 1\n", "a record with no 'end'"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "rec bogus 1\n", "an unknown field"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "cpu99 step 1\n", "an unknown tag"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "rec seq x\n", "not a number"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "rec phase_start 1 2 3 4 5\n",
	 "more values than the field holds"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "end\n", "an arch with no clock"},
	{LC_RECORD_PREFIX "begin 1\n" LC_RECORD_PREFIX "rec counter_hz 4611686018427387905\n",
	 "a value beyond any a run records"},
	/* the judgment's own reads: each of these crashed it under the fuzzer */
	{MINIMAL LC_RECORD_PREFIX "rec counter_set 5\n" LC_RECORD_PREFIX "end\n",
	 "a counter write judged on an arch without one"},
	{MINIMAL LC_RECORD_PREFIX "cpu0.t0 role 2\n" LC_RECORD_PREFIX "end\n",
	 "a timer's role, period or tick count out of range"},
	{MINIMAL LC_RECORD_PREFIX "cpu0.t0 role 3\n" LC_RECORD_PREFIX "end\n",
	 "a timer's role, period or tick count out of range"},
	{MINIMAL LC_RECORD_PREFIX "cpu0.t0 nstamps 65\n" LC_RECORD_PREFIX "end\n",
	 "a timer's role, period or tick count out of range"},
	{MINIMAL LC_RECORD_PREFIX "edge1 secs 8589934593\n" LC_RECORD_PREFIX "end\n",
	 "a time of day beyond any a run records"},
};

static void test_minimal_record(void **state)
{
	size_t pos = 0;
	bool found;
	const char *why = lc_record_parse(MINIMAL LC_RECORD_PREFIX "end\n", &pos, &parsed, &found);

	if (why || !found)
		fail_msg("the least record refused: %s", why ? why : "not found");
}

static void test_bad_records(void **state)
{
	for (size_t i = 0; i < sizeof(bad_records) / sizeof(bad_records[0]); i++) {
		size_t pos = 0;
		bool found;
		const char *why = lc_record_parse(bad_records[i].text, &pos, &parsed, &found);

		if (!why || !strstr(why, bad_records[i].why))
			fail_msg("case %zu: '%s' refused as '%s', want '%s'", i, bad_records[i].text,
				 why ? why : "(accepted)", bad_records[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_recorded, free_log),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_minimal_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
