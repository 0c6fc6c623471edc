/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's figures, each named for its event: e<seq>.<event>.<what>.<figure>, plain or bounded. */
#include "lifecycle_judge.h"
#include "fixed.h"

#define LC_FIGURE_NAME_MAX 96

static void figure_name(char *name, size_t size, const struct lc_record *r, const char *what,
			const char *figure)
{
	snprintf(name, size, "e%u.%s.%s.%s", r->seq, lc_event_name(r->done.kind), what, figure);
}

/* RESULT e<seq>.<event>.<what>.<figure> value ms: every event's figures apart. */
void lc_result_ms(struct checks *out, const struct lc_record *r, const char *what,
		  const char *figure, s64 ns)
{
	char name[LC_FIGURE_NAME_MAX], ms[FIXED_BUF_SIZE];

	figure_name(name, sizeof(name), r, what, figure);
	/* ns as us, printed as ms: 3 decimals, the sign kept */
	checks_result(out, name, "ms", "%s",
		      fmt_fixed(ms, sizeof(ms), ns / (s64)NSEC_PER_USEC, 3, 3, FIXED_SIGN_MINUS));
}

void lc_result_count(struct checks *out, const struct lc_record *r, const char *what,
		     const char *figure, u64 n, const char *unit)
{
	char name[LC_FIGURE_NAME_MAX];

	figure_name(name, sizeof(name), r, what, figure);
	checks_result(out, name, unit, "%llu", n);
}

bool lc_vbounded(struct checks *out, const struct lc_record *r, const char *what,
		 const char *figure, struct bounded *b, const char *fmt, va_list ap)
{
	char name[LC_FIGURE_NAME_MAX];

	figure_name(name, sizeof(name), r, what, figure);
	b->name = name;
	return checks_vbounded(out, b, fmt, ap);
}

bool lc_bounded(struct checks *out, const struct lc_record *r, const char *what, const char *figure,
		struct bounded *b, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = lc_vbounded(out, r, what, figure, b, fmt, ap);
	va_end(ap);
	return pass;
}

bool lc_bounded_ms(struct checks *out, const struct lc_record *r, const char *what,
		   const char *figure, s64 ns, s64 lo_ns, s64 hi_ns, const char *fmt, ...)
{
	/* ns printed as ms with 6 decimals: the figure and its band exactly as checked */
	struct bounded b = {
		.unit = "ms", .scale = 6, .value = ns, .nbands = 1, .band = {{lo_ns, hi_ns}},
	};
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = lc_vbounded(out, r, what, figure, &b, fmt, ap);
	va_end(ap);
	return pass;
}
