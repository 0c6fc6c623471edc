/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Forced in front of every lib/ source built for the host (-include): gives
 * the freestanding libc's functions vt_ names so they can live beside glibc's.
 */
#ifndef VMTICK_HOST_RENAME_H
#define VMTICK_HOST_RENAME_H

/* Built for host unit tests: lib/div64.c compiles on x86_64 too. */
#define VMTICK_HOST_TEST 1

/* lib/string.c */
#define memcpy vt_memcpy
#define memmove vt_memmove
#define memset vt_memset
#define memcmp vt_memcmp
#define memchr vt_memchr
#define strlen vt_strlen
#define strnlen vt_strnlen
#define strcmp vt_strcmp
#define strncmp vt_strncmp
#define strcpy vt_strcpy
#define strncpy vt_strncpy
#define strcat vt_strcat
#define strchr vt_strchr
#define strrchr vt_strrchr
#define strstr vt_strstr
#define isdigit vt_isdigit
#define isxdigit vt_isxdigit
#define isalpha vt_isalpha
#define isalnum vt_isalnum
#define isspace vt_isspace
#define isupper vt_isupper
#define islower vt_islower
#define isprint vt_isprint
#define toupper vt_toupper
#define tolower vt_tolower

/* lib/strto.c */
#define errno vt_errno
#define strtol vt_strtol
#define strtoul vt_strtoul
#define strtoll vt_strtoll
#define strtoull vt_strtoull
#define atol vt_atol
#define atoi vt_atoi

/* lib/printf.c (printf, puts and putchar stay glibc's) */
#define vsnprintf vt_vsnprintf
#define snprintf vt_snprintf
#define sprintf vt_sprintf

/* lib/div64.c */
#define __udivdi3 vt_udivdi3
#define __umoddi3 vt_umoddi3
#define __udivmoddi4 vt_udivmoddi4
#define __divdi3 vt_divdi3
#define __moddi3 vt_moddi3
#define __divmoddi4 vt_divmoddi4

#endif
