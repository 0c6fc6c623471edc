/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's side of the lifecycle handshake: event names and the runner's answer line, parsed strictly. */
#include "lifecycle.h"

/* What the runner may answer: one kind per event, and the window's (LC_ANSWER_WINDOW). */
static const struct {
	const char *name;
	/* SEQ may be 0: reset to a first life's boot request, window to the first event's opening */
	bool seq_zero;
	/* the answer carries an event's facts, every one up to host_ns required */
	bool event_facts;
} answers[LC_ANSWER_WINDOW + 1] = {
	[LC_PAUSE] = { "pause", false, true },
	[LC_SAVE] = { "save", false, true },
	[LC_MIGRATE] = { "migrate", false, true },
	[LC_RESET] = { "reset", true, true },
	[LC_ANSWER_WINDOW] = { "window", true, false },
};

#define LC_DONE_WORD	"LIFECYCLE-DONE"
#define LC_MAX_WORDS	16
#define LC_MAX_WORD	48

const char *lc_event_name(enum lc_event kind)
{
	return kind <= LC_ANSWER_WINDOW ? answers[kind].name : "?";
}

static bool parse_dec(const char *s, u64 *out)
{
	u64 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		u64 digit = (u64)(*s - '0');

		if (!isdigit(*s) || v > (~0ull - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

/* The answer's key=value facts and where each goes. */
static u64 *fact_slot(struct lc_done *d, const char *key, size_t len)
{
	static const struct {
		const char *key;
		size_t off;
	} facts[] = {
		{ "duration_ns", offsetof(struct lc_done, duration_ns) },
		{ "qmp_downtime_ns", offsetof(struct lc_done, qmp_downtime_ns) },
		{ "total_ns", offsetof(struct lc_done, total_ns) },
		{ "overhead_ns", offsetof(struct lc_done, overhead_ns) },
		{ "host_req_ns", offsetof(struct lc_done, host_req_ns) },
		{ "host_ns", offsetof(struct lc_done, host_ns) },
		{ "vcpu_wait_ns", offsetof(struct lc_done, vcpu_wait_ns) },
		{ "before_wait_ns", offsetof(struct lc_done, before_wait_ns) },
		{ "stamp_wait_ns", offsetof(struct lc_done, stamp_wait_ns) },
		{ "after_wait_ns", offsetof(struct lc_done, after_wait_ns) },
		{ "after_stamp_wait_ns", offsetof(struct lc_done, after_stamp_wait_ns) },
		{ "counter", offsetof(struct lc_done, counter) },
		{ "tests", offsetof(struct lc_done, tests) },
		{ "failures", offsetof(struct lc_done, failures) },
		{ "skipped", offsetof(struct lc_done, skipped) },
		{ "run", offsetof(struct lc_done, run) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(facts); i++)
		if (strlen(facts[i].key) == len && !strncmp(facts[i].key, key, len))
			return (u64 *)((char *)d + facts[i].off);
	return NULL;
}

/* Split line at blanks into words of at most LC_MAX_WORD - 1 characters. */
static int split(const char *line, char words[][LC_MAX_WORD])
{
	int n = 0;

	while (*line) {
		size_t len = 0;

		while (*line == ' ')
			line++;
		if (!*line)
			break;
		if (n == LC_MAX_WORDS)
			return -1;
		while (line[len] && line[len] != ' ')
			len++;
		if (len >= LC_MAX_WORD)
			return -1;
		memcpy(words[n], line, len);
		words[n++][len] = '\0';
		line += len;
	}
	return n;
}

bool lc_parse_done(const char *line, struct lc_done *out)
{
	char words[LC_MAX_WORDS][LC_MAX_WORD];
	unsigned seen = 0, want = 0;
	struct lc_done d = { 0 };
	int n = split(line, words);
	u64 seq;

	if (n < 3 || strcmp(words[0], LC_DONE_WORD))
		return false;
	for (d.kind = 0; d.kind <= LC_ANSWER_WINDOW; d.kind++)
		if (!strcmp(words[1], lc_event_name(d.kind)))
			break;
	if (d.kind > LC_ANSWER_WINDOW || !parse_dec(words[2], &seq) || seq > 9999 ||
	    (!seq && !answers[d.kind].seq_zero))
		return false;
	d.seq = (unsigned)seq;
	for (int i = 3; i < n; i++) {
		char *eq = strchr(words[i], '=');
		u64 *slot = eq ? fact_slot(&d, words[i], (size_t)(eq - words[i])) : NULL;
		unsigned bit;

		if (!slot || !parse_dec(eq + 1, slot))
			return false;
		bit = 1u << ((size_t)((char *)slot - (char *)&d.duration_ns) / sizeof(u64));
		if (seen & bit)
			return false;
		seen |= bit;
	}
	/* facts after host_ns (vcpu_wait_ns, counter, ...) are never required */
	for (char *k = (char *)&d.duration_ns; answers[d.kind].event_facts && k <= (char *)&d.host_ns;
	     k += sizeof(u64))
		want = want << 1 | 1;
	if ((seen & want) != want)
		return false;
	*out = d;
	return true;
}
