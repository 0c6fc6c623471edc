// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/hv_tsc.c, the Hyper-V reference TSC page's arithmetic and reader,
 * checked on the host (its 64x64-bit high product is lib/mul64.c's,
 * checked by test_mul64.c): the page's time at a known frequency; a page
 * built from kvmclock parameters as KVM builds it reads kvmclock / 100
 * within the units the guest test allows (2 below, 1 above:
 * x86/hyperv_clock.c); a page whose sequence is 0 is refused; an update
 * made while a reader is inside the protocol makes it read again; and the
 * protocol under a writer thread that updates the page the way the
 * hypervisor does (sequence 0, fields, new sequence):
 * no reader may take fields of two updates. Each must be seen failing:
 *   make -C host-tests check LIB_DEFS=-DHV_TSC_FAULT_NO_RECHECK   (update missed, torn copies)
 *   make -C host-tests check LIB_DEFS=-DHV_TSC_FAULT_USE_INVALID  (sequence 0 used)
 */
/* LIBSRC: lib/hv_tsc.c lib/pvclock.c lib/mul64.c */
/* LIBS: -lpthread */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include "host_shim.h"
#include "torn_race.h"
#include "../lib/hv_tsc.h"
#include "../lib/pvclock.h"

#define RANDOM_ROUNDS 1000000
#define READS_PER_READER 2000000
/*
 * The page may read up to 2 units of 100 ns below kvmclock / 100 (the
 * floors of scale and offset) and 1 above (hi(tsc * s) - hi(ts * s) may
 * exceed the floor of the difference by one).
 */
#define PAGE_BELOW_UNITS 2
#define PAGE_ABOVE_UNITS 1


static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 2.1 GHz: scale = 2^64 * 10^7 / 2.1e9; five seconds of TSC read 5e7 units (less one for the floor). */
static void test_time_at_known_rate(void **state)
{
	uint64_t hz = 2100000000ull;
	uint64_t scale = (uint64_t)(((unsigned __int128)10000000 << 64) / hz);
	uint64_t t = hv_tsc_time(5 * hz, scale, 1000);

	assert_true(t == 50000000 + 1000 || t == 50000000 + 1000 - 1);
	/* a negative offset subtracts */
	assert_int_equal(hv_tsc_time(0, scale, -5), (uint64_t)-5);
}

/* The page built from kvmclock parameters reads kvmclock / 100 within -PAGE_BELOW_UNITS..+PAGE_ABOVE_UNITS. */
static void test_from_pvclock(void **state)
{
	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		struct pvclock_vcpu_time_info ti = {
			/* 1 GHz to 4 GHz TSCs: mul 0.25-1.0 ns per cycle at shift 0, or half of 0.5-2 at shift 1 */
			.tsc_to_system_mul = (uint32_t)(0x40000000u + next_random() % 0xc0000000u),
			.tsc_shift = (int8_t)(next_random() % 3) - 1,
			.tsc_timestamp = next_random() >> 8,
			.system_time = next_random() >> 12,
		};
		u64 tsc = ti.tsc_timestamp + (next_random() >> 30), scale, want, got;
		s64 offset;

		assert_true(hv_tsc_from_pvclock(ti.tsc_to_system_mul, ti.tsc_shift, ti.tsc_timestamp,
						ti.system_time, &scale, &offset));
		want = pvclock_time_at(&ti, tsc) / 100;
		got = hv_tsc_time(tsc, scale, offset);
		if (got > want + PAGE_ABOVE_UNITS || got + PAGE_BELOW_UNITS < want)
			fail_msg("mul %#x shift %d: page reads %llu, kvmclock/100 %llu", ti.tsc_to_system_mul,
				 ti.tsc_shift, got, want);
	}
	/* a TSC under 10 MHz needs a scale of 1.0 or more: refused */
	{
		u64 scale;
		s64 offset;

		assert_false(hv_tsc_from_pvclock(0x80000000u, 8, 0, 0, &scale, &offset));
	}
}

static u64 fixed_tsc(void)
{
	return 1ull << 40;
}

static void test_invalid_refused(void **state)
{
	struct hv_ref_tsc_page page = { .tsc_sequence = 0, .tsc_scale = 1ull << 63, .tsc_offset = 7 };
	struct hv_tsc_copy c;

	if (hv_tsc_read(&page, fixed_tsc, &c))
		fail_msg("a page with sequence 0 was used (scale %#llx) instead of falling back",
			 c.scale);
	page.tsc_sequence = 5;
	assert_true(hv_tsc_read(&page, fixed_tsc, &c));
	assert_int_equal(c.sequence, 5);
	assert_int_equal(hv_tsc_time(c.tsc, c.scale, c.offset), (1ull << 39) + 7);
}

/*
 * The hypervisor updates the page while a reader is inside the protocol
 * (here: when the reader samples the counter, after copying the fields):
 * the copy must be retried and come back whole from the new update, with
 * the counter sampled under it. Deterministic, unlike the race below.
 */
static struct hv_ref_tsc_page live;
static int counter_calls;

static u64 counter_that_updates(void)
{
	if (counter_calls++ == 0) {
		live.tsc_sequence = 0;
		live.tsc_scale = 2000;
		live.tsc_offset = 20;
		live.tsc_sequence = 8;
	}
	return 1000 + (uint64_t)counter_calls;
}

static void test_update_during_read(void **state)
{
	struct hv_tsc_copy c;

	live = (struct hv_ref_tsc_page){ .tsc_sequence = 7, .tsc_scale = 1000, .tsc_offset = 10 };
	counter_calls = 0;
	assert_true(hv_tsc_read(&live, counter_that_updates, &c));
	if (c.sequence != 8 || c.scale != 2000 || c.offset != 20 || c.tsc != 1002)
		fail_msg("an update during the read was missed: got sequence %u scale %llu offset %lld counter %llu, "
			 "want 8, 2000, 20 and the counter sampled after the update (1002)", c.sequence,
			 c.scale, c.offset, c.tsc);
}

static struct hv_ref_tsc_page page;
static volatile int writer_stop;

/* sequence, scale and offset all follow generation g: a copy is whole when they agree. */
static uint64_t scale_of(uint64_t g)
{
	return g * 0x9e3779b97f4a7c15ull;
}

static void *writer(void *unused)
{
	for (uint64_t g = 2; !writer_stop; g++) {
		__atomic_store_n(&page.tsc_sequence, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&page.tsc_scale, scale_of(g), __ATOMIC_RELAXED);
		__atomic_store_n(&page.tsc_offset, (int64_t)g, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		/* a new value every update (as the hypervisor's), never 0: a reused one would hide the change */
		__atomic_store_n(&page.tsc_sequence, (uint32_t)g, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *reader(void *torn)
{
	struct hv_tsc_copy c;

	for (int i = 0; i < READS_PER_READER; i++)
		if (hv_tsc_read(&page, fixed_tsc, &c) &&
		    (c.scale != scale_of((uint64_t)c.offset) || c.sequence != (uint32_t)c.offset))
			__atomic_add_fetch((int *)torn, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_no_torn_copy(void **state)
{
	int torn;

	page = (struct hv_ref_tsc_page){ .tsc_sequence = 1, .tsc_scale = scale_of(1), .tsc_offset = 1 };
	torn = torn_race(writer, reader, &writer_stop);
	printf("writer reached generation %lld; %d torn copies in %d reads\n", (long long)page.tsc_offset, torn,
	       TORN_RACE_READERS * READS_PER_READER);
	assert_true(page.tsc_offset > 1000);
	if (torn)
		fail_msg("hv_tsc_read returned %d torn copies (sequence, scale and offset not all of one update)", torn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_at_known_rate),
		cmocka_unit_test(test_from_pvclock),
		cmocka_unit_test(test_invalid_refused),
		cmocka_unit_test(test_update_during_read),
		cmocka_unit_test(test_no_torn_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
