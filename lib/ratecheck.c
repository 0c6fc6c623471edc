// SPDX-License-Identifier: GPL-2.0-only
/* Runs refclock_measure() on a chosen vCPU, retries disturbed windows, and reports each reference's verdict. */
#include "ratecheck.h"
#include "arch.h"
#include "argv.h"
#include "fixed.h"
#include "report.h"
#include "units.h"

/* ppb printed as ppm: PPB_PER_PPM is 10^3, three decimals */
#define PPM_SCALE 3

int ratecheck_set_refs(struct ratecheck *rc, const char *list)
{
	char name[16];

	rc->n = 0;
	while (*list) {
		size_t len = strchr(list, ',') ? (size_t)(strchr(list, ',') - list) : strlen(list);
		const struct refclock *ref;
		const char *why;

		snprintf(name, sizeof(name), "%.*s", (int)len, list);
		ref = len < sizeof(name) ? refclock_find(name) : NULL;
		if (!ref || rc->n == RATECHECK_MAX_REFS) {
			printf("refs: '%s' is %s\n", name, ref ? "one too many" : "not a reference clock here");
			return -1;
		}
		why = ref->probe();
		if (why)
			report_skip("rate against the %s: %s", ref->what, why);
		else
			rc->refs[rc->n++] = ref;
		list += len + (list[len] == ',');
	}
	return 0;
}

#define REFCLOCKS_MAX 8

const char *ratecheck_refs_arg(const char *list)
{
	static char must[128];
	const char *names[REFCLOCKS_MAX];
	size_t n, at;
	const struct refclock *const *table = refclock_table(&n);
	unsigned bits;
	int words;

	n = min(n, ARRAY_SIZE(names));
	for (size_t i = 0; i < n; i++)
		names[i] = table[i]->name;
	words = arg_names_bits(list, names, n, &bits);
	if (words > 0 && words <= RATECHECK_MAX_REFS)
		return NULL;
	at = (size_t)snprintf(must, sizeof(must), "a comma-separated list of at most %d of ",
			      RATECHECK_MAX_REFS);
	for (size_t i = 0; i < n && at < sizeof(must); i++)
		at += (size_t)snprintf(must + at, sizeof(must) - at, "%s%s", i ? ", " : "",
				       names[i]);
	return must;
}

struct ratecheck_call {
	const struct ratecheck *rc;
	struct refclock_result res[RATECHECK_MAX_REFS];
};

static u64 magnitude_ppb(s64 v)
{
	return v < 0 ? -(u64)v : (u64)v;
}

/*
 * A rate settles its check when its error lies outside its bound (the
 * clock is wrong however wide the brackets) or its bound is usable.
 * Otherwise the brackets were disturbed and say nothing yet.
 */
static bool conclusive(const struct ratecheck *rc, const struct refclock_result *r)
{
	return r->why || magnitude_ppb(r->rate.err_ppb) > r->rate.bound_ppb ||
	       r->rate.bound_ppb <= rc->usable_ppb;
}

static bool all_conclusive(const struct ratecheck_call *call)
{
	for (size_t i = 0; i < call->rc->n; i++)
		if (!conclusive(call->rc, &call->res[i]))
			return false;
	return true;
}

static void measure_here(void *arg)
{
	struct ratecheck_call *call = arg;
	const struct ratecheck *rc = call->rc;

	for (unsigned w = 0; w < rc->windows; w++) {
		for (size_t i = 0; i < rc->n; i++)
			call->res[i] = (struct refclock_result){ .ref = rc->refs[i] };
		refclock_measure(call->res, rc->n, rc->read, rc->hz, rc->window, rc->tries);
		if (all_conclusive(call))
			return;
	}
}

static bool report_one(const struct ratecheck *rc, int cpu, const struct refclock_result *r)
{
	const struct refclock_rate *rate = &r->rate;
	char name[80], err[FIXED_BUF_SIZE], bound[FIXED_BUF_SIZE];

	if (r->why)
		return report(false, "%s's rate on vCPU %d against the %s: not measured: %s", rc->clock, cpu,
			      r->ref->what, r->why);
	fmt_fixed(err, sizeof(err), rate->err_ppb, PPM_SCALE, PPM_SCALE, FIXED_SIGN_PLUS);
	fmt_ufixed(bound, sizeof(bound), rate->bound_ppb, PPM_SCALE, PPM_SCALE);
	snprintf(name, sizeof(name), "%s.rate.vcpu%d.%s.err_ppm", rc->clock, cpu, r->ref->name);
	if (!conclusive(rc, r)) {
		report_result(name, "ppm", "%s", err);
		return report(false,
			      "%s's rate on vCPU %d against the %s: every window disturbed (bound %s ppm, "
			      "usable %llu ppm)", rc->clock, cpu, r->ref->what, bound,
			      rc->usable_ppb / PPB_PER_PPM);
	}
	return report_bounded(&(struct bounded){.name = name, .unit = "ppm", .scale = PPM_SCALE,
						.value = rate->err_ppb, .nbands = 1,
						.band = {{-(s64)rate->bound_ppb, (s64)rate->bound_ppb}}},
			      "%s's rate on vCPU %d against the %s: %s ppm off (bound +-%s ppm, %llu ms)",
			      rc->clock, cpu, r->ref->what, err, bound, rate->window_ns / NSEC_PER_MSEC);
}

unsigned ratecheck_run(const struct ratecheck *rc, int cpu)
{
	struct ratecheck_call call = { .rc = rc };
	unsigned failed = 0;

	on_cpu(cpu, measure_here, &call);
	for (size_t i = 0; i < rc->n; i++)
		failed += !report_one(rc, cpu, &call.res[i]);
	return failed;
}
