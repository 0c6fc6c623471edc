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

#endif
