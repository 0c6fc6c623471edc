// SPDX-License-Identifier: GPL-2.0-only
/* A judgment's checks as a list: appended by the judges, read by the printer and the host's tools.
 */
#include "checks.h"

const char *const record_when_names[RECORD_WHEN_NR] = {
	[RECORD_ON_FAIL] = "fail",
	[RECORD_ALWAYS] = "always",
	[RECORD_NEVER] = "never",
};

bool bounded_holds(const struct bounded *b)
{
	for (unsigned i = 0; i < b->nbands && i < BOUND_BANDS_MAX; i++)
		if (b->value >= b->band[i].lo && b->value <= b->band[i].hi)
			return true;
	return false;
}

void checks_init(struct checks *l, struct check *store, unsigned max, char *text, size_t size)
{
	l->c = store;
	l->max = max;
	l->text = text;
	l->size = size;
	checks_clear(l);
}

void checks_clear(struct checks *l)
{
	l->n = 0;
	l->used = 0;
	l->dropped = 0;
}

/* The next entry, zeroed, with its sentence formatted into the text store; NULL when full. */
static struct check *append(struct checks *l, enum check_kind kind, const char *fmt, va_list ap)
{
	struct check *c;
	size_t room = l->size - l->used;
	int len;

	if (l->n >= l->max || room < 2) {
		l->dropped++;
		return NULL;
	}
	c = &l->c[l->n];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	if (room > CHECK_TEXT_MAX)
		room = CHECK_TEXT_MAX;
	len = vsnprintf(l->text + l->used, room, fmt, ap);
	if (len < 0 || (size_t)len >= room) {
		/* a sentence cut for want of room is a dropped entry, not a shorter one */
		if (room < CHECK_TEXT_MAX || len < 0) {
			l->dropped++;
			return NULL;
		}
		len = (int)room - 1;
	}
	c->text = l->text + l->used;
	l->used += (size_t)len + 1;
	l->n++;
	return c;
}

static void set_figure(struct check *c, const char *name, const char *unit)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->b.name = c->name;
	c->b.unit = unit;
}

bool checks_vbounded(struct checks *l, const struct bounded *b, const char *fmt, va_list ap)
{
	struct check *c = append(l, CHECK_BOUNDED, fmt, ap);

	if (c) {
		c->b = *b;
		set_figure(c, b->name, b->unit);
	}
	return bounded_holds(b);
}

bool checks_bounded(struct checks *l, const struct bounded *b, const char *fmt, ...)
{
	va_list ap;
	bool holds;

	va_start(ap, fmt);
	holds = checks_vbounded(l, b, fmt, ap);
	va_end(ap);
	return holds;
}

bool checks_count(struct checks *l, const char *name, const char *unit, s64 value, s64 lo, s64 hi,
		  const char *fmt, ...)
{
	struct bounded b = {
		.name = name,
		.unit = unit,
		.value = value,
		.nbands = 1,
		.band = {{lo, hi}},
	};
	va_list ap;
	bool holds;

	va_start(ap, fmt);
	holds = checks_vbounded(l, &b, fmt, ap);
	va_end(ap);
	return holds;
}

static bool vplain(struct checks *l, bool pass, const char *defect, const char *fmt, va_list ap)
{
	struct check *c = append(l, CHECK_PLAIN, fmt, ap);

	if (c) {
		c->pass = pass;
		if (defect)
			snprintf(c->defect, sizeof(c->defect), "%s", defect);
	}
	return pass;
}

bool checks_plain(struct checks *l, bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vplain(l, pass, NULL, fmt, ap);
	va_end(ap);
	return pass;
}

bool checks_kfail(struct checks *l, bool pass, const char *defect, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vplain(l, pass, defect, fmt, ap);
	va_end(ap);
	return pass;
}

void checks_skip(struct checks *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(l, CHECK_SKIP, fmt, ap);
	va_end(ap);
}

void checks_info(struct checks *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(l, CHECK_INFO, fmt, ap);
	va_end(ap);
}

void checks_result(struct checks *l, const char *name, const char *unit, const char *fmt, ...)
{
	struct check *c;
	va_list ap;

	va_start(ap, fmt);
	c = append(l, CHECK_RESULT, fmt, ap);
	va_end(ap);
	if (c)
		set_figure(c, name, unit);
}

bool check_holds(const struct check *c)
{
	switch (c->kind) {
	case CHECK_BOUNDED:
		return bounded_holds(&c->b);
	case CHECK_PLAIN:
		return c->pass;
	default:
		return true;
	}
}

bool checks_all_hold(const struct checks *l)
{
	return !l->dropped && !checks_failed(l);
}

unsigned checks_failed_from(const struct checks *l, unsigned first)
{
	unsigned n = 0;

	for (unsigned i = first; i < l->n; i++)
		n += !check_holds(&l->c[i]);
	return n;
}

unsigned checks_failed(const struct checks *l)
{
	return checks_failed_from(l, 0);
}

const struct check *checks_find(const struct checks *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if ((l->c[i].kind == CHECK_BOUNDED || l->c[i].kind == CHECK_RESULT) &&
		    !strcmp(l->c[i].name, name))
			return &l->c[i];
	return NULL;
}
