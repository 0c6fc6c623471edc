/* SPDX-License-Identifier: GPL-2.0-only */
/* The guest's side of the host's evidence: marks the runner's agent stamps, and what the host did
 * between two. */
#ifndef VMTICK_HOST_EVIDENCE_H
#define VMTICK_HOST_EVIDENCE_H

#include "libc.h"

/*
 * The protocol (scripts/host_evidence.py, docs/runner.md "Host evidence
 * for the guest"): the guest prints "HOST-EVIDENCE: mark K", which the
 * agent stamps with the host's time as it reads it, and later
 * "HOST-EVIDENCE: request A B N"; the agent answers one line on the
 * serial input:
 *   HOST-EVIDENCE-DONE parts=N span_us=S stamp_us=W vcpu=x1,...,xN
 *       other=y1,...,yN steal=z1,...,zN
 * the host time between the stamps of marks A and B cut into N equal
 * parts, and over each the most one vCPU thread of QEMU waited for a CPU,
 * the most one other thread of QEMU's (or the agent's) waited, the most
 * the host's hypervisor stole from one CPU, in us; W is how late either
 * stamp may be. A failure is one line "HOST-EVIDENCE-ERROR why".
 * The same for chosen windows, at the sampler's finest grain:
 *   HOST-EVIDENCE: windows A B SPAN_US a1:b1 a2:b2 ...
 * (at most HOST_EVIDENCE_WINDOWS_PER_LINE; us after mark A in the guest's
 * time, SPAN_US its time from mark A to mark B, which the agent maps onto
 * the stamps) answered by
 *   HOST-EVIDENCE-DONE windows=K stamp_us=W vcpu=x1,...,xK other=... steal=...
 * each window widened by W before the host's growths are taken.
 */
#define HOST_EVIDENCE_PARTS_MAX	       400
#define HOST_EVIDENCE_MARK_MAX	       99
#define HOST_EVIDENCE_WINDOWS_PER_LINE 32

struct host_part {
	u32 vcpu_us, other_us, steal_us;
};

struct host_evidence {
	u32 nparts;
	u64 span_us, stamp_us;
	struct host_part part[HOST_EVIDENCE_PARTS_MAX];
};

/*
 * Whether the runner's agent answers here: QEMU was started by
 * scripts/host_evidence.py, which says so through fw_cfg
 * (opt/vmtick/host-evidence) on x86. By hand nobody answers.
 */
bool host_evidence_offered(void);
/* Print mark k; returns the counter read once its line was out. */
u64 host_evidence_mark(unsigned k);
/*
 * Ask for the host's evidence between marks a and b in nparts parts;
 * waits until the counter reaches give_up. NULL, or why there is none
 * (no answer, an error line, a malformed answer).
 */
const char *host_evidence_request(unsigned a, unsigned b, u32 nparts, struct host_evidence *out,
				  u64 give_up);
/* Parse an answer line to a request for nparts parts: NULL, or what was wrong. */
const char *host_evidence_parse(const char *line, u32 nparts, struct host_evidence *out);

/* A window, in us after mark A in the guest's time. */
struct host_window {
	u64 from_us, to_us;
};

/*
 * What the host did over each of n windows between marks a and b
 * (span_us apart in the guest's time), into out[0..n-1]; *stamp_us the
 * widest slack of the answers. Asked HOST_EVIDENCE_WINDOWS_PER_LINE at a
 * time. NULL, or why there is none.
 */
const char *host_evidence_windows(unsigned a, unsigned b, u64 span_us, const struct host_window *w,
				  u32 n, struct host_part *out, u64 *stamp_us, u64 give_up);
/* Parse an answer to a windows request of n windows (pure). */
const char *host_evidence_parse_windows(const char *line, u32 n, struct host_part *out,
					u64 *stamp_us);

#endif
