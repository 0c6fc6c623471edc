// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for lib/argv.c: arbitrary bytes as a command line
 * (longer than the 4 KiB kept, too) split by setup_args() with a max taken
 * from the input, then every word through parse_u64, parse_seconds_ns and
 * arg_value, and the whole argv through args_parse() with a table of every
 * kind and positional keys. Results are checked against what the words
 * say: a u64 that parsed equals glibc's strtoull of it, a key=value's value
 * is what follows the first '=', a parsed table holds values inside its
 * ranges and a message starts "bad argument '". The usage goes to stdout,
 * which is sent to /dev/null.
 */
/* LIBSRC: lib/argv.c lib/strto.c lib/string.c lib/printf.c */
/* FUZZFLAGS: -max_len=9000 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_shim.h"
#include "../lib/argv.h"
#include "../lib/units.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void check_numbers(const char *word)
{
	u64 u, ns;
	bool fraction;

	if (!parse_u64(word, &u) && (u != strtoull(word, NULL, 0) || word[0] < '0' || word[0] > '9'))
		abort();
	/* A whole number of seconds is that number times 10^9. */
	if (!parse_seconds_ns(word, &ns, &fraction) && !fraction &&
	    ns != strtoull(word, NULL, 10) * NSEC_PER_SEC)
		abort();
}

static void check_keyvalue(const char *word)
{
	const char *eq = strchr(word, '=');
	char key[64];

	if (!eq || eq == word || (size_t)(eq - word) >= sizeof(key))
		return;
	memcpy(key, word, eq - word);
	key[eq - word] = '\0';
	if (arg_value(word, key) != eq + 1)
		abort();
}

static struct {
	u64 loops, t_ns;
	unsigned phases, fault;
	const char *text;
	bool flag;
} o;

static const char *const names[] = { "a", "bb", "c" };

static const struct arg table_args[] = {
	ARG_UINT("loops", &o.loops, 1, 1000, "10", "n"),
	ARG_SECONDS("t", &o.t_ns, 1, 5000000000ULL, "0.5", "s"),
	ARG_LIST("phases", &o.phases, names, "a,bb", "l"),
	ARG_ONE_OF("fault", &o.fault, names, "a", "o"),
	ARG_TEXT("text", &o.text, NULL, NULL, "t"),
	ARG_FLAG("flag", &o.flag, "f"),
};
static const char *const positional[] = { "loops", "t" };
static const struct arg_table table = ARG_TABLE_POSITIONAL(table_args, positional);

/* The whole argv through the table: in range when taken, the one wording when not. */
static void check_table(int argc, char **argv)
{
	const char *why;

	o.text = NULL;
	why = args_parse(&table, argc, argv);
	if (why) {
		if (strncmp(why, "bad argument '", 14))
			abort();
		return;
	}
	if (o.loops < 1 || o.loops > 1000 || o.t_ns < 1 || o.t_ns > 5000000000ULL || !o.phases ||
	    o.phases > 7 || o.fault > 2 || (o.text && !o.text[0]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1];
	char *line;
	int max, argc;

	if (!size)
		return 0;
	max = data[0] % (MAX_ARGS + 1);
	line = malloc(size);
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';
	/* The whole line, spaces and all, must not upset the parsers either. */
	check_numbers(line);
	argc = setup_args("fuzz", line, argv, max);
	if (argc < 0 || (max > 0 && (argc >= max || argv[argc])))
		abort();
	for (int i = 1; i < argc; i++) {
		if (!argv[i][0] || strpbrk(argv[i], " \t\n"))
			abort();
		check_numbers(argv[i]);
		check_keyvalue(argv[i]);
	}
	if (argc > 0)
		check_table(argc, argv);
	free(line);
	return 0;
}
