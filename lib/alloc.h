/* SPDX-License-Identifier: GPL-2.0-only */
/* A small bump allocator over the heap the platform reports; memory is never given back. */
#ifndef VMTICK_ALLOC_H
#define VMTICK_ALLOC_H

#include "libc.h"

/* Zeroed memory aligned to align (a power of two); aborts when the heap is exhausted. */
void *memalign(size_t align, size_t size);
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
/* Does nothing: the heap only grows. */
void free(void *p);

#endif
