// SPDX-License-Identifier: GPL-2.0-only
/* The printf format engine: vsnprintf, snprintf and sprintf, with C99 truncation semantics. */
#include "libc.h"

#define INT_MAX_ __INT_MAX__
#define SPRINTF_UNBOUNDED ((size_t)-1 >> 1)
/* 64 bits in octal is 22 digits: the longest digit string a conversion makes. */
#define DIGITS_MAX 24
#define NULL_STRING "(null)"

/* Flag characters, as bits in spec.flags. */
enum {
	FLAG_LEFT = 1 << 0,	/* '-' */
	FLAG_PLUS = 1 << 1,	/* '+' */
	FLAG_SPACE = 1 << 2,	/* ' ' */
	FLAG_ALT = 1 << 3,	/* '#' */
	FLAG_ZERO = 1 << 4,	/* '0' */
};

enum length {
	LEN_INT,
	LEN_CHAR,	/* hh */
	LEN_SHORT,	/* h */
	LEN_LONG,	/* l */
	LEN_LLONG,	/* ll */
	LEN_MAX,	/* j */
	LEN_SIZE,	/* z */
	LEN_PTRDIFF,	/* t */
};

/* One conversion specification; prec < 0 means none was given. */
struct spec {
	unsigned int flags;
	int width;
	int prec;
	enum length length;
	char conv;
};

/*
 * The output: bytes go to buf while they fit in size - 1, and len counts
 * everything, so vsnprintf can return the untruncated length. A u64 count
 * cannot wrap even on 32-bit targets.
 */
struct out {
	char *buf;
	size_t size;
	u64 len;
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

/* Only the bytes that fit are written, so a huge width costs no time. */
static void put_repeat(struct out *o, char c, int n)
{
	for (; n > 0 && o->len + 1 < o->size; n--)
		put_char(o, c);
	if (n > 0)
		o->len += n;
}

static void put_string(struct out *o, const char *s, size_t n)
{
	while (n--)
		put_char(o, *s++);
}

static int conversion_pad(const struct spec *sp, size_t used)
{
	return (size_t)sp->width > used ? sp->width - (int)used : 0;
}

/* Writes the pieces of a converted value: sign or prefix, leading zeros, body, padded to width. */
static void put_field(struct out *o, const struct spec *sp, const char *prefix,
		      int zeros, const char *body, size_t body_len)
{
	size_t prefix_len = strlen(prefix);
	int pad = conversion_pad(sp, prefix_len + zeros + body_len);

	if (!(sp->flags & FLAG_LEFT) && !(sp->flags & FLAG_ZERO))
		put_repeat(o, ' ', pad);
	put_string(o, prefix, prefix_len);
	if (sp->flags & FLAG_ZERO)
		put_repeat(o, '0', pad);
	put_repeat(o, '0', zeros);
	put_string(o, body, body_len);
	if (sp->flags & FLAG_LEFT)
		put_repeat(o, ' ', pad);
}

/* Digits of v in base 8, 10 or 16, written backwards from end; returns the first digit. */
static char *to_digits(char *end, u64 v, unsigned int base, const char *digits)
{
	unsigned int shift = base == 16 ? 4 : 3;

	if (base != 10) {
		for (; v; v >>= shift)
			*--end = digits[v & (base - 1)];
		return end;
	}
	/* 32-bit division where it suffices: on i386 the 64-bit one is a slow helper call. */
	for (; v > UINT32_MAX; v /= 10)
		*--end = digits[v % 10];
	for (u32 w = (u32)v; w; w /= 10)
		*--end = digits[w % 10];
	return end;
}

static unsigned int conversion_base(char conv)
{
	switch (conv) {
	case 'o':
		return 8;
	case 'x':
	case 'X':
	case 'p':
		return 16;
	default:
		return 10;
	}
}

/* The sign, then 0x or 0X. Only %p (as in glibc) can have both. */
static const char *integer_prefix(const struct spec *sp, u64 magnitude, bool negative)
{
	bool alt_hex = (sp->flags & FLAG_ALT) && magnitude != 0;
	bool hex = sp->conv == 'p' || (alt_hex && sp->conv == 'x');

	if (alt_hex && sp->conv == 'X')
		return "0X";
	if (negative)
		return "-";
	if (sp->flags & FLAG_PLUS)
		return hex ? "+0x" : "+";
	if (sp->flags & FLAG_SPACE)
		return hex ? " 0x" : " ";
	return hex ? "0x" : "";
}

static void format_integer(struct out *o, struct spec *sp, u64 magnitude, bool negative)
{
	char buf[DIGITS_MAX];
	char *end = buf + sizeof(buf);
	char *first = to_digits(end, magnitude, conversion_base(sp->conv),
				sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef");
	int len = end - first;
	int zeros = sp->prec > len ? sp->prec - len : 0;

	/*
	 * to_digits() makes no digits for 0: without a precision 0 still
	 * prints "0", with precision 0 it prints nothing, as C says. And %#o
	 * makes sure the first digit is a 0.
	 */
	if (sp->prec < 0 && magnitude == 0)
		zeros = 1;
	if (sp->conv == 'o' && (sp->flags & FLAG_ALT) && zeros == 0)
		zeros = 1;
	put_field(o, sp, integer_prefix(sp, magnitude, negative), zeros, first, len);
}

static u64 fetch_unsigned(enum length length, va_list *ap)
{
	switch (length) {
	case LEN_CHAR:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:
		return va_arg(*ap, unsigned long);
	case LEN_LLONG:
		return va_arg(*ap, unsigned long long);
	case LEN_MAX:
		return va_arg(*ap, uintmax_t);
	case LEN_SIZE:
		return va_arg(*ap, size_t);
	case LEN_PTRDIFF:
		return (uintptr_t)va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static s64 fetch_signed(enum length length, va_list *ap)
{
	switch (length) {
	case LEN_CHAR:
		return (signed char)va_arg(*ap, int);
	case LEN_SHORT:
		return (short)va_arg(*ap, int);
	case LEN_LONG:
		return va_arg(*ap, long);
	case LEN_LLONG:
		return va_arg(*ap, long long);
	case LEN_MAX:
		return va_arg(*ap, intmax_t);
	case LEN_SIZE:
		/* The signed type of size_t's width, as C intends for %zd. */
		return (ptrdiff_t)va_arg(*ap, size_t);
	case LEN_PTRDIFF:
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

static void format_signed(struct out *o, struct spec *sp, va_list *ap)
{
	s64 v = fetch_signed(sp->length, ap);
	/* 0 - (u64)v is the magnitude even for INT64_MIN. */
	u64 magnitude = v < 0 ? 0 - (u64)v : (u64)v;

	format_integer(o, sp, magnitude, v < 0);
}

static void format_string(struct out *o, struct spec *sp, const char *s)
{
	/* Like glibc: NULL prints "(null)", or nothing when the precision cuts that short. */
	if (!s)
		s = sp->prec < 0 || sp->prec >= (int)sizeof(NULL_STRING) - 1 ? NULL_STRING : "";
	/* strnlen: with a precision, s need not be terminated. */
	put_field(o, sp, "", 0, s, sp->prec < 0 ? strlen(s) : strnlen(s, sp->prec));
}

/*
 * A width or precision written in the format: false (all its digits read)
 * when it is beyond INT_MAX, which C leaves undefined and glibc reports as
 * an error (EOVERFLOW).
 */
static bool read_number(const char **fmt, int *out)
{
	bool fits = true;
	int n = 0;

	for (; isdigit(**fmt); (*fmt)++) {
		int digit = **fmt - '0';

		if (n > (INT_MAX_ - digit) / 10)
			fits = false;
		else
			n = n * 10 + digit;
	}
	*out = n;
	return fits;
}

static unsigned int read_flags(const char **fmt)
{
	static const char chars[] = "-+ #0";
	unsigned int flags = 0;
	const char *hit;

	while (**fmt && (hit = strchr(chars, **fmt))) {
		flags |= 1u << (hit - chars);
		(*fmt)++;
	}
	return flags;
}

/*
 * Width, then precision: '*' takes an int argument; a negative width means
 * '-'. False when a number in the format is beyond INT_MAX.
 */
static bool read_width_prec(const char **fmt, struct spec *sp, va_list *ap)
{
	sp->width = 0;
	if (**fmt == '*') {
		(*fmt)++;
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->flags |= FLAG_LEFT;
			sp->width = sp->width == -INT_MAX_ - 1 ? INT_MAX_ : -sp->width;
		}
	} else if (!read_number(fmt, &sp->width)) {
		return false;
	}
	sp->prec = -1;
	if (**fmt != '.')
		return true;
	(*fmt)++;
	if (**fmt == '*') {
		(*fmt)++;
		sp->prec = va_arg(*ap, int);
		if (sp->prec < 0)
			sp->prec = -1;
		return true;
	}
	return read_number(fmt, &sp->prec);
}

static enum length read_length(const char **fmt)
{
	const char *f = *fmt;
	enum length length = LEN_INT;

	switch (*f) {
	case 'h':
		length = f[1] == 'h' ? LEN_CHAR : LEN_SHORT;
		break;
	case 'l':
		length = f[1] == 'l' ? LEN_LLONG : LEN_LONG;
		break;
	case 'j':
		length = LEN_MAX;
		break;
	case 'z':
		length = LEN_SIZE;
		break;
	case 't':
		length = LEN_PTRDIFF;
		break;
	default:
		return LEN_INT;
	}
	*fmt += length == LEN_CHAR || length == LEN_LLONG ? 2 : 1;
	return length;
}

enum spec_status { SPEC_OK, SPEC_UNFINISHED, SPEC_OVERFLOW };

/* Parses the specification after '%'. */
static enum spec_status read_spec(const char **fmt, struct spec *sp, va_list *ap)
{
	sp->flags = read_flags(fmt);
	if (!read_width_prec(fmt, sp, ap))
		return SPEC_OVERFLOW;
	sp->length = read_length(fmt);
	sp->conv = **fmt;
	if (!sp->conv)
		return SPEC_UNFINISHED;
	(*fmt)++;
	/* C: '-' overrides '0', and so does a precision; like glibc, %s and %c pad with spaces. */
	if ((sp->flags & FLAG_LEFT) || sp->prec >= 0 || sp->conv == 'c' || sp->conv == 's')
		sp->flags &= ~FLAG_ZERO;
	return SPEC_OK;
}

/* Converts one argument; returns false for an unknown conversion. */
static bool convert(struct out *o, struct spec *sp, va_list *ap)
{
	char c;

	switch (sp->conv) {
	case 'd':
	case 'i':
		format_signed(o, sp, ap);
		return true;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		sp->flags &= ~(FLAG_PLUS | FLAG_SPACE);	/* sign flags are for signed conversions */
		format_integer(o, sp, fetch_unsigned(sp->length, ap), false);
		return true;
	case 'p':
		/* As glibc for a non-NULL pointer: %#lx, sign flags kept. NULL prints 0x0 here. */
		sp->flags |= FLAG_ALT;
		format_integer(o, sp, (uintptr_t)va_arg(*ap, void *), false);
		return true;
	case 's':
		format_string(o, sp, va_arg(*ap, const char *));
		return true;
	case 'c':
		c = (char)va_arg(*ap, int);
		put_field(o, sp, "", 0, &c, 1);
		return true;
	case '%':
		put_char(o, '%');
		return true;
	default:
		return false;
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	enum spec_status status = SPEC_OK;
	struct spec sp;
	const char *start;
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		if (*fmt != '%') {
			put_char(&o, *fmt++);
			continue;
		}
		start = fmt++;
		status = read_spec(&fmt, &sp, &args);
		/* Like glibc: stop, keeping what was written before it. */
		if (status == SPEC_OVERFLOW)
			break;
		/* Unknown or unfinished specifications are printed as written. */
		if (status != SPEC_OK || !convert(&o, &sp, &args))
			put_string(&o, start, fmt - start);
	}
	va_end(args);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	/* C: a length that does not fit in int is an error, and so is such a width. */
	return o.len > (u64)INT_MAX_ || status == SPEC_OVERFLOW ? -1 : (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return ret;
}

/* The caller vouches that buf is big enough, so the size is "as large as an object can be". */
int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(buf, SPRINTF_UNBOUNDED, fmt, ap);
	va_end(ap);
	return ret;
}
