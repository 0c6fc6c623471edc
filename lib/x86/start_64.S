/* SPDX-License-Identifier: GPL-2.0-only */
/* 64-bit start-up: multiboot entry in 32-bit mode, identity paging, long mode, then C; the APs' way in too. */
#include "x86/boot.h"

	BOOT_DATA .quad
	.bss
	.balign PAGE_SIZE
pml4:	.skip PAGE_SIZE

	BOOT_ENTRY
	mov $pml4, %edi
	movl $(pdpt + PT_PRESENT + PT_WRITABLE), (%edi)
	BUILD_IDENTITY_MAP pdpt, pd, pt0, (PT_PRESENT + PT_WRITABLE)

	mov $bsp_long, %esi
	jmp enter_long_mode

/* Entered from the real-mode trampoline with the GDT loaded and CS = KERNEL_CS32. */
	.globl ap_start32
ap_start32:
	LOAD_DATA_SEGMENTS
	mov $ap_long, %esi

/* %esi: where to continue in 64-bit mode. */
enter_long_mode:
	mov %cr4, %eax
	or $X86_CR4_PAE, %eax
	mov %eax, %cr4
	mov $pml4, %eax
	mov %eax, %cr3
	mov $MSR_EFER, %ecx
	rdmsr
	or $EFER_LME, %eax
	wrmsr
	mov %cr0, %eax
	or $(X86_CR0_PG + X86_CR0_PE + X86_CR0_WP), %eax
	mov %eax, %cr0
	ljmpl $KERNEL_CS64, $1f
	.code64
1:	jmp *%rsi

bsp_long:
	mov boot_magic(%rip), %edi
	mov boot_info(%rip), %esi
	xor %ebp, %ebp
	call x86_setup
6:	hlt
	jmp 6b

/*
 * Each AP takes the next id and the stack the boot CPU set aside for it;
 * an AP beyond the expected count parks with interrupts off.
 */
ap_long:
	mov $1, %eax
	lock xadd %eax, ap_next_id(%rip)
	cmp ap_limit(%rip), %eax
	jae 7f
	lea ap_stack_tops(%rip), %rdx
	mov (%rdx, %rax, 8), %rsp
	mov %eax, %edi
	xor %ebp, %ebp
	call ap_main
7:	cli
	hlt
	jmp 7b
