/* SPDX-License-Identifier: GPL-2.0-only */
/* A bump allocator: enough for per-CPU stacks and test buffers, which live until exit. */
#include "alloc.h"
#include "arch.h"
#include "spinlock.h"

static struct spinlock heap_lock;
static uintptr_t heap_next, heap_end;

void *memalign(size_t align, size_t size)
{
	uintptr_t p;

	assert(align && !(align & (align - 1)));
	spin_lock(&heap_lock);
	if (!heap_end)
		arch_heap_range(&heap_next, &heap_end);
	p = ALIGN_UP(heap_next, (uintptr_t)align);
	if (p < heap_next || size > heap_end - p) {
		spin_unlock(&heap_lock);
		printf("FAIL: out of memory allocating %zu bytes\n", size);
		abort();
	}
	heap_next = p + size;
	spin_unlock(&heap_lock);
	memset((void *)p, 0, size);
	return (void *)p;
}

void *malloc(size_t size)
{
	return memalign(16, size);
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		printf("FAIL: calloc(%zu, %zu) overflows\n", n, size);
		abort();
	}
	return memalign(16, n * size);
}

void free(void *p)
{
}
