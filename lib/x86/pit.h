/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 8254 PIT: channel 0 (ISA IRQ 0) as a rate generator or a re-armed
 * one-shot, channel 2 as a clock and a one-shot delay.
 */
#ifndef VMTICK_X86_PIT_H
#define VMTICK_X86_PIT_H

#include "libc.h"

/* Register names as the manual gives them (shared with x86/timer_regs/, which programs them directly). */
#define PIT_CH0_DATA 0x40
#define PIT_CH2_DATA 0x42
#define PIT_MODE_CMD 0x43

#define PIT_HZ 1193182
/* The ISA line channel 0 interrupts on. */
#define PIT_ISA_IRQ 0
/* Channel 0's reload values in mode 2: at least 2; 0 loads 65536. */
#define PIT_RELOAD_MIN 2
#define PIT_RELOAD_MAX 65536
/* Mode 0's counts: at least 1; 0 loads 65536 (2^16 counts, 54.9 ms at PIT_HZ). */
#define PIT_ONESHOT_COUNT_MIN 1
#define PIT_ONESHOT_COUNT_MAX 65536

/*
 * Stop channel 0: QEMU starts it at reset in mode 3 with the largest
 * count (18.2 Hz), which keeps a host timer running even while the
 * interrupt is masked everywhere.
 */
void pit_quiesce(void);

/*
 * Channel 0 as a rate generator (mode 2), an interrupt every reload
 * counts. pit_ch0_run_free() loads the largest reload, for measuring its
 * clock with pit_ch0_count() (latched; it counts down and wraps every
 * 55 ms). pit_ch0_rate_start() returns arch_counter() read just before the
 * write that starts the count: the device counts from after it.
 */
void pit_ch0_run_free(void);
u16 pit_ch0_count(void);
u64 pit_ch0_rate_start(u32 reload);

/*
 * Channel 0 in mode 0 (interrupt on terminal count): pit_ch0_oneshot_mode()
 * writes the mode alone (OUT low, no new count loaded);
 * pit_ch0_oneshot() loads counts (PIT_ONESHOT_COUNT_MIN..MAX): writing its
 * first byte holds the count and drives OUT low, writing the second starts
 * it, and OUT rises once (one edge on ISA IRQ 0) when it reaches zero,
 * counts or more counts after the second write: never early.
 */
void pit_ch0_oneshot_mode(void);
void pit_ch0_oneshot(u32 counts);

/*
 * Channel 2 (gated by port 0x61, speaker off) never interrupts, so it is
 * free for measuring. Free-running: a rate generator over 65536 counts,
 * read by latching (it counts down, wrapping every 55 ms; the caller
 * follows the wraps). One-shot: counts count down once; pit_ch2_done()
 * says when it reached zero. pit_ch2_stop() closes the gate and restores
 * port 0x61's other bits as pit_ch2_* found them.
 */
void pit_ch2_run(void);
u16 pit_ch2_count(void);
void pit_ch2_oneshot(u16 count);
bool pit_ch2_done(void);
void pit_ch2_stop(void);

#endif
