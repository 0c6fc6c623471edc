/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * catchup: a periodic tick source under one clock setting, across the
 * stretches in which the guest cannot take its ticks, judged against what
 * the setting's implementation declares it does.
 *
 * Why: production x86 guests do not run with QEMU's defaults. libvirt gives
 * most of them -rtc base=utc,driftfix=slew, kvm-pit.lost_tick_policy=delay
 * and no HPET; Kata discards the PIT's lost ticks; -rtc clock= decides what
 * the RTC follows. Those settings decide what a guest that keeps time by
 * counting ticks (Windows counts the RTC's, 64 Hz by default) sees after a
 * long critical section, a pause or a save and restore, and what they do is
 * not what their documentation says (docs/timers.md, "Clock settings").
 *
 * How: the source (model='s rtc: the CMOS RTC's periodic interrupt, or pit:
 * the 8254's channel 0) ticks at hz= through the IOAPIC into a handler that
 * stamps each tick with the TSC. For each disturbance of disturb=, in the
 * order cli, pause, save: pre_ms of steady ticks, then the disturbance
 * (cli: interrupts masked for cli_ms; pause and save: asked of the runner
 * as the lifecycle kernels ask, docs/lifecycle.md, and its answer says how
 * long QEMU had the guest stopped), then observe_ms of ticks. The record of
 * the ticks from the last one before it on is judged by
 * common/catchup/catchup_judge.c: how many periods the source's clock (the host's
 * or the VM's, as the model declares) counted while the guest could not
 * take them, how many came later and how fast, how long until the count
 * agreed with the elapsed time again, and how many were dropped for good,
 * against the model's fate for that disturbance (caught up, or dropped but
 * the one pending). The line names the model's claim, and an INFO line
 * what the setting's documentation says, so that a user sees where they
 * differ.
 *
 * RESULT lines, per disturbance KIND: catchup.KIND.missed, .made_up (the
 * catch-up's burst), .dropped, .host_lost (periods), .peak (the most ticks
 * within one nominal period: the catch-up's rate against nominal),
 * .agree_ms (-1: never), and the catch-up over time: .behind_at_ms.T, the
 * periods the count was behind T ms after the disturbance's end. The
 * figures a check bounds are BOUND lines instead (common/catchup/catchup.h,
 * cu_judge()): catchup.KIND.missed where the entry declares the
 * mask's length (cli), .dropped where the model's fate is caught up,
 * .made_up where it is dropped, and .after (ticks after it, at least 1)
 * where none came.
 *
 * Arguments, key=value:
 *   model=NAME     the setting's model (common/catchup/catchup_judge.c), required
 *   hz=N           the tick rate (default 64, Windows' default clock
 *                  interrupt; the RTC's rates are powers of two)
 *   disturb=LIST   of cli,pause,save (default cli); the cfg's events must
 *                  list the pause and save in that order
 *   cli_ms=N       how long cli masks interrupts (default 250)
 *   pre_ms=N       steady ticks before each disturbance (default 500)
 *   observe_ms=N   ticks observed after each (default 1500)
 *   fault=NAME     test-only: cli_long (the guest masks for 4 times cli_ms)
 * Anything else is a failure.
 */
#include "libc.h"
#include "catchup.h"
#include "catchup_source.h"
#include "lifecycle.h"
#include "arch.h"
#include "argv.h"
#include "irq.h"
#include "report.h"
#include "stats.h"
#include "units.h"
#include "wait.h"
#include "console_input.h"
#include "x86/pmtimer.h"

#define CLI_LONG_TIMES	4
#define ANSWER_WAIT_NS	(300 * NSEC_PER_SEC)
#define ANSWER_LINE_MAX 384
#define OBSERVE_MAX_MS	60000
#define HELD_GAP_NS	(100 * NSEC_PER_USEC)

enum { FAULT_NONE, FAULT_CLI_LONG };

static const char *const disturb_names[CU_NR_KINDS] = {"cli", "pause", "save"};
static const char *const fault_names[] = {"none", "cli_long"};

static struct {
	const char *model;
	u64 hz, cli_ms, pre_ms, observe_ms;
	unsigned disturb, fault;
} opt;

/* model='s check: NULL, or the models there are, from the table itself. */
static const char *check_model(const char *v)
{
	static char must[256];
	const struct cu_model *m;
	size_t len;

	if (cu_model_find(v))
		return NULL;
	len = (size_t)snprintf(must, sizeof(must), "one of common/catchup/catchup_judge.c's models:");
	for (unsigned i = 0; (m = cu_model_at(i)) && len < sizeof(must); i++)
		len += (size_t)snprintf(must + len, sizeof(must) - len, "%s %s", i ? "," : "",
					m->name);
	return must;
}

static const struct arg args[] = {
	ARG_TEXT("model", &opt.model, check_model, NULL, "the setting's declared model"),
	ARG_UINT("hz", &opt.hz, 2, 1024, "64", "the tick rate"),
	ARG_LIST("disturb", &opt.disturb, disturb_names, "cli",
		 "the disturbances, in the order cli, pause, save"),
	ARG_UINT("cli_ms", &opt.cli_ms, 1, 10000, "250", "how long cli masks interrupts"),
	ARG_UINT("pre_ms", &opt.pre_ms, 100, 10000, "500", "steady ticks before each disturbance"),
	ARG_UINT("observe_ms", &opt.observe_ms, 100, OBSERVE_MAX_MS, "1500",
		 "ticks observed after each"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

static struct cu_record rec;

static u64 ms_ticks(u64 ms)
{
	return ns_to_ticks(ms * NSEC_PER_MSEC, arch_counter_hz());
}

/* One polled character of the answer: true once its newline is in. */
static bool answer_char(void *in)
{
	return console_line_take(in);
}

/* The runner's answer: its line read from the console, polled, ticks running meanwhile. */
static bool read_answer(char *line, size_t size)
{
	struct console_line in = {line, size};

	return wait_cond_ticks(answer_char, &in, ns_to_ticks(ANSWER_WAIT_NS, arch_counter_hz()));
}

/*
 * The VM's clock beside the TSC over a stop: the ACPI PM timer runs on
 * QEMU's VM clock, which an RTC with clock=vm and TCG's PIT follow. What
 * it moved beyond the TSC is what such a source counted beyond the
 * guest's counter (under TCG about 0 at a pause, both stand still; once
 * in 20 saves on QEMU 10 the VM clock came 47 ms ahead of the TSC). Read
 * once either side, so only over less than half the counter's wrap.
 */
static struct {
	bool present;
	u64 wrap_half_ns;
	struct pmtimer_ext ext;
} pm;

static void vm_clock_find(void)
{
	const char *no = pmtimer_find();

	pm.present = !no;
	if (no)
		report_info("no ACPI PM timer (%s): the VM's clock over a stop is taken as the "
			    "host's less the stop",
			    no);
	else
		pm.wrap_half_ns = ((1ull << pmtimer_bits()) / 2) * NSEC_PER_SEC / PMTIMER_HZ;
}

static u64 vm_clock_ns(void)
{
	return pm.present ? pmtimer_read_ext(&pm.ext) * NSEC_PER_SEC / PMTIMER_HZ : 0;
}

/* Ask the runner for a pause or a save: its edges on the TSC, and how long QEMU had the guest
 * stopped. */
static void host_event(enum lc_event kind, unsigned seq, u64 *t0, u64 *t1, u64 *stop_ns,
		       s64 *vm_extra_ns, bool *vm_known)
{
	static char line[ANSWER_LINE_MAX];
	struct lc_done d;
	u64 vm0 = vm_clock_ns(), vm1;

	printf(LC_REQUEST "%s %u", lc_event_name(kind), seq);
	*t0 = arch_counter();
	putchar('\n');
	if (!read_answer(line, sizeof(line)))
		report_abort("no answer from the runner to event %u (%s) within %llu s: run this "
			     "entry with "
			     "the runner (its cfg's events)",
			     seq, lc_event_name(kind), ANSWER_WAIT_NS / NSEC_PER_SEC);
	*t1 = arch_counter();
	vm1 = vm_clock_ns();
	if (!lc_parse_done(line, &d) || d.kind != kind || d.seq != seq)
		report_abort("the runner's answer to event %u (%s) is not one: '%s'", seq,
			     lc_event_name(kind), line);
	*stop_ns = d.duration_ns;
	*vm_known = pm.present && vm1 - vm0 < pm.wrap_half_ns;
	*vm_extra_ns = (s64)(vm1 - vm0) - (s64)ticks_to_ns(*t1 - *t0, arch_counter_hz());
	if (*vm_known)
		report_info(
			"%s: the VM's clock (ACPI PM timer) moved %lld us beyond the TSC over it",
			lc_event_name(kind), *vm_extra_ns / (s64)NSEC_PER_USEC);
}

/* Mask interrupts for the stretch (or the fault's longer one). */
struct mask_spin {
	u64 until, last, gap_min, held;
};

/* One look at the counter while masked: a step over gap_min is time the vCPU did not run. */
static bool mask_over(void *arg)
{
	struct mask_spin *m = arg;
	u64 now = arch_counter();

	if (now - m->last > m->gap_min)
		m->held += now - m->last;
	m->last = now;
	return now >= m->until;
}

/*
 * Mask interrupts for the stretch (or the fault's longer one), and say how
 * long of it the host kept the vCPU from running: steps of the counter
 * between two of the spin's reads over HELD_GAP_NS (the spin reads it
 * every few us). A host that holds the vCPU as the stretch ends lengthens
 * the mask by as much (seen beside two busy loops: 310 ms for 250).
 */
static void masked_stretch(u64 *t0, u64 *t1, u64 *held_ns)
{
	u64 ms = opt.cli_ms * (opt.fault == FAULT_CLI_LONG ? CLI_LONG_TIMES : 1);
	struct mask_spin m = {.gap_min = ns_to_ticks(HELD_GAP_NS, arch_counter_hz())};

	irq_disable();
	*t0 = m.last = arch_counter();
	m.until = *t0 + ms_ticks(ms);
	wait_cond_ticks(mask_over, &m, WAIT_FOREVER);
	*t1 = m.last;
	irq_enable();
	*held_ns = ticks_to_ns(m.held, arch_counter_hz());
}

/* The record of ticks from the last one at or before t0, in ns since it. */
static void take_record(enum cu_kind kind, u64 t0, u64 t1, u64 stop_ns, u64 held_ns,
			s64 vm_extra_ns, bool vm_known)
{
	unsigned n = source_ticks(), first = 0;
	u64 hz = arch_counter_hz(), anchor;

	for (unsigned i = 0; i < n && source_stamp(i) <= t0; i++)
		first = i;
	if (!n || source_stamp(first) > t0)
		report_abort("%s: no tick in the %llu ms before it", cu_kind_name(kind),
			     opt.pre_ms);
	anchor = source_stamp(first);
	memset(&rec, 0, sizeof(rec));
	rec.kind = kind;
	rec.period_ns = NSEC_PER_SEC / opt.hz;
	rec.start_ns = ticks_to_ns(t0 - anchor, hz);
	rec.end_ns = ticks_to_ns(t1 - anchor, hz);
	rec.stop_ns = stop_ns;
	rec.declared_ns = kind == CU_CLI ? opt.cli_ms * NSEC_PER_MSEC : 0;
	rec.held_ns = held_ns;
	rec.vm_extra_ns = vm_extra_ns;
	rec.vm_extra_known = vm_known;
	for (unsigned i = first; i < n && rec.n < CU_MAX_TICKS; i++)
		rec.at_ns[rec.n++] = ticks_to_ns(source_stamp(i) - anchor, hz);
}

/* When the catch-up curve is sampled, ms after the disturbance's end (the report draws it). */
static const unsigned curve_ms[] = {0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1500};

static void print_curve(const struct cu_figures *f, enum cu_kind kind)
{
	char name[48];

	for (unsigned i = 0; i < ARRAY_SIZE(curve_ms) && curve_ms[i] <= opt.observe_ms; i++) {
		snprintf(name, sizeof(name), "catchup.%s.behind_at_ms.%u", cu_kind_name(kind),
			 curve_ms[i]);
		report_result(name, "ticks", "%lld",
			      cu_behind_at(&rec, f, curve_ms[i] * NSEC_PER_MSEC));
	}
}

/* One disturbance: steady ticks, the disturbance, the observation, the verdict. */
static void disturbance(const struct cu_model *m, enum cu_kind kind, unsigned *seq)
{
	static struct check entries[CU_ENTRIES];
	static char text[CU_ENTRIES * CU_LINE_MAX];
	struct checks judged;
	struct cu_figures f;
	u64 t0, t1, stop_ns = 0, held_ns = 0;
	s64 vm_extra_ns = 0;
	bool vm_known = false;

	source_restart_record();
	spin_until(arch_counter() + ms_ticks(opt.pre_ms));
	if (kind == CU_CLI)
		masked_stretch(&t0, &t1, &held_ns);
	else
		host_event(kind == CU_PAUSE ? LC_PAUSE : LC_SAVE, ++*seq, &t0, &t1, &stop_ns,
			   &vm_extra_ns, &vm_known);
	spin_until(t1 + ms_ticks(opt.observe_ms));
	take_record(kind, t0, t1, stop_ns, held_ns, vm_extra_ns, vm_known);
	if (source_full())
		report_info("%s: the record filled (%u ticks): the observation ends early",
			    cu_kind_name(kind), CU_MAX_TICKS);
	cu_figures(&rec, m, &f);
	if (f.pre_late)
		report_info(
			"%s: %u ticks came a period or more late before it (the host's own delays)",
			cu_kind_name(kind), f.pre_late);
	if (held_ns)
		report_info("%s: the host kept the vCPU from running %llu us of the mask",
			    cu_kind_name(kind), held_ns / NSEC_PER_USEC);
	if (stop_ns)
		report_info("%s: QEMU had the guest stopped %llu ms", cu_kind_name(kind),
			    stop_ns / NSEC_PER_MSEC);
	if (f.host_lost)
		report_info("%s: the count fell %lld periods further behind by the observation's "
			    "end: ticks the host's "
			    "delays lost after it, not the setting's (not judged)",
			    cu_kind_name(kind), f.host_lost);
	print_curve(&f, kind);
	checks_init(&judged, entries, CU_ENTRIES, text, sizeof(text));
	cu_judge(&rec, m, &f, &judged);
	report_checks(&judged);
}

int main(int argc, char **argv)
{
	const struct cu_model *m;
	unsigned seq = 0;

	args_parse_or_abort(&arg_table, argc, argv);
	if (!opt.model)
		report_abort("model= is required: the setting this entry runs with");
	m = cu_model_find(opt.model);
	if (!arch_counter_hz())
		report_abort("the TSC's frequency is not known: no clock to stamp the ticks with");
	source_list_offered();
	vm_clock_find();
	report_info("model %s: %s", m->name, m->setting);
	report_info("implemented: %s", m->implemented);
	report_info("documented: %s", m->documented);
	source_start(m->source, (unsigned)opt.hz);
	for (enum cu_kind k = 0; k < CU_NR_KINDS; k++)
		if (opt.disturb & (1u << k))
			disturbance(m, k, &seq);
	source_stop();
	return report_summary();
}
