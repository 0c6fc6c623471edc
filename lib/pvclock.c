// SPDX-License-Identifier: GPL-2.0-only
/* pvclock arithmetic, the version protocol and the clamp, with no arch code in them, so the host unit tests build them as they are. */
#include "pvclock.h"
#include "atomic.h"
#include "units.h"
#include "mul64.h"

u64 pvclock_scale_delta(u64 delta, u32 mul, s8 shift)
{
	/* s8 shifts reach 127: shifting a u64 by 64 or more is undefined in C, and 0 in arithmetic */
	if (shift >= 64 || shift <= -64)
		return 0;
	if (shift >= 0)
		delta <<= shift;
	else
		delta >>= -shift;
	/* delta * mul < 2^96: over 2^32 it fits 64 bits, floored as the exact quotient is */
	return mul_u64_u64_shr32(delta, mul);
}

u64 pvclock_tsc_khz(u32 mul, s8 shift)
{
	/* cycles per ms = 10^6 ns / (mul / 2^32 * 2^shift ns per cycle); 10^6 * 2^32 fits 53 bits */
	u64 khz;

	if (!mul || shift >= 64 || shift <= -64)
		return 0;
	khz = (NSEC_PER_MSEC << 32) / mul;
	return shift >= 0 ? khz >> shift : khz << -shift;
}

u64 pvclock_time_at(const struct pvclock_vcpu_time_info *ti, u64 tsc)
{
	/* tsc must not be older than tsc_timestamp: the reader takes it after copying ti */
	return ti->system_time + pvclock_scale_delta(tsc - ti->tsc_timestamp, ti->tsc_to_system_mul,
						     ti->tsc_shift);
}

u64 pvclock_wall_ns(const struct pvclock_wall_clock *wc, u64 system_ns)
{
	return (u64)wc->sec * NSEC_PER_SEC + wc->nsec + system_ns;
}

u64 pvclock_read(const struct pvclock_vcpu_time_info *ti, u64 (*counter)(void),
		 struct pvclock_vcpu_time_info *copy)
{
	u32 version;
	u64 now;

	do {
		version = READ_ONCE(ti->version);
		smp_rmb();
		copy->version = version;
		copy->tsc_timestamp = READ_ONCE(ti->tsc_timestamp);
		copy->system_time = READ_ONCE(ti->system_time);
		copy->tsc_to_system_mul = READ_ONCE(ti->tsc_to_system_mul);
		copy->tsc_shift = READ_ONCE(ti->tsc_shift);
		copy->flags = READ_ONCE(ti->flags);
		now = counter();
		smp_rmb();
#ifdef PVCLOCK_FAULT_NO_RECHECK
	} while (version & 1);
#else
	} while ((version & 1) || version != READ_ONCE(ti->version));
#endif
	return pvclock_time_at(copy, now);
}

void pvclock_read_wall(const struct pvclock_wall_clock *wc, struct pvclock_wall_clock *copy)
{
	u32 version;

	do {
		version = READ_ONCE(wc->version);
		smp_rmb();
		copy->version = version;
		copy->sec = READ_ONCE(wc->sec);
		copy->nsec = READ_ONCE(wc->nsec);
		smp_rmb();
	} while ((version & 1) || version != READ_ONCE(wc->version));
}

u64 pvclock_last_load(pvclock_last_t *last)
{
#ifdef __i386__
	/* a plain 8-byte load is not atomic on i386: compare with 0, write back 0 or nothing */
	u64 v = 0;

	atomic_cmpxchg(last, &v, 0);
	return v;
#else
	return atomic_load(last);
#endif
}

void pvclock_last_reset(pvclock_last_t *last)
{
	u64 old = pvclock_last_load(last);

	while (!atomic_cmpxchg(last, &old, 0))
		;
}

#ifdef PVCLOCK_FAULT_NO_CMPXCHG
/* The fault: between the load and the store another caller's larger value can be overwritten. */
u64 pvclock_clamp(pvclock_last_t *last, u64 now)
{
	u64 prev = pvclock_last_load(last);

	if (now <= prev)
		return prev;
	WRITE_ONCE(*last, now);
	return now;
}
#else
u64 pvclock_clamp(pvclock_last_t *last, u64 now)
{
	u64 prev = pvclock_last_load(last);

	do {
		if (now <= prev)
			return prev;
	} while (!atomic_cmpxchg(last, &prev, now));
	return now;
}
#endif
