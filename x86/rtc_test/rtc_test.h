/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of the rtc_test kernel share: its constants, its arguments, the interrupts the handler saw and the steps. */
#ifndef VMTICK_X86_RTC_TEST_H
#define VMTICK_X86_RTC_TEST_H

#include "libc.h"
#include "refclock.h"
#include "x86/rtc.h"
#include "host_evidence.h"

#define UPDATE_IRQS	     2
#define MAX_WINDOW_MS	     5000
#define MAX_RATES	     4
#define MAX_EVENTS	     4096
#define PERIODIC_WINDOWS     3
/* quarters of 4 interrupts at least: a mark needs a spread */
#define PERIODIC_MIN_IRQS 16

/* The steps of phases=, each its index in phase_names[] (main.c). */
enum phase { PHASE_UPDATE, PHASE_TOD, PHASE_PERIODIC };
enum fault {
	FAULT_NONE,
	FAULT_NOACK,
	FAULT_TOD_STALE2S,
	FAULT_PERIODIC_RATE,
	FAULT_PERIODIC_HALF,
	FAULT_PERIODIC_SLOW,
	FAULT_PERIODIC_NOFLAG,
};

struct rtc_test_options {
	u64 host_ns, threshold_ns, window_ms;
	bool host_has_fraction; /* host_time= had a dot */
	unsigned phases;
	unsigned rates[MAX_RATES], n_rates;
	const char *rates_arg;
	const char *ref;
	unsigned fault; /* enum fault */
};

/* The arguments (main.c). */
extern struct rtc_test_options opt;
/* arch_counter() when main() began (main.c). */
extern u64 start_tsc;

/* One interrupt as the handler saw it. */
struct event {
	u64 at;	   /* reference counts */
	u64 steal; /* this vCPU's steal time, ns */
	u8 reg_c;
};

/* Update interrupts also read the date and time. */
struct update_event {
	u64 tsc; /* arch_counter() */
	struct rtc_datetime dt;
	const char *why; /* NULL, or why the read failed */
};

/* What irq.c's handler recorded, and how. */
extern const struct refclock *rtc_ref;
extern bool rtc_has_steal;
extern u64 rtc_steal_at_start; /* steal time when the current wait began */
extern struct event rtc_events[MAX_EVENTS];
extern struct update_event rtc_updates[UPDATE_IRQS];
extern bool rtc_read_time_in_handler;

/* irq.c: the reference clock, IRQ 8's route and the interrupts' collection. */
void find_ref(void);
void route_irq8(void);
u64 ref_ns(u64 counts);
u64 steal_before(unsigned k);
unsigned collect(enum rtc_irq irq, unsigned n, u64 timeout_ns);
bool flags_set(unsigned n, u8 want);

/*
 * evidence.c: what the host took from QEMU (the most a vCPU thread and one
 * other thread, the main loop raising IRQ 8, waited for a CPU, plus the
 * steal) over a window of interrupts, when the runner's agent answers
 * (docs/runner.md, "Host evidence for the guest"); ns.
 */
struct host_delays {
	u64 window_ns;	      /* from the first mark's interrupt to the last's */
	const u64 *before_ns; /* [k]: over the interval before interrupt k, where asked (else 0) */
};
/* Marks around one window's collection (nothing by hand). */
void evidence_begin(void);
void evidence_end(void);
/*
 * The host's delays between interrupts first and last of the window's n
 * (the marks), and over the interval before each k with ask[k]: NULL, or
 * why there are none (by hand: no agent; or the agent's failure).
 */
const char *evidence_ask(struct host_delays *d, unsigned n, unsigned first, unsigned last,
			 const bool *ask, u64 period_ns);

/* The steps: update.c (1 and 2), periodic.c (3). */
void update_test(void);
void periodic_test(void);

#endif
