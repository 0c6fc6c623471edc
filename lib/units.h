/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit conversion factors (time, frequency, ppm and ppb), named one way for the whole tree. */
#ifndef VMTICK_UNITS_H
#define VMTICK_UNITS_H

/*
 * Each is unsigned long long, like the counters and durations they scale:
 * a signed figure divided by one is converted to unsigned first, so write
 * (s64)PPB_PER_PPM there. Names follow Linux's (NSEC_PER_SEC, HZ_PER_MHZ):
 * BIG_PER_SMALL is how many BIG make one SMALL.
 */

/* time */
#define MSEC_PER_SEC  1000ull
#define USEC_PER_MSEC 1000ull
#define USEC_PER_SEC  1000000ull
#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull
#define PSEC_PER_NSEC 1000ull
#define PSEC_PER_USEC 1000000ull
#define PSEC_PER_MSEC 1000000000ull
#define PSEC_PER_SEC  1000000000000ull
#define FSEC_PER_SEC  1000000000000000ull

/* frequency */
#define HZ_PER_KHZ 1000ull
#define HZ_PER_MHZ 1000000ull

/*
 * ratios: a rate error of one (the whole) is 10^6 ppm or 10^9 ppb; a
 * figure in thousandths (fmt_milli's, a per-mille rate, the _PPT bounds)
 * has MILLI_PER_UNIT of them in one
 */
#define MILLI_PER_UNIT 1000ull
#define PPB_PER_PPM  1000ull
#define PPM_PER_UNIT 1000000ull
#define PPB_PER_UNIT 1000000000ull

#endif
