/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC in xAPIC (MMIO) or x2APIC (MSR) mode behind one set of accessors. */
#ifndef VMTICK_X86_APIC_H
#define VMTICK_X86_APIC_H

#include "libc.h"

#define APIC_DEFAULT_BASE	0xfee00000
#define X2APIC_MSR_BASE		0x800

/* Register offsets (xAPIC MMIO; the x2APIC MSR is X2APIC_MSR_BASE + offset / 16) */
#define APIC_ID		0x020
#define APIC_LVR	0x030
#define APIC_TPR	0x080
#define APIC_EOI	0x0b0
#define APIC_LDR	0x0d0
#define APIC_SVR	0x0f0
#define APIC_ISR	0x100
#define APIC_IRR	0x200
#define APIC_IRR_STRIDE	0x10	/* IRR0..IRR7, 32 vectors each */
#define APIC_ESR	0x280
#define APIC_ICR	0x300
#define APIC_ICR2	0x310
#define APIC_LVTT	0x320
#define APIC_LVT0	0x350
#define APIC_LVT1	0x360
#define APIC_LVTERR	0x370
#define APIC_TMICT	0x380
#define APIC_TMCCT	0x390
#define APIC_TDCR	0x3e0
#define APIC_SELF_IPI	0x3f0	/* x2APIC only */

#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_TIMER_ONESHOT	(0u << 17)
#define APIC_LVT_TIMER_PERIODIC	(1u << 17)
#define APIC_LVT_TIMER_TSCDEADLINE (2u << 17)
#define APIC_TDCR_DIV_1		0xb
#define APIC_TDCR_DIV_16	0x3

#define APIC_ICR_FIXED		(0u << 8)
#define APIC_ICR_NMI		(4u << 8)
#define APIC_ICR_INIT		(5u << 8)
#define APIC_ICR_STARTUP	(6u << 8)
#define APIC_ICR_BUSY		(1u << 12)
#define APIC_ICR_LEVEL_ASSERT	(1u << 14)
#define APIC_ICR_TRIGGER_LEVEL	(1u << 15)
#define APIC_DEST_SELF		(1u << 18)
#define APIC_DEST_ALL_BUT_SELF	(3u << 18)

/* Vectors the library owns. */
#define IPI_WAKE_VECTOR		0xf0
#define APIC_SPURIOUS_VECTOR	0xff

bool apic_x2apic_mode(void);
u32 apic_read(u32 reg);
void apic_write(u32 reg, u32 val);
u32 apic_id(void);
void apic_eoi(void);
/* Whether vector is requested and not yet taken: its Interrupt Request Register bit (SDM 11.8.4). */
bool apic_irr_pending(u8 vector);
/* Write the ICR: dest is an APIC ID (ignored with a shorthand in flags). */
void apic_icr_write(u32 flags, u32 dest);
/* Enable this CPU's APIC, in x2APIC mode when the CPU has it. */
void apic_enable(void);
/* Send a fixed IPI to one CPU (dense id). */
void apic_send_ipi(int cpu, u8 vector);

#endif
