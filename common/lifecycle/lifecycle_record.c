/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One lifecycle event's record as text (common/lifecycle/lifecycle_record.h):
 * printed by the guest, parsed on the host. One table per part of the
 * record names its fields; printing and parsing both walk the tables, so a
 * field is added in one place.
 */
#include "lifecycle_record.h"

/*
 * The largest magnitude a recorded number may have: 2^62 ns is the host's
 * time of day until the year 2116, 2^62 ticks of a 3 GHz counter 48 years;
 * the judgment's differences and sums of two such stay in 64 bits. A
 * seconds clock's time of day reads at most 2^33 s (the year 2242), so
 * that it is a number of ns in 64 bits.
 */
#define LC_RECORD_VALUE_MAX (1ull << 62)
#define LC_RECORD_SECS_MAX (1ull << 33)

/* A field: where in its part, how wide each element, signed or not, how many elements. */
struct rec_field {
	const char *name;
	size_t off;
	unsigned char size;
	bool is_signed;
	unsigned short count;
};

/* A scalar field of struct st, and an array of elem (flattened: a 2-D array is one list). */
#define FS(st, f, sgn)                                                                             \
	{ #f, offsetof(st, f), sizeof(((st *)0)->f), sgn, 1 }
#define FA(st, f, elem, sgn)                                                                       \
	{ #f, offsetof(st, f), sizeof(elem), sgn, sizeof(((st *)0)->f) / sizeof(elem) }
#define FIELDS(t) t, ARRAY_SIZE(t)

static const struct rec_field arch_fields[] = {
	FS(struct lc_arch_desc, nclocks, false),
	FS(struct lc_arch_desc, nslots, false),
	FS(struct lc_arch_desc, periodic_kind, false),
	FA(struct lc_arch_desc, slot_use, u32, false),
	FA(struct lc_arch_desc, clock_hz, u64, false),
	FA(struct lc_arch_desc, during, u32, false),
	FS(struct lc_arch_desc, derived, false),
	FS(struct lc_arch_desc, derived_clock, false),
	FS(struct lc_arch_desc, derived_counter, false),
	FS(struct lc_arch_desc, counter_write, false),
	FS(struct lc_arch_desc, counter_view, false),
};

static const struct rec_field rec_fields[] = {
	FS(struct lc_record, seq, false),
	FS(struct lc_record, ncpus, false),
	FS(struct lc_record, counter_hz, false),
	FS(struct lc_record, fault, false),
	FS(struct lc_record, has_steal, false),
	FS(struct lc_record, has_tod, false),
	FS(struct lc_record, has_flag, false),
	FS(struct lc_record, catchup_max, false),
	FS(struct lc_record, counter_set, false),
	FS(struct lc_record, rtc_set, false),
	FS(struct lc_record, rtc_ref_ns, true),
	FA(struct lc_record, phase_start, u64, false),
	FA(struct lc_record, counter_reg, u64, false),
};

static const struct rec_field done_fields[] = {
	FS(struct lc_done, kind, false),
	FS(struct lc_done, seq, false),
	FS(struct lc_done, duration_ns, false),
	FS(struct lc_done, qmp_downtime_ns, false),
	FS(struct lc_done, total_ns, false),
	FS(struct lc_done, overhead_ns, false),
	FS(struct lc_done, host_req_ns, false),
	FS(struct lc_done, host_ns, false),
	FS(struct lc_done, vcpu_wait_ns, false),
	FS(struct lc_done, before_wait_ns, false),
	FS(struct lc_done, stamp_wait_ns, false),
	FS(struct lc_done, after_wait_ns, false),
	FS(struct lc_done, after_stamp_wait_ns, false),
	FS(struct lc_done, counter, false),
	FS(struct lc_done, run, false),
};

static const struct rec_field answer_fields[] = {
	FS(struct lc_answer, nl_at, false),
	FS(struct lc_answer, first_at, false),
	FS(struct lc_answer, answered, false),
	FS(struct lc_answer, tod_req, false),
	FS(struct lc_answer, tod_done, false),
};

static const struct rec_field edge_fields[] = {
	FS(struct lc_edge, secs, false),
	FS(struct lc_edge, at, false),
	FS(struct lc_edge, half_width, false),
	FS(struct lc_edge, wait_ns, false),
};

static const struct rec_field cpu_fields[] = {
	FA(struct lc_cpu, backwards, u64, false),
	FA(struct lc_cpu, worst_back, u64, false),
	FA(struct lc_cpu, step, u64, false),
	FA(struct lc_cpu, stopped_seen, u32, false),
	FA(struct lc_cpu, moved_ns, s64, true),
	FA(struct lc_cpu, param_changes, u32, false),
	FS(struct lc_cpu, worst_quiet_move_ns, false),
	FA(struct lc_cpu, agree, s64, true),
};

static const struct rec_field timer_fields[] = {
	FS(struct lc_timer, role, false),
	FS(struct lc_timer, period, false),
	FS(struct lc_timer, deadline, false),
	FS(struct lc_timer, fired_at, false),
	FA(struct lc_timer, ticks, u32, false),
	FA(struct lc_timer, early, u32, false),
	FA(struct lc_timer, stamps, u64, false),
	FA(struct lc_timer, nstamps, u32, false),
	FA(struct lc_timer, steal_first, u64, false),
	FA(struct lc_timer, steal_last, u64, false),
	FA(struct lc_timer, run_ticks, u32, false),
	FA(struct lc_timer, run_gap, u64, false),
	FA(struct lc_timer, run_fires, u32, false),
	FA(struct lc_timer, run_fired_at, u64, false),
};

static const struct rec_field now_fields[] = {
	FS(struct lc_counter_now, reg, false),
	FS(struct lc_counter_now, view_lo, true),
	FS(struct lc_counter_now, view_hi, true),
};

static const struct rec_field run_fields[] = {
	FS(struct lc_run, n, false),
	FA(struct lc_run, req_at, u64, false),
	FA(struct lc_run, answered, u64, false),
	FA(struct lc_run, deadlines, u64, false),
	FS(struct lc_run, stop_max_ns, false),
	FS(struct lc_run, wait_max_ns, false),
};

/* Element i of field f of the part at base, widened to 64 bits (sign-extended when signed). */
static u64 get(const void *base, const struct rec_field *f, unsigned i)
{
	const char *p = (const char *)base + f->off + (size_t)i * f->size;

	switch (f->size) {
	case 1:
		return *(const u8 *)p;
	case 4:
		return f->is_signed ? (u64)(s64) * (const s32 *)p : *(const u32 *)p;
	default:
		return *(const u64 *)p;
	}
}

static void put(void *base, const struct rec_field *f, unsigned i, u64 v)
{
	char *p = (char *)base + f->off + (size_t)i * f->size;

	switch (f->size) {
	case 1:
		*(u8 *)p = (u8)v;
		break;
	case 4:
		*(u32 *)p = (u32)v;
		break;
	default:
		*(u64 *)p = v;
	}
}

/* ---- the guest's side: printing ---- */

static void print_part(const char *tag, const void *base, const struct rec_field *fields,
		       size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct rec_field *f = &fields[k];
		unsigned used = f->count;

		while (used && !get(base, f, used - 1))
			used--;
		if (!used)
			continue;
		printf(LC_RECORD_PREFIX "%s %s", tag, f->name);
		for (unsigned i = 0; i < used; i++)
			printf(f->is_signed ? " %lld" : " %llu", get(base, f, i));
		printf("\n");
	}
}

static void describe(const struct lc_arch *a, struct lc_arch_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->nclocks = a->nclocks;
	d->nslots = a->nslots;
	d->periodic_kind = a->periodic_kind;
	for (unsigned s = 0; s < a->nslots; s++)
		d->slot_use[s] = a->slot_use[s];
	for (unsigned i = 0; i < a->nclocks; i++) {
		d->clock_hz[i] = a->clocks[i].hz;
		for (unsigned e = 0; e < LC_NR_EVENTS; e++)
			d->during[i][e] = a->clocks[i].during[e];
	}
	d->derived = a->derived != NULL;
	d->derived_clock = a->derived ? a->derived->clock : 0;
	d->derived_counter = a->derived ? a->derived->counter : 0;
	d->counter_write = a->counter_write != NULL;
	d->counter_view = a->counter_write && a->counter_write->view;
}

static void print_name(const char *what, const char *text)
{
	if (text)
		printf(LC_RECORD_PREFIX "name %s %s\n", what, text);
}

static void print_arch(const struct lc_record *r)
{
	const struct lc_arch *a = r->arch;
	struct lc_arch_desc d;
	char what[16];

	describe(a, &d);
	print_part("arch", &d, FIELDS(arch_fields));
	for (unsigned i = 0; i < a->nclocks; i++) {
		snprintf(what, sizeof(what), "clock%u", i);
		print_name(what, a->clocks[i].name);
	}
	for (unsigned s = 0; s < a->nslots; s++) {
		snprintf(what, sizeof(what), "slot%u", s);
		print_name(what, a->name_of_slot[s]);
	}
	print_name("flag", a->stopped_flag_name);
	if (r->rtc) {
		print_name("rtc", r->rtc->name);
		print_name("rtc_key", r->rtc->key);
	}
	if (a->counter_write) {
		print_name("counter_reg", a->counter_write->reg);
		print_name("counter_view", a->counter_write->view_name);
	}
}

static void print_samples(const struct lc_record *r)
{
	char tag[24];

	for (unsigned cpu = 0; cpu < r->ncpus; cpu++) {
		snprintf(tag, sizeof(tag), "cpu%u", cpu);
		print_part(tag, &r->cpu[cpu], FIELDS(cpu_fields));
		for (unsigned s = 0; s < r->arch->nslots; s++) {
			snprintf(tag, sizeof(tag), "cpu%u.t%u", cpu, s);
			print_part(tag, &r->cpu[cpu].t[s], FIELDS(timer_fields));
		}
		snprintf(tag, sizeof(tag), "now%u", cpu);
		print_part(tag, &r->counter_now[cpu], FIELDS(now_fields));
	}
	print_part("run", &r->run, FIELDS(run_fields));
	for (unsigned k = 1; k <= r->run.n && k <= LC_RUN_MAX; k++) {
		snprintf(tag, sizeof(tag), "run%u", k);
		print_part(tag, &r->run.done[k], FIELDS(done_fields));
	}
}

void lc_record_print(const struct lc_record *r)
{
	printf(LC_RECORD_PREFIX "begin %d\n", LC_RECORD_FORMAT);
	print_arch(r);
	print_part("rec", r, FIELDS(rec_fields));
	print_part("done", &r->done, FIELDS(done_fields));
	print_part("answer", &r->answer, FIELDS(answer_fields));
	print_part("edge0", &r->answer.rtc_before, FIELDS(edge_fields));
	print_part("edge1", &r->answer.rtc_after, FIELDS(edge_fields));
	print_name("why0", r->answer.rtc_before.why_not);
	print_name("why1", r->answer.rtc_after.why_not);
	print_samples(r);
	printf(LC_RECORD_PREFIX "end\n");
}

/* ---- the host's side: parsing ---- */

/* One line's words after the prefix: its tag, its field (or name), and the rest. */
struct rec_line {
	char tag[24], field[24];
	const char *rest, *end;
};

/* Copy the next word of [*s, end) into w (at most size - 1 characters); false when none or too long. */
static bool next_word(const char **s, const char *end, char *w, size_t size)
{
	size_t n = 0;

	while (*s < end && **s == ' ')
		(*s)++;
	while (*s + n < end && (*s)[n] != ' ')
		n++;
	if (!n || n >= size)
		return false;
	memcpy(w, *s, n);
	w[n] = '\0';
	*s += n;
	return true;
}

/* The numbers of a field's line into base: at most its count of them, every one a number. */
static const char *parse_values(void *base, const struct rec_field *f, const char *s,
				const char *end)
{
	unsigned i = 0;

	for (;;) {
		char *after;
		u64 v;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			return i ? NULL : "a field with no value";
		if (i == f->count)
			return "more values than the field holds";
		if (!isdigit(*s) && !(f->is_signed && *s == '-' && s + 1 < end && isdigit(s[1])))
			return "a value that is not a number";
		v = f->is_signed ? (u64)strtoll(s, &after, 10) : strtoull(s, &after, 10);
		if (after > end || (after < end && *after != ' '))
			return "a value that is not a number";
		if (f->is_signed ? lc_magnitude((s64)v) > LC_RECORD_VALUE_MAX : v > LC_RECORD_VALUE_MAX)
			return "a value beyond any a run records";
		put(base, f, i++, v);
		s = after;
	}
}

static const char *parse_field(void *base, const struct rec_field *fields, size_t n,
			       const struct rec_line *l)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(fields[k].name, l->field))
			return parse_values(base, &fields[k], l->rest, l->end);
	return "an unknown field";
}

/* An index after a tag's word ("cpu3" -> 3), below max; -1 if it is not one. */
static int index_of(const char *s, unsigned max)
{
	char *after;
	unsigned long v;

	if (!isdigit(*s))
		return -1;
	v = strtoul(s, &after, 10);
	if (*after || v >= max)
		return -1;
	return (int)v;
}

/* The part a tag names, and its table: false when the tag is not one. */
static bool part_of(struct lc_record_text *t, const char *tag, void **base,
		    const struct rec_field **fields, size_t *n)
{
	struct lc_record *r = &t->rec;
	const char *dot = strchr(tag, '.');
	char head[24];
	int i;

	if (!strcmp(tag, "arch"))
		return *base = &t->desc, *fields = arch_fields, *n = ARRAY_SIZE(arch_fields), true;
	if (!strcmp(tag, "rec"))
		return *base = r, *fields = rec_fields, *n = ARRAY_SIZE(rec_fields), true;
	if (!strcmp(tag, "done"))
		return *base = &r->done, *fields = done_fields, *n = ARRAY_SIZE(done_fields), true;
	if (!strcmp(tag, "answer"))
		return *base = &r->answer, *fields = answer_fields, *n = ARRAY_SIZE(answer_fields),
		       true;
	if (!strcmp(tag, "edge0") || !strcmp(tag, "edge1"))
		return *base = tag[4] == '0' ? &r->answer.rtc_before : &r->answer.rtc_after,
		       *fields = edge_fields, *n = ARRAY_SIZE(edge_fields), true;
	if (!strcmp(tag, "run"))
		return *base = &r->run, *fields = run_fields, *n = ARRAY_SIZE(run_fields), true;
	if (!strncmp(tag, "run", 3) && (i = index_of(tag + 3, LC_RUN_MAX + 1)) > 0)
		return *base = &r->run.done[i], *fields = done_fields, *n = ARRAY_SIZE(done_fields),
		       true;
	if (!strncmp(tag, "now", 3) && (i = index_of(tag + 3, LC_MAX_CPUS)) >= 0)
		return *base = &r->counter_now[i], *fields = now_fields, *n = ARRAY_SIZE(now_fields),
		       true;
	if (strncmp(tag, "cpu", 3) || (dot ? (size_t)(dot - tag) : strlen(tag)) >= sizeof(head))
		return false;
	snprintf(head, (dot ? (size_t)(dot - tag) : strlen(tag)) + 1, "%s", tag);
	i = index_of(head + 3, LC_MAX_CPUS);
	if (i < 0)
		return false;
	if (!dot)
		return *base = &r->cpu[i], *fields = cpu_fields, *n = ARRAY_SIZE(cpu_fields), true;
	{
		int s = dot[1] == 't' ? index_of(dot + 2, LC_MAX_SLOTS) : -1;

		if (s < 0)
			return false;
		*base = &r->cpu[i].t[s], *fields = timer_fields, *n = ARRAY_SIZE(timer_fields);
	}
	return true;
}

/* A "name WHAT TEXT" line: the text into its place. */
static const char *parse_name(struct lc_record_text *t, const struct rec_line *l)
{
	size_t len = (size_t)(l->end - l->rest);
	char *to = NULL;
	size_t size = LC_RECORD_NAME_MAX;
	int i;

	if (!strncmp(l->field, "clock", 5) && (i = index_of(l->field + 5, LC_MAX_CLOCKS)) >= 0)
		to = t->clock_name[i];
	else if (!strncmp(l->field, "slot", 4) && (i = index_of(l->field + 4, LC_MAX_SLOTS)) >= 0)
		to = t->slot_name[i];
	else if (!strcmp(l->field, "flag"))
		to = t->flag_name;
	else if (!strcmp(l->field, "rtc"))
		to = t->rtc_name, t->has_rtc = true;
	else if (!strcmp(l->field, "rtc_key"))
		to = t->rtc_key;
	else if (!strcmp(l->field, "counter_reg"))
		to = t->counter_reg;
	else if (!strcmp(l->field, "counter_view"))
		to = t->counter_view;
	else if (!strcmp(l->field, "why0") || !strcmp(l->field, "why1"))
		to = t->why[l->field[3] - '0'], size = LC_RECORD_WHY_MAX;
	if (!to)
		return "an unknown name";
	if (!len || len >= size)
		return "a name empty or too long";
	memcpy(to, l->rest, len);
	to[len] = '\0';
	return NULL;
}

/* Every vCPU's timers: a role there is, a period when periodic, at most LC_STAMPS tick times per window. */
static bool timers_in_range(const struct lc_record *r, unsigned nslots)
{
	for (unsigned cpu = 0; cpu < r->ncpus; cpu++)
		for (unsigned s = 0; s < nslots; s++) {
			const struct lc_timer *t = &r->cpu[cpu].t[s];

			if (t->role > LC_ROLE_PERIODIC || t->nstamps[0] > LC_STAMPS ||
			    t->nstamps[1] > LC_STAMPS || (t->role == LC_ROLE_PERIODIC && !t->period))
				return false;
		}
	return true;
}

/* The arch the judgment reads, from the description and the names. */
static const char *build_arch(struct lc_record_text *t)
{
	const struct lc_arch_desc *d = &t->desc;
	struct lc_arch *a = &t->arch;

	if (!d->nclocks || d->nclocks > LC_MAX_CLOCKS || d->nslots > LC_MAX_SLOTS)
		return "an arch with no clock, or too many clocks or timers";
	if (!t->rec.ncpus || t->rec.ncpus > LC_MAX_CPUS || !t->rec.counter_hz)
		return "no vCPU count or counter frequency";
	if (t->rec.done.kind >= LC_RESET || d->periodic_kind > LC_PERIODIC_REARMED ||
	    t->rec.run.n > LC_RUN_MAX)
		return "an event, a periodic kind or a run out of range";
	if (d->derived && (d->derived_clock >= d->nclocks || d->derived_counter >= d->nclocks))
		return "a derived clock out of range";
	if (t->rec.answer.rtc_before.secs > LC_RECORD_SECS_MAX ||
	    t->rec.answer.rtc_after.secs > LC_RECORD_SECS_MAX)
		return "a time of day beyond any a run records";
	if (t->rec.counter_set && !d->counter_write)
		return "a counter write judged on an arch without one";
	if (!timers_in_range(&t->rec, d->nslots))
		return "a timer's role, period or tick count out of range";
	for (unsigned i = 0; i < d->nclocks; i++) {
		t->clocks[i].name = t->clock_name[i];
		t->clocks[i].hz = d->clock_hz[i];
		for (unsigned e = 0; e < LC_NR_EVENTS; e++)
			t->clocks[i].during[e] = d->during[i][e] ? LC_FROZEN : LC_RUNS;
	}
	for (unsigned s = 0; s < d->nslots; s++) {
		a->name_of_slot[s] = t->slot_name[s];
		a->slot_use[s] = (enum lc_slot_use)d->slot_use[s];
	}
	a->nslots = d->nslots;
	a->nclocks = d->nclocks;
	a->clocks = t->clocks;
	a->periodic_kind = (enum lc_periodic_kind)d->periodic_kind;
	a->stopped_flag_name = t->flag_name;
	t->derived.clock = d->derived_clock;
	t->derived.counter = d->derived_counter;
	a->derived = d->derived ? &t->derived : NULL;
	t->counter_write.reg = t->counter_reg;
	t->counter_write.view_name = d->counter_view ? t->counter_view : NULL;
	a->counter_write = d->counter_write ? &t->counter_write : NULL;
	t->rtc.name = t->rtc_name;
	t->rtc.key = t->rtc_key;
	a->rtc = t->has_rtc ? &t->rtc : NULL;
	t->rec.arch = a;
	t->rec.rtc = a->rtc;
	t->rec.answer.rtc_before.why_not = t->why[0][0] ? t->why[0] : NULL;
	t->rec.answer.rtc_after.why_not = t->why[1][0] ? t->why[1] : NULL;
	return NULL;
}

/* One line of a record (after the prefix): into t. */
static const char *parse_line(struct lc_record_text *t, const char *s, const char *end)
{
	struct rec_line l;
	const struct rec_field *fields;
	size_t n;
	void *base;

	if (!next_word(&s, end, l.tag, sizeof(l.tag)) ||
	    !next_word(&s, end, l.field, sizeof(l.field)))
		return "a line without a tag and a field";
	while (s < end && *s == ' ')
		s++;
	l.rest = s, l.end = end;
	if (!strcmp(l.tag, "name"))
		return parse_name(t, &l);
	if (!part_of(t, l.tag, &base, &fields, &n))
		return "an unknown tag";
	return parse_field(base, fields, n, &l);
}

/* The next line of text at *pos: [*line, *end), *pos past it; false at the end of the text. */
static bool next_line(const char *text, size_t *pos, const char **line, const char **end)
{
	const char *s = text + *pos, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	*line = s;
	*end = nl ? nl : s + strlen(s);
	*pos = (size_t)(*end - text) + (nl != NULL);
	if (*end > *line && (*end)[-1] == '\r')
		(*end)--;
	return true;
}

/* Where the record's text starts in a line (after any console prefix), or NULL. */
static const char *record_text(const char *line, const char *end)
{
	size_t plen = strlen(LC_RECORD_PREFIX);

	for (const char *p = line; p + plen <= end; p++)
		if (!strncmp(p, LC_RECORD_PREFIX, plen))
			return p + plen;
	return NULL;
}

const char *lc_record_parse(const char *text, size_t *pos, struct lc_record_text *t, bool *found)
{
	static char why[LC_RECORD_WHY_MAX];
	const char *line, *end, *s;
	bool begun = false;
	unsigned lineno = 0;

	*found = false;
	while (next_line(text, pos, &line, &end)) {
		const char *bad;

		s = record_text(line, end);
		if (!s)
			continue;
		lineno++;
		if (!begun) {
			if (strncmp(s, "begin ", 6))
				return "a record that does not begin with 'begin'";
			if (strtoul(s + 6, NULL, 10) != LC_RECORD_FORMAT)
				return "a record of another format";
			memset(t, 0, sizeof(*t));
			begun = *found = true;
			continue;
		}
		if ((size_t)(end - s) == 3 && !strncmp(s, "end", 3))
			return build_arch(t);
		bad = parse_line(t, s, end);
		if (bad) {
			snprintf(why, sizeof(why), "record line %u: %s: '%.*s'", lineno, bad,
				 (int)min((size_t)(end - s), (size_t)60), s);
			return why;
		}
	}
	return begun ? "a record with no 'end'" : NULL;
}
