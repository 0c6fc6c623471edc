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
/*
 * Lateness of a timer's interrupt that no evidence explains, the bound
 * both engines judge a late interrupt by (the timer-tick judgment,
 * rtc_test). It is set by what must fail: an interrupt held 20 ms by the
 * guest or the emulation (timer-tick's fault=hold20); the handler's own
 * time puts such an interrupt above 19 ms (docs/timers.md).
 */
#define IRQ_UNEXPLAINED_LATE_MS 19

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
 * The host's delay over a stretch, from the evidence's part for it: the
 * one rule both engines count by (the timer-tick judgment,
 * common/tick/tick_judge.c; rtc_test, x86/rtc_test/evidence.c). What
 * can hold back a timer's interrupt: an emulated device's timer is fired
 * by one thread (QEMU's main loop for the HPET, the RTC, the PIT under
 * TCG and every timer under TCG; KVM's kvm-pit kthread for its PIT) and
 * the interrupt taken by a vCPU thread, one after the other; a wait of
 * either holds it back. The evidence gives each total over the stretch,
 * not when within it: the two threads' waits may have overlapped (both
 * queued at once) or followed each other (the main loop held, then the
 * vCPU), so the most they held the interrupt back is their sum; the
 * larger alone under-states the second case (a main loop held 3 ms and
 * then a vCPU 3 ms hold an HPET tick 6 ms). The host's hypervisor's steal
 * from a CPU stops whatever ran there without any wait growing: it adds.
 * A timer the vCPU's own kernel fires (KVM's LAPIC timer) needs the vCPU
 * alone: the other thread's wait over-states its delay, never
 * under-states it. The guest's steal time (KVM) is the vCPU thread's
 * wait seen from inside (KVM publishes that thread's run delay): where
 * the engine has it over the stretch, it and the evidence's vcpu are one
 * wait, the larger counted once (guest_steal_us; 0: none known).
 * docs/design.md, "The host's delay over a stretch".
 */
static inline u64 host_waits_us(const struct host_part *p, u64 guest_steal_us)
{
	return max((u64)p->vcpu_us, guest_steal_us) + p->other_us;
}

/* The waits and the host's hypervisor's steal over the stretch. */
static inline u64 host_held_us(const struct host_part *p, u64 guest_steal_us)
{
	return host_waits_us(p, guest_steal_us) + p->steal_us;
}

/*
 * How long the guest waits for each answer line from its request's line
 * out, in its own counter's ms; the one wait of both engines. The agent
 * answers within a fraction of a second (a whole timer-tick run with both
 * its questions takes 0.4 s here under TCG), and when it has no sample
 * after the second mark it waits SAMPLE_WAIT_S (5 s, scripts/
 * host_evidence.py) for one before answering HOST-EVIDENCE-ERROR: 20 s
 * covers that wait four times over where the counter keeps the host's
 * time (KVM, TCG without -icount), and a lost answer still ends inside
 * the timer entries' and rtc-periodic's timeouts (30 s, 90 s) as a FAIL
 * that says so, not as a TIMEOUT. Under the timer entries' -icount
 * shift=7,sleep=off the counter follows the guest's instructions, about
 * 6x faster than the host's clock while it polls: 20 s of it were 3.4 s
 * of the host's, still far beyond an answer's usual time.
 */
#define HOST_EVIDENCE_ANSWER_MS 20000

/*
 * Whether the runner's agent answers here: QEMU was started by
 * scripts/host_evidence.py, which says so through fw_cfg
 * (opt/vmtick/host-evidence) on x86. By hand nobody answers.
 */
bool host_evidence_offered(void);
/* NULL when the agent answers here; else why a guest judges without the host's evidence. */
const char *host_evidence_absent(void);

/*
 * The client both engines use (the timer-tick engine's run, rtc_test's
 * windows of interrupts): a stretch of the guest's run between two marks,
 * a and a + 1, timed by the engine's own clock (read() once each mark's
 * line was out, at hz). Each begin takes the next two marks from 0, so
 * that every stretch of one kernel has its own.
 */
struct host_span {
	unsigned a;
	u64 (*read)(void);
	u64 hz;
	u64 at_a, at_b;
};

/* Print the stretch's first mark and read the clock. */
void host_span_begin(struct host_span *s, u64 (*read)(void), u64 hz);
/* Print its second mark and read the clock. */
void host_span_end(struct host_span *s);
/* A reading t of the span's clock as us after its first mark (0 before it). */
u64 host_span_us(const struct host_span *s, u64 t);

/*
 * The host's evidence over the whole span in parts of about part_ms each
 * (1 to HOST_EVIDENCE_PARTS_MAX of them), into out. NULL, or why there is
 * none: host_evidence_absent()'s by hand, else the agent's failure, which
 * is also reported as a FAIL ("the host's evidence was offered and could
 * not be had: why").
 */
const char *host_span_parts(const struct host_span *s, u64 part_ms, struct host_evidence *out);

/*
 * An engine's own part of a windows question: how many, where each lies
 * on the span's clock, and what it does with what the host did over each.
 */
struct host_ask {
	u32 n;
	void (*window)(void *arg, u32 i, u64 *from, u64 *to);
	void (*answer)(void *arg, u32 i, const struct host_part *p);
	void *arg;
};

/*
 * What the host did over each of q's windows, handed to q->answer window
 * by window; *stamp_us the widest slack of the answers. Asked
 * HOST_EVIDENCE_WINDOWS_PER_LINE at a time. NULL, or why there is none,
 * as host_span_parts().
 */
const char *host_span_windows(const struct host_span *s, const struct host_ask *q, u64 *stamp_us);

/* Parse an answer line to a request for nparts parts: NULL, or what was wrong. */
const char *host_evidence_parse(const char *line, u32 nparts, struct host_evidence *out);
/* Parse an answer to a windows request of n windows (pure). */
const char *host_evidence_parse_windows(const char *line, u32 n, struct host_part *out,
					u64 *stamp_us);

#endif
