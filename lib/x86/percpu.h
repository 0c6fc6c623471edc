/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-CPU data: one struct at the bottom of each CPU's STACK_SIZE-aligned stack. */
#ifndef VMTICK_X86_PERCPU_H
#define VMTICK_X86_PERCPU_H

#include "libc.h"
#include "x86/layout.h"

struct percpu {
	u32 id;			/* dense CPU number, 0 = boot CPU */
	u32 apic_id;
	/* on_cpu mailbox: fn is set last by the sender, cleared by the target when done */
	void (*volatile call_fn)(void *);
	void *volatile call_arg;
	volatile u32 call_done;
	/* the last exception an ASM_TRY instruction raised on this CPU */
	int exc_vector;
	u32 exc_error_code;
	/* free for drivers (e.g. this CPU's pvclock area) */
	void *kvmclock;
};

#ifdef __x86_64__
#define SP_REG "rsp"
#else
#define SP_REG "esp"
#endif

static inline struct percpu *this_cpu(void)
{
	uintptr_t sp;

	asm volatile("mov %%" SP_REG ", %0" : "=r"(sp));
	return (struct percpu *)(sp & ~((uintptr_t)STACK_SIZE - 1));
}

/* The percpu struct of CPU id (valid once SMP bring-up is done). */
struct percpu *cpu_data(int id);

#endif
