/* SPDX-License-Identifier: GPL-2.0-only */
/* printf and friends on the console: each call formats into a buffer, then writes it under one lock. */
#include "libc.h"
#include "arch.h"
#include "spinlock.h"

#define CONSOLE_LINE_MAX 1024

static struct spinlock console_lock;

static void console_write_locked(const char *buf, size_t len)
{
	spin_lock(&console_lock);
	arch_console_write(buf, len);
	spin_unlock(&console_lock);
}

int vprintf(const char *fmt, va_list ap)
{
	char buf[CONSOLE_LINE_MAX];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < 0 ? 0 : min((size_t)n, sizeof(buf) - 1);

	console_write_locked(buf, len);
	if ((size_t)n >= sizeof(buf))
		console_write_locked("[...]\n", 6);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int puts(const char *s)
{
	return printf("%s\n", s);
}

int putchar(int c)
{
	char ch = (char)c;

	console_write_locked(&ch, 1);
	return (unsigned char)c;
}

void exit(int code)
{
	arch_exit(code);
}

void abort(void)
{
	printf("FAIL: abort() called\n");
	arch_dump_stack();
	arch_exit(1);
}

void __assert_fail(const char *expr, const char *file, int line, const char *func)
{
	printf("FAIL: assertion '%s' failed at %s:%d in %s()\n", expr, file, line, func);
	arch_dump_stack();
	arch_exit(1);
}
