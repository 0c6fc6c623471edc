/* SPDX-License-Identifier: GPL-2.0-only */
/* The fixed-width integer types, in a header of their own so that lib/fdt.h can use them beside libfdt's. */
#ifndef VMTICK_TYPES_H
#define VMTICK_TYPES_H

/*
 * One C type per width on every arch, as Linux's int-ll64 headers have it:
 * a u64 is unsigned long long on x86_64, i386 and aarch64 alike (where
 * uint64_t is unsigned long on the 64-bit ones), so a u64 prints with %llu
 * and an s64 with %lld everywhere, without a cast.
 */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef signed short s16;
typedef signed int s32;
typedef signed long long s64;

#endif
