/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether the host left a window quiet enough to time a period by (lib/busy.h). */
#include "busy.h"

static_assert(QUIET_HOST_PCT == 5, "the messages below say 5%");

/* why, when part_ns is over QUIET_HOST_PCT of window_ns; else NULL */
static const char *over_quiet(u64 part_ns, u64 window_ns, const char *why)
{
	return part_ns * 100 > window_ns * QUIET_HOST_PCT ? why : NULL;
}

const char *busy_by_steal(u64 steal_ns, u64 window_ns)
{
	return over_quiet(steal_ns, window_ns, "a busy host, steal time over 5% of the window");
}

const char *busy_by_wait(u64 wait_ns, u64 window_ns)
{
	return over_quiet(wait_ns, window_ns,
			  "a busy host, a vCPU waited over 5% of the window for a host CPU");
}

const char *busy_by_host(u64 delay_ns, u64 window_ns)
{
	return over_quiet(
		delay_ns, window_ns,
		"a busy host by its evidence, QEMU's threads held back over 5% of the window");
}
