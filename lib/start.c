/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch-neutral half of start-up: the command line becomes argv, main runs, its result exits. */
#include "libc.h"
#include "argv.h"
#include "start.h"

int main(int argc, char **argv);

void start_main(const char *progname, const char *cmdline)
{
	static char *argv[MAX_ARGS];
	int argc = setup_args(progname, cmdline, argv, MAX_ARGS);

	exit(main(argc, argv));
}
