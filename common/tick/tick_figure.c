/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's figures, each named timer_tick.SOURCE.NAME: plain, or bounded. */
#include "tick_figure.h"

void tick_result(struct checks *out, const char *source, const char *name, const char *unit,
		 u64 value)
{
	char full[96];

	snprintf(full, sizeof(full), "timer_tick.%s.%s", source, name);
	checks_result(out, full, unit, "%llu", value);
}

bool tick_bounded(struct checks *out, const char *source, const char *name, const char *unit,
		  unsigned scale, s64 value, s64 lo, s64 hi, const char *fmt, ...)
{
	char full[96];
	struct bounded b = {
		.name = full, .unit = unit, .scale = scale, .value = value,
		.nbands = 1, .band = {{lo, hi}},
	};
	va_list ap;
	bool pass;

	snprintf(full, sizeof(full), "timer_tick.%s.%s", source, name);
	va_start(ap, fmt);
	pass = checks_vbounded(out, &b, fmt, ap);
	va_end(ap);
	return pass;
}
