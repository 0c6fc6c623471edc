/* SPDX-License-Identifier: GPL-2.0-only */
/* The CMOS RTC's time of day through the index/data ports, in BCD or binary, 12- or 24-hour. */
#include "rtc.h"
#include "io.h"

#define CMOS_INDEX	0x70
#define CMOS_DATA	0x71
/* Bit 7 of the index port masks NMIs: keep it clear, as the firmware left it. */
#define RTC_SECONDS	0x00
#define RTC_MINUTES	0x02
#define RTC_HOURS	0x04
#define RTC_REG_A	0x0a
#define RTC_REG_B	0x0b
#define RTC_A_UIP	(1u << 7)	/* update in progress: the time registers are changing */
#define RTC_B_24H	(1u << 1)
#define RTC_B_DM_BINARY	(1u << 2)
#define RTC_HOURS_PM	(1u << 7)	/* in 12-hour mode */
/* Give up after this many reads that overlapped an update (each update takes under 2 ms). */
#define RTC_MAX_TRIES	1000

struct rtc_time {
	u8 sec, min, hour;
};

static u8 cmos_read(u8 reg)
{
	outb(reg, CMOS_INDEX);
	return inb(CMOS_DATA);
}

static void read_time(struct rtc_time *t)
{
	t->sec = cmos_read(RTC_SECONDS);
	t->min = cmos_read(RTC_MINUTES);
	t->hour = cmos_read(RTC_HOURS);
}

static unsigned from_bcd(u8 v)
{
	return (v >> 4) * 10 + (v & 0xf);
}

/*
 * UIP clear promises 244 us before the next update; a read under a slow
 * hypervisor can take longer, so the time is read twice, both after UIP
 * was seen clear, and kept only when the two agree.
 */
const char *rtc_seconds_of_day(u32 *seconds)
{
	struct rtc_time a, b;
	unsigned sec, min, hour;
	u8 reg_b;

	for (int tries = 0;; tries++) {
		if (tries == RTC_MAX_TRIES)
			return "the RTC was updating at every read";
		if (cmos_read(RTC_REG_A) & RTC_A_UIP)
			continue;
		read_time(&a);
		if (cmos_read(RTC_REG_A) & RTC_A_UIP)
			continue;
		read_time(&b);
		if (!memcmp(&a, &b, sizeof(a)))
			break;
	}
	reg_b = cmos_read(RTC_REG_B);
	hour = a.hour & ~RTC_HOURS_PM;
	if (reg_b & RTC_B_DM_BINARY) {
		sec = a.sec, min = a.min;
	} else {
		sec = from_bcd(a.sec), min = from_bcd(a.min), hour = from_bcd((u8)hour);
	}
	if (!(reg_b & RTC_B_24H))
		hour = hour % 12 + (a.hour & RTC_HOURS_PM ? 12 : 0);
	if (sec > 59 || min > 59 || hour > 23)
		return "the RTC's time registers hold no valid time";
	*seconds = (hour * 60 + min) * 60 + sec;
	return NULL;
}
