/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's figures, each named for its event: e<seq>.<event>.<what>.<figure>, plain or bounded. */
#include "lifecycle_state.h"
#include "fixed.h"
#include "report.h"

/* RESULT e<seq>.<event>.<what>.<figure> value ms: every event's figures apart. */
void lc_result_ms(const char *what, const char *figure, s64 ns)
{
	char name[64], ms[FIXED_BUF_SIZE];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what,
		 figure);
	/* ns as us, printed as ms: 3 decimals, the sign kept */
	report_result(name, "ms", "%s",
		      fmt_fixed(ms, sizeof(ms), ns / (s64)NSEC_PER_USEC, 3, 3, FIXED_SIGN_MINUS));
}

bool lc_vbounded(const char *what, const char *figure, struct bounded *b, const char *fmt,
			va_list ap)
{
	char name[64];

	snprintf(name, sizeof(name), "e%u.%s.%s.%s", lc.seq, lc_event_name(lc.done.kind), what,
		 figure);
	b->name = name;
	return report_vbounded(b, fmt, ap);
}

bool lc_bounded(const char *what, const char *figure, struct bounded *b, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = lc_vbounded(what, figure, b, fmt, ap);
	va_end(ap);
	return pass;
}

bool lc_bounded_ms(const char *what, const char *figure, s64 ns, s64 lo_ns, s64 hi_ns,
		   const char *fmt, ...)
{
	/* ns printed as ms with 6 decimals: the figure and its band exactly as checked */
	struct bounded b = {
		.unit = "ms", .scale = 6, .value = ns, .nbands = 1, .band = {{lo_ns, hi_ns}},
	};
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = lc_vbounded(what, figure, &b, fmt, ap);
	va_end(ap);
	return pass;
}
