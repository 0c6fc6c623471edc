/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvmclock_test: KVM's paravirtual clock on every vCPU - its time of day,
 * whether it ever goes backwards between vCPUs, and what reading it costs.
 *
 * What it checks, in order:
 *  1. Wall clock (only with a host time): every vCPU adds its kvmclock to
 *     the boot time KVM writes through MSR_KVM_WALL_CLOCK_NEW and compares
 *     the sum with the host's time of day taken when QEMU started. The
 *     guest is later by the boot time (about 0.25 s with qboot under
 *     nested KVM, over 3 s with SeaBIOS) and, with a whole-second host
 *     time, by up to 1 s of truncation: hence the 5 s default threshold,
 *     which a clock that is wrong by minutes (time zone, stale RTC, broken
 *     wall clock MSR) still fails. The offset is printed, in ms when the
 *     host time has a fraction.
 *  2. Raw cycle stability: the vCPUs take turns under a fair (ticket) lock;
 *     each read of the raw clock - this vCPU's own area, no correction -
 *     is compared with the read just before it, made by whichever vCPU had
 *     the lock last. Earlier is a warp, equal a stall. When the host
 *     promises a stable clock (KVM_FEATURE_CLOCKSOURCE_STABLE_BIT and
 *     PVCLOCK_TSC_STABLE_BIT on every vCPU), a warp is a failure; when it
 *     does not, warps are what the guest-side correction is for, and the
 *     result is information.
 *  3. Monotonic cycles: the same with the read guests use (raw when the
 *     host promises stability, clamped through a global last value when it
 *     does not): any warp is a failure.
 *  4. Performance: every vCPU at once reads the clock loops times in each
 *     mode - bare rdtsc (the floor: every read below contains one),
 *     raw, stable-aware, forced-adjusted (always clamped with
 *     compare-and-swap on one shared cache line) - and the cost per read
 *     is printed in TSC cycles and ns, with the ratios to raw. Figures
 *     only: nothing fails on speed. With more vCPUs than host CPUs the
 *     per-read figures include the time a vCPU spent descheduled.
 * Lines other tools grep for are printed untagged as they always were:
 * "Total vcpus:", "Test loops:", "Total warps:", "Total stalls:",
 * "Worst warp:", "TSC cycles:", "Raw cycle is [not] stable". Every figure
 * is also a RESULT line. Not on KVM, or KVM without the clocksource
 * feature (-cpu ...,-kvmclock): SKIP with the reason.
 *
 * Arguments, positional in this order or key=value:
 *   loops=N       reads per vCPU in each of steps 2-4 (default 1000)
 *   host_time=S   the host's time of day when QEMU started, seconds since
 *                 the epoch, optionally with up to 9 fraction digits
 *                 (date +%s.%N); 0 or absent: step 1 is not run
 *   threshold=S   the largest wall clock offset allowed, seconds, fraction
 *                 allowed (default 5)
 *   phases=LIST   key=value only: which of wallclock,raw,monotonic,perf to
 *                 run (default all; the sweep script runs perf alone)
 * Anything else, or a value that is not a number, is a failure.
 * Example: -append "10000 $(date +%s.%N) 2"
 */
#include "libc.h"
#include "alloc.h"
#include "apic.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "kvmclock.h"
#include "turn_lock.h"
#include "processor.h"
#include "pvclock.h"
#include "report.h"
#include "stats.h"

#define DEFAULT_LOOPS		1000
#define MAX_LOOPS		100000000ull
#define DEFAULT_THRESHOLD_NS	(5 * PVCLOCK_NSEC_PER_SEC)
#define NS_PER_MS		1000000ll
#define CACHE_LINE_SIZE		64

enum phase {
	PHASE_WALLCLOCK = 1 << 0,
	PHASE_RAW = 1 << 1,
	PHASE_MONOTONIC = 1 << 2,
	PHASE_PERF = 1 << 3,
	PHASE_ALL = (1 << 4) - 1,
};

static const struct {
	const char *name;
	enum phase phase;
} phase_names[] = {
	{ "wallclock", PHASE_WALLCLOCK },
	{ "raw", PHASE_RAW },
	{ "monotonic", PHASE_MONOTONIC },
	{ "perf", PHASE_PERF },
};

struct options {
	u64 loops;
	u64 host_ns;		/* 0: no host time given */
	bool host_has_fraction;
	u64 threshold_ns;
	unsigned phases;
	unsigned seen;		/* bit per key, to refuse a key given twice */
};

/* What one vCPU found in one step, alone on its cache line. */
struct vcpu_result {
	u64 warps, stalls;
	s64 worst;		/* most negative step, ns */
	u64 cycles;
	u64 wall_ns;
} __aligned(CACHE_LINE_SIZE);

static struct vcpu_result *results;

static u64 magnitude(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/* "+1.234" / "-0.005" from a signed count of thousandths. */
static const char *fmt_signed_milli(char *buf, size_t size, s64 thousandths)
{
	char digits[24];

	snprintf(buf, size, "%c%s", thousandths < 0 ? '-' : '+',
		 fmt_milli(digits, sizeof(digits), magnitude(thousandths)));
	return buf;
}

/* "5", "2.5", "0.000001": seconds from ns, without trailing zeros. */
static const char *fmt_seconds(char *buf, size_t size, u64 ns)
{
	u64 frac = ns % PVCLOCK_NSEC_PER_SEC;
	int digits = 9;

	if (!frac) {
		snprintf(buf, size, "%llu", (unsigned long long)(ns / PVCLOCK_NSEC_PER_SEC));
		return buf;
	}
	for (; frac % 10 == 0; frac /= 10)
		digits--;
	snprintf(buf, size, "%llu.%0*llu", (unsigned long long)(ns / PVCLOCK_NSEC_PER_SEC), digits,
		 (unsigned long long)frac);
	return buf;
}

/* ---- arguments ---------------------------------------------------------- */

static int parse_loops(struct options *o, const char *v)
{
	if (parse_u64("loops", v, &o->loops))
		return -1;
	if (o->loops < 1 || o->loops > MAX_LOOPS) {
		printf("loops: '%s' must be 1 to %llu\n", v, MAX_LOOPS);
		return -1;
	}
	return 0;
}

static int parse_host_time(struct options *o, const char *v)
{
	return parse_seconds_ns("host_time", v, &o->host_ns, &o->host_has_fraction);
}

static int parse_threshold(struct options *o, const char *v)
{
	return parse_seconds_ns("threshold", v, &o->threshold_ns, NULL);
}

static int parse_phases(struct options *o, const char *v)
{
	char word[16];

	o->phases = 0;
	while (*v) {
		size_t len = strchr(v, ',') ? (size_t)(strchr(v, ',') - v) : strlen(v);
		unsigned i;

		for (i = 0; i < ARRAY_SIZE(phase_names); i++)
			if (strlen(phase_names[i].name) == len && !strncmp(v, phase_names[i].name, len))
				break;
		if (i == ARRAY_SIZE(phase_names)) {
			snprintf(word, sizeof(word), "%.*s", (int)len, v);
			printf("phases: '%s' is not one of wallclock raw monotonic perf\n", word);
			return -1;
		}
		o->phases |= phase_names[i].phase;
		v += len + (v[len] == ',');
	}
	if (!o->phases)
		printf("phases: empty list\n");
	return o->phases ? 0 : -1;
}

/* Positional arguments fill the first three keys in this order. */
static const struct {
	const char *key;
	int (*parse)(struct options *o, const char *value);
} keys[] = {
	{ "loops", parse_loops },
	{ "host_time", parse_host_time },
	{ "threshold", parse_threshold },
	{ "phases", parse_phases },
};
#define POSITIONAL_KEYS 3

static void parse_args(int argc, char **argv, struct options *o)
{
	unsigned next_positional = 0;

	*o = (struct options){ DEFAULT_LOOPS, 0, false, DEFAULT_THRESHOLD_NS, PHASE_ALL, 0 };
	for (int i = 1; i < argc; i++) {
		const char *value = argv[i];
		unsigned k;

		if (arg_is_keyvalue(argv[i])) {
			for (k = 0; k < ARRAY_SIZE(keys); k++)
				if ((value = arg_value(argv[i], keys[k].key)))
					break;
			if (k == ARRAY_SIZE(keys))
				report_abort("unknown argument '%s' (loops= host_time= threshold= phases=)", argv[i]);
		} else {
			while (next_positional < POSITIONAL_KEYS && (o->seen & (1u << next_positional)))
				next_positional++;
			if (next_positional == POSITIONAL_KEYS)
				report_abort("extra argument '%s' (usage: loops [host_time [threshold]])", argv[i]);
			k = next_positional++;
		}
		if (o->seen & (1u << k))
			report_abort("%s given twice ('%s')", keys[k].key, argv[i]);
		o->seen |= 1u << k;
		if (keys[k].parse(o, value))
			report_abort("bad %s argument '%s'", keys[k].key, argv[i]);
	}
}

/* ---- 1. wall clock ------------------------------------------------------ */

static void wallclock_on(void *unused)
{
	results[smp_id()].wall_ns = kvmclock_wall_ns();
}

static void wallclock_test(const struct options *o)
{
	s64 worst = 0;
	char a[32], b[32];

	report_prefix_push("wallclock");
	on_cpus(wallclock_on, NULL);
	for (int i = 0; i < cpu_count(); i++) {
		s64 offset = (s64)(results[i].wall_ns - o->host_ns);

		if (o->host_has_fraction)
			report_info("vcpu %d: offset %s ms", i, fmt_signed_milli(a, sizeof(a), offset / 1000));
		else
			report_info("vcpu %d: host %llu s, kvmclock %llu s, offset %s s", i,
				    (unsigned long long)(o->host_ns / PVCLOCK_NSEC_PER_SEC),
				    (unsigned long long)(results[i].wall_ns / PVCLOCK_NSEC_PER_SEC),
				    fmt_signed_milli(a, sizeof(a), offset / NS_PER_MS));
		if (magnitude(offset) > magnitude(worst))
			worst = offset;
	}
	report_result("kvmclock.wallclock.worst_offset_ms", "ms", "%s",
		      fmt_signed_milli(a, sizeof(a), worst / 1000));
	report(magnitude(worst) <= o->threshold_ns,
	       "kvmclock's time of day within %s s of the host's on all %d vCPUs (worst %s ms)",
	       fmt_seconds(b, sizeof(b), o->threshold_ns), cpu_count(),
	       fmt_signed_milli(a, sizeof(a), worst / 1000));
	report_prefix_pop();
}

/* ---- 2, 3. warps -------------------------------------------------------- */

struct warp_run {
	enum kvmclock_mode mode;
	u64 loops;
	struct turn_lock lock;
	u64 last;		/* the latest read, under lock */
};

static void warp_on(void *arg)
{
	struct warp_run *run = arg;
	struct vcpu_result *r = &results[smp_id()];

	for (u64 i = 0; i < run->loops; i++) {
		u64 prev, now;
		s64 step;

		turn_lock(&run->lock);
		prev = run->last;
		now = kvmclock_read(run->mode);
		run->last = now;
		turn_unlock(&run->lock);
		step = (s64)(now - prev);
		if (step < 0) {
			r->warps++;
			r->worst = min(r->worst, step);
		} else if (step == 0) {
			r->stalls++;
		}
	}
}

/* Run the warp check in mode; returns the total warps. Prints the classic lines and the breakdown. */
static u64 warp_test(const char *name, enum kvmclock_mode mode, u64 loops)
{
	struct warp_run run = { .mode = mode, .loops = loops };
	u64 warps = 0, stalls = 0;
	s64 worst = 0;
	char rname[64];

	memset(results, 0, sizeof(*results) * (size_t)cpu_count());
	turn_lock_init(&run.lock);
	kvmclock_reset_last();
	run.last = kvmclock_read(mode);
	on_cpus(warp_on, &run);
	for (int i = 0; i < cpu_count(); i++) {
		warps += results[i].warps;
		stalls += results[i].stalls;
		worst = min(worst, results[i].worst);
		report_info("vcpu %d: warps %llu, stalls %llu, worst warp %lld ns", i,
			    (unsigned long long)results[i].warps, (unsigned long long)results[i].stalls,
			    (long long)results[i].worst);
	}
	printf("Total vcpus: %d\nTest loops: %llu\n", cpu_count(), (unsigned long long)loops);
	printf("Total warps: %llu\nTotal stalls: %llu\nWorst warp: %lld\n", (unsigned long long)warps,
	       (unsigned long long)stalls, (long long)worst);
	snprintf(rname, sizeof(rname), "kvmclock.%s.warps", name);
	report_result(rname, "count", "%llu", (unsigned long long)warps);
	snprintf(rname, sizeof(rname), "kvmclock.%s.stalls", name);
	report_result(rname, "count", "%llu", (unsigned long long)stalls);
	snprintf(rname, sizeof(rname), "kvmclock.%s.worst_warp_ns", name);
	report_result(rname, "ns", "%lld", (long long)worst);
	return warps;
}

static void raw_stability_test(u64 loops)
{
	bool promised = kvmclock_host_stable();
	u64 warps;

	report_prefix_push("raw");
	printf("Check the stability of raw cycle ...\n");
	warps = warp_test("raw", KVMCLOCK_RAW, loops);
	printf("Raw cycle is %s\n", warps ? "not stable" : "stable");
	if (promised)
		report(!warps, "raw cycles never go backwards, as the host's stable flag promises (%llu warps)",
		       (unsigned long long)warps);
	else
		report_info("raw cycles %s; the host does not promise stability, so this is not a failure",
			    warps ? "went backwards" : "did not go backwards");
	report_prefix_pop();
}

static void monotonic_test(u64 loops)
{
	u64 warps;

	report_prefix_push("monotonic");
	printf("Monotonic cycle test:\n");
	warps = warp_test("monotonic", KVMCLOCK_STABLE_AWARE, loops);
	report(!warps, "stable-aware reads never go backwards across %d vCPUs (%llu warps)", cpu_count(),
	       (unsigned long long)warps);
	report_prefix_pop();
}

/* ---- 4. performance ----------------------------------------------------- */

static u64 read_bare_rdtsc(void)
{
	return rdtsc();
}

/* Whether a read going backwards on its own vCPU fails the run, or is only counted. */
enum backstep_rule {
	BACKSTEP_COUNTED,
	BACKSTEP_FAILS,
};

static const struct perf_mode {
	const char *name;	/* RESULT name part */
	const char *title;	/* the classic "Measure the performance of ... cycle" word */
	u64 (*read)(void);
	enum backstep_rule rule;
} perf_modes[] = {
	{ "rdtsc", "bare rdtsc", read_bare_rdtsc, BACKSTEP_COUNTED },
	{ "raw", "raw", kvmclock_read_raw, BACKSTEP_COUNTED },
	{ "stable_aware", "stable-aware", kvmclock_read_stable_aware, BACKSTEP_FAILS },
	{ "adjusted", "adjusted", kvmclock_read_adjusted, BACKSTEP_FAILS },
};

struct perf_run {
	const struct perf_mode *mode;
	u64 loops;
	u32 arrived;
};

static void perf_on(void *arg)
{
	struct perf_run *run = arg;
	u64 t0, t1, prev = 0, backsteps = 0;

	/* start together, so the shared line of the adjusted read is contended from the first read */
	atomic_inc(&run->arrived);
	while (atomic_load(&run->arrived) < (u32)cpu_count())
		pause();
	t0 = rdtsc_ordered();
	/* the compare costs every mode the same couple of cycles, and keeps the reads honest */
	for (u64 i = 0; i < run->loops; i++) {
		u64 now = run->mode->read();

		backsteps += now < prev;
		prev = now;
	}
	t1 = rdtsc_ordered();
	results[smp_id()].cycles = t1 - t0;
	results[smp_id()].warps = backsteps;
}

/* Mean cycles per read over all vCPUs, in thousandths of a cycle. */
static u64 perf_measure(const struct perf_mode *mode, u64 loops)
{
	struct perf_run run = { .mode = mode, .loops = loops };
	struct pvclock_vcpu_time_info ti;
	u64 begin, end, sum = 0, backsteps = 0, milli, ps;
	char a[32], b[32], rname[64];

	kvmclock_reset_last();
	printf("Measure the performance of %s cycle ...\n", mode->title);
	begin = rdtsc_ordered();
	on_cpus(perf_on, &run);
	end = rdtsc_ordered();
	for (int i = 0; i < cpu_count(); i++) {
		sum += results[i].cycles;
		backsteps += results[i].warps;
	}
	printf("Total vcpus: %d\nTest loops: %llu\nTSC cycles: %llu\n", cpu_count(),
	       (unsigned long long)loops, (unsigned long long)(end - begin));
	milli = sum * 1000 / (loops * (u64)cpu_count());
	kvmclock_snapshot(&ti);
	ps = pvclock_scale_delta(sum, ti.tsc_to_system_mul, ti.tsc_shift) * 1000 / (loops * (u64)cpu_count());
	report_info("%s: %s cycles, %s ns per read", mode->title, fmt_milli(a, sizeof(a), milli),
		    fmt_milli(b, sizeof(b), ps));
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s.cycles_per_read", mode->name);
	report_result(rname, "cycles", "%s", a);
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s.ns_per_read", mode->name);
	report_result(rname, "ns", "%s", b);
	if (mode->rule == BACKSTEP_FAILS)
		report(!backsteps, "%s reads never went backwards on their own vCPU (%llu times)", mode->title,
		       (unsigned long long)backsteps);
	else if (backsteps)
		report_info("%s reads went backwards on their own vCPU %llu times", mode->title,
			    (unsigned long long)backsteps);
	return milli;
}

static void perf_ratio(const char *name, u64 num_milli, u64 raw_milli)
{
	char a[32], rname[64];

	fmt_milli(a, sizeof(a), raw_milli ? num_milli * 1000 / raw_milli : 0);
	report_info("%s/raw: %sx", name, a);
	snprintf(rname, sizeof(rname), "kvmclock.perf.%s_over_raw", name);
	report_result(rname, "ratio", "%s", a);
}

static void perf_test(u64 loops)
{
	u64 milli[ARRAY_SIZE(perf_modes)];

	report_prefix_push("perf");
	for (unsigned i = 0; i < ARRAY_SIZE(perf_modes); i++)
		milli[i] = perf_measure(&perf_modes[i], loops);
	/* indexes as in perf_modes[]: 1 raw, 2 stable-aware, 3 adjusted */
	perf_ratio("stable_aware", milli[2], milli[1]);
	perf_ratio("adjusted", milli[3], milli[1]);
	report_prefix_pop();
}

int main(int argc, char **argv)
{
	struct options o;
	const char *why;

	parse_args(argc, argv, &o);
	why = kvmclock_unavailable();
	if (why) {
		report_skip("%s", why);
		return report_summary();
	}
	if (kvmclock_init()) {
		kvmclock_exit();
		report_abort("could not register kvmclock on every vCPU");
	}
	results = memalign(CACHE_LINE_SIZE, sizeof(*results) * (size_t)cpu_count());
	kvmclock_print_params();

	if ((o.phases & PHASE_WALLCLOCK) && o.host_ns)
		wallclock_test(&o);
	else if (o.phases & PHASE_WALLCLOCK)
		report_info("wallclock: no host time given, not checked");
	if (o.phases & PHASE_RAW)
		raw_stability_test(o.loops);
	if (o.phases & PHASE_MONOTONIC)
		monotonic_test(o.loops);
	if (o.phases & PHASE_PERF)
		perf_test(o.loops);

	kvmclock_exit();
	return report_summary();
}
