/* SPDX-License-Identifier: GPL-2.0-only */
/* Tick catch-up: the declared models of the clock settings, and the figures and bounded checks of
 * one disturbance's record. */
#include "catchup.h"
#include "units.h"

/*
 * The RTC's periodic interrupt (hw/rtc/mc146818rtc.c, the same in QEMU 7.2
 * and 10.0): with lost_tick_policy=slew (-rtc driftfix=slew) a raise the
 * interrupt controller reports as not delivered (the line still up, the
 * guest has not read register C) is counted; each read of register C
 * raises one of them again at once, up to 20 after each periodic
 * interrupt (its count starts again there), and a timer raises one every
 * period / (min(count, 7) + 1). A window of one period can so hold the
 * 20 after one periodic interrupt, the next one and its 20, and 8 from
 * the timer: 49 (seen at rest: 32-48 after a 1 s pause, 16-18 after a
 * 250 ms mask, whose 16 are done in one burst). After a load it re-bases its periodic
 * timer when the timer is more than 60 s stale (get_max_clock_jump()), and
 * the backlog goes. With discard (the default) a raise into a line already
 * up is lost.
 */
#define RTC_SLEW_PEAK (20 + 1 + 20 + 8)
#define RTC_REBASE_NS (60 * NSEC_PER_SEC)
#define RTC_SLEW_IMPL                                                                              \
	"mc146818rtc: a raise not delivered is counted; each read of register C raises one again " \
	"(20 after each periodic interrupt), a timer one every period/8; a load over 60 s stale "  \
	"re-bases"
#define RTC_DISCARD_IMPL                                                                       \
	"mc146818rtc: one interrupt stays pending in the interrupt controller; raises into a " \
	"line still up are lost"
#define RTC_SLEW_DOC                                                                            \
	"QEMU's LostTickPolicy slew: missed ticks delivered at a higher rate until caught up, " \
	"guest and host time then agree; -rtc driftfix=slew re-injects what the guest did not " \
	"take"
#define RTC_DISCARD_DOC                                                                          \
	"QEMU's LostTickPolicy discard: missed ticks thrown away, the guest's time jumps ahead " \
	"to match the host's"
#define RTC_HOST_DOC "; -rtc clock=host/rt: the RTC runs on while the VM is stopped"
#define RTC_VM_DOC   "; -rtc clock=vm: the RTC does not run while the VM is stopped"

#define ALL_DROPPED                                \
	{                                          \
		CU_DROPPED, CU_DROPPED, CU_DROPPED \
	}
#define ALL_CAUGHT_UP                                    \
	{                                                \
		CU_CAUGHT_UP, CU_CAUGHT_UP, CU_CAUGHT_UP \
	}

static const struct cu_model models[] = {
	{.name = "rtc-discard",
	 .setting = "-rtc base=utc (QEMU's defaults: clock=host, lost_tick_policy=discard)",
	 .source = "rtc",
	 .follows = CU_FOLLOWS_HOST,
	 .fate = ALL_DROPPED,
	 .doc_fate = ALL_DROPPED,
	 .implemented = RTC_DISCARD_IMPL,
	 .documented = RTC_DISCARD_DOC RTC_HOST_DOC},
	{.name = "rtc-slew",
	 .setting = "-rtc base=utc,driftfix=slew (libvirt's tickpolicy='catchup')",
	 .source = "rtc",
	 .follows = CU_FOLLOWS_HOST,
	 .fate = ALL_CAUGHT_UP,
	 .rebase_after_ns = RTC_REBASE_NS,
	 .peak_per_period = RTC_SLEW_PEAK,
	 .doc_fate = ALL_CAUGHT_UP,
	 .implemented = RTC_SLEW_IMPL,
	 .documented = RTC_SLEW_DOC RTC_HOST_DOC},
	{.name = "rtc-slew-rt",
	 .setting = "-rtc clock=rt,driftfix=slew",
	 .source = "rtc",
	 .follows = CU_FOLLOWS_HOST,
	 .fate = ALL_CAUGHT_UP,
	 .rebase_after_ns = RTC_REBASE_NS,
	 .peak_per_period = RTC_SLEW_PEAK,
	 .doc_fate = ALL_CAUGHT_UP,
	 .implemented = RTC_SLEW_IMPL,
	 .documented = RTC_SLEW_DOC RTC_HOST_DOC},
	{.name = "rtc-vm",
	 .setting = "-rtc clock=vm (lost_tick_policy=discard)",
	 .source = "rtc",
	 .follows = CU_FOLLOWS_VM,
	 .fate = ALL_DROPPED,
	 .doc_fate = ALL_DROPPED,
	 .implemented = RTC_DISCARD_IMPL,
	 .documented = RTC_DISCARD_DOC RTC_VM_DOC},
	/*
	 * TCG's i8254 (hw/timer/i8254.c) has no lost-tick policy: its
	 * timer runs on QEMU_CLOCK_VIRTUAL, and an edge while the last is
	 * pending is lost.
	 */
	{.name = "pit-tcg",
	 .setting = "TCG's i8254 (no lost_tick_policy property)",
	 .source = "pit",
	 .follows = CU_FOLLOWS_VM,
	 .fate = ALL_DROPPED,
	 .doc_fate = ALL_DROPPED,
	 .implemented =
		 "i8254: a timer on the VM's clock; an edge while the last is pending is lost",
	 .documented = "QEMU documents no lost-tick behaviour for TCG's PIT (taken as its "
		       "implementation's)"},
	/*
	 * KVM's in-kernel PIT (arch/x86/kvm/i8254.c): with reinjection (QEMU's
	 * kvm-pit.lost_tick_policy=delay, the default) every expiry the guest
	 * has not acknowledged is counted and the next injected as it
	 * acknowledges the last; QEMU writes the PIT's state back at cont and
	 * at a load (KVM_SET_PIT2), which restarts the count and clears what
	 * was pending: a stop is not caught up. Declared from the sources, not
	 * seen here (no KVM on the machine these models were written on).
	 * Its documentation's "time stays behind" is, by count, dropped.
	 */
	{.name = "kvm-pit-delay",
	 .setting = "-global kvm-pit.lost_tick_policy=delay (QEMU's default under KVM)",
	 .source = "pit",
	 .follows = CU_FOLLOWS_VM,
	 .fate = ALL_CAUGHT_UP,
	 .doc_fate = ALL_DROPPED,
	 .implemented = "KVM i8254 reinjection: unacknowledged expiries counted, each injected at "
			"the last one's "
			"acknowledgement",
	 .documented = "QEMU's LostTickPolicy delay: ticks go on at the normal rate, guest time "
		       "stays behind by "
		       "the missed time"},
	{.name = "kvm-pit-discard",
	 .setting = "-global kvm-pit.lost_tick_policy=discard (Kata's)",
	 .source = "pit",
	 .follows = CU_FOLLOWS_VM,
	 .fate = ALL_DROPPED,
	 .doc_fate = ALL_DROPPED,
	 .implemented =
		 "KVM i8254 without reinjection: an expiry while the last is pending is lost",
	 .documented = RTC_DISCARD_DOC},
};

static const char *const kind_names[CU_NR_KINDS] = {"cli", "pause", "save"};

const char *cu_kind_name(enum cu_kind kind)
{
	return kind < CU_NR_KINDS ? kind_names[kind] : "?";
}

const struct cu_model *cu_model_at(unsigned i)
{
	return i < ARRAY_SIZE(models) ? &models[i] : NULL;
}

const struct cu_model *cu_model_find(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(models); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

/*
 * The longest interval between ticks across the disturbance, from the
 * anchor to the first tick after its end: a guest counter that ran while
 * QEMU had the guest stopped (a KVM TSC at a pause) shows the stop in it;
 * one that stood still (TCG's TSC at a pause; any TSC across a load) does
 * not, and its ticks follow each other as they came while it ran.
 */
static u64 longest_gap(const struct cu_record *r)
{
	u64 gap = 0;

	for (unsigned i = 1; i < r->n && r->at_ns[i - 1] <= r->end_ns; i++)
		gap = max(gap, r->at_ns[i] - r->at_ns[i - 1]);
	return gap;
}

/*
 * The disturbance by the source's clock, and what that clock counted
 * beyond the guest's: the VM's clock as measured beside the counter where
 * the guest could (x86's ACPI PM timer), else the host's less the stop.
 */
static void source_span(const struct cu_record *r, const struct cu_model *m, struct cu_figures *f)
{
	u64 guest = r->end_ns - r->start_ns;
	bool stood = r->stop_ns && longest_gap(r) < r->stop_ns / 2;
	u64 host = stood ? guest + r->stop_ns : guest;

	if (m->follows == CU_FOLLOWS_VM && r->vm_extra_known && (s64)guest + r->vm_extra_ns >= 0) {
		/* measured: the VM's clock beside the guest's counter */
		f->extra_ns = r->vm_extra_ns;
		f->span_ns = (u64)((s64)guest + r->vm_extra_ns);
		return;
	}
	f->span_ns = m->follows == CU_FOLLOWS_HOST ? host : host - min(host, r->stop_ns);
	f->extra_ns = (s64)f->span_ns - (s64)guest;
}

/* Tick i's lag behind the source's schedule in thousandths of a period (the anchor's is 0). */
static s64 lag_milli(const struct cu_record *r, const struct cu_figures *f, unsigned i)
{
	s64 t = (s64)r->at_ns[i] + (r->at_ns[i] > r->end_ns ? f->extra_ns : 0);

	return t * (s64)MILLI_PER_UNIT / (s64)r->period_ns - (s64)i * (s64)MILLI_PER_UNIT;
}

/* Whole periods, rounded half up (lags are positive by the delivery's latency). */
static s64 whole_periods(s64 milli)
{
	s64 h = milli + (s64)MILLI_PER_UNIT / 2;

	return h >= 0 ? h / (s64)MILLI_PER_UNIT
		      : -((-h + (s64)MILLI_PER_UNIT - 1) / (s64)MILLI_PER_UNIT);
}

/*
 * The least lag from tick `from` on: the least delayed tick shows how far
 * behind the source's count stayed. A tick the host's delays lost later
 * (its vCPU kept from running for two periods) adds to the lag after it,
 * not before: so the host's losses after a disturbance are not the
 * setting's.
 */
static s64 least_lag(const struct cu_record *r, const struct cu_figures *f, unsigned from)
{
	s64 least = lag_milli(r, f, from);

	for (unsigned i = from + 1; i < r->n; i++)
		least = min(least, lag_milli(r, f, i));
	return least;
}

/* The median lag of the last CU_TAIL_TICKS ticks (fewer if the record has fewer after it). */
static s64 tail_lag(const struct cu_record *r, const struct cu_figures *f, unsigned first_after)
{
	s64 v[CU_TAIL_TICKS];
	unsigned n = 0;

	for (unsigned i = r->n; i > first_after && n < CU_TAIL_TICKS; i--)
		v[n++] = lag_milli(r, f, i - 1);
	for (unsigned a = 1; a < n; a++)
		for (unsigned b = a; b > 0 && v[b - 1] > v[b]; b--) {
			s64 t = v[b];

			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

/* The most ticks within one nominal period, from tick `from` on. */
static unsigned peak_per_period(const struct cu_record *r, unsigned from)
{
	unsigned best = 0, j = from;

	for (unsigned i = from; i < r->n; i++) {
		while (j < r->n && r->at_ns[j] < r->at_ns[i] + r->period_ns)
			j++;
		best = max(best, j - i);
	}
	return best;
}

void cu_figures(const struct cu_record *r, const struct cu_model *m, struct cu_figures *f)
{
	unsigned first_after = 0, first_in = 1, agree = 0;
	u64 p = r->period_ns;
	s64 due;

	memset(f, 0, sizeof(*f));
	f->agree_ns = CU_NEVER;
	if (!r->n || !p)
		return;
	source_span(r, m, f);
	for (unsigned i = 1; i < r->n && r->at_ns[i] <= r->start_ns; i++)
		f->pre_late += lag_milli(r, f, i) >= (s64)MILLI_PER_UNIT;
	while (first_after < r->n && r->at_ns[first_after] <= r->end_ns)
		first_after++;
	/*
	 * Masked: every period due over it. Stopped: the periods the source's
	 * clock counted while QEMU had the guest stopped (none by the VM's);
	 * the guest takes its ticks while it runs around the stop.
	 */
	if (r->kind == CU_CLI)
		due = (s64)(r->end_ns / p - r->start_ns / p);
	else
		due = m->follows == CU_FOLLOWS_HOST ? (s64)((r->stop_ns + p / 2) / p) : 0;
	f->missed = (unsigned)due;
	f->after = r->n - first_after;
	if (!f->after)
		return;
	f->lag_first = whole_periods(lag_milli(r, f, first_after));
	f->dropped = whole_periods(least_lag(r, f, first_after));
	f->host_lost = whole_periods(tail_lag(r, f, first_after)) - f->dropped;
	/* a count further behind than the missed periods made up none: the rest is the host's */
	f->made_up = max((s64)f->missed - f->dropped, 0ll);
	while (first_in < r->n && r->at_ns[first_in] <= r->start_ns)
		first_in++;
	f->peak = peak_per_period(r, first_in);
	for (agree = first_after; agree < r->n; agree++)
		if (lag_milli(r, f, agree) < (s64)MILLI_PER_UNIT)
			break;
	if (agree == r->n)
		return;
	f->agree_ns = r->at_ns[agree] - r->end_ns;
}

s64 cu_behind_at(const struct cu_record *r, const struct cu_figures *f, u64 after_ns)
{
	u64 t = r->end_ns + after_ns;
	s64 due = ((s64)t + f->extra_ns) / (s64)r->period_ns;
	unsigned came = 0;

	while (came + 1 < r->n && r->at_ns[came + 1] <= t)
		came++;
	return due - (s64)came;
}

/* The fate the model declares for this record: a save stopped past its re-base drops the backlog.
 */
static enum cu_fate declared_fate(const struct cu_record *r, const struct cu_model *m)
{
	if (r->kind == CU_SAVE && m->rebase_after_ns && r->stop_ns > m->rebase_after_ns)
		return CU_DROPPED;
	return m->fate[r->kind];
}

static const char *fate_name(enum cu_fate fate)
{
	return fate == CU_CAUGHT_UP ? "caught up" : "dropped";
}

/* What the record shows against the model's fate: every check's sentence starts with it. */
static size_t summary(const struct cu_record *r, const struct cu_model *m,
		      const struct cu_figures *f, char *buf, size_t size)
{
	char agree[32], peak[48] = "";

	if (f->agree_ns == CU_NEVER)
		snprintf(agree, sizeof(agree), "never");
	else
		snprintf(agree, sizeof(agree), "%llu ms after", f->agree_ns / NSEC_PER_MSEC);
	if (m->peak_per_period)
		snprintf(peak, sizeof(peak), "; %u by its implementation", m->peak_per_period);
	return (size_t)snprintf(
		buf, size,
		"%s: %u periods missed by the %s's clock over %llu ms, %lld made up (at most %u "
		"ticks in a period%s), %lld dropped for good%s, the count agreed %s: %s declares "
		"them %s (documented: %s)",
		cu_kind_name(r->kind), f->missed, m->follows == CU_FOLLOWS_HOST ? "host" : "VM",
		f->span_ns / NSEC_PER_MSEC, f->made_up, f->peak, peak, f->dropped,
		f->dropped > (s64)f->missed
			? " (beyond the missed: lost to the host's delays while it ran)"
			: "",
		agree, m->name, fate_name(declared_fate(r, m)), fate_name(m->doc_fate[r->kind]));
}

/* The figure a disturbance's check bounds, named catchup.KIND.FIGURE, into name. */
static const char *figure_name(char *name, size_t size, const struct cu_record *r,
			       const char *figure)
{
	snprintf(name, size, "catchup.%s.%s", cu_kind_name(r->kind), figure);
	return name;
}

/* A tick after the disturbance: without one nothing else can be judged. */
static void check_after(const struct cu_record *r, const struct cu_model *m,
			const struct cu_figures *f, struct checks *out)
{
	char name[CHECK_NAME_MAX], line[CU_LINE_MAX];

	summary(r, m, f, line, sizeof(line));
	checks_count(out, figure_name(name, sizeof(name), r, "after"), "ticks", f->after, 1,
		     BOUND_OPEN_HI, "%s: no tick came after it", line);
}

/*
 * The mask as long as the entry declares: the periods due over it, at
 * most those of the declared stretch and of what the host held the vCPU
 * meanwhile (it lengthens the mask), and the phase.
 */
static void check_missed(const struct cu_record *r, const struct cu_model *m,
			 const struct cu_figures *f, struct checks *out)
{
	u64 most = (r->declared_ns + r->held_ns) / r->period_ns + CU_PHASE_PERIODS;
	char name[CHECK_NAME_MAX];

	checks_count(out, figure_name(name, sizeof(name), r, "missed"), "ticks", f->missed, 0,
		     (s64)most,
		     "%s: %u periods missed where the entry's %llu ms and the host's %llu ms holding "
		     "the vCPU miss at most %llu (%d for the phase; by the %s's clock over %llu ms)",
		     cu_kind_name(r->kind), f->missed, r->declared_ns / NSEC_PER_MSEC,
		     r->held_ns / NSEC_PER_MSEC, most, CU_PHASE_PERIODS,
		     m->follows == CU_FOLLOWS_HOST ? "host" : "VM", f->span_ns / NSEC_PER_MSEC);
}

/*
 * The model's fate: caught up, the count no more than the phase behind
 * (or ahead) after it; dropped, no more made up than the one pending in
 * the interrupt controller and the phase.
 */
static void check_fate(const struct cu_record *r, const struct cu_model *m,
		       const struct cu_figures *f, struct checks *out)
{
	s64 phase = CU_PHASE_PERIODS;
	bool caught_up = declared_fate(r, m) == CU_CAUGHT_UP;
	char name[CHECK_NAME_MAX], line[CU_LINE_MAX], tail[CU_LINE_MAX] = "";
	s64 value = caught_up ? f->dropped : f->made_up, lo = caught_up ? -phase : 0,
	    hi = caught_up ? phase : 1 + phase;

	summary(r, m, f, line, sizeof(line));
	if (value < lo || value > hi) {
		if (caught_up)
			snprintf(tail, sizeof(tail),
				 ": %lld periods %s for good, where %s catches up to within %lld",
				 f->dropped < 0 ? -f->dropped : f->dropped,
				 f->dropped < 0 ? "too many came" : "dropped", m->name, phase);
		else
			snprintf(tail, sizeof(tail),
				 ": %lld of %u missed periods made up, where %s drops all but the "
				 "one pending (+-%lld)",
				 f->made_up, f->missed, m->name, phase);
	}
	checks_count(out,
		     figure_name(name, sizeof(name), r, caught_up ? "dropped" : "made_up"),
		     "ticks", value, lo, hi, "%s%s", line, tail);
}

/* Whether a check of this disturbance bounds figure (then its BOUND line is its RESULT). */
static bool bounds(const struct cu_record *r, const struct cu_model *m,
		   const struct cu_figures *f, const char *figure)
{
	if (!f->after)
		return !strcmp(figure, "after");
	if (!strcmp(figure, "missed"))
		return r->declared_ns != 0;
	return !strcmp(figure, declared_fate(r, m) == CU_CAUGHT_UP ? "dropped" : "made_up");
}

/* RESULT catchup.KIND.figure value ticks, unless a check bounds it. */
static void result_ticks(const struct cu_record *r, const struct cu_model *m,
			 const struct cu_figures *f, struct checks *out, const char *figure,
			 s64 value)
{
	char name[CHECK_NAME_MAX];

	if (!bounds(r, m, f, figure))
		checks_result(out, figure_name(name, sizeof(name), r, figure), "ticks", "%lld",
			      value);
}

bool cu_judge(const struct cu_record *r, const struct cu_model *m, const struct cu_figures *f,
	      struct checks *out)
{
	char name[CHECK_NAME_MAX];
	unsigned first = out->n;
	bool pass = true;

	result_ticks(r, m, f, out, "missed", f->missed);
	result_ticks(r, m, f, out, "made_up", f->made_up);
	result_ticks(r, m, f, out, "dropped", f->dropped);
	result_ticks(r, m, f, out, "host_lost", f->host_lost);
	result_ticks(r, m, f, out, "peak", f->peak);
	checks_result(out, figure_name(name, sizeof(name), r, "agree_ms"), "ms", "%lld",
		      f->agree_ns == CU_NEVER ? -1ll : (s64)(f->agree_ns / NSEC_PER_MSEC));
	if (!f->after) {
		check_after(r, m, f, out);
	} else {
		if (r->declared_ns)
			check_missed(r, m, f, out);
		check_fate(r, m, f, out);
	}
	for (unsigned i = first; i < out->n; i++)
		pass &= check_holds(&out->c[i]);
	return pass && !out->dropped;
}
