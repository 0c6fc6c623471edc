/* SPDX-License-Identifier: GPL-2.0-only */
/* One lifecycle event's record as text: the guest prints it in its log, the host reads it back to judge it again. */
#ifndef VMTICK_LIFECYCLE_RECORD_H
#define VMTICK_LIFECYCLE_RECORD_H

#include "lifecycle_state.h"

/*
 * Lines "LC-RECORD: TAG FIELD V1 V2 ...": "begin FORMAT", then per part of
 * the record (TAG "rec", "done", "answer", "edge0"/"edge1", "cpuN",
 * "cpuN.tS", "nowN", "run", "runK", and "arch" for the arch's description)
 * one line per field that is not all zeros, arrays flattened and their
 * trailing zeros left off; "name WHAT TEXT" for the names (clocks, slots,
 * the stopped flag, the seconds clock, the counter's register) and the
 * edges' why-nots; "end". scripts/lifecycle-judge and
 * host-tests/test_lifecycle_replay.c read them.
 */
#define LC_RECORD_PREFIX "LC-RECORD: "
#define LC_RECORD_FORMAT 1
#define LC_RECORD_NAME_MAX 48
#define LC_RECORD_WHY_MAX 160


/* Print r's record as LC-RECORD lines. */
void lc_record_print(const struct lc_record *r);

/*
 * The arch's description a record carries: what the judgment reads of
 * struct lc_arch, as numbers (its names are "name" lines).
 */
struct lc_arch_desc {
	u32 nclocks, nslots, periodic_kind;
	u32 slot_use[LC_MAX_SLOTS];
	u64 clock_hz[LC_MAX_CLOCKS];
	u32 during[LC_MAX_CLOCKS][LC_NR_EVENTS];
	u32 derived, derived_clock, derived_counter;
	u32 counter_write, counter_view;
};

/* What a parsed record owns (the host's side): the record, its arch and the names. */
struct lc_record_text {
	struct lc_record rec;
	struct lc_arch_desc desc;
	struct lc_arch arch;
	struct lc_clock clocks[LC_MAX_CLOCKS];
	struct lc_derived derived;
	struct lc_counter_write counter_write;
	struct lc_rtc rtc;
	char clock_name[LC_MAX_CLOCKS][LC_RECORD_NAME_MAX];
	char slot_name[LC_MAX_SLOTS][LC_RECORD_NAME_MAX];
	char flag_name[LC_RECORD_NAME_MAX], rtc_name[LC_RECORD_NAME_MAX];
	char rtc_key[LC_RECORD_NAME_MAX], counter_reg[LC_RECORD_NAME_MAX];
	char counter_view[LC_RECORD_NAME_MAX];
	char why[2][LC_RECORD_WHY_MAX];
	bool has_rtc;
};

/*
 * Parse the first record in text at or after *pos (other lines are
 * skipped), into t: NULL, or what was wrong. *pos moves past its "end" line,
 * for the next event's record; *found is false when there was no record
 * left (and NULL is returned).
 */
const char *lc_record_parse(const char *text, size_t *pos, struct lc_record_text *t, bool *found);

#endif
