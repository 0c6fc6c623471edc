/* SPDX-License-Identifier: GPL-2.0-only */
/* The IDT, the C side of exception entry, expected-fault fix-ups and the crash dump with backtrace. */
#include "x86/desc.h"
#include "arch.h"
#include "x86/percpu.h"
#include "x86/processor.h"

#define IDT_ENTRIES 256
#define FIRST_INTERRUPT_VECTOR 32
/* Gate type: present, DPL 0, 32/64-bit interrupt gate (interrupts off on entry). */
#define IDT_GATE_INTERRUPT 0x8e

struct idt_entry {
	u16 offset0;
	u16 selector;
	u8 ist;
	u8 type;
	u16 offset1;
#ifdef __x86_64__
	u32 offset2;
	u32 reserved;
#endif
} __attribute__((packed));

struct __attribute__((packed)) desc_ptr {
	u16 limit;
	uintptr_t base;
};

struct ex_table_entry {
	uintptr_t insn, fixup;
};

extern char isr_stubs[];
extern const u32 isr_stub_size;
extern struct ex_table_entry __ex_table_start[], __ex_table_end[];

static struct idt_entry idt[IDT_ENTRIES] __aligned(16);
static exception_handler_t handlers[IDT_ENTRIES];

static const char *const exception_names[] = {
	[DE_VECTOR] = "#DE divide error",
	[DB_VECTOR] = "#DB debug",
	[NMI_VECTOR] = "NMI",
	[BP_VECTOR] = "#BP breakpoint",
	[OF_VECTOR] = "#OF overflow",
	[BR_VECTOR] = "#BR bound range",
	[UD_VECTOR] = "#UD invalid opcode",
	[NM_VECTOR] = "#NM device not available",
	[DF_VECTOR] = "#DF double fault",
	[TS_VECTOR] = "#TS invalid TSS",
	[NP_VECTOR] = "#NP segment not present",
	[SS_VECTOR] = "#SS stack fault",
	[GP_VECTOR] = "#GP general protection",
	[PF_VECTOR] = "#PF page fault",
	[MF_VECTOR] = "#MF x87 error",
	[AC_VECTOR] = "#AC alignment check",
	[MC_VECTOR] = "#MC machine check",
	[XM_VECTOR] = "#XM SIMD error",
	[VE_VECTOR] = "#VE virtualization",
	[CP_VECTOR] = "#CP control protection",
};

static void set_gate(unsigned vec, uintptr_t addr)
{
	struct idt_entry *e = &idt[vec];

	e->offset0 = (u16)addr;
	e->selector = sizeof(uintptr_t) == 8 ? KERNEL_CS64 : KERNEL_CS32;
	e->ist = 0;
	e->type = IDT_GATE_INTERRUPT;
	e->offset1 = (u16)(addr >> 16);
#ifdef __x86_64__
	e->offset2 = (u32)(addr >> 32);
#endif
}

void setup_idt(void)
{
	for (unsigned v = 0; v < IDT_ENTRIES; v++)
		set_gate(v, (uintptr_t)isr_stubs + v * isr_stub_size);
	load_idt();
}

void load_idt(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uintptr_t)idt };

	asm volatile("lidt %0" : : "m"(p));
}

exception_handler_t handle_exception(unsigned vector, exception_handler_t fn)
{
	exception_handler_t old;

	assert(vector < IDT_ENTRIES);
	old = handlers[vector];
	handlers[vector] = fn;
	return old;
}

void exception_clear(void)
{
	this_cpu()->exc_vector = EXC_NONE;
	this_cpu()->exc_error_code = 0;
}

int exception_vector(void)
{
	return this_cpu()->exc_vector;
}

u32 exception_error_code(void)
{
	return this_cpu()->exc_error_code;
}

int rdmsr_safe(u32 msr, u64 *val)
{
	u32 lo = 0, hi = 0;

	exception_clear();
	asm volatile(ASM_TRY("rdmsr") : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
	*val = lo | ((u64)hi << 32);
	return exception_vector();
}

int wrmsr_safe(u32 msr, u64 val)
{
	exception_clear();
	asm volatile(ASM_TRY("wrmsr")
		     : : "a"((u32)val), "d"((u32)(val >> 32)), "c"(msr) : "memory");
	return exception_vector();
}

static bool fixup_exception(struct ex_regs *regs)
{
	for (struct ex_table_entry *e = __ex_table_start; e < __ex_table_end; e++) {
		if (e->insn == EX_IP(regs)) {
			this_cpu()->exc_vector = (int)regs->vector;
			this_cpu()->exc_error_code = (u32)regs->error_code;
			EX_IP(regs) = e->fixup;
			return true;
		}
	}
	return false;
}

/*
 * Walk saved frame pointers; stop at a frame outside this CPU's stack, so
 * a corrupt chain ends the walk instead of faulting.
 */
void backtrace_from(uintptr_t bp, uintptr_t ip)
{
	uintptr_t lo = (uintptr_t)this_cpu(), hi = lo + STACK_SIZE;

	printf("backtrace (addr2line -e <test>.elf):\n  %#lx\n", (unsigned long)ip);
	for (int depth = 0; depth < 32; depth++) {
		uintptr_t *frame = (uintptr_t *)bp;

		if (bp < lo || bp + 2 * sizeof(uintptr_t) > hi || (bp & (sizeof(uintptr_t) - 1)))
			break;
		if (!frame[1])
			break;
		printf("  %#lx\n", (unsigned long)(frame[1] - 1));
		bp = frame[0];
	}
}

void arch_dump_stack(void)
{
	backtrace_from((uintptr_t)__builtin_frame_address(0), (uintptr_t)&arch_dump_stack);
}

void dump_ex_regs(struct ex_regs *r)
{
	unsigned v = (unsigned)r->vector;
	const char *name = v < ARRAY_SIZE(exception_names) && exception_names[v] ?
				   exception_names[v] : "interrupt";

	printf("FAIL: unexpected exception %u (%s) on CPU %d, error code %#lx\n",
	       v, name, smp_id(), (unsigned long)r->error_code);
#ifdef __x86_64__
	printf("rip %016llx cs %04llx rflags %08llx rsp %016llx cr2 %016lx\n",
	       r->rip, r->cs, r->rflags, r->rsp, read_cr2());
	printf("rax %016llx rbx %016llx rcx %016llx rdx %016llx\n", r->rax, r->rbx, r->rcx, r->rdx);
	printf("rsi %016llx rdi %016llx rbp %016llx r8  %016llx\n", r->rsi, r->rdi, r->rbp, r->r8);
	printf("r9  %016llx r10 %016llx r11 %016llx r12 %016llx\n", r->r9, r->r10, r->r11, r->r12);
	printf("r13 %016llx r14 %016llx r15 %016llx cr3 %016lx\n", r->r13, r->r14, r->r15, read_cr3());
#else
	printf("eip %08x cs %04x eflags %08x cr2 %08lx cr3 %08lx\n",
	       r->eip, r->cs, r->eflags, read_cr2(), read_cr3());
	printf("eax %08x ebx %08x ecx %08x edx %08x\n", r->eax, r->ebx, r->ecx, r->edx);
	printf("esi %08x edi %08x ebp %08x\n", r->esi, r->edi, r->ebp);
#endif
	backtrace_from(EX_BP(r), EX_IP(r));
}

void do_exception(struct ex_regs *regs);
void do_exception(struct ex_regs *regs)
{
	unsigned v = (unsigned)regs->vector;

	/*
	 * Only exceptions are fixed up: an interrupt that arrives just before
	 * an ASM_TRY instruction has that instruction's address as its IP.
	 */
	if (v < FIRST_INTERRUPT_VECTOR && fixup_exception(regs))
		return;
	if (v < IDT_ENTRIES && handlers[v]) {
		handlers[v](regs);
		return;
	}
	dump_ex_regs(regs);
	arch_exit(1);
}
