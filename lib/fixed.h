/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-point figures as text: an integer count of 10^-scale units printed with a decimal point. */
#ifndef VMTICK_FIXED_H
#define VMTICK_FIXED_H

#include "libc.h"

/*
 * fmt_fixed(buf, size, value, scale, decimals, sign) writes value / 10^scale
 * with decimals digits after the point into buf and returns buf, e.g.
 *
 *   fmt_fixed(buf, sizeof(buf), -500, 3, 3, FIXED_SIGN_MINUS)   "-0.500"  (-500 ppb in ppm)
 *   fmt_fixed(buf, sizeof(buf), 1234567, 6, 3, FIXED_SIGN_PLUS) "+1.234"  (ns as ms)
 *   fmt_ufixed(buf, sizeof(buf), 12345, 3, 3)                   "12.345"
 *
 * - Truncation, never rounding: digits beyond decimals are dropped, so the
 *   magnitude printed is |value| / 10^(scale - decimals), rounded toward
 *   zero (1999 at scale 3 with 1 decimal is "1.9"). With decimals > scale
 *   the extra digits are zeros.
 * - The sign is the value's, as printf("%.3f") gives it: a value in
 *   (-1, 0) keeps its minus ("-0.500"), and so does one whose shown
 *   digits are all zero (-4 at scale 3 with 2 decimals is "-0.00").
 * - INT64_MIN is safe: the magnitude is taken as a u64 ("-9223372036854775.808"
 *   at scale 3).
 * - decimals 0: no point ("12"). scale and decimals above FIXED_DIGITS_MAX
 *   are taken as FIXED_DIGITS_MAX.
 * - Like snprintf: at most size - 1 characters and a NUL (size > 0); the
 *   longest text takes FIXED_BUF_SIZE bytes with the NUL.
 */
#define FIXED_DIGITS_MAX 19 /* 10^19 is the largest power of ten a u64 holds */
#define FIXED_BUF_SIZE	 (1 + 20 + 1 + FIXED_DIGITS_MAX + 1)

enum fixed_sign {
	FIXED_SIGN_MINUS, /* "-0.500", "0.500", "0.000": a figure */
	FIXED_SIGN_PLUS,  /* "-0.500", "+0.500", "+0.000": an error or an offset */
};

const char *fmt_fixed(char *buf, size_t size, s64 value, unsigned scale, unsigned decimals,
		      enum fixed_sign sign);
/* The same for an unsigned value, never signed. */
const char *fmt_ufixed(char *buf, size_t size, u64 value, unsigned scale, unsigned decimals);

#define MILLI_SCALE 3
/* "12.345" from a value in thousandths (e.g. ps as ns): fmt_ufixed() at scale 3, 3 decimals. */
static inline const char *fmt_milli(char *buf, size_t size, u64 thousandths)
{
	return fmt_ufixed(buf, size, thousandths, MILLI_SCALE, MILLI_SCALE);
}

#endif
