// SPDX-License-Identifier: GPL-2.0-only
/* The memory, string and ASCII character-class functions of the freestanding libc. */
#include "libc.h"

/*
 * Word-at-a-time access for aligned buffers. may_alias because the same
 * bytes are also reached as char elsewhere; the pointers are only used
 * when aligned, so -mstrict-align targets are fine too.
 */
typedef unsigned long __attribute__((may_alias)) word_t;
#define WORD_SIZE sizeof(word_t)
#define WORD_MASK (WORD_SIZE - 1)
#define BYTE_MASK 0xffUL
/* 0x0101...01: multiplying a byte by it repeats the byte in every lane. */
#define BYTE_REPEAT (~0UL / BYTE_MASK)

static bool both_aligned(const void *a, const void *b)
{
	return (((uintptr_t)a | (uintptr_t)b) & WORD_MASK) == 0;
}

/* Copies upwards: also right for overlapping buffers when the destination is below the source. */
static void copy_forwards(unsigned char *d, const unsigned char *s, size_t n)
{
	if (both_aligned(d, s)) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(word_t *)d = *(const word_t *)s;
			d += WORD_SIZE;
			s += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = *s++;
}

/* Copies downwards: right for overlapping buffers when the destination is above the source. */
static void copy_backwards(unsigned char *d, const unsigned char *s, size_t n)
{
	d += n;
	s += n;
	if (both_aligned(d, s)) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			d -= WORD_SIZE;
			s -= WORD_SIZE;
			*(word_t *)d = *(const word_t *)s;
		}
	}
	while (n--)
		*--d = *--s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	copy_forwards(dst, src, n);
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	/* Only a destination that starts inside the source needs the backward copy. */
	if (d > s && d - s < n)
		copy_backwards(dst, src, n);
	else
		copy_forwards(dst, src, n);
	return dst;
}

void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;
	unsigned char byte = (unsigned char)c;

	while (n && ((uintptr_t)p & WORD_MASK)) {
		*p++ = byte;
		n--;
	}
	for (; n >= WORD_SIZE; n -= WORD_SIZE) {
		*(word_t *)p = byte * BYTE_REPEAT;
		p += WORD_SIZE;
	}
	while (n--)
		*p++ = byte;
	return s;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++) {
		if (*p == (unsigned char)c)
			return (void *)p;
	}
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y || !*x)
			return *x - *y;
	}
	return 0;
}

char *strcpy(char *dst, const char *src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

/* As C says: copies at most n bytes and pads with NULs, leaving dst unterminated if src is longer. */
char *strncpy(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	memcpy(dst, src, len);
	memset(dst + len, 0, n - len);
	return dst;
}

char *strcat(char *dst, const char *src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strstr(const char *hay, const char *needle)
{
	size_t len = strlen(needle);

	for (; *hay; hay++) {
		if (!strncmp(hay, needle, len))
			return (char *)hay;
	}
	return len ? NULL : (char *)hay;
}

/* ctype: the "C" locale, ASCII only; anything outside 0..127 (EOF too) is in no class. */

int isdigit(int c)
{
	return c >= '0' && c <= '9';
}

int isxdigit(int c)
{
	return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

int islower(int c)
{
	return c >= 'a' && c <= 'z';
}

int isalpha(int c)
{
	return isupper(c) || islower(c);
}

int isalnum(int c)
{
	return isalpha(c) || isdigit(c);
}

/* Space, \t, \n, \v, \f and \r. */
int isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Printable: space up to '~'. */
int isprint(int c)
{
	return c >= ' ' && c <= '~';
}

int toupper(int c)
{
	return islower(c) ? c - 'a' + 'A' : c;
}

int tolower(int c)
{
	return isupper(c) ? c - 'A' + 'a' : c;
}
