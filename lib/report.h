/* SPDX-License-Identifier: GPL-2.0-only */
/* How a test states outcomes: report, skip, info, prefixes, results and the final summary. */
#ifndef VMTICK_REPORT_H
#define VMTICK_REPORT_H

#include "libc.h"
#include "fixed.h"
#include "checks.h"

/*
 * Exit codes a kernel hands to arch_exit(); the runner reads them back as
 * QEMU's status (code << 1) | 1.
 *   EXIT_PASS  every check passed (at least one check was reported)
 *   EXIT_FAIL  a check failed, the test's input was bad, or it crashed
 *   EXIT_SKIP  nothing could be checked here; every skip said why
 */
enum {
	EXIT_PASS = 0,
	EXIT_FAIL = 1,
	EXIT_SKIP = 77,
};

/*
 * Output lines, one per call, each with a fixed tag the runner parses:
 *   "PASS: prefix: message"    report() with a true condition
 *   "FAIL: prefix: message"    report() with a false condition
 *   "SKIP: prefix: reason"     report_skip()
 *   "INFO: prefix: message"    report_info()
 *   "KFAIL: prefix: message (known defect of this host: ID)"  report_kfail()
 *   "RESULT: test.name value unit"  report_result(), machine-readable figures
 *   "BOUND: test.name value unit lo..hi[ lo..hi]"  report_bounded(), then its
 *                                   PASS/FAIL line: a figure and the bands it
 *                                   had to lie in (an open end: -inf, inf)
 *   "SUMMARY: N tests, F unexpected failures, S skipped[, K known failures]"
 *                                   report_summary(); the last part only when K > 0
 */
bool report(bool pass, const char *fmt, ...) __printf(2, 3);
void report_skip(const char *fmt, ...) __printf(1, 2);
void report_info(const char *fmt, ...) __printf(1, 2);
/* A figure: name is dotted (e.g. "kvmclock.raw.cycles_per_read"), value printed with %llu or as fixed point. */
/*
 * A check that a known host defect makes fail. The host says which defects
 * it has (report_known_defects(), from the test's arguments): a failing
 * check whose defect is listed is a KFAIL line, counted apart and not a
 * failure (the exit code stays EXIT_PASS when nothing else failed); on
 * any other host it is an ordinary FAIL. A pass is a PASS wherever it
 * happens, with an INFO line when the host was said to have the defect.
 * defect is "host-kind/what", e.g. "kvm-pvm/tsc-adjust" (docs/clocks.md).
 */
bool report_kfail(bool pass, const char *defect, const char *fmt, ...) __printf(3, 4);
/*
 * The host kinds whose defects apply to this run, comma-separated (e.g.
 * "kvm-pvm"); a defect "kind/what" is known when kind is in the list.
 * The list is kept, not copied. NULL or "" (the default): none.
 */
void report_known_defects(const char *kinds);
unsigned report_known_failures(void);
void report_result(const char *name, const char *unit, const char *fmt, ...) __printf(3, 4);

/*
 * One bounded check: a figure (name as a RESULT's: the BOUND line is its
 * RESULT too), its unit, its value and the bands it must lie in, in
 * 10^-scale units (scale 0: integers; 1: one decimal, ...), an end
 * BOUND_OPEN_LO / BOUND_OPEN_HI where there is none. It passes when the
 * value lies in a band (ends included). Prints the BOUND line, then the
 * check's sentence as report() does, both at once; returns the outcome.
 * The report and results-to-json read the figure and its bands from the
 * BOUND line, never from the sentence (docs/report.md).
 */
bool report_bounded(const struct bounded *b, const char *fmt, ...) __printf(2, 3);
bool report_vbounded(const struct bounded *b, const char *fmt, va_list ap);
/*
 * The common case: an integer figure (scale 0) in one band lo..hi, e.g.
 * warps, a count bounded by 0..0.
 */
bool report_bounded_count(const char *name, const char *unit, s64 count, s64 lo, s64 hi,
			  const char *fmt, ...) __printf(6, 7);
/* A band's end or a value in 10^-scale units as text, an open end -inf or inf (as BOUND lines). */
const char *bound_text(char *buf, size_t size, s64 v, unsigned scale, enum fixed_sign sign);
/*
 * The one printer of a judgment's list (lib/checks.h): each entry as its
 * line, in order (a bounded check as report_bounded(), a plain one as
 * report() or report_kfail(), skips, infos and results as theirs), then a
 * FAIL for entries the list had no room for.
 */
void report_checks(const struct checks *l);
void report_prefix_push(const char *prefix);
void report_prefix_pushf(const char *fmt, ...) __printf(1, 2);
void report_prefix_pop(void);
/* A fatal error of the test itself (bad argument, missing device): FAIL line, then summary and exit. */
void report_abort(const char *fmt, ...) __printf(1, 2) __noreturn;
/* The counts so far, for a test that hands them to its next life (a reset, carried by the runner). */
void report_counts(unsigned *tests, unsigned *failures, unsigned *skipped);
/* Counts reported in an earlier life of this guest (before a reset), added to this one's. */
void report_carry(unsigned tests, unsigned failures, unsigned skipped);
/* Print the SUMMARY line and return the exit code (never EXIT_PASS when nothing was reported). */
int report_summary(void);
/* report_summary() then exit with its code. */
void report_exit(void) __noreturn;
unsigned report_failures(void);

#endif
