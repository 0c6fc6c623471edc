/* SPDX-License-Identifier: GPL-2.0-only */
/* How a test states outcomes: report, skip, info, prefixes, results and the final summary. */
#ifndef VMTICK_REPORT_H
#define VMTICK_REPORT_H

#include "libc.h"

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
 *   "RESULT: test.name value unit"  report_result(), machine-readable figures
 *   "SUMMARY: N tests, F unexpected failures, S skipped"   report_summary()
 */
bool report(bool pass, const char *fmt, ...) __printf(2, 3);
void report_skip(const char *fmt, ...) __printf(1, 2);
void report_info(const char *fmt, ...) __printf(1, 2);
/* A figure: name is dotted (e.g. "kvmclock.raw.cycles_per_read"), value printed with %llu or as fixed point. */
void report_result(const char *name, const char *unit, const char *fmt, ...) __printf(3, 4);
void report_prefix_push(const char *prefix);
void report_prefix_pushf(const char *fmt, ...) __printf(1, 2);
void report_prefix_pop(void);
/* A fatal error of the test itself (bad argument, missing device): FAIL line, then summary and exit. */
void report_abort(const char *fmt, ...) __printf(1, 2) __noreturn;
/* Print the SUMMARY line and return the exit code (never EXIT_PASS when nothing was reported). */
int report_summary(void);
/* report_summary() then exit with its code. */
void report_exit(void) __noreturn;
unsigned report_failures(void);

#endif
