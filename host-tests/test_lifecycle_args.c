// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/lifecycle/lifecycle_args.c, the lifecycle test's arguments, on the host,
 * with the real lib/argv.c and lib/report.c under it.
 * What: events= takes KIND, KIND*N and migrate=N (a run, N 2..16) in a comma list, in order, up to
 * the 64 lc.events holds, and refuses an unknown kind, N of 0 or not a
 * number, an empty item, an over-long word and a list past 64; events= is
 * required; fault= and host= set lc.rec.fault and lc.host_kind, catchup=
 * lc.rec.catchup_max (default LC_CATCHUP_MAX). The seconds clock is taken when
 * the arch has one that is there, else an INFO says why not; a fault= with
 * nothing here to break is a SKIP, another an INFO.
 * Why: the runner writes these arguments from unittests.cfg; a guest
 * run shows one list passing.
 * How: each case's argument line is parsed into a fresh lc; what the
 * parser prints (the reason a line is refused) is captured.
 */
/* LIBSRC: common/lifecycle/lifecycle_args.c common/lifecycle/lifecycle_proto.c common/lifecycle/lifecycle_record.c */
/* LIBSRC: lib/argv.c lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/lifecycle/lifecycle_state.h"
#include "../common/lifecycle/lifecycle_record.h"
#include "judged.h"

#define MAX_WORDS 8

/* --- the arch's hooks and the sampling half's state ------------------------------- */

struct lc_state lc;

/* fault=skew needs two vCPUs */
int cpu_count(void)
{
	return 2;
}

/* the engine's list (lifecycle_engine.c, not linked here) */
struct checks *lc_checks(void)
{
	return test_checks();
}

void cpu_relax(void)
{
}

/* --- events=, fault=, host=, catchup= -------------------------------------------- */

struct args_case {
	const char *line;
	bool valid;
	const char *events; /* the kinds parsed, one letter each: p, s, m, r; M a run of migrations */
	enum lc_fault fault;
	const char *host_kind;
	u64 catchup;
	const char *printed; /* what the parser said, or NULL */
};

#define MUST                                                                                     \
	"events must be a list of pause, save, migrate, reset (each KIND or KIND*N, at most 64 " \
	"in all), or migrate=N (a run of N migrations back to back, N 2..16)"

static const struct args_case cases[] = {
	{"events=pause", true, "p", LC_FAULT_NONE, "none", LC_CATCHUP_MAX},
	{"events=pause*3,reset,save*2 fault=rate5 host=kvm-pvm catchup=7", true, "ppprss",
	 LC_FAULT_RATE5, "kvm-pvm", 7},
	{"events=migrate*64", true,
	 "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", LC_FAULT_NONE, "none",
	 LC_CATCHUP_MAX},
	{"events=migrate*64,pause", false, NULL, 0, NULL, 0,
	 "bad argument 'events=migrate*64,pause': " MUST},
	{"events=pause,migrate=10,migrate=16 fault=run_lost", true, "pMM", LC_FAULT_RUN_LOST, "none",
	 LC_CATCHUP_MAX},
	{"events=migrate=1", false, NULL, 0, NULL, 0, "bad argument 'events=migrate=1': " MUST},
	{"events=migrate=17", false, NULL, 0, NULL, 0, "bad argument 'events=migrate=17': " MUST},
	{"events=pause=3", false, NULL, 0, NULL, 0, "bad argument 'events=pause=3': " MUST},
	{"events=migrate=x", false, NULL, 0, NULL, 0, "bad argument 'events=migrate=x': " MUST},
	{"events=pause*0", false, NULL, 0, NULL, 0, "bad argument 'events=pause*0': " MUST},
	{"events=save,pause*0", false, NULL, 0, NULL, 0,
	 "bad argument 'events=save,pause*0': " MUST},
	{"events=pause*x", false, NULL, 0, NULL, 0, "bad argument 'events=pause*x': " MUST},
	{"events=pause,,save", false, NULL, 0, NULL, 0, "bad argument 'events=pause,,save': " MUST},
	{"events=suspend", false, NULL, 0, NULL, 0, "bad argument 'events=suspend': " MUST},
	{"events=pausepausepause", false, NULL, 0, NULL, 0,
	 "bad argument 'events=pausepausepause': " MUST},
	{"fault=rate", false, NULL, 0, NULL, 0, NULL},
	{"events=save host=xen", false, NULL, 0, NULL, 0, NULL},
};

static char kind_letter(enum lc_event k)
{
	return lc_event_name(k)[0];
}

static bool parse_line(const char *line)
{
	char buf[160], *argv[MAX_WORDS] = {"lifecycle"};
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok(buf, " "); w && argc < MAX_WORDS; w = strtok(NULL, " "))
		argv[argc++] = w;
	memset(&lc, 0, sizeof(lc));
	return lc_parse_args(argc, argv);
}

static bool parsed;

static void parse_case(const void *arg)
{
	parsed = parse_line(((const struct args_case *)arg)->line);
}

static void check_parsed(const struct args_case *c, const char *out)
{
	char kinds[65] = "";

	for (unsigned i = 0; i < lc.nevents && i < 64; i++)
		kinds[i] = lc.run_len[i] ? 'M' : kind_letter(lc.events[i]);
	if (strcmp(kinds, c->events))
		fail_msg("'%s': events %s, want %s", c->line, kinds, c->events);
	if (lc.rec.fault != c->fault || strcmp(lc.host_kind, c->host_kind) ||
	    lc.rec.catchup_max != c->catchup)
		fail_msg("'%s': fault %d host %s catchup %llu, want %d %s %llu", c->line, lc.rec.fault,
			 lc.host_kind, lc.rec.catchup_max, c->fault, c->host_kind, c->catchup);
	assert_string_equal(out, "");
}

/* record=: when each event's record is printed; the default is on a failed check */
static const struct {
	const char *line;
	bool valid;
	enum record_when when;
} record_cases[] = {
	{"events=pause", true, RECORD_ON_FAIL},
	{"events=pause record=always", true, RECORD_ALWAYS},
	{"events=pause record=never", true, RECORD_NEVER},
	{"events=pause record=fail", true, RECORD_ON_FAIL},
	{"events=pause record=sometimes", false, RECORD_ON_FAIL},
};

static void test_record_when(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(record_cases) / sizeof(record_cases[0]); i++) {
		capture(parse_case, &(struct args_case){.line = record_cases[i].line}, out, sizeof(out));
		if (parsed != record_cases[i].valid)
			fail_msg("'%s': %s, want %s:\n%s", record_cases[i].line,
				 parsed ? "valid" : "invalid", record_cases[i].valid ? "valid" : "invalid", out);
		if (!parsed) {
			HAS_LINE_WITH(out, "bad argument 'record=sometimes'", "always", "never");
			continue;
		}
		if (lc.record != record_cases[i].when)
			fail_msg("'%s': record %u, want %u", record_cases[i].line, lc.record,
				 record_cases[i].when);
	}
}

static void test_args_table(void **state)
{
	char out[CAPTURE_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct args_case *c = &cases[i];

		capture(parse_case, c, out, sizeof(out));
		if (parsed != c->valid)
			fail_msg("'%s': valid %d, want %d; printed:\n%s", c->line, parsed, c->valid,
				 out);
		if (c->valid)
			check_parsed(c, out);
		else if (c->printed)
			has_line(out, c->printed);
		else if (!out[0])
			fail_msg("'%s' refused without a word", c->line);
	}
}

/* --- the seconds clock and the faults ------------------------------------------- */

static const char *rtc_absent(void)
{
	return "no CMOS RTC in the ACPI tables";
}

static const char *rtc_present(void)
{
	return NULL;
}

static u64 tod(void)
{
	return 0;
}

static bool take_flag(void)
{
	return false;
}

static const struct lc_rtc absent = {.name = "RTC", .find = rtc_absent};
static const struct lc_rtc present = {.name = "RTC", .find = rtc_present};

static void view(s64 *lo, s64 *hi)
{
	*lo = *hi = 0;
}

static const struct lc_counter_write no_view = {.reg = "IA32_TSC_ADJUST"};
static const struct lc_counter_write with_view = {.reg = "-CNTVOFF_EL2", .view = view};
static const struct lc_arch bare = {0};
static const struct lc_arch writes = {.counter_write = &no_view};
static const struct lc_arch writes_seen = {.counter_write = &with_view};
static const struct lc_arch with_absent = {.rtc = &absent};
static const struct lc_arch full = {.rtc = &present, .tod_ns = tod, .take_stopped_flag = take_flag};

static void find(const void *arch)
{
	memset(&lc, 0, sizeof(lc));
	lc_find_rtc(arch);
}

static void test_find_rtc(void **state)
{
	char out[CAPTURE_MAX];

	capture(find, &bare, out, sizeof(out));
	EXACTLY(out, "INFO: no seconds clock of the host's time of day checked: none here");
	assert_null(lc.rec.rtc);
	capture(find, &with_absent, out, sizeof(out));
	EXACTLY(out, "INFO: no seconds clock of the host's time of day checked: no CMOS RTC in the "
		     "ACPI tables");
	assert_null(lc.rec.rtc);
	capture(find, &full, out, sizeof(out));
	assert_string_equal(out, "");
	assert_ptr_equal(lc.rec.rtc, &present);
}

struct fault_case {
	enum lc_fault fault;
	const struct lc_arch *arch;
	const char *line; /* NULL: nothing said */
	u64 counter_set;
};

#define TICKS 68719476736ULL

static const struct fault_case faults[] = {
	{LC_FAULT_NONE, &bare, NULL},
	{LC_FAULT_TOD, &bare, "SKIP: fault=tod: no time of day here to put ahead"},
	{LC_FAULT_STOPPED_FLAG, &bare, "SKIP: fault=stopped_flag: no stopped flag here"},
	{LC_FAULT_STOPPED_RESET, &bare, "SKIP: fault=stopped_reset: no stopped flag here"},
	{LC_FAULT_RTC_BEHIND, &with_absent,
	 "SKIP: fault=rtc_behind: no seconds clock here to put behind"},
	{LC_FAULT_TOD, &full, "INFO: test-only fault 'tod' injected: checks are expected to fail"},
	{LC_FAULT_RTC_BEHIND, &full,
	 "INFO: test-only fault 'rtc_behind' injected: checks are expected to fail"},
	{LC_FAULT_BACK, &bare,
	 "INFO: test-only fault 'back' injected: checks are expected to fail"},
	{LC_FAULT_COUNTER_RESET, &writes,
	 "SKIP: fault=counter_reset: no counter the guest wrote (counter_set=) here, or nothing "
	 "that shows it beside its register"},
	{LC_FAULT_COUNTER_TICK, &writes,
	 "INFO: test-only fault 'counter_tick' injected: checks are expected to fail", TICKS},
	{LC_FAULT_COUNTER_STALE, &writes,
	 "SKIP: fault=counter_stale: no counter the guest wrote (counter_set=) here, or nothing "
	 "that shows it beside its register",
	 TICKS},
	{LC_FAULT_COUNTER_STALE, &writes_seen,
	 "INFO: test-only fault 'counter_stale' injected: checks are expected to fail", TICKS},
};

static void announce(const void *arg)
{
	const struct fault_case *c = arg;

	memset(&lc, 0, sizeof(lc));
	lc.rec.fault = c->fault;
	lc.rec.arch = c->arch;
	lc.rec.counter_set = c->counter_set;
	lc.rec.rtc = c->arch->rtc && !c->arch->rtc->find() ? c->arch->rtc : NULL;
	lc_announce_fault(c->arch);
}

static void test_announce_fault(void **state)
{
	char out[CAPTURE_MAX], want[128];

	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		capture(announce, &faults[i], out, sizeof(out));
		snprintf(want, sizeof(want), faults[i].line ? "%s\n" : "", faults[i].line);
		if (strcmp(out, want))
			fail_msg("fault %d: printed\n%s\nwant\n%s", faults[i].fault, out, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_table),
		cmocka_unit_test(test_record_when),
		cmocka_unit_test(test_find_rtc),
		cmocka_unit_test(test_announce_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
