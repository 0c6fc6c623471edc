/* SPDX-License-Identifier: GPL-2.0-only */
/* Outcome reporting: tagged lines the runner parses, a prefix stack, counters and the summary. */
#include "report.h"
#include "arch.h"
#include "atomic.h"
#include "spinlock.h"
#include "fixed.h"

#define PREFIX_MAX 256
#define PREFIX_DEPTH 16

static struct spinlock prefix_lock;
static char prefix[PREFIX_MAX];
static size_t prefix_start[PREFIX_DEPTH];
static unsigned prefix_depth;
static unsigned n_tests, n_failures, n_skipped, n_known;
static const char *known_kinds;

void report_prefix_push(const char *p)
{
	report_prefix_pushf("%s", p);
}

void report_prefix_pushf(const char *fmt, ...)
{
	char part[PREFIX_MAX];
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	spin_lock(&prefix_lock);
	len = strlen(prefix);
	if (prefix_depth < PREFIX_DEPTH)
		prefix_start[prefix_depth] = len;
	prefix_depth++;
	snprintf(prefix + len, sizeof(prefix) - len, "%s: ", part);
	spin_unlock(&prefix_lock);
}

void report_prefix_pop(void)
{
	spin_lock(&prefix_lock);
	assert(prefix_depth > 0);
	prefix_depth--;
	if (prefix_depth < PREFIX_DEPTH)
		prefix[prefix_start[prefix_depth]] = '\0';
	spin_unlock(&prefix_lock);
}

static void emit(const char *tag, const char *fmt, va_list ap)
{
	char msg[768];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	spin_lock(&prefix_lock);
	printf("%s: %s%s\n", tag, prefix, msg);
	spin_unlock(&prefix_lock);
}

bool report(bool pass, const char *fmt, ...)
{
	va_list ap;

	atomic_inc(&n_tests);
	if (!pass)
		atomic_inc(&n_failures);
	va_start(ap, fmt);
	emit(pass ? "PASS" : "FAIL", fmt, ap);
	va_end(ap);
	return pass;
}

void report_known_defects(const char *kinds)
{
	known_kinds = kinds;
}

/* Whether the part of defect before '/' is one of the comma-separated known_kinds. */
static bool defect_is_known(const char *defect)
{
	const char *slash = strchr(defect, '/');
	size_t kind_len = slash ? (size_t)(slash - defect) : strlen(defect);
	const char *k = known_kinds;

	while (k && *k) {
		const char *comma = strchr(k, ',');
		size_t len = comma ? (size_t)(comma - k) : strlen(k);

		if (len == kind_len && !memcmp(k, defect, len))
			return true;
		k += len + (comma != NULL);
	}
	return false;
}

bool report_kfail(bool pass, const char *defect, const char *fmt, ...)
{
	bool known = defect_is_known(defect);
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pass || !known) {
		report(pass, "%s", msg);
		if (pass && known)
			report_info("the known defect %s did not show here", defect);
		return pass;
	}
	atomic_inc(&n_tests);
	atomic_inc(&n_known);
	spin_lock(&prefix_lock);
	printf("KFAIL: %s%s (known defect of this host: %s)\n", prefix, msg, defect);
	spin_unlock(&prefix_lock);
	return false;
}

unsigned report_known_failures(void)
{
	return atomic_load(&n_known);
}

void report_skip(const char *fmt, ...)
{
	va_list ap;

	atomic_inc(&n_tests);
	atomic_inc(&n_skipped);
	va_start(ap, fmt);
	emit("SKIP", fmt, ap);
	va_end(ap);
}

void report_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("INFO", fmt, ap);
	va_end(ap);
}

void report_result(const char *name, const char *unit, const char *fmt, ...)
{
	char value[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	printf("RESULT: %s %s %s\n", name, value, unit);
}

const char *bound_text(char *buf, size_t size, s64 v, unsigned scale, enum fixed_sign sign)
{
	if (v == BOUND_OPEN_LO)
		return "-inf";
	if (v == BOUND_OPEN_HI)
		return "inf";
	return fmt_fixed(buf, size, v, scale, scale, sign);
}

bool report_bounded(const struct bounded *b, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = report_vbounded(b, fmt, ap);
	va_end(ap);
	return pass;
}

bool report_bounded_count(const char *name, const char *unit, s64 count, s64 lo, s64 hi,
			  const char *fmt, ...)
{
	struct bounded b = {
		.name = name,
		.unit = unit,
		.value = count,
		.nbands = 1,
		.band = {{lo, hi}},
	};
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = report_vbounded(&b, fmt, ap);
	va_end(ap);
	return pass;
}

bool report_vbounded(const struct bounded *b, const char *fmt, va_list ap)
{
	char line[256], msg[768], lo[FIXED_BUF_SIZE], hi[FIXED_BUF_SIZE];
	bool pass = bounded_holds(b);
	size_t len;

	assert(b->nbands >= 1 && b->nbands <= BOUND_BANDS_MAX);
	len = snprintf(line, sizeof(line), "BOUND: %s %s %s", b->name,
		       bound_text(lo, sizeof(lo), b->value, b->scale, FIXED_SIGN_MINUS), b->unit);
	for (unsigned i = 0; i < b->nbands && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s..%s",
				bound_text(lo, sizeof(lo), b->band[i].lo, b->scale, FIXED_SIGN_MINUS),
				bound_text(hi, sizeof(hi), b->band[i].hi, b->scale, FIXED_SIGN_MINUS));
	vsnprintf(msg, sizeof(msg), fmt, ap);
	atomic_inc(&n_tests);
	if (!pass)
		atomic_inc(&n_failures);
	spin_lock(&prefix_lock);
	printf("%s\n%s: %s%s\n", line, pass ? "PASS" : "FAIL", prefix, msg);
	spin_unlock(&prefix_lock);
	return pass;
}

void report_counts(unsigned *tests, unsigned *failures, unsigned *skipped)
{
	*tests = atomic_load(&n_tests);
	*failures = atomic_load(&n_failures);
	*skipped = atomic_load(&n_skipped);
}

void report_carry(unsigned tests, unsigned failures, unsigned skipped)
{
	atomic_add(&n_tests, tests);
	atomic_add(&n_failures, failures);
	atomic_add(&n_skipped, skipped);
}

unsigned report_failures(void)
{
	return atomic_load(&n_failures);
}

int report_summary(void)
{
	unsigned tests = atomic_load(&n_tests);
	unsigned failures = atomic_load(&n_failures);
	unsigned skipped = atomic_load(&n_skipped);
	unsigned known = atomic_load(&n_known);
	char known_part[40] = "";

	if (!tests) {
		printf("FAIL: the test reported nothing\n");
		failures = 1;
	}
	if (known)
		snprintf(known_part, sizeof(known_part), ", %u known failures", known);
	printf("SUMMARY: %u tests, %u unexpected failures, %u skipped%s\n",
	       tests, failures, skipped, known_part);
	if (failures)
		return EXIT_FAIL;
	if (skipped == tests)
		return EXIT_SKIP;
	return EXIT_PASS;
}

void report_exit(void)
{
	exit(report_summary());
}

void report_abort(const char *fmt, ...)
{
	va_list ap;

	atomic_inc(&n_tests);
	atomic_inc(&n_failures);
	va_start(ap, fmt);
	emit("FAIL", fmt, ap);
	va_end(ap);
	report_exit();
}

static void report_check(const struct check *c)
{
	switch (c->kind) {
	case CHECK_BOUNDED:
		report_bounded(&c->b, "%s", c->text);
		break;
	case CHECK_PLAIN:
		if (c->defect[0])
			report_kfail(c->pass, c->defect, "%s", c->text);
		else
			report(c->pass, "%s", c->text);
		break;
	case CHECK_SKIP:
		report_skip("%s", c->text);
		break;
	case CHECK_INFO:
		report_info("%s", c->text);
		break;
	case CHECK_RESULT:
		report_result(c->name, c->b.unit, "%s", c->text);
		break;
	}
}

void report_checks(const struct checks *l)
{
	for (unsigned i = 0; i < l->n; i++)
		report_check(&l->c[i]);
	if (l->dropped)
		report(false,
		       "the judgment's list had no room for %u more entries (%u entries, %zu bytes of "
		       "text): its checks were not all kept",
		       l->dropped, l->max, l->size);
}
