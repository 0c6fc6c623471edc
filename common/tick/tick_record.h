/* SPDX-License-Identifier: GPL-2.0-only */
/* A timer-tick run's record as text: the guest prints it in its log, the host reads it back to
 * judge it again. */
#ifndef VMTICK_TICK_RECORD_H
#define VMTICK_TICK_RECORD_H

#include "tick_judge.h"

/*
 * Lines "TICK-RECORD: ...": a header (the plan and the counts), the ticks
 * as each one's distance from the one before less a period ("at", signed
 * counter ticks, the first from the anchor), how long interrupts stayed
 * off after each ("op", counter ticks; optional), the steal time's growth per
 * tick ("st", ns), the host's evidence ("host", "hp" v,o,s per part, "hw"
 * a:b:v,o,s per window asked about) and "end". scripts/tick-judge and host-tests/test_tick_judge.c
 * read them.
 */
#define TICK_RECORD_PREFIX "TICK-RECORD: "
/* Windows a record may hold (the engine asks about at most 1024). */
#define TICK_RECORD_WINDOWS_MAX 4096

void tick_record_print(const struct tick_record *r);

/* What a parsed record owns (the host's side): free with tick_record_free(). */
struct tick_record_text {
	struct tick_record rec;
	char source[32];
	char why_none[160];
	u64 *at, *steal, *open;
	struct host_part *part;
	struct tick_window *win;
};

/*
 * Parse the record from a log's text (other lines are skipped): NULL, or
 * what was wrong. The arrays come from alloc (malloc on the host).
 */
const char *tick_record_parse(const char *log, struct tick_record_text *t);
void tick_record_free(struct tick_record_text *t);

#endif
