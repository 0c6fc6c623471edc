/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 timers' registers by the names their manuals give them, for a
 * test that programs them directly (x86/timer_regs/): the drivers beside
 * this header (apic_timer.c, hpet.c, pit.c, rtc.c) keep their own copies
 * private and offer ready-made operations instead.
 */
#ifndef VMTICK_X86_TIMER_REGS_H
#define VMTICK_X86_TIMER_REGS_H

#include "libc.h"

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
#define HPET_GCAP_ID		0x000
#define HPET_GCAP_PERIOD	0x004
#define HPET_GEN_CONF		0x010
#define HPET_GEN_INT_STS	0x020
#define HPET_MAIN_CNT		0x0f0
#define HPET_MAIN_CNT_HI	0x0f4
#define HPET_TN_CONF(n)		(0x100 + 0x20 * (n))
#define HPET_TN_CMP(n)		(0x108 + 0x20 * (n))
#define HPET_TN_CMP_HI(n)	(0x10c + 0x20 * (n))
#define HPET_GCAP_REV_ID_MASK	0xffu
#define HPET_GEN_ENABLE_CNF	(1u << 0)
#define HPET_TN_INT_TYPE_CNF	(1u << 1)
#define HPET_TN_INT_ENB_CNF	(1u << 2)
#define HPET_TN_TYPE_CNF	(1u << 3)
#define HPET_TN_PER_INT_CAP	(1u << 4)
#define HPET_TN_SIZE_CAP	(1u << 5)
#define HPET_TN_VAL_SET_CNF	(1u << 6)
#define HPET_TN_32MODE_CNF	(1u << 8)
#define HPET_TN_INT_ROUTE_SHIFT 9
#define HPET_PERIOD_MAX_FS	100000000u

/* Raw access to the HPET hpet_find() found (lib/x86/hpet.c). */
u32 hpet_reg_read(u32 reg);
void hpet_reg_write(u32 reg, u32 val);

/* ---- 8254 PIT (Intel 8254 data sheet) ------------------------------------ */
#define PIT_CH0_DATA	   0x40
#define PIT_CH2_DATA	   0x42
#define PIT_MODE_CMD	   0x43
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
#define RTC_SECONDS	  0x00
#define RTC_SECONDS_ALARM 0x01
#define RTC_MINUTES	  0x02
#define RTC_MINUTES_ALARM 0x03
#define RTC_HOURS	  0x04
#define RTC_HOURS_ALARM	  0x05
#define RTC_DAY_OF_MONTH  0x07
#define RTC_MONTH	  0x08
#define RTC_YEAR	  0x09
#define RTC_REG_A	  0x0a
#define RTC_REG_B	  0x0b
#define RTC_REG_C	  0x0c
#define RTC_REG_D	  0x0d
#define RTC_A_UIP	  (1u << 7)
#define RTC_A_DV_MASK	  0x70u
#define RTC_A_RS_MASK	  0x0fu
#define RTC_B_SET	  (1u << 7)
#define RTC_B_PIE	  (1u << 6)
#define RTC_B_AIE	  (1u << 5)
#define RTC_B_UIE	  (1u << 4)
#define RTC_B_DM_BINARY	  (1u << 2)
#define RTC_B_24H	  (1u << 1)
#define RTC_D_VRT	  (1u << 7)
#define RTC_HOURS_PM	  (1u << 7)
/* an alarm byte with its two high bits set matches any value */
#define RTC_ALARM_DONT_CARE 0xc0u
/* update-in-progress: set 244 us before the update, which takes up to 1984 us */
#define RTC_UIP_LEAD_US	  244
#define RTC_UPDATE_MAX_US 1984

/* The CMOS index of the century register the FADT names, 0 for none (lib/x86/rtc.c). */
u8 rtc_century_reg(void);

#endif
