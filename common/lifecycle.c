/* SPDX-License-Identifier: GPL-2.0-only */
/* The common half of the lifecycle test: every vCPU sampling its clocks and timers across each host event, the handshake. */
#include "lifecycle_state.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "irq.h"
#include "report.h"
#include "wait.h"


struct lc_state lc;

/* ---- sampling ------------------------------------------------------------ */

static u64 faulty_read(const struct lc_cpu *me, unsigned i, enum lc_phase ph)
{
	const struct lc_clock *c = &lc.arch->clocks[i];
	u64 v = c->read();

	if (lc_skewed(me, i))
		return v + ns_to_ticks(LC_FAULT_SKEW_NS, clock_hz(c));
	if (ph < LC_AFTER)
		return v;
	if (lc.fault == LC_FAULT_BACK)
		return v - ns_to_ticks(LC_FAULT_BACK_NS, clock_hz(c));
	if (lc.fault == LC_FAULT_JUMP)
		return v + ns_to_ticks(LC_FAULT_JUMP_NS, clock_hz(c));
	return v;
}

/* One read of every clock on this vCPU, against the read before it; ph is never LC_FINISHED. */
static void sample(struct lc_cpu *me, enum lc_phase ph)
{
	for (unsigned i = 0; i < lc.arch->nclocks; i++) {
		u64 v = faulty_read(me, i, ph);

		if (me->reads[i] && v < me->last[i]) {
			me->backwards[i]++;
			me->worst_back[i] = max(me->worst_back[i], me->last[i] - v);
		} else if (me->reads[i]) {
			me->step[ph][i] = max(me->step[ph][i], v - me->last[i]);
		}
		me->last[i] = v;
		me->reads[i]++;
	}
}

/* A periodic tick of the window before the event (w 0) or after it (w 1), for its period. */
static void stamp_tick(struct lc_timer *t, unsigned w, u64 now)
{
	u64 steal = lc.has_steal ? steal_ns() : 0;

	if (t->nstamps[w] == LC_STAMPS)
		return;
	if (!t->nstamps[w])
		t->steal_first[w] = steal;
	t->steal_last[w] = steal;
	t->stamps[w][t->nstamps[w]++] = now;
}

/* A tick in a run of migrations: counted for the migration asked for last, with the time since the tick before. */
static void run_tick(struct lc_timer *t, u64 now)
{
	unsigned k = lc.run.k;

	if (!k || lc.phase != LC_DURING)
		return;
	t->run_ticks[k]++;
	if (t->last_tick)
		t->run_gap[k] = max(t->run_gap[k], now - t->last_tick);
}

enum lc_role lc_timer_fired(unsigned slot, u64 now)
{
	struct lc_timer *t = &lc.cpu[smp_id()].t[slot];
	enum lc_phase ph = min(lc.phase, LC_AFTER);
	unsigned k = lc.run.k;

	if (t->role == LC_ROLE_ONESHOT) {
		if (!t->fired_at)
			t->fired_at = now;
		if (k && !t->run_fires[k]++)
			t->run_fired_at[k] = now;
	} else if (t->role == LC_ROLE_PERIODIC) {
		if (ph != LC_DURING)
			stamp_tick(t, ph == LC_AFTER, now);
		t->ticks[ph]++;
		if (t->last_tick && now - t->last_tick < t->period / LC_EARLY_DIV)
			t->early[ph]++;
		run_tick(t, now);
		t->last_tick = now;
	}
	return t->role;
}

/*
 * A vCPU's own timer alternates its role with the event, and on x86 (one
 * such timer per vCPU) with the vCPU; a device's is its own, on the boot vCPU.
 */
static enum lc_role role_of(int cpu, unsigned slot)
{
	unsigned k = lc_every_cpu_slots() == 1 ? (unsigned)cpu : slot;

	switch (lc.arch->slot_use[slot]) {
	case LC_SLOT_BOOT_PERIODIC:
		return cpu ? LC_ROLE_IDLE : LC_ROLE_PERIODIC;
	case LC_SLOT_BOOT_ONESHOT:
		return cpu ? LC_ROLE_IDLE : LC_ROLE_ONESHOT;
	default:
		return (k + lc.seq) % 2 ? LC_ROLE_ONESHOT : LC_ROLE_PERIODIC;
	}
}

static void start_timers(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		t->role = role_of(smp_id(), s);
		t->period = ns_to_ticks(LC_PERIOD_NS, arch_counter_hz());
		if (t->role == LC_ROLE_PERIODIC)
			t->period = lc.arch->periodic(s, t->period);
	}
}

/* As the request goes out: arm the one-shots for a deadline inside the event. */
void lc_arm_oneshots(struct lc_cpu *me, u64 deadline)
{
	for (unsigned s = 0; s < lc.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		if (t->role != LC_ROLE_ONESHOT)
			continue;
		t->deadline = deadline;
		lc.arch->oneshot_at(s, t->deadline);
		if (lc.fault == LC_FAULT_REARM)
			lc.arch->oneshot_at(
				s, t->deadline + ns_to_ticks(LC_FAULT_REARM_NS, arch_counter_hz()));
	}
	me->oneshot_armed = true;
}

/* Once the answer is in: the test-only faults on the periodic timers. */
static void periodic_faults(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		if (t->role != LC_ROLE_PERIODIC || t->faulted)
			continue;
		t->faulted = true;
		if (lc.fault == LC_FAULT_RATE)
			lc.arch->periodic(s, t->period * 2);
		if (lc.fault == LC_FAULT_RATE5)
			lc.arch->periodic(s, t->period + t->period * LC_FAULT_RATE5_PPT / MILLI_PER_UNIT);
		if (lc.fault == LC_FAULT_SILENT)
			lc.arch->stop(s);
		for (u64 n = 0;
		     lc.fault == LC_FAULT_STORM && n < lc.done.duration_ns / LC_PERIOD_NS; n++)
			lc_timer_fired(s, arch_counter());
	}
}

/*
 * Take this vCPU's stopped flag as a guest's watchdog does (read, and
 * clear when set), counting it per phase. The host sets it when the VM
 * runs again after a stop, so it is looked at from the start: one set
 * before the request is as wrong as none after it.
 */
static void watch_stopped_flag(struct lc_cpu *me, enum lc_phase ph)
{
	if (!lc.arch->take_stopped_flag)
		return;
	/* fault=stopped_reset: found and cleared after the event, then set again once */
	if (lc.fault == LC_FAULT_STOPPED_RESET && ph == LC_AFTER && !me->stopped_reset &&
	    me->stopped_seen[LC_DURING] + me->stopped_seen[LC_AFTER]) {
		me->stopped_reset = true;
		lc.arch->set_stopped_flag();
	}
	if (!lc.arch->take_stopped_flag())
		return;
	/* fault=stopped_flag: cleared unseen from the request on, as if never set */
	if (lc.fault == LC_FAULT_STOPPED_FLAG && ph >= LC_DURING)
		return;
	me->stopped_seen[ph]++;
}

/* A one-shot's deadline armed as an event's request goes out: inside a pause. */
static u64 oneshot_deadline(void)
{
	return arch_counter() + ns_to_ticks(LC_ONESHOT_NS, arch_counter_hz());
}

/* One step of any vCPU's loop: arm or fault what the phase asks for, sample. */
void lc_step(struct lc_cpu *me, enum lc_phase ph)
{
	if (lc.run.n)
		lc_run_step(me);
	else if (ph >= LC_DURING && !me->oneshot_armed)
		lc_arm_oneshots(me, oneshot_deadline());
	if (ph == LC_AFTER) {
		periodic_faults(me);
		lc_counter_fault(me);
	}
	watch_stopped_flag(me, ph);
	lc_follow_derived(me, ph);
	sample(me, ph);
}

static void stop_timers(const struct lc_cpu *me)
{
	irq_disable();
	for (unsigned s = 0; s < lc.arch->nslots; s++)
		if (me->t[s].role != LC_ROLE_IDLE)
			lc.arch->stop(s);
}

/* One sampling step in the boot vCPU's phase; true once it says the event is over. */
static bool step_until_finished(void *me)
{
	enum lc_phase ph = lc.phase;

	if (ph == LC_FINISHED)
		return true;
	lc_step(me, ph);
	return false;
}

/* What every vCPU does during one event, until the boot vCPU says it is over. */
static void sampler(struct lc_cpu *me)
{

	if (lc.arch->derived)
		lc.arch->derived->forget();
	start_timers(me);
	irq_enable();
	wait_cond(step_until_finished, me);
	stop_timers(me);
}

static void ap_sampler(void *arg)
{
	sampler(&lc.cpu[smp_id()]);
}

static void set_phase(enum lc_phase ph)
{
	lc.phase_start[ph] = arch_counter();
	smp_mb();
	lc.phase = ph;
}

/* ---- every vCPU's clocks against the boot vCPU's ------------------------- */

static unsigned handoff_clock;

/* A hand-off's read: the clock as the sampling reads it, fault=skew included. */
static u64 handoff_read(void)
{
	const struct lc_clock *c = &lc.arch->clocks[handoff_clock];
	u64 v = c->read();

	if (lc_skewed(&lc.cpu[smp_id()], handoff_clock))
		v += ns_to_ticks(LC_FAULT_SKEW_NS, clock_hz(c));
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
	for (handoff_clock = 0; handoff_clock < lc.arch->nclocks; handoff_clock++) {
		for (int cpu = 1; cpu < cpu_count(); cpu++) {
			handoff_run(&ho, cpu);
			lc.cpu[cpu].agree[w][handoff_clock] = handoff_offset(&ho);
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

/*
 * Ask for the event and sample until the runner's answer is in; the line
 * is read from the console's input one polled character at a time.
 */
bool lc_request(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a)
{
	u64 give_up = arch_counter() + ns_to_ticks(LC_ANSWER_WAIT_NS, arch_counter_hz());

	/*
	 * The host stamps the request when the whole line is in and may stop
	 * the guest at once: the time of day is read before the newline goes
	 * out, never after it (a read after it can land after a pause).
	 */
	printf("LIFECYCLE-REQUEST: %s %u", lc_event_name(kind), lc.seq);
	if (lc.run.k)
		printf(" run=%u", lc.run.k);
	if (lc.arch->tod_ns)
		a->tod_req = lc.arch->tod_ns();
	a->nl_at = arch_counter();
	putchar('\n');
	return lc_read_answer(me, a, give_up);
}

/* The answer being read: a sample (when me), then a character of input if one is in. */
struct lc_answer_read {
	struct lc_cpu *me;
	struct lc_answer *a;
	size_t len;
};

static bool answer_step(void *arg, u64 now)
{
	struct lc_answer_read *r = arg;
	int c;

	if (r->me)
		lc_step(r->me, LC_DURING);
	c = arch_console_getc();
	if (c < 0 || c == '\r')
		return false;
	if (!r->len)
		r->a->first_at = arch_counter();
	if (c == '\n') {
		r->a->line[r->len] = '\0';
		return true;
	}
	if (r->len < LC_LINE_MAX - 1)
		r->a->line[r->len++] = (char)c;
	return false;
}

bool lc_read_answer(struct lc_cpu *me, struct lc_answer *a, u64 give_up)
{
	return work_until(answer_step, &(struct lc_answer_read){me, a, 0}, give_up);
}

/* ---- one event ------------------------------------------------------------- */

static void reset_cpus(void)
{
	memset(lc.cpu, 0, sizeof(lc.cpu));
	memset(&lc.run, 0, sizeof(lc.run));
	lc.run.n = lc.run_len[lc.seq - 1];
	memset(lc.phase_start, 0, sizeof(lc.phase_start));
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
	if (lc.arch->tod_ns)
		a->tod_done = lc.arch->tod_ns() - counter_ns(arch_counter() - a->first_at) +
			      (lc.fault == LC_FAULT_TOD ? LC_FAULT_TOD_NS : 0);
	if (!lc_parse_done(a->line, &lc.done) || lc.done.kind != kind || lc.done.seq != lc.seq)
		report_abort("the runner's answer to event %u (%s) is not one: '%s'", lc.seq,
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
	printf("LIFECYCLE-REQUEST: window %u\n", seq);
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
	if (lc.run.n)
		return lc_run_requests(me, kind, a);
	lc_arm_oneshots(me, oneshot_deadline());
	return lc_request(me, kind, a);
}

/*
 * Every vCPU samples across the event: the window before, the request
 * and its answer, the window after. The seconds clock's edges are timed
 * outside the windows, with no other vCPU running (each poll is an exit).
 */
static void sample_event(enum lc_event kind, struct lc_answer *a)
{
	struct lc_cpu *me = &lc.cpu[0];
	struct lc_done w;

	reset_cpus();
	if (lc.rtc)
		lc_rtc_edge(&a->rtc_before);
	ask_window(lc.seq - 1, &w);
	/* QEMU's main loop runs the RTC's updates: any thread's wait, not only a vCPU's */
	a->rtc_before.wait_ns = w.after_stamp_wait_ns;
	handoffs(0);
	set_phase(LC_BEFORE);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_async(cpu, ap_sampler, NULL);
	if (lc.arch->derived)
		lc.arch->derived->forget();
	start_timers(me);
	irq_enable();
	boot_window(me, LC_BEFORE, LC_WINDOW_NS);
	set_phase(LC_DURING);
	if (!ask(me, kind, a))
		report_abort("no answer from the runner to event %u in %llu s", lc.seq,
			     LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
	take_answer(kind, a);
	if (lc.run.n)
		lc_run_done(me);
	set_phase(LC_AFTER);
	boot_window(me, LC_AFTER, LC_WINDOW_NS);
	set_phase(LC_FINISHED);
	stop_timers(me);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_wait(cpu);
	handoffs(1);
	ask_window(lc.seq, &w);
	lc.done.after_wait_ns = w.after_wait_ns;
	lc.done.after_stamp_wait_ns = w.after_stamp_wait_ns;
	if (lc.rtc) {
		lc_rtc_edge(&a->rtc_after);
		ask_window(lc.seq, &w);
		a->rtc_after.wait_ns = w.after_stamp_wait_ns;
	}
}

static void run_event(enum lc_event kind)
{
	static struct lc_answer a;

	if (kind == LC_RESET)
		lc_request_reset();
	memset(&a, 0, sizeof(a));
	report_prefix_pushf("event %u %s", lc.seq, lc_event_name(kind));
	sample_event(kind, &a);
	lc_result_ms("host", "stopped", lc.done.duration_ns);
	lc_result_ms("host", "qmp_downtime", lc.done.qmp_downtime_ns);
	lc_result_ms("host", "total", lc.done.total_ns);
	lc_result_ms("host", "vcpu_wait", lc.done.vcpu_wait_ns);
	for (unsigned i = 0; i < lc.arch->nclocks; i++)
		lc_check_clock(i, kind);
	if (lc.arch->derived)
		lc_check_derived(kind);
	lc_check_agree();
	if (lc.counter_set)
		lc_check_counter_kept();
	lc_check_timers(a.answered);
	if (lc.run.n)
		lc_check_run();
	if (lc.arch->tod_ns)
		lc_check_tod(a.tod_req, a.tod_done);
	if (lc.rtc)
		lc_check_rtc(&a);
	if (lc.arch->take_stopped_flag)
		lc_check_stopped_flag();
	report_prefix_pop();
}

/* ---- arguments -------------------------------------------------------------- */

static void init_on(void *arg)
{
	lc.arch->init_cpu();
}

int lc_main(int argc, char **argv, const struct lc_arch *arch)
{
	const char *why;

	lc.arch = arch;
	if (!report(lc_parse_args(argc, argv), "arguments are valid"))
		return report_summary();
	if (cpu_count() > LC_MAX_CPUS) {
		report(false, "at most %d vCPUs, not %d", LC_MAX_CPUS, cpu_count());
		return report_summary();
	}
	why = arch->probe();
	if (why) {
		report_skip("%s", why);
		return report_summary();
	}
	why = steal_init();
	lc.has_steal = !why;
	if (why)
		report_info("periodic rates judged by their tick counts only: %s", why);
	lc_find_rtc(arch);
	if (lc.rtc_set)
		lc_set_rtc();
	if (lc.counter_set)
		lc_counter_set();
	lc_announce_fault(arch);
	on_cpus(init_on, NULL);
	for (lc.seq = lc_has_reset() ? lc_boot_handshake() : 1; lc.seq <= lc.nevents; lc.seq++)
		run_event(lc.events[lc.seq - 1]);
	return report_summary();
}
