// SPDX-License-Identifier: GPL-2.0-only
/* Fixed-point figures as text, signed and unsigned (lib/fixed.h says what is printed). */
#include "fixed.h"

static u64 power_of_ten(unsigned n)
{
	u64 p = 1;

	while (n--)
		p *= 10;
	return p;
}

/* sign, then magnitude / 10^scale with decimals digits, truncated. */
static const char *format(char *buf, size_t size, const char *sign, u64 magnitude, unsigned scale,
			  unsigned decimals)
{
	char frac[1 + FIXED_DIGITS_MAX + 1] = "";
	u64 unit, rest;

	scale = min(scale, FIXED_DIGITS_MAX);
	decimals = min(decimals, FIXED_DIGITS_MAX);
	unit = power_of_ten(scale);
	rest = magnitude % unit;
	/* one digit at a time: decimals may be fewer than scale (truncate) or more (zeros) */
	for (unsigned i = 0; i < decimals; i++) {
		unit /= 10;
		frac[1 + i] = unit ? (char)('0' + rest / unit) : '0';
		if (unit)
			rest %= unit;
	}
	if (decimals)
		frac[0] = '.';
	snprintf(buf, size, "%s%llu%s", sign, magnitude / power_of_ten(scale), frac);
	return buf;
}

const char *fmt_fixed(char *buf, size_t size, s64 value, unsigned scale, unsigned decimals,
		      enum fixed_sign sign)
{
	/* negated as a u64: INT64_MIN has no s64 magnitude */
	u64 magnitude = value < 0 ? -(u64)value : (u64)value;
	const char *prefix = value < 0 ? "-" : sign == FIXED_SIGN_PLUS ? "+" : "";

	return format(buf, size, prefix, magnitude, scale, decimals);
}

const char *fmt_ufixed(char *buf, size_t size, u64 value, unsigned scale, unsigned decimals)
{
	return format(buf, size, "", value, scale, decimals);
}
