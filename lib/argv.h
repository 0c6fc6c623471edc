/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel command line as argv, and the table-driven parser every test reads it with. */
#ifndef VMTICK_ARGV_H
#define VMTICK_ARGV_H

#include "libc.h"
#include "report.h"

#define MAX_ARGS 64

/* Split cmdline at spaces into argv (argv[0] = program name); returns argc. */
int setup_args(const char *progname, const char *cmdline, char **argv, int max);

/*
 * The number readers under the table, quiet: 0 and *out set, or -1.
 * parse_u64: the whole text as a number, decimal, 0x hex or 0 octal.
 * parse_seconds_ns: SECONDS[.FRACTION] (decimal, at most 9 fraction
 * digits) as nanoseconds; *has_fraction (may be NULL) says if a dot was given.
 */
int parse_u64(const char *text, u64 *out);
int parse_seconds_ns(const char *text, u64 *ns_out, bool *has_fraction);

/* If arg is "key=value", return value when key matches, else NULL. */
const char *arg_value(const char *arg, const char *key);
/*
 * A comma-separated list of names[0..n) as bits (bit i for names[i]):
 * how many words it has, or -1 for an empty list or a word not in names.
 */
int arg_names_bits(const char *list, const char *const *names, size_t n, unsigned *bits);
/*
 * Whether a list argument's bits hold names[i] (bit i): a kernel's steps
 * are an enum of indices into its names[], never bits of their own.
 */
static inline bool arg_listed(unsigned bits, unsigned i)
{
	return bits & (1u << i);
}
/* Whether word is one of the comma-separated words of list. */
bool arg_in_list(const char *word, const char *list);

enum arg_kind {
	ARG_KIND_UINT,		/* parse_u64() in [lo, hi] into *to.u64 */
	ARG_KIND_SECONDS,	/* parse_seconds_ns() in [lo, hi] ns into *to.u64 */
	ARG_KIND_LIST,		/* comma-separated names[]: bit i for names[i] in *to.bits */
	ARG_KIND_ONE_OF,	/* one of names[]: its index in *to.index */
	ARG_KIND_TEXT,		/* non-empty text in *to.text, then check()ed */
	ARG_KIND_FLAG,		/* the key alone, no '=': *to.flag = true */
};

/*
 * One argument. def is the default as it would be written on the command
 * line ("1000", "0.5", "hpet,pmtimer", "none"), parsed like one; NULL
 * leaves *to as the caller set it (a flag: false). check (optional) runs
 * after *to is set: NULL, or what the value must be, for the message. A
 * text's check must refuse "" with that too: the usage asks it so.
 */
struct arg {
	const char *key;
	enum arg_kind kind;
	union {
		u64 *u64;
		unsigned *bits;
		unsigned *index;
		const char **text;
		bool *flag;
	} to;
	u64 lo, hi;
	const char *const *names;
	size_t nnames;
	const char *def;
	const char *help;
	const char *(*check)(const char *text);
	bool *fraction;		/* ARG_KIND_SECONDS, optional: whether the value had a dot */
	bool required;
};

/* A default from a numeric macro: ARG_DEFAULT(LC_CATCHUP_MAX) is "16". */
#define ARG_DEFAULT(x) ARG_DEFAULT_(x)
#define ARG_DEFAULT_(x) #x

#define ARG_UINT(k, p, l, h, d, hl)                                                    \
	{ .key = (k), .kind = ARG_KIND_UINT, .to.u64 = (p), .lo = (l), .hi = (h), .def = (d), \
	  .help = (hl) }
#define ARG_SECONDS(k, p, l, h, d, hl)                                                    \
	{ .key = (k), .kind = ARG_KIND_SECONDS, .to.u64 = (p), .lo = (l), .hi = (h), .def = (d), \
	  .help = (hl) }
/*
 * host_time=SECONDS[.FRACTION]: the host's time of day when QEMU started
 * (date +%s.%N), the runner's {host_time}, in ns from the epoch; *f says
 * whether it had a fraction (a whole second's rounding to allow, or not).
 */
#define ARG_HOST_TIME(p, f, l, hl)                                                      \
	{ .key = "host_time", .kind = ARG_KIND_SECONDS, .to.u64 = (p), .lo = (l),          \
	  .hi = UINT64_MAX, .fraction = (f), .help = (hl) }
#define ARG_LIST(k, p, n, d, hl)                                                  \
	{ .key = (k), .kind = ARG_KIND_LIST, .to.bits = (p), .names = (n),        \
	  .nnames = ARRAY_SIZE(n), .def = (d), .help = (hl) }
#define ARG_ONE_OF(k, p, n, d, hl)                                                \
	{ .key = (k), .kind = ARG_KIND_ONE_OF, .to.index = (p), .names = (n),     \
	  .nnames = ARRAY_SIZE(n), .def = (d), .help = (hl) }
#define ARG_TEXT(k, p, c, d, hl) \
	{ .key = (k), .kind = ARG_KIND_TEXT, .to.text = (p), .check = (c), .def = (d), .help = (hl) }
#define ARG_FLAG(k, p, hl) { .key = (k), .kind = ARG_KIND_FLAG, .to.flag = (p), .help = (hl) }

/*
 * A test's arguments: key=value in any order, each at most once; words
 * without '=' fill positional[] in order, skipping keys already given.
 */
struct arg_table {
	const struct arg *args;
	size_t n;
	const char *const *positional;
	size_t npositional;
};

#define ARG_TABLE(a) { .args = (a), .n = ARRAY_SIZE(a) }
#define ARG_TABLE_POSITIONAL(a, p) \
	{ .args = (a), .n = ARRAY_SIZE(a), .positional = (p), .npositional = ARRAY_SIZE(p) }

/*
 * Set the defaults, then parse argv[1..argc). NULL when all is well;
 * otherwise prints the usage (from the table) and returns the one message
 * (a static buffer): "bad argument '<arg>': <what is wrong>", or for a
 * required key left out "missing <key>=: <key> is required (<what it takes>)".
 */
const char *args_parse(const struct arg_table *t, int argc, char **argv);
/* The usage text: one line per argument with its help, range and default. */
void args_usage(const struct arg_table *t, const char *prog);
/*
 * Whether a word of argv[1..argc) is "help" (or --help, -h): the user asks
 * for the usage. Never for a table with a key of that name.
 */
bool args_help_wanted(const struct arg_table *t, int argc, char **argv);

/*
 * On "help", print the usage and end the test as a SKIP: nothing was run,
 * and nothing failed. Returns otherwise. args_parse_or_abort() calls it; a
 * test that calls args_parse() itself calls it first.
 */
static inline void args_help_exit(const struct arg_table *t, int argc, char **argv)
{
	if (!args_help_wanted(t, argc, argv))
		return;
	args_usage(t, argc > 0 ? argv[0] : "");
	report_skip("usage printed, nothing run");
	report_exit();
}

/* args_help_exit(), then args_parse() and report_abort() with its message on a bad argument. */
static inline void args_parse_or_abort(const struct arg_table *t, int argc, char **argv)
{
	const char *why;

	args_help_exit(t, argc, argv);
	why = args_parse(t, argc, argv);
	if (why)
		report_abort("%s", why);
}

#endif
