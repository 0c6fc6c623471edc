/* SPDX-License-Identifier: GPL-2.0-only */
/* The freestanding C library every vmtick kernel links against: types, strings, printf, strto*. */
#ifndef VMTICK_LIBC_H
#define VMTICK_LIBC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

typedef uintptr_t ulong_ptr;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define __unused __attribute__((unused))
#define __noreturn __attribute__((noreturn))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __aligned(n) __attribute__((aligned(n)))
#define barrier() asm volatile("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

/* string.h */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
char *strcat(char *dst, const char *src);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *hay, const char *needle);

/* ctype.h */
int isdigit(int c);
int isxdigit(int c);
int isalpha(int c);
int isalnum(int c);
int isspace(int c);
int isupper(int c);
int islower(int c);
int isprint(int c);
int toupper(int c);
int tolower(int c);

/*
 * stdlib.h. The strto* functions follow C99 (base 0 and 2..36, leading
 * space and sign, endptr, saturation at the limits, ERANGE in errno; a bad
 * base sets EINVAL). errno is one global shared by all CPUs: read it right
 * after the call, on one CPU at a time.
 */
#define ERANGE 34
#define EINVAL 22
extern int errno;
long strtol(const char *s, char **endp, int base);
unsigned long strtoul(const char *s, char **endp, int base);
long long strtoll(const char *s, char **endp, int base);
unsigned long long strtoull(const char *s, char **endp, int base);
long atol(const char *s);
int atoi(const char *s);

/* stdio.h: output goes to the console through arch_console_write(); puts() adds a newline */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int sprintf(char *buf, const char *fmt, ...) __printf(2, 3);
int vprintf(const char *fmt, va_list ap);
int printf(const char *fmt, ...) __printf(1, 2);
int puts(const char *s);
int putchar(int c);

/* exit and abort: exit(code) reaches the runner as QEMU status (code << 1) | 1 */
void exit(int code) __noreturn;
void abort(void) __noreturn;
void __assert_fail(const char *expr, const char *file, int line, const char *func) __noreturn;
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
#define static_assert _Static_assert

#endif
