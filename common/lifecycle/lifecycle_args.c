/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's arguments (events=, catchup=, fault=, host=, counter_set=, rtc_set=) and what they turn on: apart
 * from the sampling, so the host tests build them. */
#include "lifecycle_state.h"
#include "lifecycle_record.h"
#include "argv.h"
#include "report.h"

static const char *const fault_names[] = {
	"none",	 "back", "jump",	 "flip",	  "rearm",	"rate",		 "rate5",
	"storm", "tod",	 "stopped_flag", "stopped_reset", "rtc_behind", "reset_counter", "silent",
	"skew",	 "rtc_rebased",	 "counter_reset", "counter_tick", "counter_stale", "run_lost", "run_twice",
};

/*
 * A word of events=: KIND or KIND*N (N events of that kind), or migrate=N
 * (one event, a run of N migrations back to back): the kind, *n and *run.
 */
static bool parse_event_word(char *word, enum lc_event *kind, u64 *n, u64 *run)
{
	char *star = strchr(word, '*'), *eq = strchr(word, '=');

	*n = 1;
	*run = 0;
	if (star) {
		*star = '\0';
		if (parse_u64(star + 1, n) || !*n)
			return false;
	} else if (eq) {
		*eq = '\0';
		if (parse_u64(eq + 1, run) || *run < 2 || *run > LC_RUN_MAX ||
		    strcmp(word, lc_event_name(LC_MIGRATE)))
			return false;
	}
	for (*kind = 0; *kind < LC_NR_EVENTS && strcmp(word, lc_event_name(*kind)); (*kind)++)
		;
	return *kind < LC_NR_EVENTS;
}

/* events=KIND[*N],...: the events to ask for, in order (the check of struct arg). */
static const char *parse_events(const char *list)
{
	static char must[160];
	char word[16];

	snprintf(must, sizeof(must),
		 "a list of pause, save, migrate, reset (each KIND or KIND*N, at most %zu in all), or "
		 "migrate=N (a run of N migrations back to back, N 2..%u)",
		 ARRAY_SIZE(lc.events), LC_RUN_MAX);
	lc.nevents = 0;
	while (*list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		u64 n, run;
		enum lc_event k;

		if (!len || len >= sizeof(word))
			return must;
		memcpy(word, list, len);
		word[len] = '\0';
		list += len + (list[len] == ',');
		if (!parse_event_word(word, &k, &n, &run) || lc.nevents + n > ARRAY_SIZE(lc.events))
			return must;
		while (n--) {
			lc.run_len[lc.nevents] = (unsigned)run;
			lc.events[lc.nevents++] = k;
		}
	}
	return lc.nevents ? NULL : must;
}

bool lc_has_run(void)
{
	for (unsigned i = 0; i < lc.nevents; i++)
		if (lc.run_len[i])
			return true;
	return false;
}

/*
 * The host kinds whose known defects apply (host=): none; tcg, whose x86
 * TSC a reset does not clear; kvm-pvm, whose rdtsc follows no write of
 * the TSC, QEMU's at a reset included (docs/host-quirks.md). The runner
 * says which (tcg_args, kvm_args' {host_kind}).
 */
static const char *const host_kinds[] = {"none", "tcg", "kvm-pvm"};

/* Whether the arguments are valid; if not, what is wrong has been printed. */
bool lc_parse_args(int argc, char **argv)
{
	static const char *events;
	static unsigned fault, host, record;
	static const struct arg args[] = {
		{.key = "events",
		 .kind = ARG_KIND_TEXT,
		 .to.text = &events,
		 .check = parse_events,
		 .required = true,
		 .help = "the host events to ask for, in order"},
		ARG_UINT("catchup", &lc.rec.catchup_max, 0, UINT64_MAX, ARG_DEFAULT(LC_CATCHUP_MAX),
			 "catch-up ticks allowed beyond those explained"),
		ARG_ONE_OF("fault", &fault, fault_names, "none",
			   "test-only: the check to make fail"),
		ARG_ONE_OF("host", &host, host_kinds, "none",
			   "the host kind whose known defects apply"),
		ARG_UINT("counter_set", &lc.rec.counter_set, 0, UINT64_MAX / 4, ARG_DEFAULT(0),
			 "each vCPU writes its counter this many ticks ahead first (x86: "
			 "IA32_TSC; arm64: CNTVOFF_EL2, entered at EL2); 0: not"),
		ARG_ONE_OF("record", &record, record_when_names, "fail",
			   "print each event's record (LC-RECORD lines, for scripts/lifecycle-judge): "
			   "when a check of it failed, always, or never"),
		ARG_UINT("rtc_set", &lc.rec.rtc_set, 0, UINT32_MAX, ARG_DEFAULT(0),
			 "set the seconds clock to this time of day (s since 1970, UTC) first; "
			 "0: leave the host's"),
	};
	static const struct arg_table table = ARG_TABLE(args);
	const char *why;

	args_help_exit(&table, argc, argv);
	why = args_parse(&table, argc, argv);

	if (why)
		printf("%s\n", why);
	lc.rec.fault = (enum lc_fault)fault;
	lc.record = (enum record_when)record;
	report_known_defects(host_kinds[host]);
	lc.host_kind = host_kinds[host];
	return !why;
}

/* The arch's seconds clock, when it is there: lc.rec.rtc, else an INFO saying why not. */
void lc_find_rtc(const struct lc_arch *arch)
{
	const char *why = arch->rtc ? arch->rtc->find() : "none here";

	lc.rec.rtc = why ? NULL : arch->rtc;
	if (why)
		report_info("no seconds clock of the host's time of day checked: %s", why);
}

/*
 * rtc_set=: the guest sets its seconds clock to a time of day of its own
 * before the first event; each event must carry that on (lc_check_rtc).
 */
void lc_set_rtc(void)
{
	struct checks *out = lc_checks();
	u64 secs = 0;
	const char *why = !lc.rec.rtc ? "no seconds clock here" : !lc.rec.rtc->set ? "it cannot be set here"
							       : lc.rec.rtc->set(lc.rec.rtc_set);

	if (!why)
		why = lc.rec.rtc->epoch(&secs);
	checks_plain(
		out, !why && secs >= lc.rec.rtc_set && secs <= lc.rec.rtc_set + LC_RTC_SET_READ_S,
		"the seconds clock reads the time of day the guest set: %llu s since 1970 (set "
		"%llu: %s)",
		secs, lc.rec.rtc_set, why ? why : "read back within a second or two");
	report_checks(out);
	if (why)
		lc.rec.rtc = NULL;
}

/* fault=counter_*: nothing to break without a counter the guest wrote, or, for counter_stale, without the counters' view of its register. */
static bool counter_fault_skipped(void)
{
	if (lc.rec.fault < LC_FAULT_COUNTER_RESET || lc.rec.fault > LC_FAULT_COUNTER_STALE)
		return false;
	return !lc.rec.counter_set ||
	       (lc.rec.fault == LC_FAULT_COUNTER_STALE && !lc.rec.arch->counter_write->view);
}

/* A fault with nothing here to break is a SKIP (the check it shows is not made). */
void lc_announce_fault(const struct lc_arch *arch)
{
	if (lc.rec.fault == LC_FAULT_TOD && !arch->tod_ns)
		report_skip("fault=tod: no time of day here to put ahead");
	else if ((lc.rec.fault == LC_FAULT_STOPPED_FLAG || lc.rec.fault == LC_FAULT_STOPPED_RESET) &&
		 !arch->take_stopped_flag)
		report_skip("fault=%s: no stopped flag here", fault_names[lc.rec.fault]);
	else if (lc.rec.fault == LC_FAULT_RTC_BEHIND && !lc.rec.rtc)
		report_skip("fault=rtc_behind: no seconds clock here to put behind");
	else if (counter_fault_skipped())
		report_skip("fault=%s: no counter the guest wrote (counter_set=) here, or "
			    "nothing that shows it beside its register",
			    fault_names[lc.rec.fault]);
	else if (lc.rec.fault == LC_FAULT_RTC_REBASED && (!lc.rec.rtc || !lc.rec.rtc_set))
		report_skip("fault=rtc_rebased: no seconds clock the guest set (rtc_set=) here");
	else if ((lc.rec.fault == LC_FAULT_RUN_LOST || lc.rec.fault == LC_FAULT_RUN_TWICE) && !lc_has_run())
		report_skip("fault=%s: no run of migrations (events=migrate=N) here",
			    fault_names[lc.rec.fault]);
	else if (lc.rec.fault == LC_FAULT_SKEW && cpu_count() < 2)
		report_skip("fault=skew: one vCPU, none to skew against (smp 2 or more)");
	else if (lc.rec.fault != LC_FAULT_NONE)
		report_info("test-only fault '%s' injected: checks are expected to fail",
			    fault_names[lc.rec.fault]);
}
