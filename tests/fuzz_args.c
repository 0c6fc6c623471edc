// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for lib/argv.c: arbitrary bytes as a command line
 * (longer than the 4 KiB kept, too) split by setup_args() with a max taken
 * from the input, then every word through parse_u64, parse_s64,
 * parse_seconds_ns, arg_is_keyvalue and arg_value. Results are checked
 * against what the words say: a u64 that parsed equals glibc's strtoull of
 * it, a key=value's value is what follows the first '='. The parsers' error
 * messages go to stdout, which is sent to /dev/null.
 */
/* LIBSRC: lib/argv.c lib/strto.c lib/string.c lib/printf.c */
/* FUZZFLAGS: -max_len=9000 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_shim.h"

#define MAX_ARGS 64
#define NSEC_PER_SEC 1000000000ULL

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
	s64 s;
	bool fraction;

	if (!parse_u64("u", word, &u) && (u != strtoull(word, NULL, 0) || !isdigit(word[0])))
		abort();
	if (!parse_s64("s", word, &s) && s != strtoll(word, NULL, 0))
		abort();
	/* A whole number of seconds is that number times 10^9. */
	if (!parse_seconds_ns("t", word, &ns, &fraction) && !fraction &&
	    ns != strtoull(word, NULL, 10) * NSEC_PER_SEC)
		abort();
}

static void check_keyvalue(const char *word)
{
	const char *eq = strchr(word, '=');
	char key[64];

	if (!arg_is_keyvalue(word))
		return;
	if (!eq || (size_t)(eq - word) >= sizeof(key))
		return;
	memcpy(key, word, eq - word);
	key[eq - word] = '\0';
	if (arg_value(word, key) != eq + 1)
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
	free(line);
	return 0;
}
