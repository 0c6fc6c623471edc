/* SPDX-License-Identifier: GPL-2.0-only */
/* A call that may end the guest's life (report_exit, report_abort), run in a child: what it printed
 * and its exit status. */
/*
 * What: child_run() runs a function in a forked child with stdout into a
 * pipe and hands back what it printed and the status it exited with; a
 * function that returns has the child exit with report_summary()'s code,
 * as the guest's main() would.
 * Why: lib/report.c ends the guest with exit(), and keeps its counters for
 * the whole run: a test of what aborts, or of the summary, needs a process
 * of its own per case.
 * child_expect() runs one case so and checks its exit status and, where
 * given, one line of what it printed (console_capture.h's has_line()).
 * How: header-only (static inline), like console_capture.h; a test that
 * includes it links lib/report.c (LIBSRC), whose report_summary() it calls.
 */
#ifndef VMTICK_CHILD_CAPTURE_H
#define VMTICK_CHILD_CAPTURE_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "console_capture.h"

#define CHILD_OUT_MAX 8192

int report_summary(void);

struct child_outcome {
	char out[CHILD_OUT_MAX];
	int code;
};

/* What a child runs: arg is the scenario's own (a table row, or NULL). */
typedef void (*child_fn)(const void *arg);

static inline void child_run(child_fn fn, const void *arg, struct child_outcome *o)
{
	int fds[2];
	ssize_t n, len = 0;
	int status;
	pid_t pid;

	fflush(stdout);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		fn(arg);
		status = report_summary();
		fflush(stdout);
		_exit(status);
	}
	close(fds[1]);
	while ((n = read(fds[0], o->out + len, sizeof(o->out) - 1 - (size_t)len)) > 0)
		len += n;
	o->out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	o->code = WEXITSTATUS(status);
}

/* A case in a child: it exits with want_code and, unless want_line is NULL, printed that line. */
static inline void child_expect(child_fn fn, const void *arg, const char *what, int want_code,
				const char *want_line)
{
	struct child_outcome o;

	child_run(fn, arg, &o);
	if (o.code != want_code)
		fail_msg("%s: exit status %d, want %d; printed:\n%s", what, o.code, want_code,
			 o.out);
	if (want_line)
		has_line(o.out, want_line);
}

#endif
