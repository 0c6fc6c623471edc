/* SPDX-License-Identifier: GPL-2.0-only */
/* Assembly macro building the boot identity map; shared by the 64-bit and the 32-bit (PAE) start-up. */
#ifndef VMTICK_X86_IDENTITY_MAP_H
#define VMTICK_X86_IDENTITY_MAP_H

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
