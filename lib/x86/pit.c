/* SPDX-License-Identifier: GPL-2.0-only */
/* The PIT through its ports: channel 0 stopped, a rate generator or a one-shot; channel 2 for measuring. */
#include "x86/pit.h"
#include "arch.h"
#include "x86/io.h"

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

/* A 16-bit count, low byte first (PIT_CMD_LOHI); 65536 is written as 0. */
static void write_count(u16 data_port, u32 count)
{
	outb((u8)count, data_port);
	outb((u8)(count >> 8), data_port);
}

/* A channel's count latched (a snapshot the two reads take apart), low byte first. */
static u16 read_count(u8 channel, u16 data_port)
{
	u16 lo, hi;

	outb(channel | PIT_CMD_LATCH, PIT_MODE_CMD);
	lo = inb(data_port);
	hi = inb(data_port);
	return (u16)(lo | hi << 8);
}

static void pit_program(u8 mode, u32 reload)
{
	outb(PIT_CMD_CH0 | PIT_CMD_LOHI | mode | PIT_CMD_BINARY, PIT_MODE_CMD);
	write_count(PIT_CH0_DATA, reload);
}

/* Writing the mode alone leaves the old count running (QEMU's and KVM's PIT): load a count of 1. */
void pit_quiesce(void)
{
	pit_program(PIT_CMD_MODE0, 1);
}

u16 pit_ch0_count(void)
{
	return read_count(PIT_CMD_CH0, PIT_CH0_DATA);
}

void pit_ch0_run_free(void)
{
	/* a reload of 0 is 65536: the longest period */
	pit_program(PIT_CMD_MODE2, 0);
}

/* Counting starts once the second byte of the count is written: the counter is read just before. */
u64 pit_ch0_rate_start(u32 reload)
{
	u64 t;

	outb(PIT_CMD_CH0 | PIT_CMD_LOHI | PIT_CMD_MODE2 | PIT_CMD_BINARY, PIT_MODE_CMD);
	outb((u8)reload, PIT_CH0_DATA);
	t = arch_counter();
	outb((u8)(reload >> 8), PIT_CH0_DATA);
	return t;
}

void pit_ch0_oneshot_mode(void)
{
	outb(PIT_CMD_CH0 | PIT_CMD_LOHI | PIT_CMD_MODE0 | PIT_CMD_BINARY, PIT_MODE_CMD);
}

/* Mode 0 re-armed by the count alone: the mode stays, a new count restarts it. */
void pit_ch0_oneshot(u32 counts)
{
	write_count(PIT_CH0_DATA, counts); /* PIT_ONESHOT_COUNT_MAX (2^16) as 0 */
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
	write_count(PIT_CH2_DATA, reload);
	outb((gate & ~PIT_SPEAKER) | PIT_GATE2, PIT_CH2_GATE_PORT);
}

void pit_ch2_run(void)
{
	/* a reload of 0 is 65536: the longest period */
	ch2_program(PIT_CMD_MODE2, 0);
}

u16 pit_ch2_count(void)
{
	return read_count(PIT_CMD_CH2, PIT_CH2_DATA);
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
