/* SPDX-License-Identifier: GPL-2.0-only */
/* PIT channel 0 in rate-generator mode as a periodic tick source, routed through the IOAPIC; channel 2 for measuring. */
#include "x86/pit.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"
#include "arch.h"
#include "x86/io.h"
#include "x86/ioapic.h"
#include "report.h"

#define PIT_CH0_DATA 0x40
#define PIT_CH2_DATA 0x42
#define PIT_MODE_CMD 0x43
/* NMI status and control (port 0x61): channel 2's gate and output, and the speaker */
#define PIT_CH2_GATE_PORT 0x61
#define PIT_GATE2	  0x01
#define PIT_SPEAKER	  0x02
#define PIT_OUT2	  0x20
/* Mode/command register fields */
#define PIT_CMD_CH0    (0u << 6)
#define PIT_CMD_CH2    (2u << 6)
#define PIT_CMD_LATCH  (0u << 4)
#define PIT_CMD_LOHI   (3u << 4)
#define PIT_CMD_MODE0  (0u << 1) /* interrupt on terminal count: one edge */
#define PIT_CMD_MODE2  (2u << 1) /* rate generator: a pulse every count */
#define PIT_CMD_BINARY 0u
#define PIT_ISA_IRQ    0
/* A reload value of 0 means 65536. */
#define PIT_RELOAD_MAX 65536
/* Mode 2 needs at least 2. */
#define PIT_RELOAD_MIN 2
#define PIT_COUNT_MASK 0xffff

static struct {
	u64 period;
	struct ioapic_route route;
	u16 last;    /* calibration: last count read */
	u64 elapsed; /* calibration: counts since it began */
} pit;

static void pit_program(u8 mode, u32 reload)
{
	outb(PIT_CMD_CH0 | PIT_CMD_LOHI | mode | PIT_CMD_BINARY, PIT_MODE_CMD);
	outb((u8)reload, PIT_CH0_DATA);
	outb((u8)(reload >> 8), PIT_CH0_DATA);
}

/* Writing the mode alone leaves the old count running (QEMU's and KVM's PIT): load a count of 1. */
void pit_quiesce(void)
{
	pit_program(PIT_CMD_MODE0, 1);
}

static u16 pit_count(void)
{
	u16 lo, hi;

	outb(PIT_CMD_CH0 | PIT_CMD_LATCH, PIT_MODE_CMD);
	lo = inb(PIT_CH0_DATA);
	hi = inb(PIT_CH0_DATA);
	return (u16)(lo | hi << 8);
}

/* Channel 0 counts down and wraps every 65536 counts (55 ms): add up the steps between reads. */
static u64 pit_cal_read(void)
{
	u16 now = pit_count();

	pit.elapsed += (u16)(pit.last - now);
	pit.last = now;
	return pit.elapsed;
}

/* Channel 0 counting from the largest reload, read as it goes, then stopped again. */
static bool pit_calibrate(struct tick_cal *cal)
{
	bool counts;

	pit_program(PIT_CMD_MODE2, 0);
	pit.last = pit_count();
	pit.elapsed = 0;
	counts = tick_calibrate(pit_cal_read, cal);
	pit_quiesce();
	return counts;
}

static const char *pit_probe(void)
{
	if (!ioapic_init())
		return "no IOAPIC to route ISA IRQ 0 through";
	return NULL;
}

static const char *pit_setup(u64 hz, struct tick_plan *plan)
{
	static char why[96];

	pit.period = (PIT_HZ + hz / 2) / hz;
	if (pit.period < PIT_RELOAD_MIN || pit.period > PIT_RELOAD_MAX) {
		snprintf(why, sizeof(why), "hz=%llu needs a reload of %llu, outside %u..%u",
			 hz, pit.period, PIT_RELOAD_MIN, PIT_RELOAD_MAX);
		return why;
	}
	if (!pit_calibrate(&plan->cal))
		return "channel 0 does not count";
	plan->period_counts = pit.period;
	pit.route = ioapic_isa_route(PIT_ISA_IRQ);
	report_info("PIT at %u Hz (nominal); ISA IRQ %d is GSI %u (%s) by %s", PIT_HZ, PIT_ISA_IRQ,
		    pit.route.gsi, pit.route.trigger == IOAPIC_LEVEL ? "level" : "edge",
		    ioapic_found_by());
	if (!ioapic_route(&pit.route, TIMER_TICK_VECTOR, apic_id()))
		return "the IOAPIC has no pin for ISA IRQ 0";
	return NULL;
}

/* Counting starts once the second byte of the count is written: the anchor is read just before. */
static u64 pit_start(void)
{
	u64 t;

	outb(PIT_CMD_CH0 | PIT_CMD_LOHI | PIT_CMD_MODE2 | PIT_CMD_BINARY, PIT_MODE_CMD);
	outb((u8)pit.period, PIT_CH0_DATA);
	t = arch_counter();
	outb((u8)(pit.period >> 8), PIT_CH0_DATA);
	return t;
}

static void pit_stop(void)
{
	pit_quiesce();
	ioapic_mask(pit.route.gsi);
}

/* Port 0x61 as channel 2's first use found it; 0xffff: not saved. */
static u16 ch2_saved_gate = 0xffff;

static void ch2_program(u8 mode, u16 reload)
{
	u8 gate = inb(PIT_CH2_GATE_PORT);

	if (ch2_saved_gate == 0xffff)
		ch2_saved_gate = gate;
	/* gate low while loading: in mode 0 the count starts on the gate's rising edge */
	outb((gate & ~PIT_SPEAKER) & ~PIT_GATE2, PIT_CH2_GATE_PORT);
	outb(PIT_CMD_CH2 | PIT_CMD_LOHI | mode | PIT_CMD_BINARY, PIT_MODE_CMD);
	outb((u8)reload, PIT_CH2_DATA);
	outb((u8)(reload >> 8), PIT_CH2_DATA);
	outb((gate & ~PIT_SPEAKER) | PIT_GATE2, PIT_CH2_GATE_PORT);
}

void pit_ch2_run(void)
{
	/* a reload of 0 is 65536: the longest period */
	ch2_program(PIT_CMD_MODE2, 0);
}

u16 pit_ch2_count(void)
{
	u16 lo, hi;

	outb(PIT_CMD_CH2 | PIT_CMD_LATCH, PIT_MODE_CMD);
	lo = inb(PIT_CH2_DATA);
	hi = inb(PIT_CH2_DATA);
	return (u16)(lo | hi << 8);
}

void pit_ch2_oneshot(u16 count)
{
	ch2_program(PIT_CMD_MODE0, count);
}

/* In mode 0 OUT2 goes high at terminal count and stays high. */
bool pit_ch2_done(void)
{
	return inb(PIT_CH2_GATE_PORT) & PIT_OUT2;
}

void pit_ch2_stop(void)
{
	if (ch2_saved_gate == 0xffff)
		return;
	outb((u8)ch2_saved_gate, PIT_CH2_GATE_PORT);
	ch2_saved_gate = 0xffff;
}

const struct tick_source tick_source_pit = {
	.name = "pit",
	.what = "PIT channel 0, rate generator, through the IOAPIC",
	.kind = TICK_PERIODIC,
	.wake_use = TICK_OWN_TIMER,
	.probe = pit_probe,
	.setup = pit_setup,
	.start = pit_start,
	.stop = pit_stop,
};
