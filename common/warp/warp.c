/* SPDX-License-Identifier: GPL-2.0-only */
/* The warp check of common/warp/warp.h, on every arch: the turns, the counting, the RESULT lines
 * and the check. */
#include "warp.h"
#include "alloc.h"
#include "arch.h"
#include "report.h"

#define CACHE_LINE_SIZE		64
#define RESULT_NAME_SIZE	96

/* What one vCPU found, alone on its cache line. */
struct warp_vcpu {
	struct warp_findings f;
} __aligned(CACHE_LINE_SIZE);

/* vcpus_n of them, at least cpu_count(): made by the first warp_run() */
static struct warp_vcpu *vcpus;
static int vcpus_n;

struct warp_turns {
	const struct warp_check *check;
	void *turns;		/* the arch's */
	u64 last;		/* the latest read, made in its turn */
	int last_cpu;		/* who made it */
};

/* One step from the read before: a warp, a stall, or progress (a hand-off when another vCPU read before). */
static void warp_count(struct warp_findings *f, u64 mask, u64 step, int prev_cpu)
{
	if (step > mask / 2) {
		f->warps++;
		f->worst = max(f->worst, mask - step + 1);
		return;
	}
	f->stalls += !step;
	f->max_step = max(f->max_step, step);
	if (step && prev_cpu != smp_id()) {
		f->handoffs++;
		f->min_handoff = min(f->min_handoff, step);
	}
}

static void warp_on(void *arg)
{
	struct warp_turns *t = arg;
	const struct warp_check *c = t->check;
	struct warp_findings *f = &vcpus[smp_id()].f;
	u64 skew = smp_id() == cpu_count() - 1 ? c->fault_skew : 0;

	*f = (struct warp_findings){ .min_handoff = WARP_NO_HANDOFF };
	for (u64 i = 0; i < c->loops; i++) {
		u64 prev, now;
		int prev_cpu;

		c->arch->turn_take(t->turns);
		prev = t->last;
		prev_cpu = t->last_cpu;
		now = (c->read() - skew) & c->mask;
		t->last = now;
		t->last_cpu = smp_id();
		c->arch->turn_give(t->turns);
		warp_count(f, c->mask, (now - prev) & c->mask, prev_cpu);
	}
}

static void warp_add(struct warp_findings *total, const struct warp_findings *f)
{
	total->warps += f->warps;
	total->stalls += f->stalls;
	total->handoffs += f->handoffs;
	total->worst = max(total->worst, f->worst);
	total->min_handoff = min(total->min_handoff, f->min_handoff);
	total->max_step = max(total->max_step, f->max_step);
}

u64 warp_run(const struct warp_check *check, struct warp_findings *total)
{
	struct warp_turns t = { .check = check, .turns = check->arch->turns_new() };

	if (vcpus_n < cpu_count()) {
		vcpus_n = cpu_count();
		free(vcpus);
		vcpus = memalign(CACHE_LINE_SIZE, sizeof(*vcpus) * (size_t)vcpus_n);
	}
	t.last = check->read() & check->mask;
	on_cpus(warp_on, &t);
	*total = (struct warp_findings){ .min_handoff = WARP_NO_HANDOFF };
	for (int i = 0; i < cpu_count(); i++)
		warp_add(total, &vcpus[i].f);
	return total->warps;
}

const struct warp_findings *warp_vcpu(int cpu)
{
	return &vcpus[cpu].f;
}

static u64 warp_figure(const struct warp_findings *f, enum warp_figure figure)
{
	switch (figure) {
	case WARP_WARPS:
		return f->warps;
	case WARP_STALLS:
		return f->stalls;
	case WARP_HANDOFFS:
		return f->handoffs;
	case WARP_WORST_BACK:
		return f->worst;
	case WARP_WORST_STEP:
		return -f->worst;
	case WARP_MIN_HANDOFF:
		return f->min_handoff;
	case WARP_MAX_STEP:
		return f->max_step;
	}
	return 0;
}

static void warp_results(const struct warp_result *res, size_t n, const char *name_start,
			 const struct warp_findings *f)
{
	char name[RESULT_NAME_SIZE];

	for (size_t i = 0; i < n; i++) {
		u64 v = warp_figure(f, res[i].figure);

		if (res[i].figure == WARP_MIN_HANDOFF && v == WARP_NO_HANDOFF)
			continue;
		snprintf(name, sizeof(name), "%s%s", name_start, res[i].suffix);
		if (res[i].figure == WARP_WORST_STEP)
			report_result(name, res[i].unit, "%lld", (s64)v);
		else
			report_result(name, res[i].unit, "%llu", v);
	}
}

void warp_report_vcpus(const struct warp_report *rep, const char *prefix)
{
	char start[RESULT_NAME_SIZE];

	for (int i = 0; i < cpu_count(); i++) {
		snprintf(start, sizeof(start), "%svcpu%d.", prefix, i);
		warp_results(rep->vcpu, rep->vcpu_n, start, warp_vcpu(i));
	}
}

void warp_report_totals(const struct warp_report *rep, const char *prefix, const struct warp_findings *total)
{
	warp_results(rep->total, rep->total_n, prefix, total);
}

void warp_report_handoff(const struct warp_findings *total, const char *lead, const char *unit)
{
	/* an offset between two vCPUs' views smaller than the quickest hand-off cannot show as a warp */
	if (total->min_handoff != WARP_NO_HANDOFF)
		report_info("%squickest hand-off %llu %s: smaller offsets between vCPUs cannot show", lead,
			    total->min_handoff, unit);
}

bool warp_report_check(const char *prefix, const struct warp_findings *total, const char *fmt, ...)
{
	char name[RESULT_NAME_SIZE];
	struct bounded b = {
		.name = name,
		.unit = "count",
		.value = (s64)total->warps,
		.nbands = 1,
		.band = {{0, 0}},
	};
	va_list ap;
	bool pass;

	snprintf(name, sizeof(name), "%swarps", prefix);
	va_start(ap, fmt);
	pass = report_vbounded(&b, fmt, ap);
	va_end(ap);
	return pass;
}
