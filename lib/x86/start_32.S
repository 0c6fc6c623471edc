/* SPDX-License-Identifier: GPL-2.0-only */
/* 32-bit start-up: multiboot entry, PAE identity paging, then C; the APs' way in too. */
#include "layout.h"
#include "processor.h"
#include "identity_map.h"

	.section .multiboot, "a"
	.balign 4
	.long MULTIBOOT_HEADER_MAGIC
	.long MULTIBOOT_HEADER_FLAGS
	.long -(MULTIBOOT_HEADER_MAGIC + MULTIBOOT_HEADER_FLAGS)

	.data
	.balign 8
	.globl gdt
gdt:
	.quad 0
	.quad GDT_DESC_CODE32
	.quad GDT_DESC_DATA
	.quad GDT_DESC_CODE64
gdt_desc:
	.word GDT_ENTRIES * 8 - 1
	.long gdt
boot_magic:
	.long 0
boot_info:
	.long 0

	.bss
	.balign PAGE_SIZE
pdpt:	.skip PAGE_SIZE
pd:	.skip 4 * PAGE_SIZE
pt0:	.skip PAGE_SIZE
/*
 * The boot CPU's stack: STACK_SIZE-aligned (smp_id() masks the stack
 * pointer) but placed at run time inside twice the room, so .bss needs no
 * alignment beyond a page (lld would align the whole image's file offset
 * to it, pushing the multiboot header out of the first 8 KiB).
 */
	.balign 16
boot_stack_area:
	.skip 2 * STACK_SIZE

/*
 * PAE paging rather than 32-bit paging with 4 MiB pages: nested KVM on an
 * AMD host was seen to triple-fault on enabling the latter, and PAE gives
 * the same map as the 64-bit kernels.
 */
	.section .text.boot, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov %eax, %edx
	mov $__bss_start, %edi
	mov $__bss_end, %ecx
	sub %edi, %ecx
	xor %eax, %eax
	rep stosb
	mov %edx, boot_magic
	mov %ebx, boot_info
	lgdtl gdt_desc
	ljmpl $KERNEL_CS32, $1f
1:	mov $KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	mov %eax, %fs
	mov %eax, %gs
	mov $(boot_stack_area + 2 * STACK_SIZE), %esp
	and $~(STACK_SIZE - 1), %esp

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
	mov $KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	mov %eax, %fs
	mov %eax, %gs
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
