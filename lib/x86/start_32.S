/* SPDX-License-Identifier: GPL-2.0-only */
/* 32-bit start-up: multiboot entry, PAE identity paging, then C; the APs' way in too. */
#include "x86/boot.h"

/* PAE paging: the same identity map, built by the same macro, as the 64-bit kernels. */
	BOOT_DATA .long
	BOOT_ENTRY
	BUILD_IDENTITY_MAP pdpt, pd, pt0, PT_PRESENT

	call enable_paging
	push boot_info
	push boot_magic
	xor %ebp, %ebp
	call x86_setup
6:	hlt
	jmp 6b

enable_paging:
	mov %cr4, %eax
	or $X86_CR4_PAE, %eax
	mov %eax, %cr4
	mov $pdpt, %eax
	mov %eax, %cr3
	mov %cr0, %eax
	or $(X86_CR0_PG + X86_CR0_PE + X86_CR0_WP), %eax
	mov %eax, %cr0
	ret

/*
 * Entered from the real-mode trampoline with the GDT loaded and CS =
 * KERNEL_CS32. Each AP takes the next id and the stack the boot CPU set
 * aside for it; an AP beyond the expected count parks with interrupts off.
 */
	.globl ap_start32
ap_start32:
	LOAD_DATA_SEGMENTS
	mov $1, %eax
	lock xadd %eax, ap_next_id
	cmp ap_limit, %eax
	jae 7f
	mov ap_stack_tops(, %eax, 4), %esp
	push %eax
	call enable_paging
	xor %ebp, %ebp
	call ap_main
7:	cli
	hlt
	jmp 7b
