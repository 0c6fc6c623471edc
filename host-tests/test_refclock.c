// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/refclock.c, the mark loop and rate math every reference clock shares,
 * driven by fake clocks on a simulated timeline: each read of the clock
 * under test or of the reference advances simulated time by its cost
 * (fixed, or pseudo-random to play a noisy host), so the true moment of
 * every reference edge is known. Checks: an exact clock gives err 0, one
 * 1% fast gives 10^7 ppb; the bound is what the brackets' widths, the
 * marks' slack and the tolerance say; a slow 1 Hz reference is polled to
 * its edge; every bracket holds the true edge and every error lies within
 * its bound under random read costs; and what cannot give a rate says so.
 * The arch's counter (the window's timer) runs on the same timeline.
 */
/* LIBSRC: lib/refclock.c lib/wait.c lib/stats.c lib/string.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "xorshift.h"
#include "../lib/units.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CLOCK_HZ NSEC_PER_SEC /* the clock under test ticks in ns, as kvmclock */
#define RANDOM_WINDOWS 2000

/* lib/refclock.h, restated with system types (its own header pulls in the freestanding libc). */
struct refclock {
	const char *name;
	const char *what;
	const char *(*probe)(void);
	uint64_t (*hz)(void);
	uint64_t (*read)(void);
	uint64_t max_poll_ns;
	uint64_t tolerance_ppb;
};
struct refclock_mark {
	uint64_t count;
	uint64_t lo, hi;
	uint64_t slack;
};
struct refclock_rate {
	int64_t err_ppb;
	uint64_t bound_ppb;
	uint64_t window_ns;
};
struct refclock_result {
	const struct refclock *ref;
	struct refclock_mark m0, m1;
	struct refclock_rate rate;
	const char *why;
};
bool refclock_mark_best(const struct refclock *ref, uint64_t (*clock)(void), uint64_t timeout,
			unsigned tries, struct refclock_mark *m);
void refclock_measure(struct refclock_result *res, size_t n, uint64_t (*clock)(void), uint64_t clock_hz,
		      uint64_t window, unsigned tries);
const struct refclock *const *refclock_table(size_t *n);
const struct refclock *refclock_find(const char *name);
bool refclock_mark(const struct refclock *ref, uint64_t (*clock)(void), uint64_t timeout,
		   struct refclock_mark *m);
bool refclock_rate(const struct refclock *ref, uint64_t clock_hz, const struct refclock_mark *m0,
		   const struct refclock_mark *m1, struct refclock_rate *rate);

/* The simulated world: true time in ps, what each read costs, how fast the clock under test runs. */
static struct {
	uint64_t now_ps;
	uint64_t clock_cost_ps, ref_cost_ps;
	uint64_t jitter_ps;	/* up to this much more per read, pseudo-randomly */
	u64 seed;
	uint64_t clock_num, clock_den;	/* clock ticks = ns * num / den */
	uint64_t ref_hz;
} sim;

static void spend(uint64_t cost_ps)
{
	sim.now_ps += cost_ps;
	if (sim.jitter_ps)
		sim.now_ps += next_random(&sim.seed) % sim.jitter_ps;
}

/* The clock under test at true time ps. */
static uint64_t clock_at(uint64_t ps)
{
	return (uint64_t)((unsigned __int128)ps * sim.clock_num / (sim.clock_den * 1000));
}

/* Each read samples at the middle of its cost: the sample moment is strictly inside its bracket. */
static uint64_t fake_clock(void)
{
	uint64_t v;

	spend(sim.clock_cost_ps / 2);
	v = clock_at(sim.now_ps);
	spend(sim.clock_cost_ps / 2);
	return v;
}

/* The arch's counter, which times refclock_measure()'s window: true time in ns. */
uint64_t arch_counter(void);
uint64_t arch_counter_hz(void);
void cpu_relax(void);

uint64_t arch_counter(void)
{
	spend(sim.clock_cost_ps);
	return sim.now_ps / PSEC_PER_NSEC;
}

uint64_t arch_counter_hz(void)
{
	return NSEC_PER_SEC;
}

void cpu_relax(void)
{
}

static uint64_t fake_ref_read(void)
{
	uint64_t v;

	spend(sim.ref_cost_ps / 2);
	v = (uint64_t)((unsigned __int128)sim.now_ps * sim.ref_hz / PSEC_PER_SEC);
	spend(sim.ref_cost_ps / 2);
	return v;
}

static uint64_t fake_ref_hz(void)
{
	return sim.ref_hz;
}

static uint64_t pit_like_hz(void)
{
	return 1193182;
}

/* Reads nothing useful: only its rate and wrap period matter, to the window-sharing rule. */
static uint64_t pit_like_read(void)
{
	return 0;
}

#define LONG_POLL_NS (1000 * NSEC_PER_SEC)
static const struct refclock fast_ref = {
	"fast", "fake 100 MHz counter", NULL, fake_ref_hz, fake_ref_read, LONG_POLL_NS, 0,
};
static const struct refclock slow_ref = {
	"slow", "fake 1 Hz seconds", NULL, fake_ref_hz, fake_ref_read, LONG_POLL_NS, 0,
};
static const struct refclock tolerant_ref = {
	"tolerant", "fake counter with 500 ppm tolerance", NULL, fake_ref_hz, fake_ref_read, LONG_POLL_NS,
	500000,
};
static const struct refclock pit_like_ref = {
	"pit-like", "wraps every 55 ms", NULL, pit_like_hz, pit_like_read, 27000000, 0,
};

static const struct refclock *const table[] = { &fast_ref, &slow_ref, &tolerant_ref, &pit_like_ref };

const struct refclock *const *refclock_table(size_t *n)
{
	*n = ARRAY_LEN(table);
	return table;
}

static void sim_reset(uint64_t ref_hz, uint64_t clock_num, uint64_t clock_den)
{
	sim = (typeof(sim)){ .clock_cost_ps = 75 * PSEC_PER_USEC, .ref_cost_ps = 50 * PSEC_PER_USEC,
			     .seed = 0x9e3779b97f4a7c15ULL, .clock_num = clock_num,
			     .clock_den = clock_den, .ref_hz = ref_hz };
}

/* Two marks started window_ps apart (true time), the second at the same phase as the first. */
static void two_marks(const struct refclock *ref, uint64_t start_ps, uint64_t window_ps,
		      struct refclock_mark *m0, struct refclock_mark *m1)
{
	sim.now_ps = start_ps;
	assert_true(refclock_mark(ref, fake_clock, 3 * CLOCK_HZ, m0));
	sim.now_ps = start_ps + window_ps;
	assert_true(refclock_mark(ref, fake_clock, 3 * CLOCK_HZ, m1));
}

static void test_exact_rate(void **state)
{
	struct refclock_mark m0, m1;
	struct refclock_rate r;

	sim_reset(100000000, 1, 1);
	two_marks(&fast_ref, 123456789, PSEC_PER_SEC, &m0, &m1);
	assert_true(m0.slack == 1 && m1.slack == 1);
	assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.err_ppb, 0);
	assert_int_equal(r.window_ns, NSEC_PER_SEC);
	assert_true(r.bound_ppb > 0 && r.bound_ppb < 200000);
}

static void test_one_percent_fast(void **state)
{
	struct refclock_mark m0, m1;
	struct refclock_rate r;

	sim_reset(100000000, 101, 100);
	two_marks(&fast_ref, 5 * PSEC_PER_USEC, PSEC_PER_SEC, &m0, &m1);
	assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.err_ppb, 10000000);
	/* and slow: ticks at 99% */
	sim_reset(100000000, 99, 100);
	two_marks(&fast_ref, 5 * PSEC_PER_USEC, PSEC_PER_SEC, &m0, &m1);
	assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.err_ppb, -10000000);
}

/* How far the extremes the brackets and slack allow lie from the estimate, + 1 ppb, + tolerance. */
static void test_bound_from_brackets(void **state)
{
	struct refclock_mark m0 = { 0, 0, 1000, 0 }, m1 = { 100000000, 1000001000, 1000004000, 0 };
	struct refclock_rate r;

	sim_reset(100000000, 1, 1);
	assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	/* widths 1000 + 3000, half 2000, over the shortest 10^9 ns: 2000 ppb, + 1 rounding */
	assert_int_equal(r.bound_ppb, 2001);
	/* the midpoints are 500 and 10^9 + 2500 ns apart, against 10^8 counts at 100 MHz: 2 ppm fast */
	assert_int_equal(r.err_ppb, 2000);
	m0.slack = m1.slack = 1;
	assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	/* one count of slack each in 10^8: the extremes move 10 ppb further out */
	assert_int_equal(r.bound_ppb, 2011);
	assert_true(refclock_rate(&tolerant_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.bound_ppb, 2011 + 500000);
}

/* A 1 Hz reference: polled until its edge, which both brackets hold; three seconds apart. */
static void test_slow_reference(void **state)
{
	struct refclock_mark m0, m1;
	struct refclock_rate r;
	uint64_t width;

	sim_reset(1, 1, 1);
	sim.ref_cost_ps = 500 * PSEC_PER_USEC;
	two_marks(&slow_ref, PSEC_PER_SEC / 3, 3 * PSEC_PER_SEC, &m0, &m1);
	assert_int_equal(m0.count, 1);
	assert_int_equal(m1.count, 4);
	assert_true(m0.slack == 0 && m1.slack == 0);
	assert_true(m0.lo <= NSEC_PER_SEC && m0.hi >= NSEC_PER_SEC);
	assert_true(m1.lo <= 4000000000ULL && m1.hi >= 4000000000ULL);
	/* an edge bracket spans two reference reads and their clock reads */
	width = m0.hi - m0.lo;
	assert_true(width >= 1100000 && width <= 1300000);
	assert_true(refclock_rate(&slow_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.err_ppb, 0);
	assert_int_equal(r.window_ns, 3000000000ULL);
	assert_true(r.bound_ppb > width * PPB_PER_UNIT / 3000000000ULL / 2 && r.bound_ppb < 500000);

	sim_reset(1, 101, 100);
	sim.ref_cost_ps = 500 * PSEC_PER_USEC;
	two_marks(&slow_ref, PSEC_PER_SEC / 3, 3 * PSEC_PER_SEC, &m0, &m1);
	assert_true(refclock_rate(&slow_ref, CLOCK_HZ, &m0, &m1, &r));
	assert_int_equal(r.err_ppb, 10000000);
}

/* No change within the timeout: false, after about timeout ticks. */
static void test_timeout(void **state)
{
	struct refclock_mark m;

	sim_reset(1, 1, 1);
	sim.now_ps = 0;
	assert_false(refclock_mark(&slow_ref, fake_clock, 100000000, &m));
	assert_true(sim.now_ps >= 100 * PSEC_PER_USEC * 1000 && sim.now_ps < 200 * PSEC_PER_USEC * 1000);
}

/*
 * The count moves by one between the first read and the next: the change
 * came after the first read began, so the mark's bracket opens at the
 * clock read before it (87.5 us), and closes at the read after the second
 * (337.5 us). Reads, true time: clock 50-125 (sample 87.5), reference
 * 125-175 (150: count 0 at 5 kHz), clock 175-250, reference 250-300 (275:
 * count 1), clock 300-375 (337.5). Found even with no time allowed: the
 * timeout is judged only on a read that found no change.
 */
static void test_first_read_moved(void **state)
{
	struct refclock_mark m;

	for (uint64_t timeout = 0; timeout <= 1000000; timeout += 1000000) {
		sim_reset(5000, 1, 1);
		sim.now_ps = 50 * PSEC_PER_USEC;
		assert_true(refclock_mark(&fast_ref, fake_clock, timeout, &m));
		assert_int_equal(m.count, 1);
		assert_int_equal(m.slack, 0);
		assert_int_equal(m.lo, 87500);
		assert_int_equal(m.hi, 337500);
	}
}

/* Noisy read costs (up to 20x the fixed one): the truth always lies within err +- bound. */
static void test_random_costs(void **state)
{
	uint64_t rates[][2] = { { 1, 1 }, { 101, 100 }, { 4, 1 }, { 19, 20 } };

	for (int i = 0; i < RANDOM_WINDOWS; i++) {
		uint64_t *rate = rates[i % ARRAY_LEN(rates)];
		int64_t truth = (int64_t)(rate[0] * PPB_PER_UNIT / rate[1]) - (int64_t)PPB_PER_UNIT;
		struct refclock_mark m0, m1;
		struct refclock_rate r;
		u64 seed;

		sim_reset(100000000, rate[0], rate[1]);
		sim.seed += (uint64_t)i * 7919;
		sim.jitter_ps = 1500 * PSEC_PER_USEC;
		seed = sim.seed;
		sim.now_ps = next_random(&seed) % PSEC_PER_SEC;
		assert_true(refclock_mark(&fast_ref, fake_clock, 3 * CLOCK_HZ, &m0));
		sim.now_ps += 100000 * PSEC_PER_USEC + next_random(&seed) % PSEC_PER_SEC;
		assert_true(refclock_mark(&fast_ref, fake_clock, 3 * CLOCK_HZ, &m1));
		assert_true(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
		if (r.err_ppb - (int64_t)r.bound_ppb > truth || truth > r.err_ppb + (int64_t)r.bound_ppb)
			fail_msg("window %d: truth %lld ppb outside %lld +- %llu ppb (widths %llu, %llu)", i,
				 truth, r.err_ppb, r.bound_ppb, m0.hi - m0.lo, m1.hi - m1.lo);
	}
}

static void test_no_rate(void **state)
{
	struct refclock_mark m0 = { 10, 0, 100, 0 }, m1 = { 10, 1000, 1100, 0 };
	struct refclock_rate r;

	sim_reset(100000000, 1, 1);
	/* no counts between the marks */
	assert_false(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	/* brackets that overlap leave no elapsed time for sure */
	m1.count = 20;
	m1.lo = 50;
	assert_false(refclock_rate(&fast_ref, CLOCK_HZ, &m0, &m1, &r));
	/* in the wrong order */
	assert_false(refclock_rate(&fast_ref, CLOCK_HZ, &m1, &m0, &r));
}

/* The narrowest of several marks under noise, for two references in one window, 1% fast. */
static void test_measure(void **state)
{
	struct refclock_result res[2] = { { .ref = &fast_ref }, { .ref = &tolerant_ref } };
	struct refclock_mark best;

	sim_reset(100000000, 101, 100);
	sim.jitter_ps = 1500 * PSEC_PER_USEC;
	refclock_measure(res, 2, fake_clock, CLOCK_HZ, CLOCK_HZ / 5, 5);
	for (int i = 0; i < 2; i++) {
		assert_null(res[i].why);
		assert_true(res[i].rate.window_ns >= 190000000 && res[i].rate.window_ns < 400000000);
		assert_true(res[i].rate.err_ppb - (int64_t)res[i].rate.bound_ppb <= 10000000 &&
			    10000000 <= res[i].rate.err_ppb + (int64_t)res[i].rate.bound_ppb);
	}
	assert_true(res[1].rate.bound_ppb > 500000);
	/*
	 * A bracket holds half a clock read, a reference read and half a
	 * clock read, four jitters of up to 1.5 ms: 3.125 ms on average. The
	 * narrowest of 20 is below that average (the seed is fixed).
	 */
	assert_true(refclock_mark_best(&fast_ref, fake_clock, CLOCK_HZ, 20, &best));
	assert_true(best.hi - best.lo < 3125000);
}

/* A 1 Hz reference keeps a 55 ms one unpolled for seconds: refused, nothing measured. */
static void test_measure_refuses_mix(void **state)
{
	struct refclock_result res[2] = { { .ref = &slow_ref }, { .ref = &pit_like_ref } };
	uint64_t before;

	sim_reset(1, 1, 1);
	before = sim.now_ps;
	refclock_measure(res, 2, fake_clock, CLOCK_HZ, CLOCK_HZ, 1);
	assert_non_null(res[0].why);
	assert_non_null(res[1].why);
	assert_int_equal(sim.now_ps, before);
}

static void test_find(void **state)
{
	assert_ptr_equal(refclock_find("slow"), &slow_ref);
	assert_ptr_equal(refclock_find("fast"), &fast_ref);
	assert_null(refclock_find("fas"));
	assert_null(refclock_find(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_rate),	 cmocka_unit_test(test_one_percent_fast),
		cmocka_unit_test(test_bound_from_brackets), cmocka_unit_test(test_slow_reference),
		cmocka_unit_test(test_timeout),		 cmocka_unit_test(test_random_costs),
		cmocka_unit_test(test_first_read_moved),
		cmocka_unit_test(test_no_rate),		 cmocka_unit_test(test_measure),
		cmocka_unit_test(test_measure_refuses_mix), cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
