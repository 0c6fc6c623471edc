/* SPDX-License-Identifier: GPL-2.0-only */
/* What arch start-up code calls once the boot CPU is set up. */
#ifndef VMTICK_START_H
#define VMTICK_START_H

/*
 * progname: the kernel's name without directory or ".flat"; cmdline: the
 * --append string (may be empty). Runs main(argc, argv) and exits with it.
 */
void start_main(const char *progname, const char *cmdline) __attribute__((noreturn));

/*
 * Every kernel's name, given by the build (lib/test_name.c): arm64 passes
 * it as progname, its boot protocol carrying no file name; x86 takes the
 * same name from the multiboot command line (the kernel's path).
 */
extern const char test_name[];

#endif
