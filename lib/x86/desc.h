/* SPDX-License-Identifier: GPL-2.0-only */
/* Exceptions and interrupts: the saved register frame, handler installation and faulting-instruction helpers. */
#ifndef VMTICK_X86_DESC_H
#define VMTICK_X86_DESC_H

#include "libc.h"
#include "x86/layout.h"

/* The frame the common entry stub builds; the order matches lib/x86/isr_*.S. */
#ifdef __x86_64__
struct ex_regs {
	u64 rax, rbx, rcx, rdx, rsi, rdi, rbp;
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;
};
#define EX_IP(r) ((r)->rip)
#define EX_BP(r) ((r)->rbp)
#define ASM_PTR ".quad"
#else
struct ex_regs {
	u32 eax, ebx, ecx, edx, esi, edi, ebp;
	u32 vector, error_code;
	u32 eip, cs, eflags;
};
#define EX_IP(r) ((r)->eip)
#define EX_BP(r) ((r)->ebp)
#define ASM_PTR ".long"
#endif

typedef void (*exception_handler_t)(struct ex_regs *regs);

/* Install a handler for vector on every CPU (the IDT is shared); returns the old one. */
exception_handler_t handle_exception(unsigned vector, exception_handler_t fn);

/*
 * Faulting instructions on purpose: an instruction wrapped in ASM_TRY()
 * that raises an exception resumes right after itself, and the vector is
 * left for exception_vector() (EXC_NONE when nothing was raised).
 */
#define EXC_NONE (-1)
#define ASM_TRY(insn)                                                    \
	"1: " insn "\n"                                                   \
	"2:\n"                                                            \
	".pushsection .ex_table, \"a\"\n"                                 \
	ASM_PTR " 1b, 2b\n"                                               \
	".popsection\n"

void exception_clear(void);
int exception_vector(void);
u32 exception_error_code(void);

/* rdmsr/wrmsr that return the vector they raised (EXC_NONE if none). */
int rdmsr_safe(u32 msr, u64 *val);
int wrmsr_safe(u32 msr, u64 val);

/* Print the frame, CR2 and a backtrace from it. */
void dump_ex_regs(struct ex_regs *regs);
void backtrace_from(uintptr_t bp, uintptr_t ip);

void setup_idt(void);
void load_idt(void);

#endif
