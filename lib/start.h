/* SPDX-License-Identifier: GPL-2.0-only */
/* What arch start-up code calls once the boot CPU is set up. */
#ifndef VMTICK_START_H
#define VMTICK_START_H

/*
 * progname: the kernel's name without directory or ".flat"; cmdline: the
 * --append string (may be empty). Runs main(argc, argv) and exits with it.
 */
void start_main(const char *progname, const char *cmdline) __attribute__((noreturn));

#endif
