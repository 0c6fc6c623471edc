/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A judgment's outcome as data: the checks it made, in order, each with
 * its figure, bands and sentence, and the context lines around them. A
 * judge fills a list and prints nothing; one printer writes the list
 * (report_checks(), lib/report.h); host tests and replay tools read the
 * entries. Nothing here prints or reads a clock: a judge includes this
 * header, not report.h.
 */
#ifndef VMTICK_CHECKS_H
#define VMTICK_CHECKS_H

#include "libc.h"

/*
 * A figure and the bands it must lie in, in 10^-scale units (scale 0:
 * integers; 1: one decimal, ...), an end BOUND_OPEN_LO / BOUND_OPEN_HI
 * where there is none. It holds when the value lies in a band (ends
 * included). Printed as "BOUND: name value unit lo..hi[ lo..hi]".
 */
#define BOUND_BANDS_MAX 2
#define BOUND_OPEN_LO	INT64_MIN
#define BOUND_OPEN_HI	INT64_MAX
struct bound_band {
	s64 lo, hi;
};
struct bounded {
	const char *name;
	const char *unit;
	unsigned scale;
	s64 value;
	unsigned nbands;
	struct bound_band band[BOUND_BANDS_MAX];
};
/* Whether b's value lies in one of its bands. */
bool bounded_holds(const struct bounded *b);

/* What an entry of a list is, and the line it becomes. */
enum check_kind {
	CHECK_BOUNDED, /* a figure in its bands: the BOUND line, then PASS or FAIL */
	CHECK_PLAIN,   /* a condition with no figure: PASS or FAIL (KFAIL for a known defect) */
	CHECK_SKIP,    /* a check not made, and why: SKIP */
	CHECK_INFO,    /* what a reader needs to weigh the checks: INFO */
	CHECK_RESULT,  /* a figure nothing bounds: RESULT */
};

/* A figure's name and a sentence at most this long; longer ones are cut. */
#define CHECK_NAME_MAX 96
#define CHECK_TEXT_MAX 768
/* A known defect's id ("host-kind/what") at most this long. */
#define CHECK_DEFECT_MAX 48

struct check {
	enum check_kind kind;
	/* CHECK_BOUNDED and CHECK_RESULT: the figure (b.name points at name) */
	struct bounded b;
	char name[CHECK_NAME_MAX];
	/* CHECK_PLAIN: its outcome; defect: a known host defect that makes it fail ("": none) */
	bool pass;
	char defect[CHECK_DEFECT_MAX];
	/* the sentence (a RESULT's: its value as printed), in the list's text store */
	const char *text;
};

/*
 * A list over the caller's storage: max entries and size bytes of text.
 * An entry that does not fit is counted in dropped, never lost silently:
 * the printer fails the run for it, and checks_all_hold() is false.
 */
struct checks {
	struct check *c;
	unsigned n, max;
	char *text;
	size_t used, size;
	unsigned dropped;
};

void checks_init(struct checks *l, struct check *store, unsigned max, char *text, size_t size);
/* Empty the list again (its storage kept). */
void checks_clear(struct checks *l);

/*
 * Append a bounded check (b's name copied); returns whether it holds. The
 * sentence says what was checked, the figure, the bound and where the
 * bound came from.
 */
bool checks_bounded(struct checks *l, const struct bounded *b, const char *fmt, ...) __printf(3, 4);
bool checks_vbounded(struct checks *l, const struct bounded *b, const char *fmt, va_list ap);
/* The common case: an integer figure in one band lo..hi. */
bool checks_count(struct checks *l, const char *name, const char *unit, s64 value, s64 lo, s64 hi,
		  const char *fmt, ...) __printf(7, 8);
/* Append a condition without a figure; returns pass. */
bool checks_plain(struct checks *l, bool pass, const char *fmt, ...) __printf(3, 4);
/* The same, failing by a known host defect (report_kfail's defect id) when it fails. */
bool checks_kfail(struct checks *l, bool pass, const char *defect, const char *fmt, ...)
	__printf(4, 5);
void checks_skip(struct checks *l, const char *fmt, ...) __printf(2, 3);
void checks_info(struct checks *l, const char *fmt, ...) __printf(2, 3);
/* A figure with no bound: name, unit, and its value as printed. */
void checks_result(struct checks *l, const char *name, const char *unit, const char *fmt, ...)
	__printf(4, 5);

/* Whether an entry passes: a check that holds, or any line that is no check. */
bool check_holds(const struct check *c);
/* Whether every entry holds and none was dropped. */
bool checks_all_hold(const struct checks *l);
/* The first entry naming figure name (bounded or result), or NULL. */
const struct check *checks_find(const struct checks *l, const char *name);
/* How many entries are checks (bounded or plain) that fail. */
unsigned checks_failed(const struct checks *l);
/* The same among the entries from first on (what one judge appended). */
unsigned checks_failed_from(const struct checks *l, unsigned first);

/*
 * When an engine prints the record its judgment was made from, for the
 * host's tools to judge again (record= of every engine): on a failed
 * check (the default), always, or never.
 */
enum record_when {
	RECORD_ON_FAIL,
	RECORD_ALWAYS,
	RECORD_NEVER,
	RECORD_WHEN_NR,
};
/* record='s values by enum record_when: "fail", "always", "never". */
extern const char *const record_when_names[RECORD_WHEN_NR];

/* Whether to print the record, by record= and whether a check failed. */
static inline bool record_wanted(enum record_when when, bool failed)
{
	return when == RECORD_ALWAYS || (when == RECORD_ON_FAIL && failed);
}

#endif
