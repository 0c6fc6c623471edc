/* SPDX-License-Identifier: GPL-2.0-only */
/* Real-mode code an AP runs after SIPI: copied to TRAMPOLINE_ADDR, it enters protected mode and jumps to ap_start32. */
#include "x86/layout.h"
#include "x86/processor.h"

	.text
	.code16
	.globl trampoline_start, trampoline_end
trampoline_start:
	cli
	mov %cs, %ax
	mov %ax, %ds
	lgdtl (trampoline_gdt_desc - trampoline_start)
	mov %cr0, %eax
	or $X86_CR0_PE, %eax
	mov %eax, %cr0
	ljmpl $KERNEL_CS32, $ap_start32
	.balign 4
trampoline_gdt_desc:
	.word GDT_ENTRIES * 8 - 1
	.long gdt
trampoline_end:
	.code32
