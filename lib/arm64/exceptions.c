/* SPDX-License-Identifier: GPL-2.0-only */
/* Exception dispatch: guarded calls, handlers by exception class, IRQs to the GIC, a dump for the rest. */
#include "libc.h"
#include "arch.h"
#include "atomic.h"
#include "arm64/processor.h"
#include "arm64/sysreg.h"
#include "arm64/gic.h"
#include "arm64/setup.h"

static exception_fn sync_handlers[ESR_EC_COUNT];

static const char *const vector_names[VEC_COUNT] = {
	"EL-current SP0 sync", "EL-current SP0 IRQ", "EL-current SP0 FIQ", "EL-current SP0 SError",
	"EL-current SPx sync", "EL-current SPx IRQ", "EL-current SPx FIQ", "EL-current SPx SError",
	"lower EL AArch64 sync", "lower EL AArch64 IRQ", "lower EL AArch64 FIQ", "lower EL AArch64 SError",
	"lower EL AArch32 sync", "lower EL AArch32 IRQ", "lower EL AArch32 FIQ", "lower EL AArch32 SError",
};

const char *esr_class_name(unsigned ec)
{
	switch (ec) {
	case ESR_EC_UNKNOWN: return "unknown/undefined instruction";
	case ESR_EC_WFX: return "WFI/WFE trapped";
	case ESR_EC_SVC64: return "SVC";
	case ESR_EC_HVC64: return "HVC";
	case ESR_EC_SMC64: return "SMC";
	case ESR_EC_SYS64: return "MSR/MRS/system instruction";
	case ESR_EC_IABT_LOW: return "instruction abort (lower EL)";
	case ESR_EC_IABT_CUR: return "instruction abort";
	case ESR_EC_PC_ALIGN: return "PC alignment fault";
	case ESR_EC_DABT_LOW: return "data abort (lower EL)";
	case ESR_EC_DABT_CUR: return "data abort";
	case ESR_EC_SP_ALIGN: return "SP alignment fault";
	case ESR_EC_SERROR: return "SError";
	case ESR_EC_BRK64: return "BRK";
	default: return "other";
	}
}

exception_fn install_exception_handler(unsigned ec, exception_fn fn)
{
	exception_fn old;

	assert(ec < ESR_EC_COUNT);
	old = sync_handlers[ec];
	WRITE_ONCE(sync_handlers[ec], fn);
	smp_mb();
	return old;
}

/* This CPU's guarded call (catch_fault), while one runs. */
struct fault_guard {
	bool armed;
	unsigned ec;
	struct fault_record *rec;
};
static struct fault_guard guards[NR_CPUS];

bool catch_fault(unsigned ec, void (*fn)(void *arg), void *arg, struct fault_record *rec)
{
	struct fault_guard *g = &guards[smp_id()];
	struct fault_record unused;

	assert(ec < ESR_EC_COUNT && !g->armed);
	if (!rec)
		rec = &unused;
	memset(rec, 0, sizeof(*rec));
	g->ec = ec;
	g->rec = rec;
	/* The exception comes on this CPU: compiler ordering is all it takes. */
	WRITE_ONCE(g->armed, true);
	barrier();
	fn(arg);
	barrier();
	WRITE_ONCE(g->armed, false);
	return READ_ONCE(rec->faulted);
}

/* A guarded call's fault: record it and step over the instruction. */
static bool guard_caught(struct pt_regs *regs, u64 esr)
{
	struct fault_guard *g = &guards[smp_id()];

	if (!READ_ONCE(g->armed) || esr_class(esr) != g->ec)
		return false;
	g->rec->esr = esr;
	g->rec->far = read_sysreg(far_el1);
	WRITE_ONCE(g->rec->faulted, true);
	regs->pc += 4;
	return true;
}

struct mmio_read {
	uintptr_t addr;
	u32 val;
};

static void mmio_read32(void *arg)
{
	struct mmio_read *r = arg;

	r->val = readl(r->addr);
}

bool try_readl(uintptr_t addr, u32 *val)
{
	struct mmio_read r = { .addr = addr };

	if (catch_fault(ESR_EC_DABT_CUR, mmio_read32, &r, NULL))
		return false;
	*val = r.val;
	return true;
}

static bool in_ram(u64 addr, u64 len)
{
	return addr >= ram_bank.start && addr < ram_bank.end && len <= ram_bank.end - addr;
}

/* Walk frame records {fp, lr} from fp; only through RAM, so a bad chain cannot fault. */
static void backtrace_from(u64 pc, u64 fp)
{
	int depth;

	printf("backtrace: 0x%llx", pc);
	for (depth = 0; depth < 32 && fp && !(fp & 0xf) && in_ram(fp, 16); depth++) {
		const u64 *frame = (const u64 *)fp;
		u64 lr = frame[1];

		if (!lr)
			break;
		printf(" 0x%llx", lr - 4);
		if (frame[0] <= fp)
			break;	/* frames move up the stack; anything else is a broken chain */
		fp = frame[0];
	}
	printf("\n");
}

void arch_dump_stack(void)
{
	u64 fp = (u64)__builtin_frame_address(0);

	backtrace_from((u64)__builtin_return_address(0) - 4, ((const u64 *)fp)[0]);
}

void unexpected_exception(struct pt_regs *regs, unsigned vector, u64 esr)
{
	unsigned ec = esr_class(esr);
	int i;

	printf("FAIL: unexpected exception on cpu %d: %s, EC 0x%x (%s)\n",
	       smp_id(), vector < VEC_COUNT ? vector_names[vector] : "?", ec, esr_class_name(ec));
	printf("ESR 0x%llx FAR 0x%llx ELR 0x%llx SPSR 0x%llx SP 0x%llx\n",
	       esr, read_sysreg(far_el1), regs->pc, regs->pstate, regs->sp);
	for (i = 0; i < 31; i += 4) {
		int j;

		for (j = i; j < i + 4 && j < 31; j++)
			printf("%sx%02d %016llx", j == i ? "" : "  ", j, regs->regs[j]);
		printf("\n");
	}
	backtrace_from(regs->pc, regs->regs[29]);
	arch_exit(1);
}

void do_exception(struct pt_regs *regs, unsigned vector)
{
	u64 esr = read_sysreg(esr_el1);
	exception_fn fn;

	switch (vector) {
	case VEC_CUR_SPX_SYNC:
		if (guard_caught(regs, esr))
			return;
		fn = READ_ONCE(sync_handlers[esr_class(esr)]);
		if (fn) {
			fn(regs, esr);
			return;
		}
		break;
	case VEC_CUR_SPX_IRQ:
		gic_handle_irq(regs);
		return;
	default:
		break;
	}
	unexpected_exception(regs, vector, esr);
}
