// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recorded lifecycle runs judged again on the host with the guest's own
 * judgment (common/lifecycle/lifecycle_judge.c from records parsed by
 * common/lifecycle/lifecycle_record.c).
 * What: each log of host-tests/data/lifecycle-records/ (real runs with
 * record=always: x86 and arm64, TCG at rest and beside two busy loops, QEMU
 * 7.2 and 10, a fault of each arch) holds every event's LC-RECORD block;
 * each event judged again must make the very entries (lib/checks.h) the
 * guest printed for it, in order: each figure, unit and band to the last
 * digit, each verdict and known defect, each INFO and SKIP; never a
 * sentence, which may be reworded since the run was recorded. A record
 * kept from before a rule changed must get the verdict the index gives
 * it. A bad record is refused with what was wrong.
 * Why: the lifecycle's bounds are judged from what the host measured; a
 * change to any constant or rule of the judgment moves a BOUND line of some
 * recorded event, and this test says which (host-tests/mutants doubles and
 * halves each constant and needs this test to fail).
 * How: the guest's entries are read back from its lines of the event (from
 * RESULT eSEQ.KIND.host.stopped to its record; a BOUND line and the
 * verdict after it are one entry), the replay's judged into a list.
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
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_record.h"
#include "slurp.h"

#define NCPUS 2
#include "fake_checks_arch.h"
#include "fake_checks_never.h"

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
#include "lc_entries.h"

static struct lc_record_text parsed;
/* the log being replayed: a failed check leaves the test at once, the teardown frees it */
static char *log;

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

/* An entry of the guest's list, read back from its lines: the line's words point into line. */
struct guest_entry {
	struct check c;
	char line[LINE_MAX_LEN];
};

/* A BOUND line's figure or band end, "-1.500000" or "inf", in 10^-scale units. */
static bool parse_fixed(const char *t, s64 *v, unsigned *scale)
{
	char digits[32], *end;
	const char *dot = strchr(t, '.');
	size_t n = 0;

	if (!strcmp(t, "inf") || !strcmp(t, "-inf")) {
		*v = *t == '-' ? BOUND_OPEN_LO : BOUND_OPEN_HI;
		return true;
	}
	*scale = dot ? (unsigned)strlen(dot + 1) : 0;
	for (; *t && n < sizeof(digits) - 1; t++)
		if (*t != '.')
			digits[n++] = *t;
	digits[n] = '\0';
	*v = strtoll(digits, &end, 10);
	return n && !*end;
}

/* "name value unit lo..hi[ lo..hi]" (after "BOUND: ") into g's figure and bands. */
static bool parse_bound(char *words, struct guest_entry *g)
{
	struct bounded *b = &g->c.b;
	char *save, *value, *t;
	unsigned scale = 0;

	g->c.kind = CHECK_BOUNDED;
	b->name = strtok_r(words, " ", &save);
	value = strtok_r(NULL, " ", &save);
	b->unit = strtok_r(NULL, " ", &save);
	if (!b->name || !value || !b->unit || !parse_fixed(value, &b->value, &b->scale))
		return false;
	snprintf(g->c.name, sizeof(g->c.name), "%s", b->name);
	while ((t = strtok_r(NULL, " ", &save))) {
		char *dots = strstr(t, "..");

		if (!dots || b->nbands == BOUND_BANDS_MAX)
			return false;
		*dots = '\0';
		if (!parse_fixed(t, &b->band[b->nbands].lo, &scale) ||
		    !parse_fixed(dots + 2, &b->band[b->nbands].hi, &scale))
			return false;
		b->nbands++;
	}
	return b->nbands > 0;
}

/* A verdict line into g's outcome (a KFAIL's defect from its end); false for another kind. */
static bool parse_verdict(char *line, struct guest_entry *g)
{
	static const char known[] = " (known defect of this host: ";
	char *defect = strstr(line, known);

	if (!strncmp(line, "KFAIL: ", 7) && defect) {
		snprintf(g->c.defect, sizeof(g->c.defect), "%.*s",
			 (int)strcspn(defect + strlen(known), ")"), defect + strlen(known));
		return true;
	}
	g->c.pass = !strncmp(line, "PASS: ", 6);
	return g->c.pass || !strncmp(line, "FAIL: ", 6);
}

/* "name value unit" (after "RESULT: ") into g's figure. */
static bool parse_result(char *words, struct guest_entry *g)
{
	char *save, *name = strtok_r(words, " ", &save);

	g->c.kind = CHECK_RESULT;
	snprintf(g->c.name, sizeof(g->c.name), "%s", name ? name : "");
	g->c.text = strtok_r(NULL, " ", &save);
	g->c.b.unit = strtok_r(NULL, " ", &save);
	return name && g->c.text && g->c.b.unit;
}

/* The guest's next entry from its lines of the event: false when there are no more. */
static bool next_guest_entry(const char *file, const char **s, const char *end,
			     struct guest_entry *g)
{
	char *line = g->line;
	bool ok;

	memset(&g->c, 0, sizeof(g->c));
	if (!next_report_line(s, end, line))
		return false;
	g->c.text = line;
	if (!strncmp(line, "BOUND: ", 7)) {
		static char verdict[LINE_MAX_LEN];

		ok = parse_bound(line + 7, g) && next_report_line(s, end, verdict) &&
		     parse_verdict(verdict, g);
	} else if (!strncmp(line, "RESULT: ", 8)) {
		ok = parse_result(line + 8, g);
	} else if (!strncmp(line, "INFO: ", 6) || !strncmp(line, "SKIP: ", 6)) {
		g->c.kind = *line == 'I' ? CHECK_INFO : CHECK_SKIP;
		ok = true;
	} else {
		g->c.kind = CHECK_PLAIN;
		ok = parse_verdict(line, g);
	}
	if (!ok)
		fail_msg("%s: the guest's line '%s' is no entry of a judgment", file, line);
	return true;
}

/* Whether the replay's entry r is the guest's g: figure, unit, bands, verdict; no sentence. */
static bool same_entry(const struct check *g, const struct check *r)
{
	bool bounded = g->kind == CHECK_BOUNDED;

	if (g->kind != r->kind)
		return false;
	if (g->kind == CHECK_RESULT)
		return !strcmp(g->name, r->name) && !strcmp(g->text, r->text) &&
		       !strcmp(g->b.unit, r->b.unit);
	if (g->kind != CHECK_PLAIN && !bounded)
		return true;
	if (g->pass != check_holds(r) || (g->defect[0] && strcmp(g->defect, r->defect)))
		return false;
	if (!bounded)
		return true;
	if (strcmp(g->name, r->name) || strcmp(g->b.unit, r->b.unit) || g->b.scale != r->b.scale ||
	    g->b.value != r->b.value || g->b.nbands != r->b.nbands)
		return false;
	for (unsigned i = 0; i < g->b.nbands; i++)
		if (g->b.band[i].lo != r->b.band[i].lo || g->b.band[i].hi != r->b.band[i].hi)
			return false;
	return true;
}

/* The replay's entries are the guest's, one by one, and no more. */
static void expect_same(const char *file, const char *guest, const char *guest_end,
			const struct checks *l)
{
	static struct guest_entry g;
	char a[LINE_MAX_LEN + 200], b[LINE_MAX_LEN + 200];
	unsigned n = 0;

	for (;; n++) {
		bool more_g = next_guest_entry(file, &guest, guest_end, &g);

		if (!more_g && n == l->n)
			return;
		if (!more_g || n == l->n || !same_entry(&g.c, &l->c[n])) {
			lc_print_entries(l);
			fail_msg("%s: event %u: entry %u of the event judged again differs\n  "
				 "guest:  %s\n  replay: %s",
				 file, parsed.rec.seq, n,
				 more_g ? entry_text(a, sizeof(a), &g.c) : "(none)",
				 n < l->n ? entry_text(b, sizeof(b), &l->c[n]) : "(none)");
		}
	}
}

static void expect_passes(const char *file, const struct checks *l)
{
	char e[LINE_MAX_LEN + 200];

	for (unsigned i = 0; i < l->n; i++)
		if (!check_holds(&l->c[i]))
			fail_msg("%s: judged again, a check fails: %s", file,
				 entry_text(e, sizeof(e), &l->c[i]));
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
	unsigned events = 0;
	size_t pos = 0;

	free(log);
	log = fixture_log(fx->file);
	for (;;) {
		const char *begin = strstr(log + pos, LC_RECORD_PREFIX "begin"), *lines, *bad;
		struct checks *judged;
		bool found;

		bad = lc_record_parse(log, &pos, &parsed, &found);
		if (bad)
			fail_msg("%s: %s", fx->file, bad);
		if (!found)
			break;
		events++;
		judged = test_checks();
		lc_judge(judged, &parsed.rec);
		if (judged->dropped)
			fail_msg("%s: event %u: the list dropped %u entries", fx->file,
				 parsed.rec.seq, judged->dropped);
		lines = event_lines(log, begin, &parsed.rec);
		if (!lines)
			fail_msg("%s: event %u: no figure of it before its record", fx->file,
				 parsed.rec.seq);
		if (fx->want == REPLAY_SAME)
			expect_same(fx->file, lines, begin, judged);
		else
			expect_passes(fx->file, judged);
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
