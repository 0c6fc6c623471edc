/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI power-management timer: a 3.579545 MHz counter at the port the FADT names. */
#ifndef VMTICK_X86_PMTIMER_H
#define VMTICK_X86_PMTIMER_H

#include "libc.h"

/* ACPI spec, "Power Management Timer": 3.579545 MHz. */
#define PMTIMER_HZ 3579545

/* Find the timer's port in the FADT: NULL, or why there is none. */
const char *pmtimer_find(void);
/* The counter's width: 24, or 32 when the FADT sets TMR_VAL_EXT. */
unsigned pmtimer_bits(void);
/* The counter as it reads (one port read), width pmtimer_bits(); the caller follows the wraps. */
u32 pmtimer_read(void);

/*
 * The counter followed across its wraps to 64 bits, for one reader (one
 * vCPU, say: two readers' reads interleave out of order). A step in the
 * lower half of the counter's range is progress, a wrap included; one in
 * the upper half is a step back and reads as one, so that a counter that
 * really went backwards is not taken for a wrap. Read it at least every
 * half wrap (2.3 s for 24 bits), or progress looks like a step back.
 */
struct pmtimer_ext {
	u32 last;
	u64 total;
	bool started;
};

/*
 * The first read gives the counter as it reads plus 2^32, so that a step
 * back from it stays above 0; each read after it adds the signed step.
 */
u64 pmtimer_read_ext(struct pmtimer_ext *e);

#endif
