// SPDX-License-Identifier: GPL-2.0-only
/* Splits the kernel command line into argv and reads numbers from arguments, rejecting garbage. */
#include "argv.h"
#include "units.h"

/* Longest command line kept; the rest is dropped with a warning. */
#define CMDLINE_MAX 4096
#define FRACTION_DIGITS_MAX 9
#define DECIMAL 10

/* setup_args() copies the command line here, words separated by NULs. */
static char args_buf[CMDLINE_MAX + 1];

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

/* strto* would also take leading space, and a sign: parse_u64 wants a digit first. */
int parse_u64(const char *text, u64 *out)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit(*text))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (*end || errno == ERANGE)
		return -1;
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
int parse_seconds_ns(const char *text, u64 *ns_out, bool *has_fraction)
{
	const char *p = text;
	u64 sec = 0, frac = 0;
	bool overflow = false, fraction;
	int frac_digits = 0;

	if (!text || !read_decimal(&p, &sec, &overflow))
		return -1;
	fraction = *p == '.';
	if (fraction) {
		p++;
		frac_digits = read_decimal(&p, &frac, &overflow);
		if (!frac_digits)
			return -1;
	}
	if (*p)
		return -1;
	/* Finer than a nanosecond cannot be held: treated as out of range. */
	if (overflow || frac_digits > FRACTION_DIGITS_MAX || sec > UINT64_MAX / NSEC_PER_SEC)
		return -1;
	for (; frac_digits < FRACTION_DIGITS_MAX; frac_digits++)
		frac *= DECIMAL;
	sec *= NSEC_PER_SEC;
	if (sec > UINT64_MAX - frac)
		return -1;
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

static bool arg_is_keyvalue(const char *arg)
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

/* The index in names[0..n) of the word of len characters at word, or -1. */
static int arg_word_index(const char *const *names, size_t n, const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], word, len))
			return (int)i;
	return -1;
}

bool arg_in_list(const char *word, const char *list)
{
	size_t len = strlen(word);

	for (;;) {
		const char *comma = strchr(list, ',');
		size_t n = comma ? (size_t)(comma - list) : strlen(list);

		if (n == len && !memcmp(list, word, len))
			return true;
		if (!comma)
			return false;
		list = comma + 1;
	}
}

/* ---- the table-driven parser ------------------------------------------- */

#define ARGS_MAX 64		/* keys in one table: a bit each in a u64 */
#define MSG_SIZE 320

static char msg[MSG_SIZE];

/* "a, b, c" of names[0..n) into buf at *at. */
static void put_names(char *buf, size_t size, size_t *at, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n && *at < size; i++)
		*at += (size_t)snprintf(buf + *at, size - *at, "%s%s", i ? ", " : "", names[i]);
}

/* "12" or "0.5": ns as seconds, without trailing zeros. */
static void put_seconds(char *buf, size_t size, size_t *at, u64 ns)
{
	u64 frac = ns % NSEC_PER_SEC;
	int digits = FRACTION_DIGITS_MAX;

	if (*at >= size)
		return;
	if (!frac) {
		*at += (size_t)snprintf(buf + *at, size - *at, "%llu",
					(ns / NSEC_PER_SEC));
		return;
	}
	for (; frac % DECIMAL == 0; frac /= DECIMAL)
		digits--;
	*at += (size_t)snprintf(buf + *at, size - *at, "%llu.%0*llu",
				(ns / NSEC_PER_SEC), digits,
				frac);
}

/* What a value of a must be, e.g. "a whole number from 1 to 1000", into buf at *at. */
static void put_allowed(char *buf, size_t size, size_t *at, const struct arg *a)
{
	const char *must;

	switch (a->kind) {
	case ARG_KIND_UINT:
		*at += (size_t)snprintf(buf + *at, size - *at, "a whole number from %llu to %llu",
					a->lo, a->hi);
		break;
	case ARG_KIND_SECONDS:
		*at += (size_t)snprintf(buf + *at, size - *at, "seconds from ");
		put_seconds(buf, size, at, a->lo);
		*at += (size_t)snprintf(buf + *at, size - *at, " to ");
		put_seconds(buf, size, at, a->hi);
		break;
	case ARG_KIND_LIST:
		*at += (size_t)snprintf(buf + *at, size - *at, "a comma-separated list of ");
		put_names(buf, size, at, a->names, a->nnames);
		break;
	case ARG_KIND_ONE_OF:
		*at += (size_t)snprintf(buf + *at, size - *at, "one of ");
		put_names(buf, size, at, a->names, a->nnames);
		break;
	case ARG_KIND_TEXT:
		/* a check says what it wants when asked about the empty text */
		must = a->check ? a->check("") : NULL;
		*at += (size_t)snprintf(buf + *at, size - *at, "%s", must ? must : "not empty");
		break;
	case ARG_KIND_FLAG:
		*at += (size_t)snprintf(buf + *at, size - *at, "given alone, without '='");
		break;
	}
	if (*at > size)
		*at = size;
}

/* The one wording: "bad argument '<word>': <problem>". */
static const char *__printf(2, 3) bad(const char *word, const char *fmt, ...)
{
	size_t at = (size_t)snprintf(msg, sizeof(msg), "bad argument '%s': ", word);
	va_list ap;

	va_start(ap, fmt);
	if (at < sizeof(msg))
		vsnprintf(msg + at, sizeof(msg) - at, fmt, ap);
	va_end(ap);
	return msg;
}

static const char *must_be(const char *word, const struct arg *a)
{
	char allowed[MSG_SIZE];
	size_t at = 0;

	put_allowed(allowed, sizeof(allowed), &at, a);
	return bad(word, "%s must be %s", a->key, allowed);
}

/* A required key left out: "missing source=: source is required (one of ...)". */
static const char *missing(const struct arg *a)
{
	char allowed[MSG_SIZE];
	size_t at = 0;

	put_allowed(allowed, sizeof(allowed), &at, a);
	snprintf(msg, sizeof(msg), "missing %s%s: %s is required (%s)", a->key,
		 a->kind == ARG_KIND_FLAG ? "" : "=", a->key, allowed);
	return msg;
}

int arg_names_bits(const char *list, const char *const *names, size_t n, unsigned *bits)
{
	int words = 0;

	*bits = 0;
	for (; *list; words++) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		int i = arg_word_index(names, n, list, len);

		if (i < 0)
			return -1;
		*bits |= 1u << i;
		list += len + (comma != NULL);
	}
	return words ? words : -1;
}

/* Parse v, the value of a, into *a->to: 0, or -1 when v is not one a takes. */
static int store_value(const struct arg *a, const char *v)
{
	unsigned bits;
	u64 x;
	int i;

	switch (a->kind) {
	case ARG_KIND_UINT:
		if (parse_u64(v, &x) || x < a->lo || x > a->hi)
			return -1;
		*a->to.u64 = x;
		return 0;
	case ARG_KIND_SECONDS:
		if (parse_seconds_ns(v, &x, a->fraction) || x < a->lo || x > a->hi)
			return -1;
		*a->to.u64 = x;
		return 0;
	case ARG_KIND_LIST:
		if (arg_names_bits(v, a->names, a->nnames, &bits) < 0)
			return -1;
		*a->to.bits = bits;
		return 0;
	case ARG_KIND_ONE_OF:
		i = arg_word_index(a->names, a->nnames, v, strlen(v));
		if (i < 0)
			return -1;
		*a->to.index = (unsigned)i;
		return 0;
	case ARG_KIND_TEXT:
		if (!*v)
			return -1;
		*a->to.text = v;
		return 0;
	case ARG_KIND_FLAG:
		break;
	}
	return -1;
}

/* v, the value of a, into *a->to, then a->check (word: the whole argument, for the message). */
static const char *set_value(const char *word, const struct arg *a, const char *v)
{
	const char *why;

	if (store_value(a, v))
		return must_be(word, a);
	why = a->check ? a->check(v) : NULL;
	return why ? bad(word, "%s must be %s", a->key, why) : NULL;
}

/* The index of the argument named by word (key=value, or a flag's key alone), or -1. */
static int find_key(const struct arg_table *t, const char *word)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct arg *a = &t->args[i];

		if (arg_value(word, a->key) || (a->kind == ARG_KIND_FLAG && !strcmp(word, a->key)))
			return (int)i;
	}
	return -1;
}

static int find_positional(const struct arg_table *t, size_t p)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->args[i].key, t->positional[p]))
			return (int)i;
	return -1;
}

static const char *set_defaults(const struct arg_table *t)
{
	static char word[MSG_SIZE];

	for (size_t i = 0; i < t->n; i++) {
		const struct arg *a = &t->args[i];
		const char *why;

		if (a->kind == ARG_KIND_FLAG)
			*a->to.flag = false;
		if (!a->def)
			continue;
		snprintf(word, sizeof(word), "%s=%s (its default)", a->key, a->def);
		why = set_value(word, a, a->def);
		if (why)
			return why;
	}
	return NULL;
}

/* The next positional key not yet given, or -1 when all are taken. */
static int next_positional(const struct arg_table *t, size_t *p, u64 seen)
{
	while (*p < t->npositional) {
		int k = find_positional(t, (*p)++);

		if (k >= 0 && !(seen & (1ull << k)))
			return k;
	}
	return -1;
}

/* One word of the command line: which argument it gives, or a message. */
static const char *parse_word(const struct arg_table *t, const char *word, size_t *p, u64 *seen)
{
	const struct arg *a;
	const char *v = word;
	int k;

	if (arg_is_keyvalue(word) || find_key(t, word) >= 0) {
		k = find_key(t, word);
		if (k < 0)
			return bad(word, "unknown key");
		v = arg_value(word, t->args[k].key);
	} else {
		k = next_positional(t, p, *seen);
		if (k < 0)
			return t->npositional ? bad(word, "more than %zu positional arguments",
						    t->npositional)
					      : bad(word, "not key=value");
	}
	a = &t->args[k];
	if (*seen & (1ull << k))
		return bad(word, "%s is given twice", a->key);
	*seen |= 1ull << k;
	if (a->kind == ARG_KIND_FLAG) {
		if (v)
			return must_be(word, a);
		*a->to.flag = true;
		return NULL;
	}
	return set_value(word, a, v);
}

static const char *parse_words(const struct arg_table *t, int argc, char **argv)
{
	const char *why;
	size_t p = 0;
	u64 seen = 0;

	if (t->n > ARGS_MAX)
		return bad("", "%zu keys, the parser takes at most %d", t->n, ARGS_MAX);
	why = set_defaults(t);
	for (int i = 1; i < argc && !why; i++)
		why = parse_word(t, argv[i], &p, &seen);
	for (size_t i = 0; i < t->n && !why; i++)
		if (t->args[i].required && !(seen & (1ull << i)))
			why = missing(&t->args[i]);
	return why;
}

bool args_help_wanted(const struct arg_table *t, int argc, char **argv)
{
	static const char *const help_words[] = { "help", "--help", "-h" };

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->args[i].key, help_words[0]))
			return false;
	for (int i = 1; i < argc; i++)
		for (size_t w = 0; w < ARRAY_SIZE(help_words); w++)
			if (!strcmp(argv[i], help_words[w]))
				return true;
	return false;
}

const char *args_parse(const struct arg_table *t, int argc, char **argv)
{
	const char *why = parse_words(t, argc, argv);

	if (why)
		args_usage(t, argc > 0 ? argv[0] : "");
	return why;
}

static const char *metavar(const struct arg *a)
{
	static const char *const vars[] = {
		[ARG_KIND_UINT] = "=N",	     [ARG_KIND_SECONDS] = "=S", [ARG_KIND_LIST] = "=LIST",
		[ARG_KIND_ONE_OF] = "=NAME", [ARG_KIND_TEXT] = "=TEXT", [ARG_KIND_FLAG] = "",
	};

	return vars[a->kind];
}

#define USAGE_KEY_WIDTH 16

void args_usage(const struct arg_table *t, const char *prog)
{
	char line[MSG_SIZE], key[MSG_SIZE];

	printf("usage: %s", prog);
	for (size_t p = 0; p < t->npositional; p++)
		printf(" [%s", t->positional[p]);
	for (size_t p = 0; p < t->npositional; p++)
		printf("]");
	printf(" [key=value ...]\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct arg *a = &t->args[i];
		size_t at = 0;

		snprintf(key, sizeof(key), "%s%s", a->key, metavar(a));
		put_allowed(line, sizeof(line), &at, a);
		printf("  %-*s %s: %s%s%s%s\n", USAGE_KEY_WIDTH, key, a->help, line,
		       a->def ? ", default " : "", a->def ? a->def : "",
		       a->required ? ", required" : "");
	}
}
