/* SPDX-License-Identifier: GPL-2.0-only */
/* The legacy I/O ports vmtick talks to for console and exit. */
#ifndef VMTICK_X86_SERIAL_H
#define VMTICK_X86_SERIAL_H

#define COM1_BASE		0x3f8
#define COM2_BASE		0x2f8
/* QEMU's isa-debug-exit as the runner places it (iobase=0xf4). */
#define ISA_DEBUG_EXIT_PORT	0xf4

void serial_init(void);

#endif
