/* SPDX-License-Identifier: GPL-2.0-only */
/* Assembly shared by the 64-bit and the 32-bit (PAE) start-up: multiboot header, GDT, boot data, entry, identity map. */
#ifndef VMTICK_X86_BOOT_H
#define VMTICK_X86_BOOT_H

#include "x86/layout.h"
#include "x86/processor.h"

/*
 * The multiboot header, the GDT (ptr: .long or .quad, the size lgdt reads
 * in the widest mode that loads it), what the loader handed over, and the
 * page tables and boot stack in .bss.
 */
.macro BOOT_DATA ptr
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
	\ptr gdt
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
.endm

.macro LOAD_DATA_SEGMENTS
	mov $KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	mov %eax, %fs
	mov %eax, %gs
.endm

/*
 * The multiboot entry (32-bit protected mode, EAX magic, EBX info): zero
 * .bss, keep the hand-off, load our GDT and segments, take the boot stack.
 */
.macro BOOT_ENTRY
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
1:	LOAD_DATA_SEGMENTS
	mov $(boot_stack_area + 2 * STACK_SIZE), %esp
	and $~(STACK_SIZE - 1), %esp
.endm

/*
 * Identity map of the low 4 GiB with 2 MiB pages: pdpt[0..3] point at four
 * page directories (pd, 4 pages), the top GiB (MMIO: LAPIC, IOAPIC, HPET,
 * PCI BARs) is uncached, and the first 2 MiB use 4 KiB pages (pt0) with
 * page 0 left out so a NULL dereference faults. Runs in 32-bit mode, tables
 * zeroed; entries are 8 bytes and only their low halves are written.
 * pdpt_flags: PAE page-directory-pointer entries allow only P, PWT, PCD;
 * 4-level paging wants them writable too.
 */
#define PD_ENTRIES		(4 * 512)
#define PD_UNCACHED_FROM	(3 * 512)
#define PT_ENTRIES		512

.macro BUILD_IDENTITY_MAP pdpt, pd, pt0, pdpt_flags
	mov $\pdpt, %edi
	mov $(\pd + \pdpt_flags), %eax
	mov $4, %ecx
1:	mov %eax, (%edi)
	add $PAGE_SIZE, %eax
	add $8, %edi
	loop 1b

	mov $\pd, %edi
	mov $(PT_PRESENT + PT_WRITABLE + PT_PAGE_SIZE), %eax
	xor %ecx, %ecx
2:	mov %eax, %edx
	cmp $PD_UNCACHED_FROM, %ecx
	jb 3f
	or $(PT_PCD + PT_PWT), %edx
3:	mov %edx, (%edi, %ecx, 8)
	add $LARGE_PAGE_SIZE_64, %eax
	inc %ecx
	cmp $PD_ENTRIES, %ecx
	jb 2b
	movl $(\pt0 + PT_PRESENT + PT_WRITABLE), (%edi)

	mov $\pt0, %edi
	mov $(PAGE_SIZE + PT_PRESENT + PT_WRITABLE), %eax
	mov $1, %ecx
4:	mov %eax, (%edi, %ecx, 8)
	add $PAGE_SIZE, %eax
	inc %ecx
	cmp $PT_ENTRIES, %ecx
	jb 4b
.endm

#endif
