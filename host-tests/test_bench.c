// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/bench.c on the host, against a fake counter whose every tick is known:
 * each counter read costs READ_COST ticks, each operation of a row costs
 * what the row says. The framework must then find exactly that cost per
 * operation (the empty loop, i.e. the reads, subtracted and reported), cap
 * a slow row to its time budget, keep the fraction of a nanosecond at a
 * 24 MHz counter, SKIP a row whose prepare() says why, and parse its
 * arguments strictly. A single disturbance (a spike of time between two
 * fences, as a host interrupt or TCG's first pass over new code makes)
 * anywhere in a one-batch run must not fail the row.
 */
/* LIBSRC: lib/bench.c lib/stats.c lib/fixed.c lib/argv.c lib/strto.c lib/string.c lib/printf.c */
/* LIBSRC: lib/wait.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "../lib/arch.h"
#include "../lib/bench.h"
#include "../lib/report.h"
#include "../lib/units.h"

#define READ_COST 7

static u64 now, hz = NSEC_PER_SEC; /* a counter in ns */
static unsigned skips, fails, results;
/* a one-off disturbance: SPIKE ticks at the spike_at-th fence (0: none) */
#define SPIKE 1000000
static unsigned fences, spike_at;
/* a busy host: SPIKE ticks at every fence whose number is 1 modulo spike_every (0: none) */
static unsigned spike_every;

/* --- the platform and report hooks bench.c calls -------------------------- */

u64 arch_counter(void)
{
	u64 t = now;

	now += READ_COST;
	return t;
}

u64 arch_counter_hz(void)
{
	return hz;
}

void cpu_relax(void)
{
}

void arch_bench_fence(void)
{
	if (++fences == spike_at || (spike_every && fences % spike_every == 1))
		now += SPIKE;
}

bool report(bool pass, const char *fmt, ...)
{
	fails += !pass;
	return pass;
}

void report_skip(const char *fmt, ...)
{
	skips++;
}

void report_info(const char *fmt, ...)
{
}

void report_result(const char *name, const char *unit, const char *fmt, ...)
{
	results++;
}

void report_prefix_pushf(const char *fmt, ...)
{
}

void report_prefix_pop(void)
{
}

void report_abort(const char *fmt, ...)
{
	fail_msg("report_abort called");
	abort();
}

/* --- rows whose cost is known --------------------------------------------- */

static u64 op_cost;

BENCH_LOOP(loop_costly, now += op_cost)

static u64 sample_fixed(void *ctx)
{
	return 500;
}

static const char *prepare_never(void *ctx)
{
	return "not here";
}

static void run_one(const struct bench *row, struct bench_result *r, unsigned batches, u64 budget_ms)
{
	struct bench_config c;

	bench_config_init(&c, "t");
	c.batches = batches;
	c.budget_ms = budget_ms;
	skips = fails = results = fences = 0;
	bench_run(&c, row, 1, r);
}

static void test_exact_cost(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 1000 };
	struct bench_result r;

	op_cost = 100;
	hz = NSEC_PER_SEC;
	run_one(&row, &r, 7, 1000);
	assert_null(r.skip);
	assert_int_equal(r.n, 1000);
	assert_int_equal(r.batches, 7);
	assert_false(r.capped);
	/* 100 ticks at 1 GHz: exactly 100 ns per operation, no spread */
	assert_int_equal(r.op_ps.median, 100000);
	assert_int_equal(r.op_ps.min, 100000);
	assert_int_equal(r.op_ps.max, 100000);
	assert_int_equal(r.op_ps.mad, 0);
	assert_int_equal(r.total_ps, 7ull * 1000 * 100000);
	/* what was subtracted: one read's cost over the batch */
	assert_int_equal(r.overhead_ps, READ_COST * 1000 / 1000);
	assert_int_equal(fails, 0);
	/* each batch: 100 ticks per operation over an empty loop of one read (READ_COST) */
	assert_int_equal(r.per_empty_milli, 100ull * 1000 * 1000 / READ_COST);
	assert_int_equal(results, 10);
}

/* slow=ROW:PCT: the row's net cost grows by PCT %, to within the few counter reads of the wait */
static void test_slow(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 1000 };
	struct bench_config c;
	struct bench_result r;
	const u64 pct = 5, want = 100000 * (100 + pct) / 100;

	op_cost = 100;
	hz = NSEC_PER_SEC;
	bench_config_init(&c, "t");
	c.batches = 5;
	c.budget_ms = 1000;
	c.slow = "op:5";
	skips = fails = results = fences = 0;
	bench_run(&c, &row, 1, &r);
	/* the wait ends at the first read past its end, then one closing read */
	assert_in_range(r.op_ps.median, want, want + 3 * READ_COST * 1000 / row.iters);
	assert_in_range(r.op_ps.max, want, want + 3 * READ_COST * 1000 / row.iters);
	assert_int_equal(fails, 0);
	/* the same row without slow= costs what it did */
	c.slow = NULL;
	bench_run(&c, &row, 1, &r);
	assert_int_equal(r.op_ps.median, 100000);
}

static void test_fraction_kept(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 3 };
	struct bench_result r;

	/* one tick of a 24 MHz counter is 41.666... ns */
	op_cost = 1;
	hz = 24000000;
	run_one(&row, &r, 5, 100);
	assert_int_equal(r.op_ps.median, 41666);
	hz = NSEC_PER_SEC;
}

static void test_budget_caps(void **state)
{
	struct bench row = { .name = "slow", .what = "slow", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 100000 };
	struct bench_result r;

	/* 1 ms per operation, 200 ms for 7 batches (+1 share of warm-up): 25 ms, about 25 operations, per batch */
	op_cost = NSEC_PER_MSEC;
	run_one(&row, &r, 7, 200);
	assert_true(r.capped);
	assert_true(r.n == 24 || r.n == 25);
	assert_true(r.batches >= 1 && r.batches <= 7);
	assert_int_equal(r.op_ps.median, PSEC_PER_MSEC);
}

static void test_samples(void **state)
{
	struct bench row = { .name = "lat", .what = "lat", .kind = BENCH_SAMPLES,
			     .sample = sample_fixed, .iters = 16 };
	struct bench_result r;

	run_one(&row, &r, 3, 100);
	assert_int_equal(r.op_ps.median, 500000);
	assert_int_equal(r.overhead_ps, 0);
}

static void test_skip(void **state)
{
	struct bench row = { .name = "no", .what = "no", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 10, .prepare = prepare_never };
	struct bench_result r;

	run_one(&row, &r, 3, 100);
	assert_string_equal(r.skip, "not here");
	assert_int_equal(r.batches, 0);
	assert_int_equal(skips, 1);
	/* only the counter frequency line: a skipped row has no figures */
	assert_int_equal(results, 1);
}

static void test_arithmetic(void **state)
{
	assert_int_equal(bench_op_ps(1007, 7, NSEC_PER_SEC, 10), 100000);
	assert_int_equal(bench_op_ps(5, 7, NSEC_PER_SEC, 10), 0);
	assert_int_equal(bench_op_ps(5, 0, NSEC_PER_SEC, 0), 0);
	assert_int_equal(bench_fit(1000, 10, 5000), 500);
	assert_int_equal(bench_fit(100, 10, 5000), 100);
	assert_int_equal(bench_fit(100, 10000, 5000), 1);
	assert_int_equal(bench_fit(100, 0, 5000), 100);
}

/*
 * batches=1 iters=10: one disturbance, tried at every fence of the run in
 * turn, may inflate the figure (one batch cannot reject it) but must not
 * cut it to 0 and fail "more than an empty iteration".
 */
static void test_one_batch_spike(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 10 };
	struct bench_result r;
	unsigned total;

	op_cost = 100;
	run_one(&row, &r, 1, 1000);
	total = fences;
	assert_true(total > 4);
	for (spike_at = 1; spike_at <= total; spike_at++) {
		run_one(&row, &r, 1, 1000);
		if (fails || r.op_ps.median < 100000)
			fail_msg("spike at fence %u of %u: %llu ps per operation, %u failed checks "
				 "(want >= 100000 ps, none failed)", spike_at, total,
				 r.op_ps.median, fails);
	}
	spike_at = 0;
}

/*
 * A busy host: disturbances at a steady fraction of all fences, so that
 * most timings, of the empty loop as of the batches, carry one. A real
 * cost (100 ticks per operation, a tenth of one disturbance per batch)
 * must still count as more than an empty iteration: only the least
 * disturbed timings are compared.
 */
static void test_busy_host(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 100 };
	struct bench_result r;

	op_cost = 100;
	for (spike_every = 2; spike_every <= 9; spike_every++) {
		run_one(&row, &r, 7, 1000);
		if (fails || !r.floor_ps)
			fail_msg("a disturbance at every fence %u: %u failed checks, fastest batch "
				 "%llu ps over the fastest empty loop (want none failed, > 0)",
				 spike_every, fails, r.floor_ps);
	}
	spike_every = 0;
}

/* The fault the check exists for: an operation that costs nothing (optimised away, never run). */
static void test_free_operation_fails(void **state)
{
	struct bench row = { .name = "op", .what = "op", .kind = BENCH_TIMED_LOOP,
			     .loop = loop_costly, .iters = 100 };
	struct bench_result r;

	op_cost = 0;
	run_one(&row, &r, 7, 1000);
	assert_int_equal(r.floor_ps, 0);
	assert_int_equal(fails, 1);
}

/* The bench arguments through lib/argv's table: each bound, a bad number, an empty only=. */
static const char *parse_bench(struct bench_config *c, char *arg)
{
	const struct arg args[] = { BENCH_ARGS(c) };
	const struct arg_table t = ARG_TABLE(args);
	char *argv[] = { "bench", arg, NULL };

	bench_config_init(c, "t");
	return args_parse(&t, 2, argv);
}

static void test_args(void **state)
{
	struct bench_config c;

	assert_null(parse_bench(&c, "batches=9"));
	assert_int_equal(c.batches, 9);
	assert_int_equal(c.budget_ms, BENCH_DEFAULT_BUDGET_MS);
	assert_non_null(parse_bench(&c, "batches=0"));
	assert_non_null(parse_bench(&c, "batches=65"));
	assert_null(parse_bench(&c, "budget_ms=50"));
	assert_int_equal(c.budget_ms, 50);
	assert_int_equal(c.batches, BENCH_DEFAULT_BATCHES);
	assert_non_null(parse_bench(&c, "iters=12x"));
	assert_non_null(parse_bench(&c, "only="));
	assert_null(parse_bench(&c, "only=a,b"));
	assert_string_equal(c.only, "a,b");
	assert_non_null(parse_bench(&c, "smp=2"));
	assert_null(parse_bench(&c, "slow=cpuid:5"));
	assert_string_equal(c.slow, "cpuid:5");
	assert_null(parse_bench(&c, "slow=pio_user:100"));
	{
		char bad[][24] = { "slow=cpuid:0", "slow=cpuid:101", "slow=cpuid", "slow=:5",
				   "slow=Cpuid:5", "slow=cpuid:5x", "slow=cpuid:" };

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			assert_non_null(parse_bench(&c, bad[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_cost),   cmocka_unit_test(test_fraction_kept),
		cmocka_unit_test(test_budget_caps),  cmocka_unit_test(test_samples),
		cmocka_unit_test(test_skip),	     cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_args),	     cmocka_unit_test(test_slow),	     cmocka_unit_test(test_one_batch_spike),
		cmocka_unit_test(test_busy_host),    cmocka_unit_test(test_free_operation_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
