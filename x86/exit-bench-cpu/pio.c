/* SPDX-License-Identifier: GPL-2.0-only */
/* exit-bench-cpu's port rows: devices KVM emulates in the kernel (PIC, PIT) and in QEMU (PM timer, RTC, UART), and the checks on what each access did. */
#include "libc.h"
#include "exit-bench-cpu.h"
#include "report.h"
#include "x86/io.h"
#include "x86/pmtimer.h"
#include "x86/processor.h"
#include "x86/rtc.h"
#include "x86/serial.h"

#define PMTIMER_READS		1000
#define PORT_B			0x61
#define PORT_B_GATE2		BIT(0)
#define PORT_B_SPEAKER		BIT(1)
#define PORT_B_WRITABLE		0x0f	/* bits 7:4 are status, read-only */
#define CMOS_SCRATCH_REG	0x7e	/* CMOS RAM no firmware here uses */
#define CMOS_PATTERN		0x5a
#define PIC_SLAVE_IMR		0xa1
#define PIC_IRQ15_MASK		BIT(7)
#define UART_SCR		7
#define SCR_PATTERN		0x3c

/* --- PM timer ---------------------------------------------------------- */

BENCH_LOOP(loop_pmtimer, pmtimer_read())

static const char *prepare_pmtimer(void *ctx)
{
	return pmtimer_find();
}

/* Successive reads: never backwards (modulo the counter's width), and it moves. */
static void check_pmtimer(void *ctx, const struct bench_result *r)
{
	u32 mask = pmtimer_bits() == 32 ? ~0u : (1u << pmtimer_bits()) - 1;
	u32 prev = pmtimer_read(), back = 0;
	u64 advanced = 0;

	for (int i = 0; i < PMTIMER_READS; i++) {
		u32 now = pmtimer_read(), step = (now - prev) & mask;

		/* a step of more than half the range is the counter going back */
		if (step > mask / 2)
			back++;
		else
			advanced += step;
		prev = now;
	}
	report(back == want("pmtimer", 0) && advanced,
	       "%d successive reads never went backwards (%u did) and advanced %llu counts",
	       PMTIMER_READS, back, advanced);
}

/* --- port B: the PIT's channel 2 gate ---------------------------------- */

static u8 port_b;

BENCH_LOOP(loop_pio_pit, inb(PORT_B))

/* Gate on, speaker off: channel 2 may count, nothing sounds. */
static const char *prepare_pio_pit(void *ctx)
{
	port_b = inb(PORT_B);
	outb((port_b & PORT_B_WRITABLE & ~PORT_B_SPEAKER) | PORT_B_GATE2, PORT_B);
	return NULL;
}

static void check_pio_pit(void *ctx, const struct bench_result *r)
{
	u8 bits = inb(PORT_B) & (PORT_B_GATE2 | PORT_B_SPEAKER);

	report(bits == want("pio_pit", PORT_B_GATE2),
	       "port B's gate and speaker bits read as written (%#x, wrote %#x)", bits,
	       PORT_B_GATE2);
}

static void cleanup_pio_pit(void *ctx)
{
	outb(port_b & PORT_B_WRITABLE, PORT_B);
}

/* --- CMOS RAM ---------------------------------------------------------- */

static u8 cmos_saved;

BENCH_LOOP(loop_cmos, cmos_read(CMOS_SCRATCH_REG))

static const char *prepare_cmos(void *ctx)
{
	cmos_saved = cmos_read(CMOS_SCRATCH_REG);
	cmos_write(CMOS_SCRATCH_REG, CMOS_PATTERN);
	return NULL;
}

static void check_cmos(void *ctx, const struct bench_result *r)
{
	u8 now = cmos_read(CMOS_SCRATCH_REG);

	report(now == want("cmos", CMOS_PATTERN), "CMOS byte %#x still holds %#x (%#x)",
	       CMOS_SCRATCH_REG, CMOS_PATTERN, now);
}

static void cleanup_cmos(void *ctx)
{
	cmos_write(CMOS_SCRATCH_REG, cmos_saved);
}

/* --- port writes: in the kernel, in QEMU ------------------------------- */

static u8 slave_mask, scr_saved;

/*
 * The loop unmasks IRQ15 at the slave PIC, so its writes can be told from
 * the start-up mask: harmless, since the slave's cascade input on the
 * master is masked and the APIC takes nothing from the PIC (LINT0 masked).
 */
BENCH_LOOP(loop_pio_kernel_out, outb(slave_mask & ~PIC_IRQ15_MASK, PIC_SLAVE_IMR))
BENCH_LOOP(loop_pio_user_out, outb(SCR_PATTERN, COM1_BASE + UART_SCR))

static const char *prepare_pio_kernel_out(void *ctx)
{
	slave_mask = inb(PIC_SLAVE_IMR) | PIC_IRQ15_MASK;
	outb(slave_mask, PIC_SLAVE_IMR);
	return NULL;
}

static void check_pio_kernel_out(void *ctx, const struct bench_result *r)
{
	u8 now = inb(PIC_SLAVE_IMR);

	report(now == want("pio_kernel_out", slave_mask & ~PIC_IRQ15_MASK),
	       "the slave PIC's mask reads what the loop wrote (%#x, wrote %#x)", now,
	       slave_mask & ~PIC_IRQ15_MASK);
}

static void cleanup_pio_kernel_out(void *ctx)
{
	outb(slave_mask, PIC_SLAVE_IMR);
}

static const char *prepare_pio_user_out(void *ctx)
{
	scr_saved = inb(COM1_BASE + UART_SCR);
	outb(~SCR_PATTERN, COM1_BASE + UART_SCR);
	return NULL;
}

static void check_pio_user_out(void *ctx, const struct bench_result *r)
{
	u8 now = inb(COM1_BASE + UART_SCR);

	report(now == want("pio_user_out", SCR_PATTERN),
	       "COM1's scratch register holds what the loop wrote (%#x, wrote %#x)", now,
	       SCR_PATTERN);
}

static void cleanup_pio_user_out(void *ctx)
{
	outb(scr_saved, COM1_BASE + UART_SCR);
}

const struct bench pio_rows[] = {
	{ .name = "pmtimer", .what = "inl ACPI PM timer, QEMU user space", LOOP(loop_pmtimer),
	  .iters = 4096, .prepare = prepare_pmtimer, .check = check_pmtimer },
	{ .name = "pio_pit", .what = "inb port B (0x61), in-kernel PIT", LOOP(loop_pio_pit),
	  .iters = 4096, .prepare = prepare_pio_pit, .check = check_pio_pit,
	  .cleanup = cleanup_pio_pit },
	{ .name = "cmos", .what = "outb CMOS index + inb data (0x70/0x71), QEMU user space",
	  LOOP(loop_cmos), .iters = 2048, .prepare = prepare_cmos, .check = check_cmos,
	  .cleanup = cleanup_cmos },
	{ .name = "pio_kernel_out", .what = "outb slave PIC mask (0xa1), in-kernel irqchip",
	  LOOP(loop_pio_kernel_out), .iters = 4096, .prepare = prepare_pio_kernel_out,
	  .check = check_pio_kernel_out, .cleanup = cleanup_pio_kernel_out },
	{ .name = "pio_user_out", .what = "outb COM1 scratch (0x3ff), QEMU user space",
	  LOOP(loop_pio_user_out), .iters = 4096, .prepare = prepare_pio_user_out,
	  .check = check_pio_user_out, .cleanup = cleanup_pio_user_out },
};
const size_t pio_rows_n = ARRAY_SIZE(pio_rows);
