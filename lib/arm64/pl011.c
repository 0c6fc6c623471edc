/* SPDX-License-Identifier: GPL-2.0-only */
/* The console: a PL011 UART found through /chosen/stdout-path or its compatible string. */
#include "libc.h"
#include "arch.h"
#include "wait.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"

#define UARTDR			0x000
#define UARTFR			0x018
#define UARTCR			0x030
#define UARTFR_BUSY		(1 << 3)
#define UARTDR_DATA		0xff	/* the received character; error flags above it */
#define UARTFR_RXFE		(1 << 4)
#define UARTFR_TXFF		(1 << 5)
#define UARTCR_UARTEN		(1 << 0)
#define UARTCR_TXE		(1 << 8)
#define UARTCR_RXE		(1 << 9)

static uintptr_t uart_base;

int pl011_init(void)
{
	int node = dt_stdout_node(&boot_dt);
	u64 base;

	if (node < 0 || !dt_is_compatible(&boot_dt, node, "arm,pl011"))
		node = dt_find_compatible(&boot_dt, -1, "arm,pl011");
	if (node < 0 || dt_reg(&boot_dt, node, 0, &base, NULL))
		return -1;
	/* Leave the baud rate as firmware set it; just make sure it transmits. */
	writel(readl(base + UARTCR) | UARTCR_UARTEN | UARTCR_TXE | UARTCR_RXE, base + UARTCR);
	uart_base = base;
	return 0;
}

/*
 * The console's waits have no deadline and say nothing when it never
 * comes: the console they wait on is where a message would go.
 */
static bool tx_room(void *unused)
{
	return !(readl(uart_base + UARTFR) & UARTFR_TXFF);
}

static bool tx_idle(void *unused)
{
	return !(readl(uart_base + UARTFR) & UARTFR_BUSY);
}

void arch_console_write(const char *buf, size_t len)
{
	size_t i;

	if (!uart_base)
		return;
	for (i = 0; i < len; i++) {
		wait_cond(tx_room, NULL);
		writel((u8)buf[i], uart_base + UARTDR);
	}
}

int arch_console_getc(void)
{
	if (!uart_base || (readl(uart_base + UARTFR) & UARTFR_RXFE))
		return -1;
	return (int)(readl(uart_base + UARTDR) & UARTDR_DATA);
}

/* Wait until the last character has left, before the machine is switched off. */
void pl011_flush(void)
{
	if (uart_base)
		wait_cond(tx_idle, NULL);
}
