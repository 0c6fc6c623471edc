/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch's counter on the host, for tests of code that reads it: 1 GHz, moving a set step at
 * every read. */
/*
 * What: arch_counter() returns fake_counter and moves it on by
 * fake_counter_step (a read takes time, so a loop on the counter ends);
 * arch_counter_hz() is FAKE_COUNTER_HZ, so a tick is a ns; unreached()
 * fails the test naming a hook the code under test must not call.
 * Why: the waits, the calibration, the lifecycle's answer reading and
 * edge search all spin on the counter; one fake keeps their tests alike.
 * How: header-only, included once by a test (it defines the two hooks);
 * include it after <cmocka.h>, whose fail_msg() it uses.
 */
#ifndef VMTICK_FAKE_COUNTER_H
#define VMTICK_FAKE_COUNTER_H

#include "host_shim.h"
#include "../lib/units.h"

#define FAKE_COUNTER_HZ NSEC_PER_SEC /* a tick is a ns */

static u64 fake_counter, fake_counter_step;

u64 arch_counter(void);
u64 arch_counter_hz(void);

u64 arch_counter(void)
{
	u64 now = fake_counter;

	fake_counter += fake_counter_step;
	return now;
}

u64 arch_counter_hz(void)
{
	return FAKE_COUNTER_HZ;
}

/* A hook the cases never reach: reaching it fails the test. */
static inline void unreached(const char *what)
{
	fail_msg("%s was called", what);
}

#endif
