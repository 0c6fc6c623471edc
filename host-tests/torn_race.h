/* SPDX-License-Identifier: GPL-2.0-only */
/* A versioned structure's reader raced against its writer on host threads, counting the torn copies. */
/*
 * What: torn_race() runs the writer on one thread and TORN_RACE_READERS
 * readers on others until every reader has done its reads, then stops the
 * writer; each reader adds the copies it found torn to the count it is
 * handed. Why: pvclock's and the Hyper-V TSC page's protocols are the same
 * race, and their tests drive it alike. How: header-only; include it after
 * <cmocka.h>, whose assert_int_equal() it uses.
 */
#ifndef VMTICK_TORN_RACE_H
#define VMTICK_TORN_RACE_H

#include <pthread.h>

#define TORN_RACE_READERS 3

/* writer(NULL) loops until *stop; reader(int *torn) returns when its reads are done. */
static int torn_race(void *(*writer)(void *), void *(*reader)(void *), volatile int *stop)
{
	pthread_t w, r[TORN_RACE_READERS];
	int torn = 0;

	*stop = 0;
	assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
	for (int i = 0; i < TORN_RACE_READERS; i++)
		assert_int_equal(pthread_create(&r[i], NULL, reader, &torn), 0);
	for (int i = 0; i < TORN_RACE_READERS; i++)
		pthread_join(r[i], NULL);
	*stop = 1;
	pthread_join(w, NULL);
	return torn;
}

#endif
