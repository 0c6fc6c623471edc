/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel command line as argv, and helpers that read numbers from it and reject garbage. */
#ifndef VMTICK_ARGV_H
#define VMTICK_ARGV_H

#include "libc.h"

#define MAX_ARGS 64

/* Split cmdline at spaces into argv (argv[0] = program name); returns argc. */
int setup_args(const char *progname, const char *cmdline, char **argv, int max);

/*
 * Parse a whole string as a number. They return 0 on success, or -1 after
 * printing "<what>: '<text>' is not a number" / "... is out of range"
 * (what names the argument for the user).
 */
int parse_u64(const char *what, const char *text, u64 *out);
int parse_s64(const char *what, const char *text, s64 *out);
/* "12", "1.5", "1700000000.123456789": value in nanoseconds (seconds-based input). */
/* parse_u64, then lo <= value <= hi, else "<what>: '<text>' must be lo to hi" and -1. */
int parse_u64_in(const char *what, const char *text, u64 lo, u64 hi, u64 *out);
int parse_seconds_ns(const char *what, const char *text, u64 *ns_out, bool *has_fraction);

/*
 * If arg is "key=value", return value when key matches, else NULL. Use
 * arg_is_keyvalue() to tell key=value arguments from positional ones.
 */
const char *arg_value(const char *arg, const char *key);
bool arg_is_keyvalue(const char *arg);

/* The index in names[0..n) of the word of len characters at word, or -1. */
int arg_word_index(const char *const *names, size_t n, const char *word, size_t len);
/*
 * A comma-separated list of names[0..n) as bits (bit i for names[i]) in
 * *bits. NULL when it is one, else what is wrong, for the caller to report:
 * "<what>: 'x' is not one of a, b, c" or "<what>: empty list" (a static
 * buffer, until the next call).
 */
const char *arg_word_list(const char *what, const char *text, const char *const *names, size_t n,
			  unsigned *bits);

#endif
