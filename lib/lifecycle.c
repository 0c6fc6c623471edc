/* SPDX-License-Identifier: GPL-2.0-only */
/* The common half of the lifecycle test: sampling every vCPU's clocks and timers across each host event, and the checks. */
#include "lifecycle.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "report.h"

/* Each window (before the event, after it) lasts this long, by the counter. */
#define LC_WINDOW_NS		500000000ull
/* A one-shot timer is armed for this long after the request: inside a pause. */
#define LC_ONESHOT_NS		50000000ull
/* The periodic timers' period: 100 Hz. */
#define LC_PERIOD_NS		10000000ull
/* A tick this much closer than a period to the one before is a catch-up tick. */
#define LC_EARLY_DIV		2
/*
 * Default bound on catch-up ticks beyond those the vCPU's own delays
 * explain. kvm-pvm replays up to 8 of the 100 periods a 1 s pause misses
 * (measured, docs/lifecycle.md); a storm replays them all.
 */
#define LC_CATCHUP_MAX		16
/* Periodic rate after the event against the rate before it, parts per thousand. */
#define LC_RATE_TOL_PPT		100
/*
 * Slack on the time stamps the host gives: QEMU stamps STOP after the
 * vCPUs have stopped and RESUME before they run, each within this.
 */
#define LC_STAMP_SLACK_NS	10000000ull
/*
 * A frozen clock still moves by the time QEMU takes between reading it,
 * after the vCPUs stopped, and writing it back, before they run again:
 * 13-28 ms measured here under kvm-pvm (docs/lifecycle.md).
 */
#define LC_FROZEN_SLACK_NS	50000000ull
/* The time of day moves against the host's by at most this much over an event. */
#define LC_TOD_SLACK_NS		50000000ull
/* How long the guest waits for the runner's answer. */
#define LC_ANSWER_WAIT_NS	300000000000ull
#define LC_LINE_MAX		256
/* Test-only faults: how far back (fault=back) or ahead (fault=jump) clocks are set. */
#define LC_FAULT_BACK_NS	20000000ull
#define LC_FAULT_JUMP_NS	3000000000ull
#define LC_FAULT_TOD_NS		1000000000ull
#define LC_FAULT_REARM_NS	(3600ull * 1000000000ull)
#define NSEC_PER_SEC		1000000000ull

enum lc_phase {
	LC_BEFORE,	/* the window before the request: the baseline */
	LC_DURING,	/* request sent, answer not yet read */
	LC_AFTER,	/* the window after the answer */
	LC_FINISHED,
	LC_NR_PHASES = LC_FINISHED,
};

enum lc_fault {
	LC_FAULT_NONE,
	LC_FAULT_BACK,	/* after the event, every clock reads 20 ms behind */
	LC_FAULT_JUMP,	/* after the event, every clock reads 3 s ahead */
	LC_FAULT_FLIP,	/* expect the opposite of each clock's measured semantics */
	LC_FAULT_REARM,	/* the one-shot is re-armed an hour later as the request goes out */
	LC_FAULT_RATE,	/* after the event the periodic timer is reprogrammed at half rate */
	LC_FAULT_STORM,	/* after the event, one tick per period the stop lasted, at once */
	LC_FAULT_TOD,	/* the time of day after the event is 1 s ahead */
};

static const char *const fault_names[] = {
	"none", "back", "jump", "flip", "rearm", "rate", "storm", "tod",
};

struct lc_timer {
	enum lc_role role;
	u64 period;		/* counter ticks */
	u64 deadline;
	u64 fired_at;		/* one-shot: 0 until it fired */
	u64 last_tick;
	u32 ticks[LC_NR_PHASES];
	u32 early[LC_NR_PHASES];
	/* the wrongly reprogrammed rate of fault=rate and the ticks of fault=storm are in place */
	bool faulted;
};

struct lc_cpu {
	u64 last[LC_MAX_CLOCKS];
	u64 reads[LC_MAX_CLOCKS];
	u64 backwards[LC_MAX_CLOCKS];
	u64 worst_back[LC_MAX_CLOCKS];
	u64 step[LC_NR_PHASES][LC_MAX_CLOCKS];	/* largest step between two reads */
	struct lc_timer t[LC_MAX_SLOTS];
	bool oneshot_armed;
} __attribute__((aligned(64)));

static struct {
	const struct lc_arch *arch;
	enum lc_fault fault;
	u64 catchup_max;
	enum lc_event events[64];
	unsigned nevents;
	volatile enum lc_phase phase;
	u64 phase_start[LC_FINISHED + 1];	/* counter */
	unsigned seq;
	struct lc_done done;
	struct lc_cpu cpu[LC_MAX_CPUS];
} lc;

static u64 ticks_to_ns(u64 ticks, u64 hz)
{
	return ticks / hz * NSEC_PER_SEC + ticks % hz * NSEC_PER_SEC / hz;
}

static u64 ns_to_ticks(u64 ns, u64 hz)
{
	return ns / NSEC_PER_SEC * hz + ns % NSEC_PER_SEC * hz / NSEC_PER_SEC;
}

static u64 clock_hz(const struct lc_clock *c)
{
	return c->hz ? c->hz : arch_counter_hz();
}

static u64 counter_ns(u64 ticks)
{
	return ticks_to_ns(ticks, arch_counter_hz());
}

/* ---- sampling ------------------------------------------------------------ */

static u64 faulty_read(const struct lc_clock *c, enum lc_phase ph)
{
	u64 v = c->read();

	if (ph < LC_AFTER)
		return v;
	if (lc.fault == LC_FAULT_BACK)
		return v - ns_to_ticks(LC_FAULT_BACK_NS, clock_hz(c));
	if (lc.fault == LC_FAULT_JUMP)
		return v + ns_to_ticks(LC_FAULT_JUMP_NS, clock_hz(c));
	return v;
}

/* One read of every clock on this vCPU, against the read before it. */
static void sample(struct lc_cpu *me)
{
	enum lc_phase ph = lc.phase;

	for (unsigned i = 0; i < lc.arch->nclocks; i++) {
		u64 v = faulty_read(&lc.arch->clocks[i], ph);

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

enum lc_role lc_timer_fired(unsigned slot, u64 now)
{
	struct lc_timer *t = &lc.cpu[smp_id()].t[slot];
	enum lc_phase ph = min(lc.phase, LC_AFTER);

	if (t->role == LC_ROLE_ONESHOT && !t->fired_at) {
		t->fired_at = now;
	} else if (t->role == LC_ROLE_PERIODIC) {
		t->ticks[ph]++;
		if (t->last_tick && now - t->last_tick < t->period / LC_EARLY_DIV)
			t->early[ph]++;
		t->last_tick = now;
	}
	return t->role;
}

/* The role of each timer alternates with the event, and on x86 (one timer per vCPU) with the vCPU. */
static enum lc_role role_of(int cpu, unsigned slot)
{
	unsigned k = lc.arch->nslots == 1 ? (unsigned)cpu : slot;

	return (k + lc.seq) % 2 ? LC_ROLE_ONESHOT : LC_ROLE_PERIODIC;
}

static void start_timers(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		t->role = role_of(smp_id(), s);
		t->period = ns_to_ticks(LC_PERIOD_NS, arch_counter_hz());
		if (t->role == LC_ROLE_PERIODIC)
			lc.arch->periodic(s, t->period);
	}
}

/* As the request goes out: arm the one-shots for a deadline inside the event. */
static void arm_oneshots(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		if (t->role != LC_ROLE_ONESHOT)
			continue;
		t->deadline = arch_counter() + ns_to_ticks(LC_ONESHOT_NS, arch_counter_hz());
		lc.arch->oneshot_at(s, t->deadline);
		if (lc.fault == LC_FAULT_REARM)
			lc.arch->oneshot_at(s, t->deadline + ns_to_ticks(LC_FAULT_REARM_NS, arch_counter_hz()));
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
		for (u64 n = 0; lc.fault == LC_FAULT_STORM && n < lc.done.duration_ns / LC_PERIOD_NS; n++)
			lc_timer_fired(s, arch_counter());
	}
}

/* One step of any vCPU's loop: arm or fault what the phase asks for, sample. */
static void step(struct lc_cpu *me, enum lc_phase ph)
{
	if (ph >= LC_DURING && !me->oneshot_armed)
		arm_oneshots(me);
	if (ph == LC_AFTER)
		periodic_faults(me);
	sample(me);
}

static void stop_timers(void)
{
	lc.arch->irqs_off();
	for (unsigned s = 0; s < lc.arch->nslots; s++)
		lc.arch->stop(s);
}

/* What every vCPU does during one event, until the boot vCPU says it is over. */
static void sampler(struct lc_cpu *me)
{
	enum lc_phase ph;

	start_timers(me);
	lc.arch->irqs_on();
	while ((ph = lc.phase) != LC_FINISHED) {
		step(me, ph);
		cpu_relax();
	}
	stop_timers();
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

/* ---- the boot vCPU: windows and the handshake ---------------------------- */

/* Sample for ns nanoseconds by the counter. */
static void boot_window(struct lc_cpu *me, enum lc_phase ph, u64 ns)
{
	u64 end = arch_counter() + ns_to_ticks(ns, arch_counter_hz());

	while (arch_counter() < end)
		step(me, ph);
}

/*
 * Ask for the event and sample until the runner's answer is in; the line
 * is read from the console's input one polled character at a time.
 */
static bool request(struct lc_cpu *me, enum lc_event kind, char *line, u64 *first_at, u64 *tod_req)
{
	u64 give_up = arch_counter() + ns_to_ticks(LC_ANSWER_WAIT_NS, arch_counter_hz());
	size_t len = 0;
	int c;

	printf("LIFECYCLE-REQUEST: %s %u\n", lc_event_name(kind), lc.seq);
	/* the host stamps the request when the whole line is in */
	if (lc.arch->tod_ns)
		*tod_req = lc.arch->tod_ns();
	while (arch_counter() < give_up) {
		step(me, LC_DURING);
		c = arch_console_getc();
		if (c < 0 || c == '\r')
			continue;
		if (!len)
			*first_at = arch_counter();
		if (c == '\n') {
			line[len] = '\0';
			return true;
		}
		if (len < LC_LINE_MAX - 1)
			line[len++] = (char)c;
	}
	return false;
}

/* ---- checks ---------------------------------------------------------------- */

/* RESULT e<seq>.<event>.<what>.<figure> value ms: every event's figures apart. */
static void result_ms(const char *what, const char *figure, u64 ns)
{
	char name[64];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what, figure);
	report_result(name, "ms", "%llu.%03llu", (unsigned long long)ns / 1000000,
		      (unsigned long long)ns / 1000 % 1000);
}

static void result_count(const char *what, const char *figure, u64 n)
{
	char name[64];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what, figure);
	report_result(name, "ticks", "%llu", (unsigned long long)n);
}

static u64 worst(const u64 *per_cpu_value, size_t stride, int *which)
{
	u64 w = 0;

	*which = 0;
	for (int cpu = 0; cpu < cpu_count(); cpu++) {
		u64 v = *(const u64 *)((const char *)per_cpu_value + (size_t)cpu * stride);

		if (v > w) {
			w = v;
			*which = cpu;
		}
	}
	return w;
}

static void check_clock(unsigned i, const struct lc_done *d, enum lc_event kind)
{
	const struct lc_clock *c = &lc.arch->clocks[i];
	u64 hz = clock_hz(c), base_ns, step_ns, allow_ns, frozen_ns;
	enum lc_semantics sem = c->during[kind];
	int cpu_back, cpu_base, cpu_step;
	u64 back = worst(&lc.cpu[0].backwards[i], sizeof(struct lc_cpu), &cpu_back);
	u64 base = worst(&lc.cpu[0].step[LC_BEFORE][i], sizeof(struct lc_cpu), &cpu_base);
	u64 during = worst(&lc.cpu[0].step[LC_DURING][i], sizeof(struct lc_cpu), &cpu_step);
	int cpu_after;
	u64 after = worst(&lc.cpu[0].step[LC_AFTER][i], sizeof(struct lc_cpu), &cpu_after);

	if (after > during)
		during = after, cpu_step = cpu_after;
	base_ns = ticks_to_ns(base, hz);
	step_ns = ticks_to_ns(during, hz);
	/* a vCPU descheduled next to the stop adds what the window before saw, on either side */
	allow_ns = d->duration_ns + 2 * base_ns + LC_STAMP_SLACK_NS;
	report(!back, "%s never went backwards on any vCPU (worst vCPU %d: %llu times, by up to %llu ns)",
	       c->name, cpu_back, (unsigned long long)back,
	       (unsigned long long)ticks_to_ns(lc.cpu[cpu_back].worst_back[i], hz));
	report(step_ns <= allow_ns,
	       "%s: largest step over the event %llu us (vCPU %d) <= stopped %llu us + 2 x %llu us "
	       "(largest step before) + %llu us",
	       c->name, (unsigned long long)step_ns / 1000, cpu_step,
	       (unsigned long long)d->duration_ns / 1000, (unsigned long long)base_ns / 1000,
	       (unsigned long long)LC_STAMP_SLACK_NS / 1000);
	result_ms(c->name, "step", step_ns);
	if (lc.fault == LC_FAULT_FLIP)
		sem = sem == LC_RUNS ? LC_FROZEN : LC_RUNS;
	frozen_ns = 2 * base_ns + LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS;
	if (d->duration_ns < 2 * frozen_ns) {
		report_info("%s: a stop of %llu ms is too short to tell a running clock from a frozen one "
			    "(which may move by %llu ms)",
			    c->name, (unsigned long long)d->duration_ns / 1000000,
			    (unsigned long long)frozen_ns / 1000000);
	} else if (sem == LC_RUNS) {
		report(step_ns + LC_STAMP_SLACK_NS >= d->duration_ns,
		       "%s ran while the guest was stopped: step %llu us >= stopped %llu us - %llu us",
		       c->name, (unsigned long long)step_ns / 1000,
		       (unsigned long long)d->duration_ns / 1000, (unsigned long long)LC_STAMP_SLACK_NS / 1000);
	} else {
		report(step_ns <= frozen_ns,
		       "%s was frozen while the guest was stopped: step %llu us <= 2 x %llu us + %llu us",
		       c->name, (unsigned long long)step_ns / 1000, (unsigned long long)base_ns / 1000,
		       (unsigned long long)(LC_STAMP_SLACK_NS + LC_FROZEN_SLACK_NS) / 1000);
	}
}

/* A one-shot armed before the event fires once its deadline has passed, at the latest a window after the answer. */
static void check_oneshot(int cpu, unsigned slot, u64 answered)
{
	const struct lc_timer *t = &lc.cpu[cpu].t[slot];
	const char *name = lc.arch->name_of_slot[slot];
	u64 grace = ns_to_ticks(LC_WINDOW_NS, arch_counter_hz());

	if (!t->fired_at) {
		report(false, "vCPU %d %s one-shot armed before the event fired (not within %llu ms of the answer)",
		       cpu, name, (unsigned long long)LC_WINDOW_NS / 1000000);
		return;
	}
	report(t->fired_at >= t->deadline && t->fired_at <= answered + grace,
	       "vCPU %d %s one-shot armed before the event fired after its deadline, by %lld us, and within "
	       "%llu ms of the answer",
	       cpu, name, t->fired_at >= t->deadline ? (long long)counter_ns(t->fired_at - t->deadline) / 1000 :
						      -(long long)counter_ns(t->deadline - t->fired_at) / 1000,
	       (unsigned long long)LC_WINDOW_NS / 1000000);
	if (!cpu)
		result_ms(name, "oneshot_late", counter_ns(t->fired_at - t->deadline));
}

/* Ticks per 1000 periods over a window of the given phase. */
static u64 rate_ppt(const struct lc_timer *t, enum lc_phase ph)
{
	u64 len = lc.phase_start[ph + 1] - lc.phase_start[ph];

	return len ? (u64)t->ticks[ph] * t->period * 1000 / len : 0;
}

/*
 * Catch-up ticks the vCPU's own history explains: the baseline's rate of
 * them over the longer windows since, and with a re-armed schedule one per
 * period of the largest gap in the vCPU's own counter reads.
 */
static u64 explained_catchup(int cpu, const struct lc_timer *t)
{
	const struct lc_cpu *c = &lc.cpu[cpu];
	u64 before = lc.phase_start[LC_DURING] - lc.phase_start[LC_BEFORE];
	u64 since = lc.phase_start[LC_FINISHED] - lc.phase_start[LC_DURING];
	u64 n = before ? ((u64)t->early[LC_BEFORE] * since + before - 1) / before : 0;

	if (lc.arch->periodic_kind == LC_PERIODIC_REARMED)
		n += max(c->step[LC_DURING][0], c->step[LC_AFTER][0]) / t->period;
	return n;
}

static void check_periodic(int cpu, unsigned slot)
{
	const struct lc_timer *t = &lc.cpu[cpu].t[slot];
	const char *name = lc.arch->name_of_slot[slot];
	u64 before = rate_ppt(t, LC_BEFORE), after = rate_ppt(t, LC_AFTER);
	u64 catchup = t->early[LC_DURING] + t->early[LC_AFTER];
	u64 explained = explained_catchup(cpu, t);
	u64 allowed = lc.catchup_max + explained;

	report(before && after * 1000 >= before * (1000 - LC_RATE_TOL_PPT) &&
		       after * 1000 <= before * (1000 + LC_RATE_TOL_PPT),
	       "vCPU %d %s periodic rate after the event %llu.%01llu%% of nominal, before %llu.%01llu%% "
	       "(within %u%%)",
	       cpu, name, (unsigned long long)after / 10, (unsigned long long)after % 10,
	       (unsigned long long)before / 10, (unsigned long long)before % 10, LC_RATE_TOL_PPT / 10);
	report(catchup <= allowed,
	       "vCPU %d %s catch-up: %llu ticks closer than half a period after the event <= %llu "
	       "(bound %llu + %llu the vCPU's own delays explain)",
	       cpu, name, (unsigned long long)catchup, (unsigned long long)allowed,
	       (unsigned long long)lc.catchup_max, (unsigned long long)explained);
	if (!cpu || lc.arch->nslots == 1) {
		char what[32];

		snprintf(what, sizeof(what), "%s.cpu%d", name, cpu);
		result_count(what, "catchup", catchup);
		result_count(what, "ticks_during", t->ticks[LC_DURING]);
	}
}

static void check_timers(u64 answered)
{
	for (int cpu = 0; cpu < cpu_count(); cpu++)
		for (unsigned s = 0; s < lc.arch->nslots; s++)
			if (lc.cpu[cpu].t[s].role == LC_ROLE_ONESHOT)
				check_oneshot(cpu, s, answered);
			else if (lc.cpu[cpu].t[s].role == LC_ROLE_PERIODIC)
				check_periodic(cpu, s);
}

/* The guest's time of day moved with the host's: its offset to the host is the same after the event as before. */
static void check_tod(u64 tod_req, u64 tod_done)
{
	const struct lc_done *d = &lc.done;
	s64 before = (s64)(tod_req - d->host_req_ns), after = (s64)(tod_done - d->host_ns);
	s64 moved = after - before;

	report(moved <= (s64)LC_TOD_SLACK_NS && moved >= -(s64)LC_TOD_SLACK_NS,
	       "time of day follows the host's: offset to it %lld us before the event, %lld us after "
	       "(moved by at most %llu ms)",
	       (long long)before / 1000, (long long)after / 1000, (unsigned long long)LC_TOD_SLACK_NS / 1000000);
	result_ms("tod", "moved", (u64)(moved < 0 ? -moved : moved));
}

/* ---- one event ------------------------------------------------------------- */

static void reset_cpus(void)
{
	memset(lc.cpu, 0, sizeof(lc.cpu));
	memset(lc.phase_start, 0, sizeof(lc.phase_start));
	lc.phase = LC_BEFORE;
	smp_mb();
}

static void run_event(enum lc_event kind)
{
	struct lc_cpu *me = &lc.cpu[0];
	char line[LC_LINE_MAX];
	u64 tod_req = 0, tod_done = 0, answered, first_at = 0;

	reset_cpus();
	report_prefix_pushf("event %u %s", lc.seq, lc_event_name(kind));
	set_phase(LC_BEFORE);
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_async(cpu, ap_sampler, NULL);
	start_timers(me);
	lc.arch->irqs_on();
	boot_window(me, LC_BEFORE, LC_WINDOW_NS);
	set_phase(LC_DURING);
	arm_oneshots(me);
	if (!request(me, kind, line, &first_at, &tod_req))
		report_abort("no answer from the runner to event %u in %llu s", lc.seq,
			     (unsigned long long)LC_ANSWER_WAIT_NS / NSEC_PER_SEC);
	answered = arch_counter();
	/*
	 * The host stamps the answer as it sends it; the line takes a while to
	 * read one polled character at a time: the time of day is taken back
	 * to its first character.
	 */
	if (lc.arch->tod_ns)
		tod_done = lc.arch->tod_ns() - counter_ns(arch_counter() - first_at) +
			   (lc.fault == LC_FAULT_TOD ? LC_FAULT_TOD_NS : 0);
	if (!lc_parse_done(line, &lc.done) || lc.done.kind != kind || lc.done.seq != lc.seq)
		report_abort("the runner's answer to event %u (%s) is not one: '%s'", lc.seq,
			     lc_event_name(kind), line);
	set_phase(LC_AFTER);
	boot_window(me, LC_AFTER, LC_WINDOW_NS);
	set_phase(LC_FINISHED);
	stop_timers();
	for (int cpu = 1; cpu < cpu_count(); cpu++)
		on_cpu_wait(cpu);

	result_ms("host", "stopped", lc.done.duration_ns);
	result_ms("host", "qmp_downtime", lc.done.qmp_downtime_ns);
	result_ms("host", "total", lc.done.total_ns);
	for (unsigned i = 0; i < lc.arch->nclocks; i++)
		check_clock(i, &lc.done, kind);
	check_timers(answered);
	if (lc.arch->tod_ns)
		check_tod(tod_req, tod_done);
	report_prefix_pop();
}

/* ---- arguments -------------------------------------------------------------- */

/* events=KIND[*N],...: the events to ask for, in order. */
static bool parse_events(const char *list)
{
	char word[16];

	lc.nevents = 0;
	while (*list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		char *star;
		u64 n = 1;
		enum lc_event k;

		if (!len || len >= sizeof(word))
			return false;
		memcpy(word, list, len);
		word[len] = '\0';
		list += len + (list[len] == ',');
		star = strchr(word, '*');
		if (star) {
			*star = '\0';
			if (parse_u64("events repeat", star + 1, &n) || !n)
				return false;
		}
		for (k = 0; k < LC_NR_EVENTS && strcmp(word, lc_event_name(k)); k++)
			;
		if (k == LC_NR_EVENTS || lc.nevents + n > ARRAY_SIZE(lc.events))
			return false;
		while (n--)
			lc.events[lc.nevents++] = k;
	}
	return lc.nevents > 0;
}

static bool parse_fault(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fault_names); i++) {
		if (!strcmp(name, fault_names[i])) {
			lc.fault = (enum lc_fault)i;
			return true;
		}
	}
	return false;
}

static bool parse_args(int argc, char **argv)
{
	const char *v;

	lc.catchup_max = LC_CATCHUP_MAX;
	for (int i = 1; i < argc; i++) {
		if ((v = arg_value(argv[i], "events"))) {
			if (!parse_events(v)) {
				printf("events: '%s' is not a list of pause, save, migrate (each KIND or KIND*N, "
				       "at most %zu in all)\n", v, ARRAY_SIZE(lc.events));
				return false;
			}
		} else if ((v = arg_value(argv[i], "fault"))) {
			if (!parse_fault(v)) {
				printf("fault: unknown fault '%s'\n", v);
				return false;
			}
		} else if ((v = arg_value(argv[i], "catchup"))) {
			if (parse_u64("catchup", v, &lc.catchup_max))
				return false;
		} else {
			printf("unknown argument '%s' (events=LIST fault=NAME catchup=N)\n", argv[i]);
			return false;
		}
	}
	if (!lc.nevents)
		printf("events=LIST is required\n");
	return lc.nevents > 0;
}

static void init_on(void *arg)
{
	lc.arch->init_cpu();
}

int lc_main(int argc, char **argv, const struct lc_arch *arch)
{
	const char *why;

	lc.arch = arch;
	if (!report(parse_args(argc, argv), "arguments are valid"))
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
	if (lc.fault != LC_FAULT_NONE)
		report_info("test-only fault '%s' injected: checks are expected to fail", fault_names[lc.fault]);
	on_cpus(init_on, NULL);
	for (lc.seq = 1; lc.seq <= lc.nevents; lc.seq++)
		run_event(lc.events[lc.seq - 1]);
	return report_summary();
}
