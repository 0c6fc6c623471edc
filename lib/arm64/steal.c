/* SPDX-License-Identifier: GPL-2.0-only */
/* Steal time on arm64: none here (the paravirtual interface, SMCCC PV_TIME, is not used). */
#include "arch.h"

/*
 * arm64 runs under TCG on these hosts, whose timing entries use -icount
 * (docs/timers.md) so that host load cannot delay guest time in the first
 * place.
 */
const char *steal_init(void)
{
	return "no steal time on arm64 here (TCG)";
}

u64 steal_ns(void)
{
	return 0;
}

/* No fw_cfg reader on arm64 yet: the guest judges without the host's evidence there. */
bool arch_host_evidence_offered(void)
{
	return false;
}
