/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What host tests call in lib/: the vt_ names host-tests/host_rename.h gives the
 * libc functions, and lib/argv.h's functions, declared with system types and
 * lib/types.h's (typedefs alone) so a test can include glibc's headers too. Every lib object is also built with
 * this header forced in after host_rename.h, so the compiler checks these
 * declarations against lib/'s own headers.
 */
#ifndef VMTICK_HOST_SHIM_H
#define VMTICK_HOST_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/types.h"

void *vt_memcpy(void *dst, const void *src, size_t n);
void *vt_memmove(void *dst, const void *src, size_t n);
void *vt_memset(void *s, int c, size_t n);
int vt_memcmp(const void *a, const void *b, size_t n);
void *vt_memchr(const void *s, int c, size_t n);
size_t vt_strlen(const char *s);
size_t vt_strnlen(const char *s, size_t max);
int vt_strcmp(const char *a, const char *b);
int vt_strncmp(const char *a, const char *b, size_t n);
char *vt_strcpy(char *dst, const char *src);
char *vt_strncpy(char *dst, const char *src, size_t n);
char *vt_strcat(char *dst, const char *src);
char *vt_strchr(const char *s, int c);
char *vt_strrchr(const char *s, int c);
char *vt_strstr(const char *hay, const char *needle);

int vt_isdigit(int c);
int vt_isxdigit(int c);
int vt_isalpha(int c);
int vt_isalnum(int c);
int vt_isspace(int c);
int vt_isupper(int c);
int vt_islower(int c);
int vt_isprint(int c);
int vt_toupper(int c);
int vt_tolower(int c);

extern int vt_errno;
long vt_strtol(const char *s, char **endp, int base);
unsigned long vt_strtoul(const char *s, char **endp, int base);
long long vt_strtoll(const char *s, char **endp, int base);
unsigned long long vt_strtoull(const char *s, char **endp, int base);
long vt_atol(const char *s);
int vt_atoi(const char *s);

int vt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int vt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vt_sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

u64 vt_udivdi3(u64 n, u64 d);
u64 vt_umoddi3(u64 n, u64 d);
u64 vt_udivmoddi4(u64 n, u64 d, u64 *rem);
s64 vt_divdi3(s64 n, s64 d);
s64 vt_moddi3(s64 n, s64 d);
s64 vt_divmoddi4(s64 n, s64 d, s64 *rem);

/* lib/argv.h: its table parser (struct arg) is declared there; host tests include it. */
int setup_args(const char *progname, const char *cmdline, char **argv, int max);
int parse_u64(const char *text, u64 *out);
int parse_seconds_ns(const char *text, u64 *ns_out, bool *has_fraction);
const char *arg_value(const char *arg, const char *key);
bool arg_in_list(const char *word, const char *list);
int arg_names_bits(const char *list, const char *const *names, size_t n, unsigned *bits);

#endif
