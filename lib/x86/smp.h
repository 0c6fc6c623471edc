/* SPDX-License-Identifier: GPL-2.0-only */
/* x86 SMP bring-up, called once by setup; the on_cpu API itself is in lib/arch.h. */
#ifndef VMTICK_X86_SMP_H
#define VMTICK_X86_SMP_H

void smp_init(void);

#endif
