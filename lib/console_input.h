/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lines of console input, polled one character at a time: the runner's
 * answers to the guest (the lifecycle's events, the host's evidence). The
 * tree's one reader of them.
 */
#ifndef VMTICK_CONSOLE_INPUT_H
#define VMTICK_CONSOLE_INPUT_H

#include "libc.h"

struct console_line {
	char *buf;
	size_t size;  /* buf's size: a longer line keeps its first size - 1 characters */
	size_t len;   /* characters of the line taken so far */
	u64 first_at; /* arch_counter() as the line's first character came in */
};

/*
 * Take one character of input if one is waiting (never blocks): true once
 * a whole line is in buf, without its newline, NUL-terminated; the next
 * call starts another line. Carriage returns are dropped.
 */
bool console_line_take(struct console_line *l);

#endif
