/* SPDX-License-Identifier: GPL-2.0-only */
/* fw_cfg reads: select an item, then read its bytes one by one from the data port. */
#include "x86/fwcfg.h"
#include "x86/io.h"
#include "arch.h"

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

static u32 read_be(unsigned size)
{
	u32 v = 0;

	for (unsigned i = 0; i < size; i++)
		v = v << 8 | inb(FW_CFG_PORT_DATA);
	return v;
}

/* Each entry of the directory: size (be32), select (be16), reserved (be16), name. */
bool fwcfg_has_file(const char *name)
{
	char entry[FW_CFG_FILE_NAME_LEN];
	u32 count;

	if (!fwcfg_present())
		return false;
	fwcfg_select(FW_CFG_FILE_DIR);
	count = read_be(4);
	for (u32 n = 0; n < count; n++) {
		read_be(4);
		read_be(2);
		read_be(2);
		for (unsigned i = 0; i < sizeof(entry); i++)
			entry[i] = (char)inb(FW_CFG_PORT_DATA);
		entry[sizeof(entry) - 1] = '\0';
		if (!strcmp(entry, name))
			return true;
	}
	return false;
}

/* The runner's agent (scripts/host_evidence.py) adds -fw_cfg name=opt/vmtick/host-evidence. */
bool arch_host_evidence_offered(void)
{
	return fwcfg_has_file("opt/vmtick/host-evidence");
}
