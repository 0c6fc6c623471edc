/* SPDX-License-Identifier: GPL-2.0-only */
/* Boot CPU set-up after the MMU is on: tree, console, memory, exit path, GIC, timer, CPUs, main. */
#include "libc.h"
#include "arch.h"
#include "atomic.h"
#include "arm64/gic.h"
#include "arm64/mmu.h"
#include "arm64/psci.h"
#include "arm64/setup.h"
#include "start.h"
#include "arm64/sysreg.h"
#include "arm64/timer.h"

#define HEAP_ALIGN		0x10000UL

/* Defaults a test overrides with STAY_AT_EL2 / BOOT_CNTVOFF (setup.h); test_name: start.h. */
__attribute__((weak)) const u8 boot_stay_el2;
__attribute__((weak)) const u64 boot_cntvoff;

struct dt boot_dt;
static u64 mem_total;
static uintptr_t heap_start, heap_end;

unsigned boot_el(void)
{
	return current_el();
}

u64 arch_mem_size(void)
{
	return mem_total;
}

void arch_heap_range(uintptr_t *start, uintptr_t *end)
{
	*start = heap_start;
	*end = heap_end;
}

/* The heap: the larger free part of the kernel's RAM bank, around the tree. */
static void setup_memory(const void *fdt)
{
	struct dt_range banks[8];
	int i, n = dt_memory(&boot_dt, banks, ARRAY_SIZE(banks));
	u64 lo = ALIGN_UP((u64)_end, HEAP_ALIGN), hi = ram_bank.end;
	u64 dt_lo = (u64)fdt & ~(HEAP_ALIGN - 1), dt_hi = (u64)fdt + boot_dt.size;

	for (i = 0; i < n && i < (int)ARRAY_SIZE(banks); i++)
		mem_total += banks[i].size;
	if (dt_hi > lo && dt_lo < hi) {
		if (dt_lo - lo >= hi - ALIGN_UP(dt_hi, HEAP_ALIGN))
			hi = dt_lo;
		else
			lo = ALIGN_UP(dt_hi, HEAP_ALIGN);
	}
	heap_start = lo;
	heap_end = hi;
}

void arch_exit(int code)
{
	static u32 exiting;

	/* One CPU leaves; any other that also tries parks here. */
	if (atomic_xchg(&exiting, 1))
		halt();
	pl011_flush();
	virtio_testdev_exit(code);
	psci_system_off();
	halt();
}

void boot_main(const void *fdt)
{
	const char *args;
	int err = dt_init(&boot_dt, fdt, DT_MAX_BLOB);

	if (err)
		halt();	/* without the tree there is no console to say so */
	/* No UART: keep going, the exit status still reaches the runner. */
	pl011_init();
	if (!ram_bank.end) {
		printf("FAIL: the kernel at 0x%llx is in no memory node\n", (u64)_text);
		arch_exit(1);
	}
	setup_memory(fdt);
	virtio_testdev_init();
	psci_init();
	timer_init();
	if (gic_init())
		printf("INFO: no GICv2/GICv3 in the device tree\n");
	smp_init();

	args = dt_bootargs(&boot_dt);
	if (!args) {
		printf("FAIL: /chosen/bootargs is malformed\n");
		arch_exit(1);
	}
	start_main(test_name, args);
}
