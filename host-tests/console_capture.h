/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's console on the host: what a call prints, captured, and the asserts on its lines. */
/*
 * What: capture() runs a function with stdout sent to a temporary file
 * and hands back what it printed (lib/report.c writes its PASS/FAIL/
 * INFO/RESULT lines with printf, which the host's build leaves glibc's);
 * has_line(), lacks(), HAS_LINE_WITH() and EXACTLY() assert on those
 * lines and, when one fails, print the whole capture.
 * Why: every test of a report's wording needs the same capture and the
 * same line matching; one copy keeps their messages alike.
 * How: header-only (static inline), so that a test includes it and no
 * LIBSRC tag or Makefile rule is needed; include it after <cmocka.h>,
 * whose fail_msg() and assert_*() it uses.
 */
#ifndef VMTICK_CONSOLE_CAPTURE_H
#define VMTICK_CONSOLE_CAPTURE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Room for one capture, the terminating NUL included; what does not fit is cut. */
#define CAPTURE_MAX 8192

/* What a capture runs: arg is the scenario's own (a table row, or NULL). */
typedef void (*capture_fn)(const void *arg);

/* Run fn(arg) with stdout in a temporary file; out gets what it printed, NUL-terminated. */
static inline void capture(capture_fn fn, const void *arg, char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	fn(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

/* A whole line of out is exactly line. */
static inline void has_line(const char *out, const char *line)
{
	const char *at = out;
	size_t len = strlen(line);

	for (; (at = strstr(at, line)); at++)
		if ((at == out || at[-1] == '\n') && at[len] == '\n')
			return;
	fail_msg("no line\n  %s\nin:\n%s", line, out);
}

/* text is nowhere in out. */
static inline void lacks(const char *out, const char *text)
{
	if (strstr(out, text))
		fail_msg("'%s' should not be in:\n%s", text, out);
}

/* A line that starts with start and holds each of the other fragments, in order. */
static inline void has_line_with(const char *out, const char *start, const char *const *parts,
				 size_t n)
{
	for (const char *line = out; *line; line = strchr(line, '\n') + 1) {
		const char *end = strchr(line, '\n'), *at = line + strlen(start);
		size_t i = 0;

		if (!end)
			break;
		if (strncmp(line, start, strlen(start)))
			continue;
		for (; i < n && (at = strstr(at, parts[i])) && at < end; i++)
			at += strlen(parts[i]);
		if (i == n)
			return;
	}
	fail_msg("no line starting '%s' with the fragments%s%s%s in:\n%s", start, n ? " '" : "",
		 n ? parts[0] : "", n ? "'..." : "", out);
}

#define HAS_LINE_WITH(out, start, ...)                                                             \
	do {                                                                                       \
		static const char *const parts_[] = { __VA_ARGS__ };                               \
		has_line_with(out, start, parts_, sizeof(parts_) / sizeof(parts_[0]));             \
	} while (0)

/* Every line of want, and no other, in order. */
static inline void exactly(const char *out, const char *const *want, size_t n)
{
	char expect[CAPTURE_MAX] = "";

	for (size_t i = 0; i < n; i++) {
		strncat(expect, want[i], sizeof(expect) - strlen(expect) - 1);
		strncat(expect, "\n", sizeof(expect) - strlen(expect) - 1);
	}
	if (strcmp(out, expect))
		fail_msg("got:\n%swant:\n%s", out, expect);
}

#define EXACTLY(out, ...)                                                                          \
	do {                                                                                       \
		static const char *const want_[] = { __VA_ARGS__ };                                \
		exactly(out, want_, sizeof(want_) / sizeof(want_[0]));                             \
	} while (0)

#endif
