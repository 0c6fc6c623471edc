/* SPDX-License-Identifier: GPL-2.0-only */
/* QEMU's fw_cfg interface through its I/O ports (selector + data). */
#ifndef VMTICK_X86_FWCFG_H
#define VMTICK_X86_FWCFG_H

#include "libc.h"

#define FW_CFG_PORT_SEL		0x510
#define FW_CFG_PORT_DATA	0x511
#define FW_CFG_SIGNATURE	0x0000
#define FW_CFG_NB_CPUS		0x0005
#define FW_CFG_MAX_CPUS		0x000f
/* the directory of named items: a big-endian count, then struct fw_cfg_file each */
#define FW_CFG_FILE_DIR		0x0019
#define FW_CFG_FILE_NAME_LEN	56

/* true when QEMU's fw_cfg answers with its "QEMU" signature */
bool fwcfg_present(void);
/* Read size bytes (little-endian value) of item key; 0 when fw_cfg is absent. */
u64 fwcfg_read(u16 key, unsigned size);

/* Whether fw_cfg holds a named item (as -fw_cfg name=NAME gives). */
bool fwcfg_has_file(const char *name);

#endif
