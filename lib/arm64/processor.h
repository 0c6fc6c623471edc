/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception frames, handler registration, guarded calls and register dumps for arm64 kernels. */
#ifndef VMTICK_ARM64_PROCESSOR_H
#define VMTICK_ARM64_PROCESSOR_H

/* struct pt_regs layout, for vectors.S. */
#define PT_REGS_X30		(30 * 8)
#define PT_REGS_SP		(31 * 8)
#define PT_REGS_PC		(32 * 8)
#define PT_REGS_PSTATE		(33 * 8)
#define PT_REGS_SIZE		(34 * 8)

/* Vector table slots, in VBAR order: 4 sources x (sync, irq, fiq, serror). */
#define VEC_CUR_SP0_SYNC	0
#define VEC_CUR_SPX_SYNC	4
#define VEC_CUR_SPX_IRQ		5
#define VEC_CUR_SPX_FIQ		6
#define VEC_CUR_SPX_SERROR	7
#define VEC_LOWER64_SYNC	8
#define VEC_LOWER32_SYNC	12
#define VEC_COUNT		16

#ifndef __ASSEMBLY__
#include "libc.h"

struct pt_regs {
	u64 regs[31];	/* x0..x30 */
	u64 sp;		/* at the time of the exception */
	u64 pc;		/* ELR: where eret resumes; a handler may move it */
	u64 pstate;	/* SPSR */
};
_Static_assert(sizeof(struct pt_regs) == PT_REGS_SIZE, "vectors.S frame layout");
_Static_assert(PT_REGS_SIZE % 16 == 0, "SP stays 16-byte aligned");

/*
 * A synchronous exception taken from the kernel itself (current EL, SPx),
 * by exception class (ESR_EC_*, sysreg.h). Handlers are shared by all CPUs;
 * one that returns resumes at regs->pc (set it past the faulting instruction
 * with regs->pc += 4). Returns the handler it replaced; NULL uninstalls.
 */
typedef void (*exception_fn)(struct pt_regs *regs, u64 esr);
exception_fn install_exception_handler(unsigned ec, exception_fn fn);

/* What a guarded call saw: whether it faulted, and the fault's ESR and FAR. */
struct fault_record {
	bool faulted;
	u64 esr, far;
};

/*
 * Call fn(arg) with synchronous exceptions of class ec caught on this CPU:
 * each is recorded in *rec (unless rec is NULL) and resumes after the
 * faulting instruction. For a call that runs one instruction that may
 * fault: an HVC with nothing behind it, a read of a register that may not
 * exist. Other CPUs may guard calls of their own at the same time; a guard
 * takes precedence over an installed handler. Returns true if fn faulted.
 */
bool catch_fault(unsigned ec, void (*fn)(void *arg), void *arg, struct fault_record *rec);
/* A 32-bit MMIO read that may take a data abort: false (*val unset) if it did. */
bool try_readl(uintptr_t addr, u32 *val);

/* Called by vectors.S for every exception. */
void do_exception(struct pt_regs *regs, unsigned vector);

/* Print the frame, ESR/FAR and a backtrace, then exit as a failure. */
void unexpected_exception(struct pt_regs *regs, unsigned vector, u64 esr) __noreturn;
const char *esr_class_name(unsigned ec);

static inline unsigned esr_class(u64 esr)
{
	return (esr >> 26) & 0x3f;
}

#endif /* !__ASSEMBLY__ */
#endif
