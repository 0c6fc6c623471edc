/* SPDX-License-Identifier: GPL-2.0-only */
/* Atomics and barriers on top of the compiler's __atomic builtins, the same on every arch. */
#ifndef VMTICK_ATOMIC_H
#define VMTICK_ATOMIC_H

#include "libc.h"

#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

#define atomic_load(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define atomic_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define atomic_inc(p) __atomic_add_fetch((p), 1, __ATOMIC_SEQ_CST)
#define atomic_dec(p) __atomic_sub_fetch((p), 1, __ATOMIC_SEQ_CST)
#define atomic_add(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
/* Returns true and stores new when *p == *expected; else loads *p into *expected. */
#define atomic_cmpxchg(p, expected, new)                                   \
	__atomic_compare_exchange_n((p), (expected), (new), false,          \
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#endif
