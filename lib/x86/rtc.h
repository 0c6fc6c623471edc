/* SPDX-License-Identifier: GPL-2.0-only */
/* The CMOS real-time clock (MC146818): its date and time, read consistently, and its interrupts. */
#ifndef VMTICK_X86_RTC_H
#define VMTICK_X86_RTC_H

#include "libc.h"

/* Register names as the manual gives them (shared with x86/timer_regs/, which programs them directly). */
#define RTC_SECONDS	 0x00
#define RTC_MINUTES	 0x02
#define RTC_HOURS	 0x04
#define RTC_DAY_OF_MONTH 0x07
#define RTC_MONTH	 0x08
#define RTC_YEAR	 0x09
#define RTC_REG_A	 0x0a
#define RTC_REG_B	 0x0b
#define RTC_REG_C	 0x0c
#define RTC_A_UIP	 (1u << 7) /* update in progress: the time registers are changing */
#define RTC_A_DV_MASK	 0x70	   /* divider: the time base, left as the firmware set it */
#define RTC_A_RS_MASK	 0x0f	   /* rate select */
#define RTC_B_SET	 (1u << 7) /* updates halted while the time is written */
#define RTC_B_24H	 (1u << 1)
#define RTC_B_DM_BINARY	 (1u << 2)
#define RTC_HOURS_PM	 (1u << 7) /* in 12-hour mode */

#define RTC_SECONDS_PER_DAY 86400
/* The ISA line the RTC interrupts on. */
#define RTC_ISA_IRQ 8

/* Register C: which events raised IRQ 8; reading it clears them and lowers the line. */
#define RTC_C_IRQF (1u << 7) /* an enabled flag below is set */
#define RTC_C_PF   (1u << 6) /* periodic */
#define RTC_C_AF   (1u << 5) /* alarm */
#define RTC_C_UF   (1u << 4) /* update ended */

/* The periodic interrupt's rates with the 32.768 kHz time base: powers of two. */
#define RTC_TIME_BASE_HZ    32768
#define RTC_PERIODIC_HZ_MIN 2
#define RTC_PERIODIC_HZ_MAX 8192

/*
 * The RTC's time of day in seconds since midnight (0..86399), read with
 * the update-in-progress protocol: NULL, or why it could not be read
 * (an RTC that is always updating, or whose registers make no sense).
 */
const char *rtc_seconds_of_day(u32 *seconds);

/* Date and time as the RTC keeps them, decoded (BCD or binary, 12- or 24-hour). */
struct rtc_datetime {
	u16 year; /* four digits: the century register the FADT names, else 20xx */
	u8 month, day, hour, min, sec;
};

/* The same protocol, with the date: NULL, or why not. */
const char *rtc_read_datetime(struct rtc_datetime *t);
/* Seconds since 1970-01-01 00:00, taking the RTC's time as UTC (QEMU's default, -rtc base=utc). */
u64 rtc_datetime_epoch(const struct rtc_datetime *t);
/* Its inverse: the date and time secs after 1970-01-01 00:00. */
void rtc_epoch_datetime(u64 secs, struct rtc_datetime *t);
/* Set the date and time (the guest's own: QEMU then keeps its offset to the host's): NULL, or why not. */
const char *rtc_write_datetime(const struct rtc_datetime *t);

/*
 * The seconds register as it reads now, undecoded and without the
 * update-in-progress protocol: a cheap read (two port accesses) that
 * changes once a second, for timing the update's edge. Read the time
 * itself with the functions above.
 */
u8 rtc_seconds_reg(void);

/* Interrupt enables of register B. */
enum rtc_irq {
	RTC_IRQ_PERIODIC = 1u << 6, /* PIE */
	RTC_IRQ_UPDATE = 1u << 4,   /* UIE */
};

void rtc_irq_enable(enum rtc_irq irq);
void rtc_irq_disable(enum rtc_irq irq);
/* Read register C: the RTC_C_* flags raised since the last read. */
u8 rtc_irq_ack(void);
/* Program the periodic rate (rate select, register A): NULL, or why hz cannot be had. */
const char *rtc_set_periodic_hz(unsigned hz);

/* One byte of CMOS RAM by its index (the RTC's registers, then RAM firmware may use). */
u8 cmos_read(u8 reg);
void cmos_write(u8 reg, u8 val);

#endif
