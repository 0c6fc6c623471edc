/* SPDX-License-Identifier: GPL-2.0-only */
/* The ACPI PM timer: its port and width from the FADT, and reading it. */
#include "x86/pmtimer.h"
#include "x86/acpi.h"
#include "x86/io.h"

/* FADT fields (ACPI spec, table "FADT format"): byte offsets. */
#define FADT_PM_TMR_BLK_OFFSET	76
#define FADT_PM_TMR_LEN_OFFSET	91
#define FADT_FLAGS_OFFSET	112
#define FADT_FLAG_TMR_VAL_EXT	(1u << 8)
/* PM_TMR_LEN is 4 when the timer is supported */
#define PM_TMR_LEN		4
#define PMTIMER_BITS_SHORT	24
#define PMTIMER_BITS_EXT	32
/* pmtimer_read_ext()'s first value: the counter plus this, room for a step back */
#define PMTIMER_EXT_BASE	(1ull << 32)

static struct {
	u16 port;
	unsigned bits;
} pm;

static u32 fadt_u32(const struct acpi_header *fadt, unsigned offset)
{
	u32 v;

	memcpy(&v, (const u8 *)fadt + offset, sizeof(v));
	return v;
}

const char *pmtimer_find(void)
{
	const struct acpi_header *fadt = acpi_find_table("FACP");
	u32 port;

	if (pm.port)
		return NULL;
	if (!fadt)
		return "no ACPI FADT";
	if (fadt->length < FADT_FLAGS_OFFSET + 4)
		return "the FADT is too short to hold PM_TMR_BLK and its flags";
	port = fadt_u32(fadt, FADT_PM_TMR_BLK_OFFSET);
	if (!port || port > 0xffff || ((const u8 *)fadt)[FADT_PM_TMR_LEN_OFFSET] != PM_TMR_LEN)
		return "the FADT names no PM timer (PM_TMR_BLK 0 or PM_TMR_LEN not 4)";
	pm.port = (u16)port;
	pm.bits = fadt_u32(fadt, FADT_FLAGS_OFFSET) & FADT_FLAG_TMR_VAL_EXT ? PMTIMER_BITS_EXT
									  : PMTIMER_BITS_SHORT;
	return NULL;
}

unsigned pmtimer_bits(void)
{
	return pm.bits;
}

u32 pmtimer_read(void)
{
	u32 v = inl(pm.port);

	return pm.bits == PMTIMER_BITS_EXT ? v : v & ((1u << PMTIMER_BITS_SHORT) - 1);
}

u64 pmtimer_read_ext(struct pmtimer_ext *e)
{
	u64 range = 1ull << pm.bits;
	u32 now = pmtimer_read();
	u64 step = (now - e->last) & (range - 1);

	if (!e->started) {
		e->started = true;
		e->total = PMTIMER_EXT_BASE + now;
	} else if (step < range / 2) {
		e->total += step;
	} else {
		e->total -= range - step;
	}
	e->last = now;
	return e->total;
}
