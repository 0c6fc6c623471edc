// SPDX-License-Identifier: GPL-2.0-only
/* Splits the kernel command line into argv and reads numbers from arguments, rejecting garbage. */
#include "argv.h"

/* Longest command line kept; the rest is dropped with a warning. */
#define CMDLINE_MAX 4096
#define NSEC_PER_SEC 1000000000ULL
#define FRACTION_DIGITS_MAX 9
#define DECIMAL 10

/* setup_args() copies the command line here, words separated by NULs. */
static char args_buf[CMDLINE_MAX + 1];

static int not_a_number(const char *what, const char *text)
{
	printf("%s: '%s' is not a number\n", what, text);
	return -1;
}

static int out_of_range(const char *what, const char *text)
{
	printf("%s: '%s' is out of range\n", what, text);
	return -1;
}

/*
 * Words are separated by runs of isspace() characters: spaces and tabs,
 * and newlines too, so that a command line read from a file may end in one.
 * A second call reuses the buffer: earlier argv strings change.
 */
int setup_args(const char *progname, const char *cmdline, char **argv, int max)
{
	size_t len = cmdline ? strnlen(cmdline, CMDLINE_MAX + 1) : 0;
	char *p = args_buf;
	int argc = 0;

	if (!argv || max <= 0)
		return 0;
	if (max == 1) {
		/* Room for the terminating NULL only: the caller's mistake, not the user's. */
		argv[0] = NULL;
		return 0;
	}
	if (len > CMDLINE_MAX) {
		printf("setup_args: command line longer than %d bytes, truncated\n", CMDLINE_MAX);
		len = CMDLINE_MAX;
	}
	if (len)
		memcpy(args_buf, cmdline, len);
	args_buf[len] = '\0';
	/* argv[0] is only ever read: the cast just matches main()'s argv type. */
	argv[argc++] = (char *)(progname ? progname : "");
	for (;;) {
		while (isspace(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc >= max - 1) {
			printf("setup_args: only %d arguments fit, the rest is ignored\n", max - 2);
			break;
		}
		argv[argc++] = p;
		while (*p && !isspace(*p))
			p++;
	}
	argv[argc] = NULL;
	return argc;
}

/* strto* would also take leading space, and a sign for unsigned: the parsers say no first. */
static const char *skip_sign(const char *text)
{
	return *text == '-' || *text == '+' ? text + 1 : text;
}

int parse_u64(const char *what, const char *text, u64 *out)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit(*text))
		return not_a_number(what, text);
	errno = 0;
	v = strtoull(text, &end, 0);
	if (*end)
		return not_a_number(what, text);
	if (errno == ERANGE)
		return out_of_range(what, text);
	*out = v;
	return 0;
}

int parse_u64_in(const char *what, const char *text, u64 lo, u64 hi, u64 *out)
{
	u64 v;

	if (parse_u64(what, text, &v))
		return -1;
	if (v < lo || v > hi) {
		printf("%s: '%s' must be %llu to %llu\n", what, text, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_s64(const char *what, const char *text, s64 *out)
{
	char *end;
	long long v;

	if (!text || !isdigit(*skip_sign(text)))
		return not_a_number(what, text);
	errno = 0;
	v = strtoll(text, &end, 0);
	if (*end)
		return not_a_number(what, text);
	if (errno == ERANGE)
		return out_of_range(what, text);
	*out = v;
	return 0;
}

/* Decimal digits from *p into *v; returns how many, *overflow set if *v passed U64 max. */
static int read_decimal(const char **p, u64 *v, bool *overflow)
{
	int n = 0;

	for (; isdigit(**p); (*p)++, n++) {
		u64 d = **p - '0';

		/* Constant divisions only: a variable one is a helper call on i386. */
		if (*v > UINT64_MAX / DECIMAL || (*v == UINT64_MAX / DECIMAL && d > UINT64_MAX % DECIMAL))
			*overflow = true;
		else
			*v = *v * DECIMAL + d;
	}
	return n;
}

/*
 * SECONDS[.FRACTION], both decimal with digits on both sides of the dot
 * (so "010" is ten seconds, not octal), at most 9 fraction digits.
 * Syntax is checked before range: "1e99999999999999999999" is not a number.
 */
int parse_seconds_ns(const char *what, const char *text, u64 *ns_out, bool *has_fraction)
{
	const char *p = text;
	u64 sec = 0, frac = 0;
	bool overflow = false, fraction;
	int frac_digits = 0;

	if (!text || !read_decimal(&p, &sec, &overflow))
		return not_a_number(what, text);
	fraction = *p == '.';
	if (fraction) {
		p++;
		frac_digits = read_decimal(&p, &frac, &overflow);
		if (!frac_digits)
			return not_a_number(what, text);
	}
	if (*p)
		return not_a_number(what, text);
	/* Finer than a nanosecond cannot be held: treated as out of range. */
	if (overflow || frac_digits > FRACTION_DIGITS_MAX || sec > UINT64_MAX / NSEC_PER_SEC)
		return out_of_range(what, text);
	for (; frac_digits < FRACTION_DIGITS_MAX; frac_digits++)
		frac *= DECIMAL;
	sec *= NSEC_PER_SEC;
	if (sec > UINT64_MAX - frac)
		return out_of_range(what, text);
	*ns_out = sec + frac;
	if (has_fraction)
		*has_fraction = fraction;
	return 0;
}

static bool is_key_start(char c)
{
	return isalpha(c) || c == '_';
}

static bool is_key_char(char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

bool arg_is_keyvalue(const char *arg)
{
	if (!arg || !is_key_start(*arg))
		return false;
	while (is_key_char(*++arg))
		;
	return *arg == '=';
}

const char *arg_value(const char *arg, const char *key)
{
	size_t len = key ? strlen(key) : 0;

	if (!arg || !len || strncmp(arg, key, len) || arg[len] != '=')
		return NULL;
	return arg + len + 1;
}

int arg_word_index(const char *const *names, size_t n, const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], word, len))
			return (int)i;
	return -1;
}

/* "<what>: '<word>' is not one of a, b, c" into buf. */
static void not_one_of(char *buf, size_t size, const char *what, const char *word, size_t len,
		       const char *const *names, size_t n)
{
	size_t at = (size_t)snprintf(buf, size, "%s: '%.*s' is not one of ", what, (int)len, word);

	for (size_t i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "", names[i]);
}

const char *arg_word_list(const char *what, const char *text, const char *const *names, size_t n,
			  unsigned *bits)
{
	static char msg[160];

	*bits = 0;
	while (*text) {
		const char *comma = strchr(text, ',');
		size_t len = comma ? (size_t)(comma - text) : strlen(text);
		int i = arg_word_index(names, n, text, len);

		if (i < 0) {
			not_one_of(msg, sizeof(msg), what, text, len, names, n);
			return msg;
		}
		*bits |= 1u << i;
		text += len + (comma != NULL);
	}
	if (*bits)
		return NULL;
	snprintf(msg, sizeof(msg), "%s: empty list", what);
	return msg;
}
