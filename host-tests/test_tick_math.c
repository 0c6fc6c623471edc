// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/tick/tick_math.c, the timer-tick engine's 32.32 fixed point, checked on
 * the host against unsigned __int128: the 64x64-bit product built from
 * 32-bit halves (i386 has no 128-bit type), counts to ticks rounded down
 * (a slot is never later than the source's expiry), ticks to counts
 * rounded up (a programmed timer never fires early) and exact below 2^32
 * ticks, the calibration's ratio and error from a measurement, and the
 * error as a 0.32 fraction. Edge ratios (0, 1:1, real sources' ratios,
 * near 2^64) are crossed with edge operands, then pseudo-random operands of
 * every bit length.
 */
/* LIBSRC: common/tick/tick_math.c lib/mul64.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "host_shim.h"
#include "../lib/units.h"
#include "../common/tick/tick_math.h"

#define ARRAY_LEN(a)  (sizeof(a) / sizeof((a)[0]))
#define RANDOM_ROUNDS 1000000
#define FX(num, den)  ((u64)(((u128)(num) << 32) / (den)))

typedef unsigned __int128 u128;

static const u64 ratios[] = {
	0,
	1,
	2,
	TICK_FX_ONE - 1,
	TICK_FX_ONE, /* a source on the counter's own clock: arm64 CVAL, TSC-deadline */
	TICK_FX_ONE + 1,
	FX(3000000000ull, 1193182),    /* PIT against a 3 GHz TSC */
	FX(2596126000ull, 1000000000), /* QEMU's 1 GHz LAPIC timer against a 2.6 GHz TSC */
	FX(24000000, 100000000),       /* a 100 MHz HPET against a 24 MHz counter */
	FX(1, 1000000),		       /* a source a million times faster */
	0x123456789abcdefull,
	1ull << 63,
	UINT64_MAX - 1,
	UINT64_MAX,
};

static const u64 operands[] = {
	0,
	1,
	2,
	1000,
	0x7fffffff,
	0xfffff800, /* 2^32 - 2^11: 2^32 ticks minus about a PIT count's worth */
	0xfffffffe,
	0xffffffff,
	0x100000000ull,
	0x100000001ull,
	0x1ffffffffull,
	3000000000ull * 600, /* a ten-minute run at 3 GHz */
	0x123456789abcdefull,
	1ull << 63,
	UINT64_MAX - 1,
	UINT64_MAX,
};

/* xorshift64*: reproducible, and every bit pattern is reachable. */
static u64 next_random(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* A random value of random bit length, so small values are as common as huge ones. */
static u64 random_any(u64 *s)
{
	return next_random(s) >> (next_random(s) & 63);
}

static u64 ref_mul_shr32(u64 a, u64 b)
{
	return (u64)(((u128)a * b) >> 32);
}

/* The least count lasting ticks, or 2^64 and more when none fits. */
static u128 ref_ticks_to_counts(u64 ratio, u64 ticks)
{
	u128 num = (u128)ticks << 32;

	return (num + ratio - 1) / ratio;
}

static void check_mul(u64 a, u64 ratio)
{
	struct tick_cal cal = {.ratio_fx = ratio};

	assert_int_equal(mul_u64_u64_shr32(a, ratio), ref_mul_shr32(a, ratio));
	assert_int_equal(mul_u64_u64_shr32(ratio, a), ref_mul_shr32(a, ratio));
	assert_int_equal(tick_counts_to_ticks(&cal, a), ref_mul_shr32(a, ratio));
}

static void check_ticks_to_counts(u64 ticks, u64 ratio)
{
	struct tick_cal cal = {.ratio_fx = ratio};
	u64 got = tick_ticks_to_counts(&cal, ticks);
	u128 want;
	unsigned above32;

	if (!ticks) {
		assert_int_equal(got, 0);
		return;
	}
	/* a count that lasts no time: no count is enough */
	if (!ratio) {
		assert_int_equal(got, UINT64_MAX);
		return;
	}
	want = ref_ticks_to_counts(ratio, ticks);
	if (want >> 64) {
		assert_int_equal(got, UINT64_MAX);
		return;
	}
	/* never early: the counts last at least ticks, and the slot they make is not before it */
	assert_true(got >= want);
	if (!(((u128)got * ratio) >> 96))
		assert_true(tick_counts_to_ticks(&cal, got) >= ticks);
	above32 = ticks >> 32 ? 32 - __builtin_clzll(ticks) : 0;
	if (!above32) {
		assert_int_equal(got, (u64)want);
		return;
	}
	/* ratio_fx lost its low above32 bits: one part in what remained of it, at most */
	if (ratio >> above32)
		assert_true(got - want <= want / (ratio >> above32) + 1);
	else
		assert_int_equal(got, UINT64_MAX);
}

static void test_edges(void **state)
{
	for (size_t r = 0; r < ARRAY_LEN(ratios); r++) {
		for (size_t o = 0; o < ARRAY_LEN(operands); o++) {
			check_mul(operands[o], ratios[r]);
			check_ticks_to_counts(operands[o], ratios[r]);
		}
	}
}

static void test_random(void **state)
{
	u64 seed = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		u64 a = random_any(&seed), ratio = random_any(&seed);

		check_mul(a, ratio);
		check_ticks_to_counts(a, ratio);
	}
}

/*
 * The one-shot case: up to a second of ticks against a slow source's large
 * ratio, where rounding up as num + den - 1 would wrap to a tiny count.
 */
static void test_ticks_to_counts_below_2_32(void **state)
{
	static const u64 slow[] = {FX(3000000000ull, 1193182), FX(4200000000ull, 1193182),
				   1ull << 48, 1ull << 63, UINT64_MAX};

	for (size_t r = 0; r < ARRAY_LEN(slow); r++)
		for (u64 t = 0xffffffffull; t > 0xffffffffull - 100000; t--)
			check_ticks_to_counts(t, slow[r]);
}

/* 1:1 is the identity both ways, and a PIT period of 1193 counts is what it was. */
static void test_known(void **state)
{
	struct tick_cal one = {.ratio_fx = TICK_FX_ONE};
	struct tick_cal half = {.ratio_fx = TICK_FX_ONE / 2};
	struct tick_cal pit = {.ratio_fx = FX(3000000000ull, 1193182)};

	assert_int_equal(tick_counts_to_ticks(&one, 123456789), 123456789);
	assert_int_equal(tick_ticks_to_counts(&one, 123456789), 123456789);
	assert_int_equal(tick_counts_to_ticks(&one, UINT64_MAX), UINT64_MAX);
	assert_int_equal(tick_ticks_to_counts(&one, UINT64_MAX), UINT64_MAX);
	assert_int_equal(tick_counts_to_ticks(&half, 3), 1);
	assert_int_equal(tick_ticks_to_counts(&half, 3), 6);
	/* 1193 PIT counts last 2999542.4 ticks of 3 GHz: the slot is rounded down ... */
	assert_int_equal(tick_counts_to_ticks(&pit, 1193), 2999542);
	/* ... and a timer for 2999542 ticks gets 1193 counts, for one tick more 1194 */
	assert_int_equal(tick_ticks_to_counts(&pit, 2999542), 1193);
	assert_int_equal(tick_ticks_to_counts(&pit, 2999543), 1194);
}

/* --- the calibration's arithmetic ------------------------------------------------ */

static void check_cal(u64 dt, u64 dc, u64 slack)
{
	struct tick_cal cal = {.ratio_fx = 0xdead, .err_ppb = 0xbeef};
	bool ok = tick_cal_from(&cal, dt, dc, slack);
	u128 err;

	if (!dt || !dc || dt >> 32) {
		assert_false(ok);
		assert_int_equal(cal.ratio_fx, 0xdead);
		assert_int_equal(cal.err_ppb, 0xbeef);
		return;
	}
	assert_true(ok);
	assert_int_equal(cal.ratio_fx, (u64)(((u128)dt << 32) / dc));
	/* the bracket halves and one count, which lasts up to floor(dt / dc) + 1 ticks */
	err = (u128)slack + dt / dc + 1;
	err = err * PPB_PER_UNIT / dt;
	assert_int_equal(cal.err_ppb, err > PPB_PER_UNIT ? PPB_PER_UNIT : (u64)err);
}

static void test_cal(void **state)
{
	static const u64 dts[] = {
		0, 1, 2, 1000, 600000000, 0xfffffffe, 0xffffffff, 0x100000000ull, UINT64_MAX};
	static const u64 dcs[] = {0,	     1, 2, 3, 238636, 1000000, 0xffffffff, 0x100000000ull,
				  UINT64_MAX};
	static const u64 slacks[] = {
		0, 1, 5000, 0xffffffff, 1ull << 40, UINT64_MAX / PPB_PER_UNIT, UINT64_MAX / PPB_PER_UNIT + 1};
	u64 seed = 0x2545f4914f6cdd1dULL;

	for (size_t t = 0; t < ARRAY_LEN(dts); t++)
		for (size_t c = 0; c < ARRAY_LEN(dcs); c++)
			for (size_t s = 0; s < ARRAY_LEN(slacks); s++)
				check_cal(dts[t], dcs[c], slacks[s]);
	for (int i = 0; i < RANDOM_ROUNDS / 10; i++)
		check_cal(random_any(&seed) >> 31, random_any(&seed), random_any(&seed) >> 24);
}

/* 200 ms of a 3 GHz TSC against the PIT, brackets of 10 us: about 100 ppm, as docs/timers.md says.
 */
static void test_cal_typical(void **state)
{
	struct tick_cal cal;

	assert_true(tick_cal_from(&cal, 600000000, 238636, 30000));
	assert_int_equal(cal.ratio_fx >> 32, 2514);
	assert_int_equal(cal.err_ppb, (30000 + 2514 + 1) * PPB_PER_UNIT / 600000000);
}

static void test_ppb_to_fx(void **state)
{
	static const u64 ppbs[] = {0, 1, 2, 100000, 999999999, PPB_PER_UNIT, PPB_PER_UNIT + 1, UINT64_MAX};
	u64 seed = 0xda942042e4dd58b5ULL;

	for (size_t i = 0; i < ARRAY_LEN(ppbs); i++) {
		u64 p = ppbs[i] > PPB_PER_UNIT ? PPB_PER_UNIT : ppbs[i];

		assert_int_equal(tick_ppb_to_fx(ppbs[i]), (u64)(((u128)p << 32) / PPB_PER_UNIT));
	}
	assert_int_equal(tick_ppb_to_fx(PPB_PER_UNIT), TICK_FX_ONE);
	/* rounded down: the tolerance it gives a distance is never more than the error */
	for (int i = 0; i < RANDOM_ROUNDS / 10; i++) {
		u64 ppb = next_random(&seed) % (PPB_PER_UNIT + 1), d = random_any(&seed);

		assert_true((u128)mul_u64_u64_shr32(d, tick_ppb_to_fx(ppb)) * PPB_PER_UNIT <= (u128)d * ppb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_ticks_to_counts_below_2_32),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_cal),
		cmocka_unit_test(test_cal_typical),
		cmocka_unit_test(test_ppb_to_fx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
