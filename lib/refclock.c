// SPDX-License-Identifier: GPL-2.0-only
/* Reference clocks, arch-neutral part: marking a reference's count change and the rate between two marks. */
#include "refclock.h"
#include "units.h"
#include "arch.h"
#include "stats.h"
#include "wait.h"
#include "mul64.h"

/*
 * The rate math multiplies two 64-bit values (elapsed ticks by a
 * frequency): exact 128-bit products (lib/mul64.h) and quotients, in
 * 64-bit halves so that i386 needs no 128-bit type.
 */
static bool u128_less(struct u128 a, struct u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static struct u128 u128_sub(struct u128 a, struct u128 b)
{
	return (struct u128){ a.hi - b.hi - (a.lo < b.lo), a.lo - b.lo };
}

static struct u128 u128_shr(struct u128 a, unsigned n)
{
	if (!n)
		return a;
	if (n >= 64)
		return (struct u128){ 0, a.hi >> (n - 64) };
	return (struct u128){ a.hi >> n, (a.lo >> n) | (a.hi << (64 - n)) };
}

/*
 * num / den in ppb (num * 10^9 / den, to the nearest), saturated at
 * U64_MAX. Both are first shifted until den fits 33 bits: what that drops
 * is below one part in 2^32 of den, under a ppb of the result.
 */
static u64 ratio_ppb(struct u128 num, struct u128 den)
{
	unsigned shift = 0;
	u64 n, d;

	while (u128_shr(den, shift).hi || u128_shr(den, shift).lo >> 33)
		shift++;
	num = u128_shr(num, shift);
	d = u128_shr(den, shift).lo;
	if (!d || num.hi || num.lo / d >= ~0ull / PPB_PER_UNIT)
		return ~0ull;
	n = num.lo;
	/* n % d < 2^33, so its product with 10^9 (and d / 2 more) fits 64 bits */
	return n / d * PPB_PER_UNIT + (n % d * PPB_PER_UNIT + d / 2) / d;
}

/* (measured - nominal) / nominal in ppb, saturated at S64_MAX either way. */
static s64 relative_ppb(struct u128 measured, struct u128 nominal)
{
	u64 max = ~0ull >> 1, ppb;

	if (u128_less(measured, nominal)) {
		ppb = ratio_ppb(u128_sub(nominal, measured), nominal);
		return -(s64)(ppb > max ? max : ppb);
	}
	ppb = ratio_ppb(u128_sub(measured, nominal), nominal);
	return (s64)(ppb > max ? max : ppb);
}

static u64 add_sat(u64 a, u64 b)
{
	return a + b < a ? ~0ull : a + b;
}

/* A mark being found: the reference's count before, and the clock's reads around the last read of it. */
struct mark_search {
	const struct refclock *ref;
	u64 start, timeout;
	u64 prev;		 /* the count before any change */
	u64 count;		 /* the last read of it, once read */
	bool read;		 /* count holds a read the round's clock read ends */
	u64 before_prev, before; /* the clock reads before the last two reads of the count */
	struct refclock_mark *m;
	bool found;
};

/*
 * One round: now is the clock's read after the last reference read (its
 * bracket's end) and before the next one. A count that moved is the mark;
 * else, past the timeout, none; else the next read.
 */
static bool mark_step(void *arg, u64 now)
{
	struct mark_search *s = arg;

	if (s->read && s->count != s->prev) {
		s->m->count = s->count;
		s->m->hi = now;
		s->m->slack = s->count - s->prev == 1 ? 0 : 1;
		s->m->lo = s->m->slack ? s->before : s->before_prev;
		s->found = true;
		return true;
	}
	if (s->read && now - s->start > s->timeout)
		return true;
	s->before_prev = s->read ? s->before : s->start;
	s->before = now;
	s->count = s->ref->read();
	s->read = true;
	return false;
}

/*
 * Reads go clock, reference, clock, reference, clock...: each reference
 * read is bracketed by the clock reads before and after it. When the count
 * moved by one, it changed after the previous reference read began (after
 * the clock read before it) and before the current one ended. Timed by the
 * caller's clock (work_until_by()), whose reads are the brackets.
 */
bool refclock_mark(const struct refclock *ref, u64 (*clock)(void), u64 timeout,
		   struct refclock_mark *m)
{
	struct mark_search s = { .ref = ref, .timeout = timeout, .m = m };

	s.start = clock();
	s.prev = ref->read();
	work_until_by(clock, mark_step, &s, WAIT_FOREVER);
	return s.found;
}

bool refclock_mark_best(const struct refclock *ref, u64 (*clock)(void), u64 timeout,
			unsigned tries, struct refclock_mark *m)
{
	struct refclock_mark next;
	bool found = false;

	for (unsigned i = 0; i < tries; i++) {
		if (!refclock_mark(ref, clock, timeout, &next))
			continue;
		if (!found || next.hi - next.lo < m->hi - m->lo)
			*m = next;
		found = true;
	}
	return found;
}

/*
 * The clock's elapsed ticks E between the two edges lie in
 * [m1.lo - m0.hi, m1.hi - m0.lo], the reference's counts R in
 * [R - m0.slack, R + m1.slack]. The estimate takes the brackets'
 * midpoints and R as read:
 *   err = (E_mid / clock_hz) / (R / ref_hz) - 1
 * and the bound is how far the extremes (longest E over fewest counts,
 * shortest E over most) lie from it, one ppb added for rounding, plus the
 * reference's own tolerance. Taking the extremes rather than W / E keeps
 * the bound exact for a clock far off too (4x fast: the bound grows 4x).
 */
bool refclock_rate(const struct refclock *ref, u64 clock_hz, const struct refclock_mark *m0,
		   const struct refclock_mark *m1, struct refclock_rate *rate)
{
	u64 counts = m1->count - m0->count;
	u64 ref_hz = ref->hz();
	u64 twice_mid;
	s64 hi, lo;

	if (m1->count <= m0->count || counts <= m0->slack || m1->lo <= m0->hi || !clock_hz ||
	    !ref_hz)
		return false;
	/* (m1.lo + m1.hi) - (m0.lo + m0.hi), without adding two large values */
	twice_mid = (m1->lo - m0->lo) + (m1->hi - m0->hi);
	rate->err_ppb =
		relative_ppb(mul_u64_u64(twice_mid, ref_hz), mul_u64_u64(2 * counts, clock_hz));
	hi = relative_ppb(mul_u64_u64(m1->hi - m0->lo, ref_hz),
			  mul_u64_u64(counts - m0->slack, clock_hz));
	lo = relative_ppb(mul_u64_u64(m1->lo - m0->hi, ref_hz),
			  mul_u64_u64(counts + m1->slack, clock_hz));
	rate->bound_ppb = add_sat((u64)max(hi - rate->err_ppb, rate->err_ppb - lo), 1);
	rate->bound_ppb = add_sat(rate->bound_ppb, ref->tolerance_ppb);
	rate->window_ns = ratio_ppb(mul_u64_u64(counts, 1), mul_u64_u64(ref_hz, 1));
	return true;
}

/* The longest a mark of ref may keep the others unpolled, in ns: tries periods of its count. */
static u64 longest_mark_ns(const struct refclock *ref, unsigned tries)
{
	return ratio_ppb(mul_u64_u64(tries, 1), mul_u64_u64(ref->hz(), 1));
}

static const char *cannot_share(const struct refclock_result *res, size_t n, unsigned tries)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && longest_mark_ns(res[i].ref, tries) >= res[j].ref->max_poll_ns)
				return "a reference this slow cannot share a window with one that wraps this fast";
	return NULL;
}

static void mark_into(struct refclock_result *r, struct refclock_mark *m, u64 (*clock)(void),
		      u64 timeout, unsigned tries)
{
	if (!r->why && !refclock_mark_best(r->ref, clock, timeout, tries, m))
		r->why = "its count did not change within the mark timeout";
}

/* The references read through the window between the marks, so that none goes unpolled. */
struct ref_window {
	struct refclock_result *res;
	size_t n;
};

static bool read_refs(void *arg, u64 now)
{
	struct ref_window *w = arg;

	for (size_t i = 0; i < w->n; i++)
		w->res[i].ref->read();
	return false;
}

void refclock_measure(struct refclock_result *res, size_t n, u64 (*clock)(void), u64 clock_hz,
		      u64 window, unsigned tries)
{
	u64 timeout = REFCLOCK_MARK_TIMEOUT_S * clock_hz, window_ticks;
	const char *why = cannot_share(res, n, tries);

	for (size_t i = 0; i < n; i++)
		res[i].why = why;
	if (why)
		return;
	/*
	 * Before the first mark: the counter's rate may be found on its first
	 * use (x86 calibrates the TSC against the PM timer, probing it again),
	 * which must not fall between a reference's two marks.
	 */
	window_ticks = ns_to_ticks(ticks_to_ns(window, clock_hz), arch_counter_hz());
	for (size_t i = 0; i < n; i++)
		mark_into(&res[i], &res[i].m0, clock, timeout, tries);
	work_until(read_refs, &(struct ref_window){res, n}, arch_counter() + window_ticks);
	for (size_t i = 0; i < n; i++)
		mark_into(&res[i], &res[i].m1, clock, timeout, tries);
	for (size_t i = 0; i < n; i++)
		if (!res[i].why && !refclock_rate(res[i].ref, clock_hz, &res[i].m0, &res[i].m1, &res[i].rate))
			res[i].why = "its marks give no rate (no counts or no time between them)";
}

const struct refclock *refclock_find(const char *name)
{
	size_t n;
	const struct refclock *const *table = refclock_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}
