/* SPDX-License-Identifier: GPL-2.0-only */
/* Tick catch-up: one disturbance's figures and bounded checks as the guest prints them. */
#include "catchup.h"
#include "report.h"
#include "units.h"

#define CU_NAME_MAX 48

/* catchup.KIND.figure into name. */
static const char *figure_name(char *name, size_t size, const struct cu_record *r,
			       const char *figure)
{
	snprintf(name, size, "catchup.%s.%s", cu_kind_name(r->kind), figure);
	return name;
}

/* Whether one of v's checks bounds figure: then its BOUND line is its RESULT. */
static bool bounded(const struct cu_verdict *v, const char *figure)
{
	for (unsigned i = 0; i < v->n; i++)
		if (!strcmp(v->check[i].figure, figure))
			return true;
	return false;
}

/* RESULT catchup.KIND.figure value ticks, unless a check bounds it. */
static void result_ticks(const struct cu_record *r, const struct cu_verdict *v, const char *figure,
			 s64 value)
{
	char name[CU_NAME_MAX];

	if (!bounded(v, figure))
		report_result(figure_name(name, sizeof(name), r, figure), "ticks", "%lld", value);
}

void cu_report(const struct cu_record *r, const struct cu_figures *f, const struct cu_verdict *v)
{
	char name[CU_NAME_MAX];

	result_ticks(r, v, "missed", f->missed);
	result_ticks(r, v, "made_up", f->made_up);
	result_ticks(r, v, "dropped", f->dropped);
	result_ticks(r, v, "host_lost", f->host_lost);
	result_ticks(r, v, "peak", f->peak);
	report_result(figure_name(name, sizeof(name), r, "agree_ms"), "ms", "%lld",
		      f->agree_ns == CU_NEVER ? -1ll : (s64)(f->agree_ns / NSEC_PER_MSEC));
	for (unsigned i = 0; i < v->n; i++) {
		const struct cu_check *c = &v->check[i];

		report_bounded_count(figure_name(name, sizeof(name), r, c->figure), "ticks",
				     c->value, c->lo, c->hi, "%s", c->line);
	}
}
