/* SPDX-License-Identifier: GPL-2.0-only */
/* The GICv3 ITS: LPIs through a command queue (map a device, a collection, an event to an LPI). */
#ifndef VMTICK_ARM64_ITS_H
#define VMTICK_ARM64_ITS_H

#include "libc.h"

/*
 * Usage, after boot (all CPUs online):
 *	its_init();
 *	dev = its_map_device(devid, nr_events);
 *	its_map_collection(icid, cpu);		  collection icid lands on cpu
 *	install_irq_handler(lpi, fn);
 *	its_map_lpi(dev, event, lpi, icid);	  MAPTI, LPI enabled
 *	its_int(dev, event);			  the ITS raises lpi on cpu
 * LPIs are GIC_FIRST_LPI .. GIC_FIRST_LPI + GIC_NR_LPIS - 1 (gic.h).
 */
struct its_device {
	u32 id;
	unsigned nr_events;
	void *itt;
};

/* Set up LPIs on every online CPU's redistributor and the ITS; -1 if there is none. */
int its_init(void);
bool its_present(void);
struct its_device *its_map_device(u32 devid, unsigned nr_events);
void its_map_collection(u16 icid, int cpu);
void its_map_lpi(struct its_device *dev, u32 event, unsigned lpi, u16 icid);
/* Software-generated interrupt: as if dev had written event to GITS_TRANSLATER. */
void its_int(struct its_device *dev, u32 event);
/* Enable or disable lpi in the configuration table, then INV it through (dev, event). */
void its_lpi_set_enabled(struct its_device *dev, u32 event, unsigned lpi, bool enabled);
/* Physical address a device writes an EventID to (GITS_TRANSLATER). */
u64 its_translater_addr(void);

#endif
