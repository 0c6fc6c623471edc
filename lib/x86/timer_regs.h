/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 timers' registers by the names their manuals give them, for a
 * test that programs them directly (x86/timer_regs/): those the drivers
 * use are in the drivers' headers (x86/hpet.h, pit.h, rtc.h), the rest here.
 */
#ifndef VMTICK_X86_TIMER_REGS_H
#define VMTICK_X86_TIMER_REGS_H

#include "libc.h"
#include "x86/hpet.h"
#include "x86/pit.h"
#include "x86/rtc.h"

/* ---- LAPIC timer (Intel SDM vol. 3, 11.5.1 and 11.5.4) ------------------- */
#define APIC_LVT_DELIVERY_STATUS (1u << 12)
#define APIC_LVT_VECTOR_MASK	 0xffu
#define APIC_LVT_TIMER_MODE_MASK (3u << 17)
/* the Divide Configuration Register: bits 3, 1 and 0 (bit 2 reserved) */
#define APIC_TDCR_DIV_2	  0x0
#define APIC_TDCR_DIV_4	  0x1
#define APIC_TDCR_DIV_8	  0x2
#define APIC_TDCR_DIV_32  0x8
#define APIC_TDCR_DIV_64  0x9
#define APIC_TDCR_DIV_128 0xa
#define APIC_TDCR_MASK	  0xbu
#define APIC_IRR_BIT(v)	  (1u << ((v) % 32))
#define APIC_IRR_REG(v)	  (APIC_IRR + 0x10 * ((v) / 32))

/* ---- HPET (IA-PC HPET specification 1.0a, 2.3) --------------------------- */
#define HPET_TN_CMP_HI(n)	(0x10c + 0x20 * (n))
#define HPET_GCAP_REV_ID_MASK	0xffu

/* Raw access to the HPET hpet_find() found (lib/x86/hpet.c). */
u32 hpet_reg_read(u32 reg);
void hpet_reg_write(u32 reg, u32 val);

/* ---- 8254 PIT (Intel 8254 data sheet) ------------------------------------ */
#define PIT_PORT_B	   0x61 /* NMI status and control */
#define PIT_PORT_B_GATE2   0x01
#define PIT_PORT_B_SPEAKER 0x02
#define PIT_PORT_B_OUT2	   0x20
#define PIT_SC(ch)	   ((ch) << 6)
#define PIT_SC_READ_BACK   (3u << 6)
#define PIT_RW_LATCH	   (0u << 4)
#define PIT_RW_LSB	   (1u << 4)
#define PIT_RW_MSB	   (2u << 4)
#define PIT_RW_LSB_MSB	   (3u << 4)
#define PIT_MODE(m)	   ((m) << 1)
#define PIT_BCD		   1u
/* read-back command: active-low COUNT and STATUS, a bit per counter */
#define PIT_RB_NO_COUNT	 (1u << 5)
#define PIT_RB_NO_STATUS (1u << 4)
#define PIT_RB_CNT(ch)	 (1u << ((ch) + 1))
/* status byte */
#define PIT_STATUS_OUTPUT     (1u << 7)
#define PIT_STATUS_NULL_COUNT (1u << 6)
#define PIT_STATUS_RW_MASK    (3u << 4)
#define PIT_STATUS_MODE_MASK  (7u << 1)
#define PIT_STATUS_BCD	      1u

/* ---- MC146818 RTC (the CMOS RTC data sheet) ------------------------------ */
#define RTC_SECONDS_ALARM 0x01
#define RTC_MINUTES_ALARM 0x03
#define RTC_HOURS_ALARM	  0x05
#define RTC_REG_D	  0x0d
#define RTC_B_PIE	  (1u << 6)
#define RTC_B_AIE	  (1u << 5)
#define RTC_B_UIE	  (1u << 4)
#define RTC_D_VRT	  (1u << 7)
/* an alarm byte with its two high bits set matches any value */
#define RTC_ALARM_DONT_CARE 0xc0u
/* update-in-progress: set 244 us before the update, which takes up to 1984 us */
#define RTC_UIP_LEAD_US	  244
#define RTC_UPDATE_MAX_US 1984

/* The CMOS index of the century register the FADT names, 0 for none (lib/x86/rtc.c). */
u8 rtc_century_reg(void);

#endif
