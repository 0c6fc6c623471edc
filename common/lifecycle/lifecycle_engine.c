/* SPDX-License-Identifier: GPL-2.0-only */
/* The common half of the lifecycle test: the events asked for one by one, the windows, the handshake with the runner, the hand-offs (the sampling: lifecycle_sample.c). */
#include "lifecycle_state.h"
#include "lifecycle_record.h"
#include "console_input.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "irq.h"
#include "report.h"
#include "wait.h"


struct lc_state lc;

static void set_phase(enum lc_phase ph)
{
	lc.rec.phase_start[ph] = arch_counter();
	smp_mb();
	lc.phase = ph;
}

/* ---- every vCPU's clocks against the boot vCPU's ------------------------- */

static unsigned handoff_clock;

/* A hand-off's read: the clock as the sampling reads it, fault=skew included. */
static u64 handoff_read(void)
{
	const struct lc_clock *c = &lc.rec.arch->clocks[handoff_clock];
	u64 v = c->read();

	if (lc_skewed(&lc.rec.cpu[smp_id()], handoff_clock))
		v += ns_to_ticks(LC_FAULT_SKEW_NS, lc_clock_hz(&lc.rec, c));
	return v;
}

/*
 * With the other vCPUs idle: each one's clocks against the boot vCPU's, by
 * hand-offs (lib/handoff.h), before the event (w 0) or after it (w 1).
 */
static void handoffs(unsigned w)
{
	static struct handoff ho;

	ho.read = handoff_read;
	for (handoff_clock = 0; handoff_clock < lc.rec.arch->nclocks; handoff_clock++) {
		for (int cpu = 1; cpu < cpu_count(); cpu++) {
			handoff_run(&ho, cpu);
			lc.rec.cpu[cpu].agree[w][handoff_clock] = handoff_offset(&ho);
		}
	}
}

/* ---- the boot vCPU: windows and the handshake ---------------------------- */

/* A vCPU sampling in a phase: a step of work_until(). */
struct lc_sampling {
	struct lc_cpu *me;
	enum lc_phase ph;
};

static bool sample_step(void *arg, u64 now)
{
	const struct lc_sampling *s = arg;

	lc_step(s->me, s->ph);
	return false;
}

/* Sample for ns nanoseconds by the counter. */
static void boot_window(struct lc_cpu *me, enum lc_phase ph, u64 ns)
{
	work_until(sample_step, &(struct lc_sampling){me, ph},
		   arch_counter() + ns_to_ticks(ns, arch_counter_hz()));
}

/* ---- one event ------------------------------------------------------------- */

static void reset_cpus(void)
{
	memset(lc.rec.cpu, 0, sizeof(lc.rec.cpu));
	memset(&lc.rec.run, 0, sizeof(lc.rec.run));
	lc.rec.run.n = lc.run_len[lc.rec.seq - 1];
	memset(lc.rec.phase_start, 0, sizeof(lc.rec.phase_start));
	lc.phase = LC_BEFORE;
	smp_mb();
}

/* The answer is in: read the time of day for it, parse it. */
static void take_answer(enum lc_event kind, struct lc_answer *a)
{
	a->answered = arch_counter();
	/*
	 * The host stamps the answer as it sends it; the line takes a while to
	 * read one polled character at a time: the time of day is taken back
	 * to its first character.
	 */
	if (lc.rec.arch->tod_ns)
		a->tod_done = lc.rec.arch->tod_ns() - counter_ns(arch_counter() - a->first_at) +
			      (lc.rec.fault == LC_FAULT_TOD ? LC_FAULT_TOD_NS : 0);
	if (!lc_parse_done(a->line, &lc.rec.done) || lc.rec.done.kind != kind || lc.rec.done.seq != lc.rec.seq)
		report_abort("the runner's answer to event %u (%s) is not one: '%s'", lc.rec.seq,
			     lc_event_name(kind), a->line);
}

/*
 * A window's edge, told to the runner: "window SEQ" where SEQ is the last
 * event it answered. It answers with how long the host kept a vCPU, or
 * any of the guest's and its own threads, from running since its last
 * answer, and measures afresh from there. Asked as the window before an
 * event opens (SEQ is the event before; the answer covers the search for
 * the seconds clock's edge before it), as the window after it closes (the
 * answer covers that window) and once the edge after it is found.
 */
static void ask_window(unsigned seq, struct lc_done *out)
{
	static struct lc_answer w;
	struct lc_done d;

	memset(&w, 0, sizeof(w));
	printf(LC_REQUEST "window %u\n", seq);
	if (!lc_read_answer(NULL, &w,
			    arch_counter() + ns_to_ticks(LC_ANSWER_WAIT_NS, arch_counter_hz())))
		report_abort("no answer from the runner about the window after event %u in %llu s",
			     seq, LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
	if (!lc_parse_done(w.line, &d) || d.kind != LC_ANSWER_WINDOW || d.seq != seq)
		report_abort("the runner's answer about the window after event %u is not one: '%s'",
			     seq, w.line);
	*out = d;
}

/* Ask for the event (a run: each of its migrations in turn) and sample until the answer is in. */
static bool ask(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a)
{
	if (lc.rec.run.n)
		return lc_run_requests(me, kind, a);
	lc_arm_oneshots(me, lc_oneshot_deadline());
	return lc_request(me, kind, a);
}

/*
 * Every vCPU samples across the event: the window before, the request
 * and its answer, the window after. The seconds clock's edges are timed
 * outside the windows, with no other vCPU running (each poll is an exit).
 */
static void sample_event(enum lc_event kind, struct lc_answer *a)
{
	struct lc_cpu *me = &lc.rec.cpu[0];
	struct lc_done w;

	reset_cpus();
	if (lc.rec.rtc)
		lc_rtc_edge(&a->rtc_before);
	ask_window(lc.rec.seq - 1, &w);
	/* QEMU's main loop runs the RTC's updates: any thread's wait, not only a vCPU's */
	a->rtc_before.wait_ns = w.after_stamp_wait_ns;
	handoffs(0);
	set_phase(LC_BEFORE);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_async(cpu, lc_ap_sampler, NULL);
	lc_start_sampling(me);
	boot_window(me, LC_BEFORE, LC_WINDOW_NS);
	set_phase(LC_DURING);
	if (!ask(me, kind, a))
		report_abort("no answer from the runner to event %u in %llu s", lc.rec.seq,
			     LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
	take_answer(kind, a);
	if (lc.rec.run.n)
		lc_run_done(me);
	set_phase(LC_AFTER);
	boot_window(me, LC_AFTER, LC_WINDOW_NS);
	set_phase(LC_FINISHED);
	lc_stop_sampling(me);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_wait(cpu);
	handoffs(1);
	ask_window(lc.rec.seq, &w);
	lc.rec.done.after_wait_ns = w.after_wait_ns;
	lc.rec.done.after_stamp_wait_ns = w.after_stamp_wait_ns;
	if (lc.rec.rtc) {
		lc_rtc_edge(&a->rtc_after);
		ask_window(lc.rec.seq, &w);
		a->rtc_after.wait_ns = w.after_stamp_wait_ns;
	}
}

/*
 * The record's inputs that come from the events before: with rtc_set, the
 * seconds clock's offset at the first event's edge before is the one every
 * later event must keep.
 */
static void carry_rtc_ref(struct lc_record *r)
{
	if (!r->rtc || !r->rtc_set || lc.rtc_ref_taken || r->answer.rtc_before.why_not)
		return;
	r->rtc_ref_ns = lc_rtc_offset_before(r);
	lc.rtc_ref_taken = true;
}

struct checks *lc_checks(void)
{
	static struct check entries[LC_CHECKS_MAX];
	static char text[LC_CHECKS_TEXT_KB * 1024];
	static struct checks list;

	checks_init(&list, entries, LC_CHECKS_MAX, text, sizeof(text));
	return &list;
}

static void run_event(enum lc_event kind)
{
	struct lc_record *r = &lc.rec;
	struct checks *out;
	unsigned failed;

	if (kind == LC_RESET)
		lc_request_reset();
	memset(&r->answer, 0, sizeof(r->answer));
	report_prefix_pushf("event %u %s", r->seq, lc_event_name(kind));
	sample_event(kind, &r->answer);
	report_prefix_pop();
	if (r->counter_set)
		lc_counter_read_all();
	carry_rtc_ref(r);
	failed = report_failures();
	report_prefix_pushf("event %u %s", r->seq, lc_event_name(kind));
	out = lc_checks();
	lc_judge(out, r);
	report_checks(out);
	report_prefix_pop();
	if (record_wanted(lc.record, report_failures() > failed))
		lc_record_print(r);
}

/* ---- arguments -------------------------------------------------------------- */

static void init_on(void *arg)
{
	lc.rec.arch->init_cpu();
}

int lc_main(int argc, char **argv, const struct lc_arch *arch)
{
	struct checks *out;
	const char *why;

	lc.rec.arch = arch;
	lc.rec.ncpus = cpu_count();
	lc.rec.counter_hz = arch_counter_hz();
	lc.rec.has_tod = arch->tod_ns != NULL;
	lc.rec.has_flag = arch->take_stopped_flag != NULL;
	out = lc_checks();
	if (checks_plain(out, lc_parse_args(argc, argv), "arguments are valid") &&
	    cpu_count() > LC_MAX_CPUS)
		checks_plain(out, false, "at most %d vCPUs, not %d", LC_MAX_CPUS, cpu_count());
	report_checks(out);
	if (!checks_all_hold(out))
		return report_summary();
	why = arch->probe();
	if (why) {
		report_skip("%s", why);
		return report_summary();
	}
	why = steal_init();
	lc.rec.has_steal = !why;
	if (why)
		report_info("periodic rates judged by their tick counts only: %s", why);
	lc_find_rtc(arch);
	if (lc.rec.rtc_set)
		lc_set_rtc();
	if (lc.rec.counter_set)
		lc_counter_set();
	lc_announce_fault(arch);
	on_cpus(init_on, NULL);
	for (lc.rec.seq = lc_has_reset() ? lc_boot_handshake() : 1; lc.rec.seq <= lc.nevents; lc.rec.seq++)
		run_event(lc.events[lc.rec.seq - 1]);
	return report_summary();
}
