/* SPDX-License-Identifier: GPL-2.0-only */
/* The HPET: found through ACPI (or at its usual address, checked); its main counter; timer 0 as a tick source. */
#ifndef VMTICK_X86_HPET_H
#define VMTICK_X86_HPET_H

#include "timer_tick.h"

/* Where chipsets (and QEMU) put it when no table says otherwise. */
#define HPET_DEFAULT_BASE 0xfed00000

/*
 * Find the HPET: the ACPI HPET table's base, else HPET_DEFAULT_BASE; either
 * way its capabilities must read sanely (vendor ID, a period of at most
 * 100 ns). Returns NULL, or why there is none.
 */
const char *hpet_find(void);

/*
 * The main counter as a free-running clock: after hpet_find(), start it
 * if it is halted (without clearing it), and read its low 32 bits (one
 * MMIO read; the caller follows the wraps). The tick source below halts
 * and clears it when it stops: start it again after that.
 */
void hpet_counter_run(void);
u32 hpet_counter_read32(void);
/* Counts per second, from the capability register's period (femtoseconds per count). */
u64 hpet_counter_hz(void);

extern const struct tick_source tick_source_hpet;

/*
 * HPET timer 1 as a one-shot that interrupts at vector once the counter
 * reaches when (never before: call hpet_guard_expired() from the handler,
 * which re-arms while it has not). Returns NULL, or why it cannot.
 */
const char *hpet_guard_at(u64 when, u8 vector);
bool hpet_guard_expired(void);
void hpet_guard_cancel(void);

#endif
