/* SPDX-License-Identifier: GPL-2.0-only */
/* The micro-benchmark runner: warm-up, capped batches, empty-loop subtraction, checks, table and RESULT lines. */
#include "bench.h"
#include "arch.h"
#include "units.h"
#include "argv.h"
#include "report.h"
#include "fixed.h"
#include "wait.h"

/* The baseline: the same macro as every row, with nothing in the body. */
BENCH_LOOP(bench_empty_loop, )

u64 bench_op_ps(u64 ticks, u64 baseline, u64 hz, unsigned long n)
{
	if (!n || ticks <= baseline)
		return 0;
	return ticks_to_ps(ticks - baseline, hz) / n;
}

unsigned long bench_fit(unsigned long want, u64 per_op_ticks, u64 batch_ticks)
{
	u64 fit;

	if (!per_op_ticks)
		return want ? want : 1;
	fit = batch_ticks / per_op_ticks;
	if (fit < 1)
		fit = 1;
	return fit < want ? (unsigned long)fit : want;
}

void bench_config_init(struct bench_config *c, const char *suite)
{
	memset(c, 0, sizeof(*c));
	c->suite = suite;
	c->batches = BENCH_DEFAULT_BATCHES;
	c->budget_ms = BENCH_DEFAULT_BUDGET_MS;
}

void bench_rows_add(struct bench *table, size_t *n, size_t cap, const struct bench *rows,
		    size_t count)
{
	if (count > cap - *n)
		report_abort("a table of %zu rows has no room for %zu more", cap, count);
	memcpy(&table[*n], rows, count * sizeof(*rows));
	*n += count;
}

bool bench_has_row(const struct bench *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return true;
	return false;
}

static u64 time_loop(bench_loop_t loop, unsigned long n, void *ctx)
{
	u64 t0, t1;

	t0 = arch_counter();
	arch_bench_fence();
	loop(n, ctx);
	arch_bench_fence();
	t1 = arch_counter();
	return t1 - t0;
}

/*
 * slow=ROW:PCT (test-only): the row whose batches are stretched, and by how
 * many percent of their own net time. Set by bench_run() from the config.
 */
static struct {
	const struct bench *row;
	u64 pct;
} slow;

#define SLOW_ROW_MAX	32	/* a row name's length, with its NUL */

/* "ROW:PCT" into row (cap bytes) and *pct; false when it is not that shape. */
static bool slow_split(const char *text, char *row, size_t cap, u64 *pct)
{
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : 0;

	if (!len || len >= cap)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') ||
		      text[i] == '_'))
			return false;
	memcpy(row, text, len);
	row[len] = 0;
	return !parse_u64(colon + 1, pct) && *pct >= 1 && *pct <= BENCH_SLOW_MAX_PCT;
}

const char *bench_slow_arg(const char *text)
{
	char row[SLOW_ROW_MAX];
	u64 pct;

	return slow_split(text, row, sizeof(row), &pct) ?
		       NULL :
		       "ROW:PCT, a row name and a whole percent from 1 to " ARG_DEFAULT(BENCH_SLOW_MAX_PCT);
}

/* slow=: find the row; a row this test lacks, or one that is no timed loop, ends the test. */
static void slow_setup(const struct bench_config *c, const struct bench *rows, size_t nrows)
{
	char name[SLOW_ROW_MAX];
	u64 pct;

	slow.row = NULL;
	if (!c->slow)
		return;
	if (!slow_split(c->slow, name, sizeof(name), &pct))
		report_abort("slow=%s: %s", c->slow, bench_slow_arg(c->slow));
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, name))
			slow.row = &rows[i];
	if (!slow.row)
		report_abort("slow=%s: this test has no row '%s'", c->slow, name);
	if (slow.row->kind != BENCH_TIMED_LOOP)
		report_abort("slow=%s: '%s' times samples, not a loop: nothing to stretch",
			     c->slow, name);
	slow.pct = pct;
	report_info("slow=%s: %s.%s's timed batches take %llu %% longer (test-only)", c->slow,
		    c->suite, name, pct);
}

/*
 * A timed loop stretched by pct percent of its net time (its ticks minus
 * baseline): a busy wait on the counter inside the timed region, whose
 * last read closes the timing, so it overshoots by at most one read
 * (work_until: one read a round, nothing between; a stretch whose
 * condition is the counter ends on the counter alone). No PAUSE in the
 * wait: with one, a 5 % stretch measured 8.8 % under TCG (an
 * overshoot of ~2.8 us a batch, inferred from that, not timed).
 */
struct stretch {
	u64 from, ticks; /* the stretch: ticks of the counter from from */
	u64 last;	 /* the read that ended it */
};

static bool stretched(void *arg, u64 now)
{
	struct stretch *s = arg;

	s->last = now;
	return now - s->from >= s->ticks;
}

static u64 time_loop_stretched(const struct bench *b, unsigned long n, u64 baseline, u64 pct)
{
	u64 t0, t1, net;
	struct stretch s;

	t0 = arch_counter();
	arch_bench_fence();
	b->loop(n, b->ctx);
	arch_bench_fence();
	t1 = arch_counter();
	net = t1 - t0 > baseline ? t1 - t0 - baseline : 0;
	s = (struct stretch){.from = t1, .ticks = net * pct / 100};
	work_until(stretched, &s, WAIT_FOREVER);
	return s.last - t0;
}

/*
 * One batch: its ticks (for samples, the sum of what each sample measured).
 * baseline is the empty loop's ticks for n, used only by slow=.
 */
static u64 run_batch(const struct bench *b, unsigned long n, u64 baseline)
{
	u64 sum = 0;

	if (b->kind == BENCH_TIMED_LOOP && b == slow.row)
		return time_loop_stretched(b, n, baseline, slow.pct);
	if (b->kind == BENCH_TIMED_LOOP)
		return time_loop(b->loop, n, b->ctx);
	for (unsigned long i = 0; i < n; i++)
		sum += b->sample(b->ctx);
	return sum;
}

/*
 * Warm-up: batches of 1, 2, 4, ... operations (code, data and the
 * hypervisor's exit path get hot) until an eighth of the row's iterations,
 * or a quarter of a batch's time, has gone by; at least WARMUP_MIN_STEPS
 * unless one step alone overruns a whole batch. Returns the cheapest cost
 * per operation seen, in wall-clock ticks rounded up: one slow first call
 * does not shrink the batches.
 */
#define WARMUP_MIN_STEPS 3

static u64 warm_up(const struct bench *b, unsigned long n, u64 batch_ticks)
{
	u64 spent = 0, best = UINT64_MAX;

	for (unsigned long w = 1, step = 1;; w *= 2, step++) {
		u64 t0 = arch_counter(), wall;

		if (b->kind == BENCH_TIMED_LOOP)
			time_loop(bench_empty_loop, w, NULL);
		run_batch(b, w, 0);
		wall = arch_counter() - t0;
		spent += wall;
		best = min(best, (wall + w - 1) / w);
		if (wall >= batch_ticks)
			return best;
		if (step >= WARMUP_MIN_STEPS && (w >= n / 8 || spent >= batch_ticks / 4))
			return best;
	}
}

static u64 median_of(const u64 *v, unsigned n)
{
	u64 copy[BENCH_MAX_BATCHES];
	struct stats s;

	memcpy(copy, v, n * sizeof(*v));
	stats_compute(copy, n, &s);
	return s.median;
}

/* Per row, between the rounds. */
struct row_state {
	bool active;		/* still timing batches */
	u64 budget, spent;	/* wall-clock ticks: allowed, used so far */
	u64 last;		/* wall time of its latest batch */
	u64 empty[BENCH_MAX_BATCHES], ops[BENCH_MAX_BATCHES];
	u64 empty_fastest;	/* the fastest empty loop of all batches */
};

static struct row_state state[BENCH_MAX_ROWS];

static void enter(const struct bench *b)
{
	if (b->enter)
		b->enter(b->ctx);
}

static void leave(const struct bench *b)
{
	if (b->leave)
		b->leave(b->ctx);
}

/* Warm the row up and size its batches; false if it was skipped. */
static bool start_row(const struct bench_config *c, const struct bench *b, struct bench_result *r,
		      struct row_state *st)
{
	unsigned long want = c->iters ? (unsigned long)c->iters : b->iters;
	u64 t0, per_op;

	memset(r, 0, sizeof(*r));
	memset(st, 0, sizeof(*st));
	report_prefix_pushf("%s.%s", c->suite, b->name);
	r->skip = b->prepare ? b->prepare(b->ctx) : NULL;
	if (r->skip) {
		report_skip("%s", r->skip);
		report_prefix_pop();
		return false;
	}
	report_prefix_pop();
	st->empty_fastest = b->kind == BENCH_TIMED_LOOP ? UINT64_MAX : 0;
	st->budget = ns_to_ticks(c->budget_ms * NSEC_PER_MSEC, arch_counter_hz());
	t0 = arch_counter();
	enter(b);
	per_op = warm_up(b, want, st->budget / (c->batches + 1));
	leave(b);
	st->spent = arch_counter() - t0;
	r->n = bench_fit(want, per_op, st->budget / (c->batches + 1));
	r->capped = r->n < want;
	st->active = true;
	return true;
}

/*
 * The empty loop of n iterations, timed BASELINE_RUNS times: the median
 * (what is subtracted) and the fastest (what the positivity check uses).
 * One timing alone can carry a one-off cost (the first timed batch after
 * the warm-ups of all rows took 16-50 us more under TCG, and a host
 * interrupt can land anywhere); with few batches (batches=1) nothing else
 * would reject it.
 */
#define BASELINE_RUNS 3

static u64 time_baseline(unsigned long n, u64 *fastest)
{
	u64 t[BASELINE_RUNS];

	for (unsigned i = 0; i < BASELINE_RUNS; i++) {
		t[i] = time_loop(bench_empty_loop, n, NULL);
		*fastest = min(*fastest, t[i]);
	}
	return median_of(t, BASELINE_RUNS);
}

/* One batch of the row, with its empty-loop baseline right before it. */
static void row_batch(const struct bench *b, struct bench_result *r, struct row_state *st)
{
	u64 t0 = arch_counter();
	unsigned i = r->batches;

	enter(b);
	/* the baseline sees the same conditions as the batch */
	st->empty[i] = b->kind == BENCH_TIMED_LOOP ? time_baseline(r->n, &st->empty_fastest) : 0;
	st->ops[i] = run_batch(b, r->n, st->empty[i]);
	leave(b);
	st->last = arch_counter() - t0;
	st->spent += st->last;
	r->batches++;
}

/* Median over batches of each batch's net ticks over its own empty loop, in thousandths. */
static u64 per_empty_median(const struct row_state *st, unsigned batches)
{
	u64 rel[BENCH_MAX_BATCHES];

	for (unsigned i = 0; i < batches; i++)
		rel[i] = st->empty[i] && st->ops[i] > st->empty[i] ?
				 (st->ops[i] - st->empty[i]) * MILLI_PER_UNIT / st->empty[i] :
				 0;
	return median_of(rel, batches);
}

static void finish_row(const struct bench *b, struct bench_result *r, const struct row_state *st)
{
	u64 hz = arch_counter_hz(), ps[BENCH_MAX_BATCHES], baseline, fastest = UINT64_MAX;

	baseline = median_of(st->empty, r->batches);
	r->overhead_ps = ticks_to_ps(baseline, hz) / r->n;
	for (unsigned i = 0; i < r->batches; i++) {
		ps[i] = bench_op_ps(st->ops[i], baseline, hz, r->n);
		r->total_ps += st->ops[i] > baseline ? ticks_to_ps(st->ops[i] - baseline, hz) : 0;
		fastest = min(fastest, st->ops[i]);
	}
	stats_compute(ps, r->batches, &r->op_ps);
	r->floor_ps = bench_op_ps(fastest, st->empty_fastest, hz, r->n);
	r->per_empty_milli = b->kind == BENCH_TIMED_LOOP ? per_empty_median(st, r->batches) : 0;
}

static const char *ns(char *buf, u64 ps)
{
	return fmt_milli(buf, 24, ps);
}

static void emit_results(const struct bench_config *c, const struct bench *b,
			 const struct bench_result *r)
{
	char name[96], buf[24];
	const struct {
		const char *stat;
		u64 ps;
	} figures[] = {
		{ "min_ns", r->op_ps.min },	{ "max_ns", r->op_ps.max },
		{ "mean_ns", r->op_ps.mean },	{ "mad_ns", r->op_ps.mad },
		{ "overhead_ns", r->overhead_ps },
	};

	/* the headline figure first, under the row's own name */
	snprintf(name, sizeof(name), "%s.%s", c->suite, b->name);
	report_result(name, "ns", "%s", ns(buf, r->op_ps.median));
	for (size_t i = 0; i < ARRAY_SIZE(figures); i++) {
		snprintf(name, sizeof(name), "%s.%s.%s", c->suite, b->name, figures[i].stat);
		report_result(name, "ns", "%s", ns(buf, figures[i].ps));
	}
	if (b->kind == BENCH_TIMED_LOOP) {
		snprintf(name, sizeof(name), "%s.%s.per_empty", c->suite, b->name);
		/* thousandths print as a figure with three decimals, as ps print as ns */
		report_result(name, "ratio", "%s", fmt_milli(buf, sizeof(buf), r->per_empty_milli));
	}
	snprintf(name, sizeof(name), "%s.%s.iterations", c->suite, b->name);
	report_result(name, "count", "%llu", (u64)r->n * r->batches);
	snprintf(name, sizeof(name), "%s.%s.batches", c->suite, b->name);
	report_result(name, "count", "%u", r->batches);
}

static void report_row(const struct bench_config *c, const struct bench *b,
		       const struct bench_result *r)
{
	char med[24], ovh[24], flr[24];

	report_prefix_pushf("%s.%s", c->suite, b->name);
	if (b->kind == BENCH_TIMED_LOOP) {
		report_info("%s: %u batches of %lu%s, empty loop %s ns per iteration subtracted",
			    b->what, r->batches, r->n, r->capped ? " (capped by budget_ms)" : "",
			    ns(ovh, r->overhead_ps));
		/* the least disturbed timings: a busy host cannot fake a free operation */
		report(r->floor_ps > 0,
		       "%s ns per operation (fastest batch over fastest empty loop: %s ns): more "
		       "than an empty iteration",
		       ns(med, r->op_ps.median), ns(flr, r->floor_ps));
	} else {
		report_info("%s: %u batches of %lu samples%s, each timed by itself (nothing subtracted)",
			    b->what, r->batches, r->n, r->capped ? " (capped by budget_ms)" : "");
		report(r->op_ps.median > 0, "median sample %s ns: positive", ns(med, r->op_ps.median));
	}
	if (b->check)
		b->check(b->ctx, r);
	if (b->cleanup)
		b->cleanup(b->ctx);
	emit_results(c, b, r);
	report_prefix_pop();
}

#define TABLE_FMT "%-16s %12s %16s %12s %12s %12s %10s %10s\n"

static void print_table(const struct bench *rows, size_t nrows, const struct bench_result *res)
{
	printf("\n" TABLE_FMT, "name", "iterations", "total ns", "avg ns", "min ns", "median ns",
	       "mad ns", "ovh ns");
	for (size_t i = 0; i < nrows; i++) {
		const struct bench_result *r = &res[i];
		char it[24], tot[24], avg[24], mn[24], med[24], mad[24], ovh[24];
		u64 count = (u64)r->n * r->batches;

		if (r->skip) {
			printf("%-16s SKIP: %s\n", rows[i].name, r->skip);
			continue;
		}
		if (!count) {
			printf("%-16s not selected (only=)\n", rows[i].name);
			continue;
		}
		snprintf(it, sizeof(it), "%u x %lu", r->batches, r->n);
		printf(TABLE_FMT, rows[i].name, it, ns(tot, r->total_ps), ns(avg, r->total_ps / count),
		       ns(mn, r->op_ps.min), ns(med, r->op_ps.median), ns(mad, r->op_ps.mad),
		       ns(ovh, r->overhead_ps));
	}
	printf("\n");
}

void bench_run(const struct bench_config *c, const struct bench *rows, size_t nrows,
	       struct bench_result *results)
{
	static struct bench_result own[BENCH_MAX_ROWS];
	struct bench_result *res = results ? results : own;
	u64 hz = arch_counter_hz();
	char name[64];

	if (nrows > BENCH_MAX_ROWS)
		report_abort("%zu rows: the bench framework takes at most %d", nrows, BENCH_MAX_ROWS);
	if (!hz) {
		report_skip("%s: the counter frequency is unknown: no time can be measured", c->suite);
		return;
	}
	report_info("counter %llu Hz; %u batches per row, at most %llu ms per row",
		    hz, (unsigned)c->batches, c->budget_ms);
	slow_setup(c, rows, nrows);
	snprintf(name, sizeof(name), "%s.counter_hz", c->suite);
	report_result(name, "Hz", "%llu", hz);
	for (size_t i = 0; i < nrows; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		state[i].active = false;
		if (c->only && !arg_in_list(rows[i].name, c->only))
			report_info("%s.%s: not selected by only=", c->suite, rows[i].name);
		else
			start_row(c, &rows[i], &res[i], &state[i]);
	}
	/*
	 * Rounds: one batch of every row per round, so each row's batches are
	 * spread over the whole run and their spread shows the host's drift,
	 * not just the noise of a few consecutive milliseconds.
	 */
	for (unsigned round = 0; round < c->batches; round++) {
		for (size_t i = 0; i < nrows; i++) {
			struct row_state *st = &state[i];

			if (!st->active)
				continue;
			if (round && st->spent + st->last > st->budget) {
				st->active = false;
				res[i].capped = true;
				continue;
			}
			row_batch(&rows[i], &res[i], st);
		}
	}
	for (size_t i = 0; i < nrows; i++) {
		if (!res[i].batches)
			continue;
		finish_row(&rows[i], &res[i], &state[i]);
		report_row(c, &rows[i], &res[i]);
	}
	print_table(rows, nrows, res);
}
