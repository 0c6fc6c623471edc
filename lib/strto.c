// SPDX-License-Identifier: GPL-2.0-only
/* C99 string-to-integer conversions (strtol and family, atoi, atol) and the errno they set. */
#include "libc.h"

/* The compilers predefine the limits, so no <limits.h> is needed in a freestanding build. */
#define LONG_MAX_ __LONG_MAX__
#define LONG_MIN_ (-__LONG_MAX__ - 1L)
#define ULONG_MAX_ (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MAX_ __LONG_LONG_MAX__
#define LLONG_MIN_ (-__LONG_LONG_MAX__ - 1LL)
#define ULLONG_MAX_ (__LONG_LONG_MAX__ * 2ULL + 1ULL)

#define BASE_MIN 2
#define BASE_MAX 36
#define HALF_BITS 32
#define HALF_MASK 0xffffffffULL

int errno;

/* What the scan of the subject sequence found. */
struct subject {
	unsigned long long magnitude;	/* saturated to ULLONG_MAX on overflow */
	bool negative;
	bool overflow;
};

/* Digit value of c in bases up to 36, or BASE_MAX (never a valid digit) for anything else. */
static int digit_value(char c)
{
	if (isdigit(c))
		return c - '0';
	if (isalpha(c))
		return tolower(c) - 'a' + 10;
	return BASE_MAX;
}

/*
 * *v = *v * base + digit, done in 32-bit halves so that no 64-bit
 * division (a libgcc call on i386) is needed for the overflow check.
 */
static bool mul_add_overflows(unsigned long long *v, int base, int digit)
{
	unsigned long long lo = (*v & HALF_MASK) * base + digit;
	unsigned long long hi = (*v >> HALF_BITS) * base + (lo >> HALF_BITS);

	if (hi >> HALF_BITS)
		return true;
	*v = (hi << HALF_BITS) | (lo & HALF_MASK);
	return false;
}

/* The base after the optional 0x / 0 prefix, and *sp moved past a 0x prefix when one counts. */
static int take_prefix(const char **sp, int base)
{
	const char *s = *sp;
	bool hex_prefix = s[0] == '0' && tolower(s[1]) == 'x' && digit_value(s[2]) < 16;

	if ((base == 0 || base == 16) && hex_prefix) {
		*sp = s + 2;
		return 16;
	}
	if (base == 0)
		return s[0] == '0' ? 8 : 10;
	return base;
}

/*
 * Scans space, sign, prefix and digits. Returns where the digits end, or
 * s itself when there are none (then the value is 0 and endptr is s).
 */
static const char *scan(const char *s, int base, struct subject *out)
{
	const char *p = s;
	const char *digits;

	*out = (struct subject){ 0 };
	while (isspace(*p))
		p++;
	if (*p == '+' || *p == '-')
		out->negative = *p++ == '-';
	base = take_prefix(&p, base);
	for (digits = p; digit_value(*p) < base; p++) {
		if (!out->overflow && mul_add_overflows(&out->magnitude, base, digit_value(*p)))
			out->overflow = true;
	}
	if (out->overflow)
		out->magnitude = ULLONG_MAX_;
	return p == digits ? s : p;
}

/*
 * s's subject in base, *endp (when not NULL) set past it: false for a base
 * C does not allow (EINVAL, *endp at s), which the callers answer with 0.
 */
static bool read_subject(const char *s, char **endp, int base, struct subject *sub)
{
	const char *end = s;
	bool ok = base == 0 || (base >= BASE_MIN && base <= BASE_MAX);

	if (ok)
		end = scan(s, base, sub);
	else
		errno = EINVAL;
	if (endp)
		*endp = (char *)end;
	return ok;
}

/* Unsigned: the magnitude must fit in max, then a minus sign negates it in the unsigned type. */
static unsigned long long to_unsigned(const char *s, char **endp, int base,
				      unsigned long long max)
{
	struct subject sub;

	if (!read_subject(s, endp, base, &sub))
		return 0;
	if (sub.overflow || sub.magnitude > max) {
		errno = ERANGE;
		return max;
	}
	/* Wraps modulo max + 1, as C's conversion to the unsigned type does. */
	return (sub.negative ? 0 - sub.magnitude : sub.magnitude) & max;
}

/* Signed: saturates at min or max by the sign. */
static long long to_signed(const char *s, char **endp, int base, long long min, long long max)
{
	struct subject sub;

	if (!read_subject(s, endp, base, &sub))
		return 0;
	if (!sub.negative && (sub.overflow || sub.magnitude > (unsigned long long)max)) {
		errno = ERANGE;
		return max;
	}
	if (sub.negative && (sub.overflow || sub.magnitude > 0 - (unsigned long long)min)) {
		errno = ERANGE;
		return min;
	}
	if (!sub.negative || sub.magnitude == 0)
		return (long long)sub.magnitude;
	/* -(m - 1) - 1 stays in range even for m == -min. */
	return -(long long)(sub.magnitude - 1) - 1;
}

long strtol(const char *s, char **endp, int base)
{
	return to_signed(s, endp, base, LONG_MIN_, LONG_MAX_);
}

unsigned long strtoul(const char *s, char **endp, int base)
{
	return to_unsigned(s, endp, base, ULONG_MAX_);
}

long long strtoll(const char *s, char **endp, int base)
{
	return to_signed(s, endp, base, LLONG_MIN_, LLONG_MAX_);
}

unsigned long long strtoull(const char *s, char **endp, int base)
{
	return to_unsigned(s, endp, base, ULLONG_MAX_);
}

long atol(const char *s)
{
	return strtol(s, NULL, 10);
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}
