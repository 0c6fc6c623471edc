/* SPDX-License-Identifier: GPL-2.0-only */
/* Boot CPU set-up after the assembly: multiboot info, console, IDT, APIC, SMP, then the test's main. */
#include "arch.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/io.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "x86/serial.h"
#include "x86/smp.h"
#include "start.h"

struct multiboot_info {
	u32 flags;
	u32 mem_lower;		/* KiB below 1 MiB */
	u32 mem_upper;		/* KiB of contiguous RAM from 1 MiB */
	u32 boot_device;
	u32 cmdline;
	u32 mods_count;
	u32 mods_addr;
	u32 syms[4];
	u32 mmap_length;
	u32 mmap_addr;
} __attribute__((packed));

struct multiboot_mmap_entry {
	u32 size;		/* of the rest of the entry */
	u64 addr;
	u64 len;
	u32 type;
} __attribute__((packed));

#define MULTIBOOT_INFO_MEMORY	(1u << 0)
#define MULTIBOOT_INFO_CMDLINE	(1u << 2)
#define MULTIBOOT_INFO_MMAP	(1u << 6)
#define MULTIBOOT_MEMORY_AVAILABLE 1
#define ONE_MIB			0x100000ull
/* The heap stays in the low 3 GiB: the top GiB of the identity map is uncached MMIO. */
#define HEAP_LIMIT		0xc0000000ull
#define CMDLINE_MAX		4096
/* The 8259A PICs' data ports: a write there outside initialisation is OCW1, the interrupt mask. */
#define PIC_MASTER_DATA		0x21
#define PIC_SLAVE_DATA		0xa1
#define PIC_MASK_ALL		0xff

extern char _end[];

static char cmdline[CMDLINE_MAX];
static u64 mem_size;
static uintptr_t heap_start, heap_end;

u64 arch_mem_size(void)
{
	return mem_size;
}

void arch_heap_range(uintptr_t *start, uintptr_t *end)
{
	*start = heap_start;
	*end = heap_end;
}

static u64 mmap_total(const struct multiboot_info *mbi)
{
	uintptr_t p = mbi->mmap_addr, end = p + mbi->mmap_length;
	u64 total = 0;

	while (p < end) {
		const struct multiboot_mmap_entry *e = (const void *)p;

		if (e->type == MULTIBOOT_MEMORY_AVAILABLE)
			total += e->len;
		p += e->size + sizeof(e->size);
	}
	return total;
}

static void read_multiboot(const struct multiboot_info *mbi)
{
	u64 top = ONE_MIB;

	if (mbi->flags & MULTIBOOT_INFO_CMDLINE)
		strncpy(cmdline, (const char *)(uintptr_t)mbi->cmdline, sizeof(cmdline) - 1);
	if (mbi->flags & MULTIBOOT_INFO_MEMORY) {
		top = ONE_MIB + (u64)mbi->mem_upper * 1024;
		mem_size = top;
	}
	if (mbi->flags & MULTIBOOT_INFO_MMAP)
		mem_size = mmap_total(mbi);
	heap_start = ALIGN_UP((uintptr_t)_end, (uintptr_t)PAGE_SIZE);
	heap_end = (uintptr_t)min(top, HEAP_LIMIT);
}

/* QEMU passes "<kernel path> <append string>": split off the name, drop its directory and ".flat". */
static const char *split_progname(char *line, char *name, size_t size)
{
	char *args = line, *base, *dot;

	while (*args && *args != ' ')
		args++;
	if (*args)
		*args++ = '\0';
	base = strrchr(line, '/');
	base = base ? base + 1 : line;
	strncpy(name, base, size - 1);
	dot = strstr(name, ".flat");
	if (dot)
		*dot = '\0';
	return args;
}

/*
 * SeaBIOS leaves the 8259s programmed at vector base 8 with the timer line
 * open: one of their interrupts would arrive on an exception vector. Every
 * interrupt here goes through the IOAPIC or the LAPIC, so mask all 16 lines.
 */
static void pic_mask_all(void)
{
	outb(PIC_MASK_ALL, PIC_MASTER_DATA);
	outb(PIC_MASK_ALL, PIC_SLAVE_DATA);
}

void x86_setup(u32 magic, u32 info);
void x86_setup(u32 magic, u32 info)
{
	static char progname[64];
	const char *args;

	pic_mask_all();
	serial_init();
	this_cpu()->exc_vector = EXC_NONE;
	if (magic != MULTIBOOT_BOOT_MAGIC) {
		printf("FAIL: not started by a multiboot loader (magic %#x)\n", magic);
		arch_exit(1);
	}
	read_multiboot((const struct multiboot_info *)(uintptr_t)info);
	setup_idt();
	apic_enable();
	smp_init();
	args = split_progname(cmdline, progname, sizeof(progname));
	start_main(progname, args);
}
