// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/pvclock.c's reader protocol and clamp under real concurrency, built
 * from the source the guest runs. A writer thread updates a time info
 * area the way the host does (version odd, fields, version even), every
 * field derived from one generation number, while reader threads read it
 * with pvclock_read(): a copy whose fields come from two generations is a
 * torn copy, which the version re-check must never let through. Then
 * threads whose raw clocks disagree by a known skew clamp through one
 * shared last value with pvclock_clamp(): no call may return less than a
 * value some call had returned before it began.
 * Each must be seen failing: build the library with the fault flag and
 * the matching test fails -
 *   make -C host-tests check LIB_DEFS=-DPVCLOCK_FAULT_NO_RECHECK  (torn copies)
 *   make -C host-tests check LIB_DEFS=-DPVCLOCK_FAULT_NO_CMPXCHG  (clamp goes back)
 */
/* LIBSRC: lib/pvclock.c lib/mul64.c */
/* LIBS: -lpthread */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include "host_shim.h"
#include "torn_race.h"
#include "../lib/pvclock.h"

#define READS_PER_READER 3000000
#define CLAMPERS 4
#define CLAMPS_PER_THREAD 2000000
/* Thread t's raw clock runs t * SKEW behind thread 0's. */
#define SKEW 1000


static struct pvclock_vcpu_time_info area;
static volatile int writer_stop;

/* Every field from generation g: a copy is whole when they all agree. */
static uint64_t timestamp_of(uint64_t g)
{
	return g * 3;
}

static uint64_t system_time_of(uint64_t g)
{
	return g * 1000003;
}

static uint32_t mul_of(uint64_t g)
{
	return (uint32_t)(g * 2654435761u) | 1;
}

static bool whole(const struct pvclock_vcpu_time_info *c)
{
	uint64_t g = c->tsc_timestamp / 3;

	return c->tsc_timestamp == timestamp_of(g) && c->system_time == system_time_of(g) &&
	       c->tsc_to_system_mul == mul_of(g) && c->tsc_shift == (int8_t)(g & 7);
}

/* The host's side of the protocol, as fast as it can go. */
static void *writer(void *unused)
{
	for (uint64_t g = 1; !writer_stop; g++) {
		__atomic_store_n(&area.version, area.version + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&area.tsc_timestamp, timestamp_of(g), __ATOMIC_RELAXED);
		__atomic_store_n(&area.system_time, system_time_of(g), __ATOMIC_RELAXED);
		__atomic_store_n(&area.tsc_to_system_mul, mul_of(g), __ATOMIC_RELAXED);
		__atomic_store_n(&area.tsc_shift, (int8_t)(g & 7), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&area.version, area.version + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The TSC a reader samples: after tsc_timestamp, as the guest's is. */
static u64 fake_tsc(void)
{
	return UINT64_MAX / 2;
}

static void *reader(void *torn)
{
	struct pvclock_vcpu_time_info copy;

	for (int i = 0; i < READS_PER_READER; i++) {
		pvclock_read(&area, fake_tsc, &copy);
		if (!whole(&copy))
			__atomic_add_fetch((int *)torn, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_no_torn_copy(void **state)
{
	int torn;

	area = (struct pvclock_vcpu_time_info){ .version = 2, .tsc_to_system_mul = mul_of(0) };
	torn = torn_race(writer, reader, &writer_stop);
	printf("writer reached version %u; %d torn copies in %d reads\n", area.version, torn,
	       TORN_RACE_READERS * READS_PER_READER);
	assert_true(area.version > 1000);
	if (torn)
		fail_msg("pvclock_read returned %d torn copies (fields of two updates)", torn);
}

static pvclock_last_t last;
static uint64_t raw_base;	/* the true clock: every clamp call advances it */
static uint64_t highest_returned;

static void note_returned(uint64_t v)
{
	uint64_t old = __atomic_load_n(&highest_returned, __ATOMIC_SEQ_CST);

	while (v > old && !__atomic_compare_exchange_n(&highest_returned, &old, v, false,
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

static void *clamper(void *arg)
{
	uint64_t skew = (uint64_t)(uintptr_t)arg * SKEW, backwards = 0;

	for (int i = 0; i < CLAMPS_PER_THREAD; i++) {
		uint64_t floor = __atomic_load_n(&highest_returned, __ATOMIC_SEQ_CST);
		uint64_t now = __atomic_add_fetch(&raw_base, 1, __ATOMIC_SEQ_CST) + 2 * CLAMPERS * SKEW - skew;
		uint64_t got = pvclock_clamp(&last, now);

		backwards += got < floor;
		note_returned(got);
	}
	return (void *)(uintptr_t)backwards;
}

static void test_clamp_never_goes_back(void **state)
{
	pthread_t t[CLAMPERS];
	uint64_t backwards = 0;

	pvclock_last_reset(&last);
	raw_base = highest_returned = 0;
	for (uintptr_t i = 0; i < CLAMPERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, clamper, (void *)i), 0);
	for (int i = 0; i < CLAMPERS; i++) {
		void *b;

		pthread_join(t[i], &b);
		backwards += (uintptr_t)b;
	}
	printf("%llu of %d clamped reads went back\n", (unsigned long long)backwards,
	       CLAMPERS * CLAMPS_PER_THREAD);
	if (backwards)
		fail_msg("pvclock_clamp returned a value below one already returned %llu times",
			 (unsigned long long)backwards);
}

/* One thread, skewed inputs: the clamp's own arithmetic. */
static void test_clamp_sequential(void **state)
{
	pvclock_last_reset(&last);
	assert_int_equal(pvclock_clamp(&last, 100), 100);
	assert_int_equal(pvclock_clamp(&last, 90), 100);
	assert_int_equal(pvclock_clamp(&last, 101), 101);
	pvclock_last_reset(&last);
	assert_int_equal(pvclock_clamp(&last, 5), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_torn_copy),
		cmocka_unit_test(test_clamp_sequential),
		cmocka_unit_test(test_clamp_never_goes_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
