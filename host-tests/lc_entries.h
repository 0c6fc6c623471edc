/* SPDX-License-Identifier: GPL-2.0-only */
/* A judgment's entries (lib/checks.h) held to what a host test's case wants, not the words. */
/*
 * What: a case lists what it wants of the judgment's list: a bounded check
 * by its figure's name (the nth of that name: a clock's two "step" checks)
 * with its unit, value, bands and outcome; a RESULT by name with its value
 * as printed; a plain check (no figure) by its rank among the plain checks,
 * PASS, FAIL or KFAIL (failing with a known-defect id); an INFO or SKIP by
 * its rank; a figure that must not be there, or with no name a plain check
 * (WANT_ABSENT: the check not made). Any want may name numbers its
 * entry's sentence must mention (.mentions = {"1071.240", "-4200.000"}),
 * each as a whole number: "5000.000" is not in "15000.0001" nor "-5000.000",
 * a number inside a word ("cpu0", "x86") is none, a '+' is no part of one;
 * a number named k times must be there k times at least ("vCPU 0: set 0
 * times": {"0", "0"}), and with .mentions_only no other number may be.
 * Where numbers collide (the vCPU's and a count's), naming every number of
 * the sentence holds each: any one changed leaves one of them short.
 * lc_expect() holds the list to the case, lc_expect_exactly() to nothing
 * else, in order. A failure names the case and the check, with what the
 * entry holds (a mention: the number and the sentence), and prints the list.
 * Why: a sentence may be reworded and the judgment stays the same; the
 * figure, its bound and the verdict are what the judgment is, and a figure
 * the sentence alone carries (the worst vCPU, the wait it was allowed) is
 * held as a number, never by the words around it. A want that finds no
 * entry fails the test: a check the judgment stopped making never passes a
 * case by its absence. Every INFO and SKIP the list holds must be one the
 * case names, as a check not made is said in one.
 * How: header-only (static inline), after <cmocka.h>; the bands' ends are
 * in the figure's 10^-scale units (a figure in ms: ns), as lib/checks.h.
 */
#ifndef VMTICK_HOST_LC_ENTRIES_H
#define VMTICK_HOST_LC_ENTRIES_H

#include <stdio.h>
#include <string.h>
#include "../lib/checks.h"
#include "../lib/report.h"

enum want_kind {
	WANT_END,    /* after a case's last want (zero: the rest of its array) */
	WANT_PASS,   /* a check that holds: bounded (by name) or plain (by rank) */
	WANT_FAIL,   /* one that fails, naming no known defect */
	WANT_KFAIL,  /* a plain check that fails by the known defect `defect` */
	WANT_RESULT, /* a figure nothing bounds, its value as printed `result` */
	WANT_INFO,   /* the nth INFO */
	WANT_SKIP,   /* the nth SKIP */
	WANT_ABSENT, /* no nth entry of figure `name` (no name: no nth plain check) */
};

#define WANT_MENTIONS_MAX 12

struct want {
	enum want_kind kind;
	const char *name; /* the figure; NULL: a plain check, an INFO or a SKIP, by rank */
	unsigned nth;	  /* which of the entries of that name (or rank), from 0 */
	const char *unit;
	s64 value;
	unsigned nbands; /* 0: a plain check */
	struct bound_band band[BOUND_BANDS_MAX];
	const char *result; /* WANT_RESULT */
	const char *defect; /* WANT_KFAIL */
	/* numbers the entry's sentence mentions, as printed; up to the first NULL */
	const char *mentions[WANT_MENTIONS_MAX];
	bool mentions_only; /* and no number beside them */
};

/* A bounded figure's fields, in one band or two: { WANT_PASS, FIGURE(...) }. */
#define FIGURE(nm, u, v, lo, hi) \
	.name = (nm), .unit = (u), .value = (v), .nbands = 1, .band = {{(lo), (hi)}}
#define FIGURE2(nm, u, v, lo0, hi0, lo1, hi1)                 \
	.name = (nm), .unit = (u), .value = (v), .nbands = 2, \
	.band = {{(lo0), (hi0)}, {(lo1), (hi1)}}
/* A RESULT's: { RESULT_IS(...) }. */
#define RESULT_IS(nm, u, text) .kind = WANT_RESULT, .name = (nm), .unit = (u), .result = (text)

#define LC_EXPECT(what, l, wants) lc_expect(what, l, wants, sizeof(wants) / sizeof((wants)[0]))
#define LC_EXPECT_EXACTLY(what, l, wants) \
	lc_expect_exactly(what, l, wants, sizeof(wants) / sizeof((wants)[0]))

static const char *const want_words[] = {
	[WANT_END] = "END",	[WANT_PASS] = "PASS",	  [WANT_FAIL] = "FAIL",
	[WANT_KFAIL] = "KFAIL", [WANT_RESULT] = "RESULT", [WANT_INFO] = "INFO",
	[WANT_SKIP] = "SKIP",	[WANT_ABSENT] = "ABSENT",
};

/* What an entry is, as a want names it: a check's outcome, or the kind of line. */
static inline enum want_kind entry_outcome(const struct check *c)
{
	switch (c->kind) {
	case CHECK_BOUNDED:
		return bounded_holds(&c->b) ? WANT_PASS : WANT_FAIL;
	case CHECK_PLAIN:
		return c->pass ? WANT_PASS : c->defect[0] ? WANT_KFAIL : WANT_FAIL;
	case CHECK_INFO:
		return WANT_INFO;
	case CHECK_SKIP:
		return WANT_SKIP;
	default:
		return WANT_RESULT;
	}
}

/* " value unit lo..hi[ lo..hi]": a figure and its bands as a BOUND line has them. */
static inline void figure_text(char *buf, size_t size, const char *unit, unsigned scale, s64 value,
			       unsigned nbands, const struct bound_band *band)
{
	char v[FIXED_BUF_SIZE], lo[FIXED_BUF_SIZE], hi[FIXED_BUF_SIZE];
	size_t len = (size_t)snprintf(buf, size, " %s %s",
				      bound_text(v, sizeof(v), value, scale, FIXED_SIGN_MINUS),
				      unit ? unit : "?");

	for (unsigned i = 0; i < nbands && i < BOUND_BANDS_MAX && len < size; i++)
		len += (size_t)snprintf(
			buf + len, size - len, " %s..%s",
			bound_text(lo, sizeof(lo), band[i].lo, scale, FIXED_SIGN_MINUS),
			bound_text(hi, sizeof(hi), band[i].hi, scale, FIXED_SIGN_MINUS));
}

/* An entry in one line, for a failure's message (the sentence only where there is no figure). */
static inline const char *entry_text(char *buf, size_t size, const struct check *c)
{
	char fig[160];

	switch (c->kind) {
	case CHECK_BOUNDED:
		figure_text(fig, sizeof(fig), c->b.unit, c->b.scale, c->b.value, c->b.nbands,
			    c->b.band);
		snprintf(buf, size, "%s%s %s", c->name, fig, want_words[entry_outcome(c)]);
		break;
	case CHECK_RESULT:
		snprintf(buf, size, "%s %s %s RESULT", c->name, c->text, c->b.unit);
		break;
	default:
		snprintf(buf, size, "%s%s%s: %s", want_words[entry_outcome(c)],
			 c->defect[0] ? " " : "", c->defect, c->text);
	}
	return buf;
}

/* A want in one line, its figure in the scale of the entry it is held to. */
static inline const char *want_text(char *buf, size_t size, const struct want *w, unsigned scale)
{
	char fig[160] = "";

	if (w->kind == WANT_RESULT) {
		snprintf(buf, size, "%s %s %s RESULT", w->name, w->result, w->unit);
	} else if (w->kind == WANT_ABSENT) {
		snprintf(buf, size, "no entry #%u of %s", w->nth,
			 w->name ? w->name : "plain check");
	} else if (w->name) {
		figure_text(fig, sizeof(fig), w->unit, scale, w->value, w->nbands, w->band);
		snprintf(buf, size, "%s%s %s", w->name, fig, want_words[w->kind]);
	} else {
		snprintf(buf, size, "%s %s #%u%s%s", want_words[w->kind],
			 w->kind == WANT_INFO || w->kind == WANT_SKIP ? "line" : "plain check",
			 w->nth, w->defect ? " " : "", w->defect ? w->defect : "");
	}
	return buf;
}

/* The whole list, one entry a line, after a failure's message. */
static inline void lc_print_entries(const struct checks *l)
{
	char line[CHECK_TEXT_MAX + CHECK_NAME_MAX + 200];

	print_message("the judgment's %u entries:\n", l->n);
	for (unsigned i = 0; i < l->n; i++)
		print_message("  [%u] %s\n", i, entry_text(line, sizeof(line), &l->c[i]));
}

/* The entry a want is about, and its index; NULL when there is none. */
static inline const struct check *want_find(const struct checks *l, const struct want *w,
					    unsigned *at)
{
	enum check_kind kind = w->kind == WANT_INFO   ? CHECK_INFO
			       : w->kind == WANT_SKIP ? CHECK_SKIP
						      : CHECK_PLAIN;
	unsigned seen = 0;

	for (unsigned i = 0; i < l->n; i++) {
		const struct check *c = &l->c[i];
		bool figure = c->kind == CHECK_BOUNDED || c->kind == CHECK_RESULT;

		if (w->name ? !figure || strcmp(c->name, w->name) : c->kind != kind)
			continue;
		if (seen++ == w->nth) {
			*at = i;
			return c;
		}
	}
	return NULL;
}

/* Whether entry c is what w wants: its kind, figure, unit, bands and outcome. */
static inline bool want_met(const struct want *w, const struct check *c)
{
	if (entry_outcome(c) != w->kind)
		return false;
	if (w->kind == WANT_KFAIL && strcmp(c->defect, w->defect ? w->defect : ""))
		return false;
	if (w->kind == WANT_RESULT)
		return !strcmp(c->text, w->result) && !strcmp(c->b.unit, w->unit);
	if (!w->name)
		return true;
	if (c->kind != CHECK_BOUNDED || strcmp(c->b.unit, w->unit) || c->b.value != w->value ||
	    c->b.nbands != w->nbands)
		return false;
	for (unsigned i = 0; i < w->nbands; i++)
		if (c->b.band[i].lo != w->band[i].lo || c->b.band[i].hi != w->band[i].hi)
			return false;
	return true;
}

static inline bool lc_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A character of a word a digit may be part of: "cpu0", "x86", "e1". */
static inline bool lc_word_char(char ch)
{
	return lc_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/*
 * The next number of sentence s from *at on (NULL: none), *len its length:
 * digits with a '.' between digits, after no letter, digit or '_', with
 * the '-' or '+' before it that no word or other sign comes before ("+-50":
 * 50, a bound either way); *at past it.
 */
static inline const char *next_number(const char *s, const char **at, size_t *len)
{
	for (const char *p = *at; *p;) {
		const char *start = p;

		if (!lc_digit(*p)) {
			p++;
			continue;
		}
		while (lc_digit(*p) || (*p == '.' && lc_digit(p[1])))
			p++;
		*at = p;
		if (start > s && lc_word_char(start[-1]))
			continue;
		if (start > s && (start[-1] == '-' || start[-1] == '+') &&
		    (start - 1 == s ||
		     !(lc_word_char(start[-2]) || start[-2] == '-' || start[-2] == '+')))
			start--;
		*len = (size_t)(*at - start);
		return start;
	}
	return NULL;
}

/* A number as compared: its '+' is no part of it. */
static inline const char *unplussed(const char *m)
{
	return *m == '+' ? m + 1 : m;
}

/* How many times sentence s mentions number m (NULL: how many numbers it has). */
static inline unsigned numbers_in(const char *s, const char *m)
{
	const char *at = s, *n;
	unsigned k = 0;
	size_t len;

	if (m)
		m = unplussed(m);
	while ((n = next_number(s, &at, &len))) {
		if (*n == '+')
			n++, len--;
		k += !m || (strlen(m) == len && !strncmp(n, m, len));
	}
	return k;
}

/* The sentence of entry c mentions every number w names, as often as w names it. */
static inline void expect_mentions(const char *what, const struct checks *l, const struct want *w,
				   const struct check *c)
{
	const char *text = c->text ? c->text : "";
	char want[400];
	unsigned n;

	for (n = 0; n < WANT_MENTIONS_MAX && w->mentions[n]; n++) {
		unsigned times = 0, got = numbers_in(text, w->mentions[n]);

		for (unsigned j = 0; j <= n; j++)
			times += !strcmp(unplussed(w->mentions[j]), unplussed(w->mentions[n]));
		if (got < times) {
			lc_print_entries(l);
			fail_msg("case '%s': %s: its sentence mentions the number %s %u times, "
				 "want %u\n  sentence: %s",
				 what, w->name ? w->name : want_text(want, sizeof(want), w, 0),
				 w->mentions[n], got, times, text);
		}
	}
	if (w->mentions_only && numbers_in(text, NULL) != n) {
		lc_print_entries(l);
		fail_msg("case '%s': %s: its sentence has %u numbers, the case names %u\n"
			 "  sentence: %s",
			 what, w->name ? w->name : want_text(want, sizeof(want), w, 0),
			 numbers_in(text, NULL), n, text);
	}
}

/* Hold the list to one want; the index of its entry (l->n for WANT_ABSENT). */
static inline unsigned expect_one(const char *what, const struct checks *l, const struct want *w)
{
	char got[CHECK_TEXT_MAX + CHECK_NAME_MAX + 200], want[400];
	const struct check *c;
	unsigned at = l->n;

	c = want_find(l, w, &at);
	if (w->kind == WANT_ABSENT) {
		if (c) {
			lc_print_entries(l);
			fail_msg("case '%s': want %s, but the judgment has %s", what,
				 want_text(want, sizeof(want), w, 0),
				 entry_text(got, sizeof(got), c));
		}
		return l->n;
	}
	if (!c) {
		lc_print_entries(l);
		fail_msg("case '%s': no entry for %s in the judgment", what,
			 want_text(want, sizeof(want), w, 0));
	}
	if (!want_met(w, c)) {
		lc_print_entries(l);
		fail_msg("case '%s': %s\n  got:  %s\n  want: %s", what,
			 w->name ? w->name : want_text(want, sizeof(want), w, 0),
			 entry_text(got, sizeof(got), c),
			 want_text(want, sizeof(want), w, c->b.scale));
	}
	expect_mentions(what, l, w, c);
	return at;
}

/* Every INFO and SKIP of the list is one the case names. */
static inline void expect_said(const char *what, const struct checks *l, const struct want *w,
			       size_t n)
{
	unsigned said[2] = {0, 0}, named[2] = {0, 0};

	for (unsigned i = 0; i < l->n; i++)
		if (l->c[i].kind == CHECK_INFO || l->c[i].kind == CHECK_SKIP)
			said[l->c[i].kind == CHECK_SKIP]++;
	for (size_t i = 0; i < n && w[i].kind; i++)
		if (w[i].kind == WANT_INFO || w[i].kind == WANT_SKIP)
			named[w[i].kind == WANT_SKIP]++;
	if (said[0] != named[0] || said[1] != named[1]) {
		lc_print_entries(l);
		fail_msg(
			"case '%s': the judgment said %u INFO and %u SKIP lines, the case names %u "
			"and %u",
			what, said[0], said[1], named[0], named[1]);
	}
}

/* The list holds every entry the case wants (wants: n, or up to a WANT_END). */
static inline void lc_expect(const char *what, const struct checks *l, const struct want *w,
			     size_t n)
{
	if (l->dropped)
		fail_msg("case '%s': the judgment's list dropped %u entries", what, l->dropped);
	for (size_t i = 0; i < n && w[i].kind; i++)
		expect_one(what, l, &w[i]);
	expect_said(what, l, w, n);
}

/* The same, and nothing else: every entry of the list is wanted, in the list's order. */
static inline void lc_expect_exactly(const char *what, const struct checks *l, const struct want *w,
				     size_t n)
{
	unsigned wanted = 0, last = 0;

	lc_expect(what, l, w, n);
	for (size_t i = 0; i < n && w[i].kind; i++) {
		unsigned at;

		if (w[i].kind == WANT_ABSENT)
			continue;
		at = expect_one(what, l, &w[i]);
		if (wanted++ && at <= last) {
			lc_print_entries(l);
			fail_msg("case '%s': want %zu comes before the one ahead of it in the list",
				 what, i);
		}
		last = at;
	}
	if (wanted != l->n) {
		lc_print_entries(l);
		fail_msg("case '%s': the judgment made %u entries, the case wants %u", what, l->n,
			 wanted);
	}
}

#endif
