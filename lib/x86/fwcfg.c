/* SPDX-License-Identifier: GPL-2.0-only */
/* fw_cfg reads: select an item, then read its bytes one by one from the data port. */
#include "x86/fwcfg.h"
#include "x86/io.h"

static void fwcfg_select(u16 key)
{
	outw(key, FW_CFG_PORT_SEL);
}

bool fwcfg_present(void)
{
	char sig[4];

	fwcfg_select(FW_CFG_SIGNATURE);
	for (unsigned i = 0; i < sizeof(sig); i++)
		sig[i] = (char)inb(FW_CFG_PORT_DATA);
	return !memcmp(sig, "QEMU", sizeof(sig));
}

u64 fwcfg_read(u16 key, unsigned size)
{
	u64 v = 0;

	if (!fwcfg_present())
		return 0;
	fwcfg_select(key);
	for (unsigned i = 0; i < size && i < 8; i++)
		v |= (u64)inb(FW_CFG_PORT_DATA) << (8 * i);
	return v;
}
