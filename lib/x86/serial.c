/* SPDX-License-Identifier: GPL-2.0-only */
/* COM1 console (polled 16550) and the ways out of the guest: testdev on COM2, isa-debug-exit, ACPI, halt. */
#include "arch.h"
#include "x86/acpi.h"
#include "x86/io.h"
#include "x86/processor.h"
#include "x86/serial.h"
#include "wait.h"

#define UART_THR	0	/* transmit holding register */
#define UART_RBR	0	/* receive buffer register */
#define UART_IER	1
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define UART_DLL	0	/* with LCR.DLAB */
#define UART_DLM	1
#define UART_LCR_8N1	0x03
#define UART_LCR_DLAB	0x80
#define UART_LSR_DR	0x01	/* data ready */
#define UART_LSR_THRE	0x20
#define UART_MCR_DTR_RTS 0x03
#define UART_DIVISOR_115200 1

void serial_init(void)
{
	outb(0, COM1_BASE + UART_IER);
	outb(UART_LCR_DLAB, COM1_BASE + UART_LCR);
	outb(UART_DIVISOR_115200, COM1_BASE + UART_DLL);
	outb(0, COM1_BASE + UART_DLM);
	outb(UART_LCR_8N1, COM1_BASE + UART_LCR);
	outb(0, COM1_BASE + UART_FCR);
	outb(UART_MCR_DTR_RTS, COM1_BASE + UART_MCR);
}

/*
 * How long a character waits for an empty transmitter before it is
 * written anyway, in TSC cycles (the console works before the TSC's rate
 * is known): 0.25 to 1 s at 1 to 4 GHz, as a host console that backs up
 * may hold QEMU's transmitter full. A missing UART reads as 0xff (THRE
 * set), so it never waits.
 */
#define SERIAL_TX_WAIT_CYCLES (1000ull * 1000 * 1000)

static bool thr_empty(void *base)
{
	return inb(*(const u16 *)base + UART_LSR) & UART_LSR_THRE;
}

static void serial_putc(u16 base, char c)
{
	wait_cond_ticks(thr_empty, &base, SERIAL_TX_WAIT_CYCLES);
	outb((u8)c, base + UART_THR);
}

void arch_console_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n')
			serial_putc(COM1_BASE, '\r');
		serial_putc(COM1_BASE, buf[i]);
	}
}

int arch_console_getc(void)
{
	if (!(inb(COM1_BASE + UART_LSR) & UART_LSR_DR))
		return -1;
	return inb(COM1_BASE + UART_RBR);
}

void arch_exit(int code)
{
	static int exiting;
	char msg[16];
	int n = snprintf(msg, sizeof(msg), "%dq", code);

	/* a fault on the way out (or a second CPU exiting) goes straight to the halt */
	if (__atomic_exchange_n(&exiting, 1, __ATOMIC_SEQ_CST))
		goto halt;

	/* QEMU's testdev chardev on COM2 exits with (code << 1) | 1 on "<code>q". */
	for (int i = 0; i < n; i++)
		outb((u8)msg[i], COM2_BASE + UART_THR);
	/* isa-debug-exit exits with the same status. */
	outl((u32)code, ISA_DEBUG_EXIT_PORT);
	acpi_poweroff();
halt:
	for (;;)
		asm volatile("cli; hlt");
}
