/* SPDX-License-Identifier: GPL-2.0-only */
/* Lines of console input, polled one character at a time. */
#include "console_input.h"
#include "arch.h"

bool console_line_take(struct console_line *l)
{
	int c = arch_console_getc();

	if (c < 0 || c == '\r')
		return false;
	if (!l->len)
		l->first_at = arch_counter();
	if (c == '\n') {
		l->buf[min(l->len, l->size - 1)] = '\0';
		l->len = 0;
		return true;
	}
	if (l->len < l->size - 1)
		l->buf[l->len] = (char)c;
	l->len++;
	return false;
}
