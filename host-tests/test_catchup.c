// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/catchup/catchup_judge.c, the tick catch-up judgment (x86/catchup), on
 * records made here as each setting's source delivers them at 64 Hz:
 * masked for 250 ms, a 1 s pause with the guest's counter standing still
 * (TCG) or running on (KVM), a save past the RTC's 60 s re-base. A record
 * as slew delivers it passes rtc-slew and fails rtc-discard; one as
 * discard delivers it the other way round; a mask longer than the entry declares
 * and a catch-up of a stop the VM's clock never counted each fail, naming
 * what. The host's own losses after a disturbance are reported apart, not
 * judged. What the guest prints (report_checks of cu_judge's list, captured): each check a BOUND
 * line catchup.KIND.FIGURE with its band, then its PASS/FAIL line, and the
 * figure it bounds no RESULT line of its own (results-to-json and the
 * report read the figure and its band from the BOUND line alone).
 */
/* LIBSRC: common/catchup/catchup_judge.c */
/* LIBSRC: lib/report.c lib/checks.c lib/fixed.c lib/string.c lib/printf.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/catchup/catchup.h"
#include "../lib/report.h"

#define HZ	     64
#define PERIOD_NS    (1000000000ull / HZ)
#define MS	     1000000ull
#define LATENCY_NS   (20 * 1000ull) /* each tick's delivery after its due time */
#define BURST_GAP_NS (40 * 1000ull) /* ticks raised again as register C is read */
#define PRE_PERIODS  32
#define POST_PERIODS 96

static struct cu_record rec;
static struct check entries[CU_ENTRIES];
static char entry_text[CU_ENTRIES * CU_LINE_MAX];
static struct checks verdict;
/* the checks' sentences, one a line */
static char line[CU_ENTRIES * (CU_LINE_MAX + 1)];

/* report.c's spin lock waits with it */
void cpu_relax(void)
{
}

static void add(u64 at)
{
	assert_true(rec.n < CU_MAX_TICKS);
	rec.at_ns[rec.n++] = at;
}

/* Ticks on the grid from period `from` to `to` (inclusive), shifted by shift_ns. */
static void on_grid(u64 from, u64 to, u64 shift_ns)
{
	for (u64 k = from; k <= to; k++)
		add(k * PERIOD_NS + shift_ns + (k ? LATENCY_NS : 0));
}

static void burst(u64 at, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		add(at + i * BURST_GAP_NS);
}

static void start(enum cu_kind kind, u64 start_ns, u64 end_ns)
{
	memset(&rec, 0, sizeof(rec));
	rec.kind = kind;
	rec.period_ns = PERIOD_NS;
	rec.start_ns = start_ns;
	rec.end_ns = end_ns;
	on_grid(0, PRE_PERIODS, 0);
}

/* Masked from just after period 32 for 250 ms (16 periods due); late_burst ticks caught up at sti.
 */
static void masked(unsigned caught_up, u64 masked_ns)
{
	u64 t0 = PRE_PERIODS * PERIOD_NS + 1 * MS, t1 = t0 + masked_ns;
	u64 next = t1 / PERIOD_NS + 1;

	start(CU_CLI, t0, t1);
	rec.declared_ns = 250 * MS;
	burst(t1 + 10 * 1000, 1 + caught_up);
	on_grid(next, next + POST_PERIODS, 0);
}

static bool judge(const char *model, struct cu_figures *f)
{
	const struct cu_model *m = cu_model_find(model);

	assert_non_null(m);
	bool pass;

	cu_figures(&rec, m, f);
	checks_init(&verdict, entries, CU_ENTRIES, entry_text, sizeof(entry_text));
	pass = cu_judge(&rec, m, f, &verdict);
	line[0] = '\0';
	for (unsigned i = 0; i < verdict.n; i++) {
		if (verdict.c[i].kind != CHECK_BOUNDED)
			continue;
		strcat(line, verdict.c[i].text);
		strcat(line, "\n");
	}
	return pass;
}

static void expect(bool pass, const char *model, const char *needle)
{
	struct cu_figures f;
	bool got = judge(model, &f);

	if (got != pass || (needle && !strstr(line, needle)))
		fail_msg("%s: %s, want %s%s%s: %s", model, got ? "PASS" : "FAIL",
			 pass ? "PASS" : "FAIL", needle ? " naming " : "", needle ? needle : "",
			 line);
}

static void test_masked_slew(void **state)
{
	struct cu_figures f;

	masked(15, 250 * MS);
	assert_true(judge("rtc-slew", &f));
	assert_int_equal(f.missed, 16);
	assert_int_equal(f.made_up, 16);
	assert_int_equal(f.dropped, 0);
	assert_int_equal(f.peak,
			 17); /* the burst, and the next tick on time within the same period */
	assert_true(f.agree_ns < MS);
	assert_int_equal(cu_behind_at(&rec, &f, 0), 16);     /* at sti, before the burst */
	assert_int_equal(cu_behind_at(&rec, &f, 5 * MS), 0); /* the burst through */
	expect(false, "rtc-discard", "16 of 16 missed periods made up, where rtc-discard drops");
}

static void test_masked_discard(void **state)
{
	struct cu_figures f;

	masked(0, 250 * MS);
	assert_true(judge("rtc-discard", &f));
	assert_int_equal(f.missed, 16);
	assert_int_equal(f.made_up, 1);
	assert_int_equal(f.dropped, 15);
	assert_int_equal(f.agree_ns, CU_NEVER);
	assert_int_equal(cu_behind_at(&rec, &f, 5 * MS), 15);
	assert_int_equal(cu_behind_at(&rec, &f, 500 * MS), 15);
	expect(false, "rtc-slew",
	       "15 periods dropped for good, where rtc-slew catches up to within 1");
	expect(true, "pit-tcg", NULL);
}

/* A catch-up just within a setting's declared phase passes; one more tick short fails. */
static void test_masked_partly_caught_up(void **state)
{
	masked(14, 250 * MS);
	expect(true, "rtc-slew", NULL);
	masked(13, 250 * MS);
	expect(false, "rtc-slew", "2 periods dropped for good");
	masked(1, 250 * MS);
	expect(true, "rtc-discard", NULL);
	masked(2, 250 * MS);
	expect(false, "rtc-discard", "3 of 16 missed periods made up");
}

/*
 * A mask longer than the entry declares fails, unless the host held the
 * vCPU for the difference (beside two busy loops a 250 ms mask lasted
 * 310 ms, the vCPU kept from running as it ended).
 */
static void test_masked_longer_than_declared(void **state)
{
	masked(15, 1000 * MS);
	expect(false, "rtc-slew",
	       "64 periods missed where the entry's 250 ms and the host's 0 ms holding the vCPU "
	       "miss "
	       "at most 17");
	masked(15, 265 * MS);
	expect(true, "rtc-slew", NULL);
	masked(18, 310 * MS);
	expect(false, "rtc-slew", "19 periods missed where the entry's 250 ms");
	rec.held_ns = 58 * MS;
	expect(true, "rtc-slew", NULL);
}

/* Masked 1 s (as declared), every period due caught up gap apart from sti on, then on time. */
static void catch_up_at(u64 gap)
{
	u64 t0 = PRE_PERIODS * PERIOD_NS + MS, t1 = t0 + 1000 * MS, t = t1 + 10 * 1000,
	    k = PRE_PERIODS + 1;

	start(CU_CLI, t0, t1);
	rec.declared_ns = 1000 * MS;
	for (; k <= t / PERIOD_NS; k++, t += gap)
		add(t);
	on_grid(k, k + POST_PERIODS, 0);
}

/*
 * The RTC's slew delivers at most 20 + 1 + 20 + 8 ticks within a period
 * on a quiet host; a busy one bunches them further (its main loop's
 * periodic callbacks run late, back to back, each letting 20 more come):
 * the peak is a figure in the line, not a bound.
 */
static void test_catch_up_rate(void **state)
{
	masked(15, 250 * MS);
	expect(true, "rtc-slew", NULL);
	catch_up_at(PERIOD_NS / 60);
	expect(true, "rtc-slew", "at most 61 ticks in a period; 49 by its implementation");
	catch_up_at(PERIOD_NS / 28);
	expect(true, "rtc-slew", "at most 29 ticks in a period");
}

/*
 * A 1 s pause. Under TCG the guest's counter stands still while stopped,
 * so the stop shows only in the host's time from request to answer, and a
 * source on the host's clock moved a second against the counter; under
 * KVM the counter runs on. The guest runs 30 ms between request and
 * answer (period 33 comes then). Slew catches every period up as the
 * answer comes; discard delivers the one pending; on the VM's clock
 * nothing was due.
 */
/* how long the guest ran between its request and the answer */
static u64 run = 30 * MS;

static void paused(bool counter_ran, bool slew, bool vm_clock)
{
	u64 stop = 1000 * MS, t0 = PRE_PERIODS * PERIOD_NS + 2 * MS;
	u64 t1 = t0 + run + (counter_ran ? stop : 0);
	u64 moved = counter_ran || vm_clock ? 0 : stop;
	/* the guest takes its ticks while it runs, then QEMU stops it */
	u64 last = (t0 + run) / PERIOD_NS;
	/* on time again 3 periods after the answer: a catch-up at 28 a period is through by then */
	u64 first = (t1 + moved) / PERIOD_NS + (slew ? 3 : 1);

	start(CU_PAUSE, t0, t1);
	rec.stop_ns = stop;
	on_grid(PRE_PERIODS + 1, last, 0);
	if (vm_clock && !counter_ran) {
		on_grid(last + 1, last + 1 + POST_PERIODS, 0);
		return;
	}
	/* as the RTC's slew catches up: 28 a period */
	for (u64 i = 0; i < (slew ? first - last - 1 : 1); i++)
		add(t1 + 100 * 1000 + i * (PERIOD_NS / 28));
	for (u64 k = first; k <= first + POST_PERIODS; k++)
		add(k * PERIOD_NS - moved + LATENCY_NS);
}

static void test_pause_counter_stood(void **state)
{
	struct cu_figures f;

	paused(false, true, false);
	if (!judge("rtc-slew", &f))
		fail_msg("%s", line);
	assert_int_equal(f.missed, 64);
	assert_int_equal(f.dropped, 0);
	assert_true(f.extra_ns > 900 * (s64)MS);
	paused(false, false, false);
	expect(true, "rtc-discard", NULL);
	expect(false, "rtc-slew", "dropped for good, where rtc-slew catches up");
}

/*
 * Beside a busy host the runner may see the request 700 ms after the guest
 * wrote it: the guest then ran longer than half the stop. Seen failing so
 * (QEMU 7.2, TCG, two busy loops) when "stood still" was read from the
 * host's time between request and answer: "0 periods missed by the VM's
 * clock over 0 ms, 33 made up".
 */
static void test_pause_late_runner(void **state)
{
	struct cu_figures f;

	run = 700 * MS;
	paused(false, false, true);
	if (!judge("rtc-vm", &f))
		fail_msg("%s", line);
	paused(false, true, false);
	if (!judge("rtc-slew", &f))
		fail_msg("%s", line);
	assert_int_equal(f.missed, 64);
	run = 30 * MS;
}

static void test_pause_counter_ran(void **state)
{
	struct cu_figures f;

	paused(true, true, false);
	if (!judge("rtc-slew", &f))
		fail_msg("%s", line);
	assert_int_equal(f.missed, 64);
	assert_int_equal(f.extra_ns, 0);
	paused(true, false, false);
	expect(true, "rtc-discard", NULL);
}

/* The VM's clock stood with the guest: nothing was due, and a catch-up of the stop is too many. */
static void test_pause_vm_clock(void **state)
{
	struct cu_figures f;

	paused(false, false, true);
	assert_true(judge("rtc-vm", &f));
	assert_int_equal(f.missed, 0);
	paused(false, true, false);
	expect(false, "rtc-vm", "made up, where rtc-vm drops all but the one pending");
}

/*
 * Once in 20 saves under QEMU 10 (TCG) the VM's clock came 47 ms ahead of
 * the TSC: a source on the VM's clock then shows 3 periods more than the
 * counter's time. Measured beside the counter (the PM timer) it is no
 * fault; taken as the host's time less the stop it was "3 of 0 missed
 * periods made up".
 */
static void test_save_vm_clock_measured(void **state)
{
	struct cu_figures f;
	u64 t0 = PRE_PERIODS * PERIOD_NS + 2 * MS, t1 = t0 + 200 * MS, ahead = 47 * MS;
	u64 last = t1 / PERIOD_NS;

	start(CU_SAVE, t0, t1);
	rec.stop_ns = 148 * MS;
	on_grid(PRE_PERIODS + 1, last, 0);
	/* the restored source on the VM's clock: its periods 47 ms early by the counter, those past
	 * at once */
	for (u64 k = last + 1; k <= last + POST_PERIODS; k++)
		add(max(k * PERIOD_NS - ahead, t1 + 100 * 1000 * (k - last)) + LATENCY_NS);
	expect(false, "rtc-vm", "3 of 0 missed periods made up");
	rec.vm_extra_known = true;
	rec.vm_extra_ns = (s64)ahead;
	if (!judge("rtc-vm", &f))
		fail_msg("%s", line);
	assert_int_equal(f.dropped, 0);
}

/* A save stopped past the RTC's 60 s re-base: slew's backlog is dropped, not caught up. */
static void test_save_past_rebase(void **state)
{
	struct cu_figures f;
	u64 t0 = PRE_PERIODS * PERIOD_NS + 2 * MS, t1 = t0 + 50 * MS;

	start(CU_SAVE, t0, t1);
	rec.stop_ns = 90000 * MS;
	burst(t1 + 100 * 1000, 1);
	on_grid(t1 / PERIOD_NS + 1, t1 / PERIOD_NS + 1 + POST_PERIODS, 0);
	assert_true(judge("rtc-slew", &f));
	assert_int_equal(f.missed, 5760);
	assert_true(strstr(line, "declares them dropped") != NULL);
	rec.stop_ns = 45000 * MS; /* under the re-base's 60 s: the backlog is owed */
	expect(false, "rtc-slew", "declares them caught up");
	rec.stop_ns = 30000 * MS;
	expect(false, "rtc-slew",
	       "rtc-slew declares them caught up (documented: caught up): 1922 periods dropped for "
	       "good, "
	       "where rtc-slew catches up to within 1");
}

/* Ticks the host lost after the disturbance are reported apart, not counted as the setting's. */
static void test_host_losses_after(void **state)
{
	struct cu_figures f;
	unsigned keep;

	masked(0, 250 * MS);
	keep = rec.n;
	rec.n = keep - POST_PERIODS / 2;
	for (unsigned i = rec.n + 2; i < keep; i++)
		rec.at_ns[rec.n++] = rec.at_ns[i];
	assert_true(judge("rtc-discard", &f));
	assert_int_equal(f.dropped, 15);
	assert_int_equal(f.host_lost, 2);
}

/* --- the printed list: each check a BOUND line, its figure no RESULT of its own -------------- */

static char out[CAPTURE_MAX];

static void print_report(const void *arg)
{
	report_checks(arg);
}

/* Judge the record under model and capture what the guest prints of it. */
static void report_under(const char *model)
{
	struct cu_figures f;

	judge(model, &f);
	capture(print_report, &verdict, out, sizeof(out));
}

/* A caught-up mask: the mask's length and the fate bounded, the rest plain figures. */
static void test_report_masked_slew(void **state)
{
	masked(15, 250 * MS);
	report_under("rtc-slew");
	EXACTLY(out, "RESULT: catchup.cli.made_up 16 ticks", "RESULT: catchup.cli.host_lost 0 ticks",
		"RESULT: catchup.cli.peak 17 ticks", "RESULT: catchup.cli.agree_ms 0 ms",
		"BOUND: catchup.cli.missed 16 ticks 0..17",
		"PASS: cli: 16 periods missed where the entry's 250 ms and the host's 0 ms holding "
		"the vCPU miss at most 17 (1 for the phase; by the host's clock over 250 ms)",
		"BOUND: catchup.cli.dropped 0 ticks -1..1",
		"PASS: cli: 16 periods missed by the host's clock over 250 ms, 16 made up (at most 17 "
		"ticks in a period; 49 by its implementation), 0 dropped for good, the count agreed 0 "
		"ms after: rtc-slew declares them caught up (documented: caught up)");
}

/* Each fate's figure beyond its band fails, the sentence saying by how much. */
static void test_report_fates_fail(void **state)
{
	masked(0, 250 * MS);
	report_under("rtc-slew");
	has_line(out, "BOUND: catchup.cli.dropped 15 ticks -1..1");
	HAS_LINE_WITH(out, "FAIL: cli: 16 periods missed by the host's clock over 250 ms, 1 made up",
		      ": 15 periods dropped for good, where rtc-slew catches up to within 1");
	has_line(out, "RESULT: catchup.cli.made_up 1 ticks");
	masked(15, 250 * MS);
	report_under("rtc-discard");
	has_line(out, "BOUND: catchup.cli.made_up 16 ticks 0..2");
	HAS_LINE_WITH(out, "FAIL: cli: 16 periods missed",
		      ": 16 of 16 missed periods made up, where rtc-discard drops all but the one "
		      "pending (+-1)");
	has_line(out, "RESULT: catchup.cli.dropped 0 ticks");
	lacks(out, "RESULT: catchup.cli.made_up");
}

/* fault=cli_long's record: the mask four times as long as declared fails on its own line. */
static void test_report_mask_too_long(void **state)
{
	masked(0, 1000 * MS);
	report_under("pit-tcg");
	has_line(out, "BOUND: catchup.cli.missed 64 ticks 0..17");
	has_line(out, "FAIL: cli: 64 periods missed where the entry's 250 ms and the host's 0 ms "
		      "holding the vCPU miss at most 17 (1 for the phase; by the VM's clock over "
		      "1000 ms)");
	has_line(out, "BOUND: catchup.cli.made_up 1 ticks 0..2");
	lacks(out, "RESULT: catchup.cli.missed");
}

/* A stop: the stop's periods a plain figure, the fate bounded; no tick after it, nothing else. */
static void test_report_pause(void **state)
{
	paused(false, true, false);
	report_under("rtc-slew");
	has_line(out, "RESULT: catchup.pause.missed 64 ticks");
	has_line(out, "BOUND: catchup.pause.dropped 0 ticks -1..1");
	rec.n = 1 + PRE_PERIODS; /* the ticks up to the request, none after the answer */
	report_under("rtc-slew");
	has_line(out, "BOUND: catchup.pause.after 0 ticks 1..inf");
	HAS_LINE_WITH(out, "FAIL: pause: 64 periods missed", ": no tick came after it");
	lacks(out, "catchup.pause.dropped 0 ticks -1");
}

static void test_models(void **state)
{
	const struct cu_model *m;

	for (unsigned i = 0; (m = cu_model_at(i)); i++) {
		assert_ptr_equal(cu_model_find(m->name), m);
		assert_true(m->implemented[0] && m->documented[0] && m->setting[0]);
		assert_true(!strcmp(m->source, "rtc") || !strcmp(m->source, "pit"));
	}
	assert_null(cu_model_find("rtc-catchup"));
	assert_string_equal(cu_kind_name(CU_SAVE), "save");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masked_slew),
		cmocka_unit_test(test_masked_discard),
		cmocka_unit_test(test_masked_partly_caught_up),
		cmocka_unit_test(test_masked_longer_than_declared),
		cmocka_unit_test(test_catch_up_rate),
		cmocka_unit_test(test_pause_counter_stood),
		cmocka_unit_test(test_pause_counter_ran),
		cmocka_unit_test(test_pause_late_runner),
		cmocka_unit_test(test_pause_vm_clock),
		cmocka_unit_test(test_save_vm_clock_measured),
		cmocka_unit_test(test_save_past_rebase),
		cmocka_unit_test(test_host_losses_after),
		cmocka_unit_test(test_report_masked_slew),
		cmocka_unit_test(test_report_fates_fail),
		cmocka_unit_test(test_report_mask_too_long),
		cmocka_unit_test(test_report_pause),
		cmocka_unit_test(test_models),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
