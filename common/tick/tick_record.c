// SPDX-License-Identifier: GPL-2.0-only
/* A timer-tick run's record as text (common/tick/tick_record.h): printed by the guest, parsed on the
 * host. */
#include "tick_record.h"
#include "alloc.h"

#define PER_LINE      16
#define RECORD_FORMAT 1

static const char *const kind_names[] = {
	[TICK_REC_PERIODIC] = "periodic",
	[TICK_REC_ONESHOT] = "oneshot",
};

static void print_header(const struct tick_record *r)
{
	printf(TICK_RECORD_PREFIX
	       "%d source=%s kind=%s counter_hz=%llu want_hz=%llu expected=%llu "
	       "period_counts=%llu ratio_fx=%llu err_ppb=%llu end_at=%llu n=%llu steal=%d "
	       "steal_end_ns=%llu anchor=%llu\n",
	       RECORD_FORMAT, r->source, kind_names[r->kind], r->counter_hz, r->want_hz,
	       r->expected, r->period_counts, r->cal.ratio_fx, r->cal.err_ppb, r->end_at, r->n,
	       r->steal_ns != NULL, r->steal_end_ns, r->anchor);
}

/* The ticks, each as its distance from the one before less a period: small numbers. */
static void print_ticks(const struct tick_record *r)
{
	u64 period = tick_rec_period(r), prev = 0;

	for (u64 j = 0; j < r->n; j++) {
		if (j % PER_LINE == 0)
			printf(TICK_RECORD_PREFIX "at");
		printf(" %lld", (long long)(r->at[j] - prev - period));
		prev = r->at[j];
		if (j % PER_LINE == PER_LINE - 1 || j + 1 == r->n)
			printf("\n");
	}
}

static void print_steal(const struct tick_record *r)
{
	u64 prev = 0;

	for (u64 j = 0; r->steal_ns && j < r->n; j++) {
		if (j % PER_LINE == 0)
			printf(TICK_RECORD_PREFIX "st");
		printf(" %llu", r->steal_ns[j] - prev);
		prev = r->steal_ns[j];
		if (j % PER_LINE == PER_LINE - 1 || j + 1 == r->n)
			printf("\n");
	}
}

/* Each tick's interrupts-off stretch after its arrival, counter ticks (0: not seen). */
static void print_open(const struct tick_record *r)
{
	for (u64 j = 0; r->open && j < r->n; j++) {
		if (j % PER_LINE == 0)
			printf(TICK_RECORD_PREFIX "op");
		printf(" %llu", r->open[j]);
		if (j % PER_LINE == PER_LINE - 1 || j + 1 == r->n)
			printf("\n");
	}
}

static void print_host(const struct tick_host *h)
{
	if (h->why_none) {
		printf(TICK_RECORD_PREFIX "host none %s\n", h->why_none);
		return;
	}
	printf(TICK_RECORD_PREFIX "host from=%lld to=%lld stamp_us=%llu parts=%u windows=%u\n",
	       (long long)h->from, (long long)h->to, h->stamp_us, h->nparts, h->nwin);
	for (u32 p = 0; p < h->nparts; p++) {
		if (p % PER_LINE == 0)
			printf(TICK_RECORD_PREFIX "hp");
		printf(" %u,%u,%u", h->part[p].vcpu_us, h->part[p].other_us, h->part[p].steal_us);
		if (p % PER_LINE == PER_LINE - 1 || p + 1 == h->nparts)
			printf("\n");
	}
	for (u32 w = 0; w < h->nwin; w++) {
		const struct host_part *e = &h->win[w].ev;

		if (w % PER_LINE == 0)
			printf(TICK_RECORD_PREFIX "hw");
		printf(" %llu:%llu:%u,%u,%u", h->win[w].a, h->win[w].b, e->vcpu_us, e->other_us,
		       e->steal_us);
		if (w % PER_LINE == PER_LINE - 1 || w + 1 == h->nwin)
			printf("\n");
	}
}

void tick_record_print(const struct tick_record *r)
{
	print_header(r);
	print_ticks(r);
	print_open(r);
	print_steal(r);
	print_host(&r->host);
	printf(TICK_RECORD_PREFIX "end\n");
}

/* ---- the host's side: parsing ---- */

struct cursor {
	const char *s;
};

static bool word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(c->s, w, n))
		return false;
	c->s += n;
	return true;
}

static bool num(struct cursor *c, long long *v)
{
	char *end;

	while (*c->s == ' ')
		c->s++;
	if (!isdigit(*c->s) && !(*c->s == '-' && isdigit(c->s[1])))
		return false;
	*v = strtoll(c->s, &end, 10);
	c->s = end;
	return true;
}

static bool unum(struct cursor *c, u64 *v)
{
	char *end;

	while (*c->s == ' ')
		c->s++;
	if (!isdigit(*c->s))
		return false;
	*v = strtoull(c->s, &end, 10);
	c->s = end;
	return true;
}

/* " key=" then an unsigned number */
static bool field(struct cursor *c, const char *key, u64 *v)
{
	while (*c->s == ' ')
		c->s++;
	return word(c, key) && word(c, "=") && unum(c, v);
}

static bool copy_word(struct cursor *c, char *out, size_t size)
{
	size_t n = 0;

	while (*c->s && *c->s != ' ' && *c->s != '\n' && *c->s != '\r' && n < size - 1)
		out[n++] = *c->s++;
	out[n] = '\0';
	return n > 0;
}

static const char *parse_header(struct cursor *c, struct tick_record_text *t)
{
	struct tick_record *r = &t->rec;
	char kind[16];
	u64 format, has_steal;

	if (!unum(c, &format) || format != RECORD_FORMAT)
		return "an unknown record format";
	if (!word(c, " source=") || !copy_word(c, t->source, sizeof(t->source)) ||
	    !word(c, " kind=") || !copy_word(c, kind, sizeof(kind)))
		return "a header without source= or kind=";
	if (!strcmp(kind, "periodic"))
		r->kind = TICK_REC_PERIODIC;
	else if (!strcmp(kind, "oneshot"))
		r->kind = TICK_REC_ONESHOT;
	else
		return "an unknown kind=";
	if (!field(c, "counter_hz", &r->counter_hz) || !field(c, "want_hz", &r->want_hz) ||
	    !field(c, "expected", &r->expected) || !field(c, "period_counts", &r->period_counts) ||
	    !field(c, "ratio_fx", &r->cal.ratio_fx) || !field(c, "err_ppb", &r->cal.err_ppb) ||
	    !field(c, "end_at", &r->end_at) || !field(c, "n", &r->n) ||
	    !field(c, "steal", &has_steal) || !field(c, "steal_end_ns", &r->steal_end_ns))
		return "a header field missing or malformed";
	/* optional: records from before the anchor was kept end here */
	r->anchor = 0;
	while (*c->s == ' ')
		c->s++;
	if (word(c, "anchor") && !(word(c, "=") && unum(c, &r->anchor)))
		return "a header's anchor= malformed";
	if (!r->counter_hz || !r->expected || !r->period_counts || r->n > r->expected * 2)
		return "a header with figures no run has";
	r->source = t->source;
	t->at = calloc(r->n + 1, sizeof(u64));
	t->steal = has_steal ? calloc(r->n + 1, sizeof(u64)) : NULL;
	r->at = t->at;
	r->steal_ns = t->steal;
	return NULL;
}

/* The per-tick lines: at (distance less a period), st (steal growth), op (interrupts off after). */
enum tick_line { LINE_AT, LINE_STEAL, LINE_OPEN };

static const char *parse_ticks(struct cursor *c, struct tick_record_text *t, enum tick_line kind,
			       u64 *k)
{
	u64 period = tick_rec_period(&t->rec), *to = kind == LINE_AT	  ? t->at
						     : kind == LINE_STEAL ? t->steal
									  : t->open;
	u64 prev = *k && kind != LINE_OPEN ? to[*k - 1] : 0;
	long long v;

	if (kind == LINE_STEAL && !t->steal)
		return "steal lines in a record without steal=1";
	if (kind == LINE_OPEN && !t->open)
		to = t->open = calloc(t->rec.n + 1, sizeof(u64));
	while (num(c, &v)) {
		if (*k >= t->rec.n)
			return "more ticks than n=";
		if (kind == LINE_OPEN && v < 0)
			return "an op entry below 0";
		if (kind == LINE_AT)
			prev = to[(*k)++] = prev + period + (u64)v;
		else if (kind == LINE_STEAL)
			prev = to[(*k)++] = prev + (u64)v;
		else
			to[(*k)++] = (u64)v;
	}
	return NULL;
}

static const char *parse_host(struct cursor *c, struct tick_record_text *t)
{
	struct tick_host *h = &t->rec.host;
	long long from, to;
	u64 parts, windows;

	if (word(c, " none ")) {
		size_t n = 0;

		while (c->s[n] && c->s[n] != '\r' && c->s[n] != '\n')
			n++;

		snprintf(t->why_none, sizeof(t->why_none), "%.*s", (int)n, c->s);
		h->why_none = t->why_none;
		return NULL;
	}
	if (!word(c, " from=") || !num(c, &from) || !word(c, " to=") || !num(c, &to) ||
	    !field(c, "stamp_us", &h->stamp_us) || !field(c, "parts", &parts) || !parts ||
	    parts > HOST_EVIDENCE_PARTS_MAX || !field(c, "windows", &windows) ||
	    windows > TICK_RECORD_WINDOWS_MAX)
		return "a host line malformed";
	h->nwin = (u32)windows;
	t->win = calloc(windows + 1, sizeof(*t->win));
	h->win = t->win;
	h->from = (u64)from;
	h->to = (u64)to;
	h->nparts = (u32)parts;
	t->part = calloc(parts, sizeof(*t->part));
	h->part = t->part;
	return NULL;
}

static const char *parse_parts(struct cursor *c, struct tick_record_text *t, u32 *k)
{
	u64 a, b, d;

	if (!t->part)
		return "hp lines before the host line";
	while (unum(c, &a)) {
		if (!word(c, ",") || !unum(c, &b) || !word(c, ",") || !unum(c, &d))
			return "an hp entry malformed";
		if (*k >= t->rec.host.nparts)
			return "more hp entries than parts=";
		t->part[*k] = (struct host_part){(u32)a, (u32)b, (u32)d};
		(*k)++;
	}
	return NULL;
}

/* "a:b:v,o,s" entries: the windows asked about and the host's answer over each. */
static const char *parse_windows(struct cursor *c, struct tick_record_text *t, u32 *k)
{
	u64 a, b, v, o, s;

	if (!t->win)
		return "hw lines before the host line";
	while (unum(c, &a)) {
		if (!word(c, ":") || !unum(c, &b) || !word(c, ":") || !unum(c, &v) ||
		    !word(c, ",") || !unum(c, &o) || !word(c, ",") || !unum(c, &s))
			return "an hw entry malformed";
		if (*k >= t->rec.host.nwin)
			return "more hw entries than windows=";
		t->win[*k] = (struct tick_window){a, b, {(u32)v, (u32)o, (u32)s}};
		(*k)++;
	}
	return NULL;
}

/* One line's body after the prefix. */
struct parse_state {
	bool header, end;
	u64 at, st, op;
	u32 hp, hw;
};

static const char *parse_line(struct cursor *c, struct tick_record_text *t, struct parse_state *ps)
{
	if (!ps->header) {
		ps->header = true;
		return parse_header(c, t);
	}
	if (word(c, "at"))
		return parse_ticks(c, t, LINE_AT, &ps->at);
	if (word(c, "st"))
		return parse_ticks(c, t, LINE_STEAL, &ps->st);
	if (word(c, "op"))
		return parse_ticks(c, t, LINE_OPEN, &ps->op);
	if (word(c, "hp"))
		return parse_parts(c, t, &ps->hp);
	if (word(c, "hw"))
		return parse_windows(c, t, &ps->hw);
	if (word(c, "host"))
		return parse_host(c, t);
	if (word(c, "end")) {
		ps->end = true;
		return NULL;
	}
	return "an unknown record line";
}

const char *tick_record_parse(const char *log, struct tick_record_text *t)
{
	struct parse_state ps = {0};
	const char *line = log, *bad;

	memset(t, 0, sizeof(*t));
	while (line && *line && !ps.end) {
		const char *p = strstr(line, TICK_RECORD_PREFIX);
		struct cursor c;

		if (!p)
			break;
		c.s = p + strlen(TICK_RECORD_PREFIX);
		bad = parse_line(&c, t, &ps);
		if (bad)
			return bad;
		line = strchr(c.s, '\n');
	}
	if (!ps.header)
		return "no TICK-RECORD lines";
	if (!ps.end)
		return "a record without its end line (cut short?)";
	if (ps.at != t->rec.n || (t->steal && ps.st != t->rec.n))
		return "fewer ticks than n=";
	if (t->open && ps.op != t->rec.n)
		return "fewer op entries than n=";
	t->rec.open = t->open;
	if (t->part && ps.hp != t->rec.host.nparts)
		return "fewer hp entries than parts=";
	if (t->win && ps.hw != t->rec.host.nwin)
		return "fewer hw entries than windows=";
	if (!t->part && !t->rec.host.why_none)
		return "no host line";
	return NULL;
}

void tick_record_free(struct tick_record_text *t)
{
	free(t->at);
	free(t->steal);
	free(t->open);
	free(t->part);
	free(t->win);
	memset(t, 0, sizeof(*t));
}
