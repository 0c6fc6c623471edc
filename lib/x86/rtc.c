/* SPDX-License-Identifier: GPL-2.0-only */
/* The CMOS RTC through its ports: date and time (BCD or binary, 12- or 24-hour), its interrupts. */
#include "x86/rtc.h"
#include "x86/acpi.h"
#include "x86/io.h"
#include "units.h"
#include "wait.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA  0x71
/* Bit 7 of the index port masks NMIs: keep it clear, as the firmware left it. */
/* rate = 32768 Hz >> (RS - 1) for RS 3..15, so RS = RTC_RS_LOG2_BASE - log2(rate) */
#define RTC_RS_LOG2_BASE 16
/* ACPI FADT: CENTURY, the CMOS index of the century register (0: none). */
#define FADT_CENTURY_OFFSET 108
#define RTC_DEFAULT_CENTURY 20
/* Give up after this many reads that overlapped an update (each update takes under 2 ms). */
#define RTC_MAX_TRIES 1000
/* A retry waits 1/10000 s: 1000 of them last 100 ms at least (uip_backoff()). */
#define RTC_UIP_BACKOFF_PER_S 10000

/* The time registers first: a time-of-day read stops after them. */
enum { F_SEC, F_MIN, F_HOUR, F_DAY, F_MONTH, F_YEAR, F_CENTURY, F_COUNT };
#define F_TIME_COUNT (F_HOUR + 1)

struct rtc_raw {
	u8 v[F_COUNT];
	u8 reg_b;
};

u8 cmos_read(u8 reg)
{
	outb(reg, CMOS_INDEX);
	return inb(CMOS_DATA);
}

void cmos_write(u8 reg, u8 val)
{
	outb(reg, CMOS_INDEX);
	outb(val, CMOS_DATA);
}

/* The CMOS index of the century register, or 0 when the FADT names none. */
static u8 century_reg(void)
{
	static int reg = -1;
	const struct acpi_header *fadt;

	if (reg < 0) {
		fadt = acpi_find_table("FACP");
		reg = fadt && fadt->length > FADT_CENTURY_OFFSET
			      ? ((const u8 *)fadt)[FADT_CENTURY_OFFSET]
			      : 0;
	}
	return (u8)reg;
}

static void read_fields(u8 *v, size_t n)
{
	static const u8 regs[F_COUNT - 1] = {RTC_SECONDS,      RTC_MINUTES, RTC_HOURS,
					     RTC_DAY_OF_MONTH, RTC_MONTH,   RTC_YEAR};

	for (size_t i = 0; i < n; i++)
		v[i] = i == F_CENTURY ? (century_reg() ? cmos_read(century_reg()) : 0)
				      : cmos_read(regs[i]);
}

/*
 * Between two reads that found an update in progress. QEMU latches UIP
 * until its main loop has run the update (when register C's UF is clear:
 * after any read of register C, such as a periodic interrupt's
 * acknowledgement), and every read takes the device lock the main loop
 * needs: back-to-back retries can keep the update from ever running.
 */
static void uip_backoff(void)
{
	spin_ns(NSEC_PER_SEC / RTC_UIP_BACKOFF_PER_S);
}

/*
 * UIP clear promises 244 us before the next update; a read under a slow
 * hypervisor can take longer, so the fields are read twice, both after UIP
 * was seen clear, and kept only when the two agree.
 */
static const char *read_raw(struct rtc_raw *raw, size_t n)
{
	u8 again[F_COUNT];

	for (int tries = 0;; tries++) {
		if (tries == RTC_MAX_TRIES)
			return "the RTC was updating at every read";
		if (tries)
			uip_backoff();
		if (cmos_read(RTC_REG_A) & RTC_A_UIP)
			continue;
		read_fields(raw->v, n);
		if (cmos_read(RTC_REG_A) & RTC_A_UIP)
			continue;
		read_fields(again, n);
		if (!memcmp(raw->v, again, n))
			break;
	}
	raw->reg_b = cmos_read(RTC_REG_B);
	return NULL;
}

static unsigned decode(const struct rtc_raw *raw, unsigned field)
{
	u8 v = raw->v[field];

	if (field == F_HOUR)
		v &= ~RTC_HOURS_PM;
	return raw->reg_b & RTC_B_DM_BINARY ? v : (v >> 4) * 10 + (v & 0xf);
}

static unsigned decode_hour(const struct rtc_raw *raw)
{
	unsigned hour = decode(raw, F_HOUR);

	if (raw->reg_b & RTC_B_24H)
		return hour;
	/* 12 AM is midnight, 12 PM noon */
	return hour % 12 + (raw->v[F_HOUR] & RTC_HOURS_PM ? 12 : 0);
}

const char *rtc_seconds_of_day(u32 *seconds)
{
	struct rtc_raw raw;
	const char *why = read_raw(&raw, F_TIME_COUNT);
	unsigned sec, min, hour;

	if (why)
		return why;
	sec = decode(&raw, F_SEC), min = decode(&raw, F_MIN), hour = decode_hour(&raw);
	if (sec > 59 || min > 59 || hour > 23)
		return "the RTC's time registers hold no valid time";
	*seconds = (hour * 60 + min) * 60 + sec;
	return NULL;
}

const char *rtc_read_datetime(struct rtc_datetime *t)
{
	struct rtc_raw raw;
	const char *why = read_raw(&raw, century_reg() ? F_COUNT : F_CENTURY);
	unsigned century;

	if (why)
		return why;
	century = century_reg() ? decode(&raw, F_CENTURY) : RTC_DEFAULT_CENTURY;
	*t = (struct rtc_datetime){
		.year = (u16)(century * 100 + decode(&raw, F_YEAR)),
		.month = (u8)decode(&raw, F_MONTH),
		.day = (u8)decode(&raw, F_DAY),
		.hour = (u8)decode_hour(&raw),
		.min = (u8)decode(&raw, F_MIN),
		.sec = (u8)decode(&raw, F_SEC),
	};
	if (t->sec > 59 || t->min > 59 || t->hour > 23 || t->month < 1 || t->month > 12 ||
	    t->day < 1 || t->day > 31 || t->year < 1970)
		return "the RTC's date and time registers hold no valid date";
	return NULL;
}

static bool leap_year(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

u64 rtc_datetime_epoch(const struct rtc_datetime *t)
{
	static const u16 days_before_month[12] = {0,   31,  59,	 90,  120, 151,
						  181, 212, 243, 273, 304, 334};
	u64 days = 0;

	for (unsigned y = 1970; y < t->year; y++)
		days += leap_year(y) ? 366 : 365;
	days += days_before_month[t->month - 1] + (t->month > 2 && leap_year(t->year)) + t->day - 1;
	return days * RTC_SECONDS_PER_DAY + (t->hour * 60u + t->min) * 60u + t->sec;
}

/* The inverse of rtc_datetime_epoch. */
void rtc_epoch_datetime(u64 secs, struct rtc_datetime *t)
{
	static const u8 month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	u64 days = secs / RTC_SECONDS_PER_DAY, rest = secs % RTC_SECONDS_PER_DAY;
	unsigned y = 1970, m = 0;

	while (days >= (leap_year(y) ? 366u : 365u))
		days -= leap_year(y++) ? 366 : 365;
	while (days >= (u64)(month_days[m] + (m == 1 && leap_year(y))))
		days -= (u64)(month_days[m] + (m == 1 && leap_year(y))), m++;
	*t = (struct rtc_datetime){
		.year = (u16)y,
		.month = (u8)(m + 1),
		.day = (u8)(days + 1),
		.hour = (u8)(rest / 3600),
		.min = (u8)(rest / 60 % 60),
		.sec = (u8)(rest % 60),
	};
}

static u8 encode(u8 reg_b, unsigned v)
{
	return reg_b & RTC_B_DM_BINARY ? (u8)v : (u8)((v / 10) << 4 | v % 10);
}

static u8 encode_hour(u8 reg_b, unsigned hour)
{
	unsigned h12 = hour % 12 ? hour % 12 : 12;

	if (reg_b & RTC_B_24H)
		return encode(reg_b, hour);
	return encode(reg_b, h12) | (hour >= 12 ? RTC_HOURS_PM : 0);
}

/*
 * Set the date and time in the RTC's own format (BCD or binary, 12- or
 * 24-hour), updates halted meanwhile (SET in register B); the century in
 * the register the FADT names. Without one only 20xx can be written.
 */
const char *rtc_write_datetime(const struct rtc_datetime *t)
{
	u8 reg_b = cmos_read(RTC_REG_B);
	const struct {
		u8 reg;
		u8 v;
	} fields[] = {
		{RTC_SECONDS, encode(reg_b, t->sec)},
		{RTC_MINUTES, encode(reg_b, t->min)},
		{RTC_HOURS, encode_hour(reg_b, t->hour)},
		{RTC_DAY_OF_MONTH, encode(reg_b, t->day)},
		{RTC_MONTH, encode(reg_b, t->month)},
		{RTC_YEAR, encode(reg_b, t->year % 100)},
	};

	if (!century_reg() && t->year / 100 != RTC_DEFAULT_CENTURY)
		return "no century register (the FADT names none): only 20xx can be set";
	cmos_write(RTC_REG_B, reg_b | RTC_B_SET);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		cmos_write(fields[i].reg, fields[i].v);
	if (century_reg())
		cmos_write(century_reg(), encode(reg_b, t->year / 100));
	cmos_write(RTC_REG_B, reg_b);
	return NULL;
}

u8 rtc_seconds_reg(void)
{
	return cmos_read(RTC_SECONDS);
}

void rtc_irq_enable(enum rtc_irq irq)
{
	cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) | irq);
}

void rtc_irq_disable(enum rtc_irq irq)
{
	cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) & ~irq);
}

u8 rtc_irq_ack(void)
{
	return cmos_read(RTC_REG_C);
}

const char *rtc_set_periodic_hz(unsigned hz)
{
	unsigned log2 = 0;

	if (hz < RTC_PERIODIC_HZ_MIN || hz > RTC_PERIODIC_HZ_MAX || (hz & (hz - 1)))
		return "the RTC's periodic rates are the powers of two from 2 to 8192 Hz";
	while ((1u << log2) < hz)
		log2++;
	cmos_write(RTC_REG_A, (cmos_read(RTC_REG_A) & RTC_A_DV_MASK) |
				      ((RTC_RS_LOG2_BASE - log2) & RTC_A_RS_MASK));
	return NULL;
}

/* The CMOS index of the century register the FADT names, 0 for none (declared in x86/timer_regs.h). */
u8 rtc_century_reg(void);

u8 rtc_century_reg(void)
{
	return century_reg();
}
