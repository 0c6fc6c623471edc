/* SPDX-License-Identifier: GPL-2.0-only */
/* Clocks and timers across host events (pause, save/restore, migration): the common half and the hooks each arch provides. */
#ifndef VMTICK_LIFECYCLE_H
#define VMTICK_LIFECYCLE_H

#include "libc.h"

#define LC_MAX_CPUS	16
#define LC_MAX_CLOCKS	3
/*
 * Timers the arch half offers: each vCPU's own (x86's LAPIC timer, arm64's
 * CNTV and CNTP) and the machine's devices on the boot vCPU (x86's CMOS RTC
 * periodic interrupt and an HPET comparator).
 */
#define LC_MAX_SLOTS	3

/* What a clock does while the guest is stopped, as measured on QEMU 7.2 (docs/lifecycle.md). */
enum lc_semantics {
	/* advances by the time the guest was stopped */
	LC_RUNS,
	/* resumes from where it stopped: the stop is invisible */
	LC_FROZEN,
};

enum lc_event {
	LC_PAUSE,
	LC_SAVE,
	LC_MIGRATE,
	/*
	 * QMP system_reset: the guest starts again from its entry point; the
	 * runner carries across what it needs (lc_done's counter and counts)
	 */
	LC_RESET,
	LC_NR_EVENTS,
};

/* What the counter (arch_counter()) does at a reset of the whole machine, as the architecture says. */
enum lc_reset_counter {
	/* starts again from zero (x86: RESET clears the TSC, Intel SDM 17.17) */
	LC_COUNTER_RESTARTS,
	/*
	 * goes on: the system counter lives outside the PEs and a PE's
	 * reset leaves it alone (arm64: CNTVCT, with CNTVOFF 0 at EL1)
	 */
	LC_COUNTER_GOES_ON,
};

/* A clock every vCPU samples across each event. */
struct lc_clock {
	const char *name;
	u64 (*read)(void);
	/* ticks per second; read() counts ns when it is NSEC_PER_SEC */
	u64 hz;
	/* per event kind: what QEMU does to it while the guest is stopped */
	enum lc_semantics during[LC_NR_EVENTS];
};

/*
 * A clock the host computes from the counter by parameters it publishes
 * per vCPU (x86 under KVM: kvmclock, from the TSC by the pvclock area).
 * When the parameters change, the clock at one counter value by the new
 * ones less by the old ones is how far it moved against the counter: to
 * the nanosecond, with no read's timing in it (common/lifecycle/lifecycle_derived.c).
 */
struct lc_derived {
	unsigned clock;		/* its index in struct lc_arch's clocks */
	unsigned counter;	/* the counter's index there */
	/*
	 * On the calling vCPU: true when its parameters changed since the last
	 * call, with *moved_ns the clock's move against the counter then. The
	 * first call after forget() takes the parameters as they are.
	 */
	bool (*changed)(s64 *moved_ns);
	void (*forget)(void);
};

/*
 * The guest writing its own counter (x86: IA32_TSC, which moves
 * IA32_TSC_ADJUST by as much; arm64: CNTVOFF_EL2 through the kernel's own
 * EL2, lowered to move CNTVCT ahead): what it wrote must survive each
 * event, in the register the write moved and in the counter going on from
 * it.
 */
struct lc_counter_write {
	/* the register the write moves forward by what it moved the counter: "IA32_TSC_ADJUST" */
	const char *reg;
	/* the known host defect of a counter that does not follow the write, or NULL */
	const char *defect;
	/* NULL when the guest can write its counter here, else why not (an INFO, nothing checked) */
	const char *(*find)(void);
	/* On the calling vCPU: move the counter forward by delta ticks, as a guest writes it. */
	void (*write)(u64 delta);
	/* On the calling vCPU: the register the write moved. */
	u64 (*read_reg)(void);
	/*
	 * NULL, or on the calling vCPU: the register's value as the counters
	 * themselves show it, between two reads (arm64: CNTVCT - CNTPCT),
	 * named by view_name (NULL exactly when view is).
	 */
	void (*view)(s64 *lo, s64 *hi);
	const char *view_name;
};

/* A timer's job during one event. */
enum lc_role {
	LC_ROLE_IDLE,
	/* armed once before the event, for a deadline inside it */
	LC_ROLE_ONESHOT,
	/* ticking at a fixed period across the event */
	LC_ROLE_PERIODIC,
};

/* Where a timer slot runs and in which role (struct lc_arch's slot_use). */
enum lc_slot_use {
	/*
	 * every vCPU's own timer: its role alternates with the event, and
	 * where a vCPU has one such timer (x86) with the vCPU too
	 */
	LC_SLOT_EVERY_CPU,
	/* a device of the machine, its interrupt routed to the boot vCPU: periodic at every event */
	LC_SLOT_BOOT_PERIODIC,
	/* likewise: a one-shot armed before every event */
	LC_SLOT_BOOT_ONESHOT,
};

/* How a periodic timer of the arch half keeps its period. */
enum lc_periodic_kind {
	/* the timer reloads itself (LAPIC periodic mode): missed periods are the hypervisor's to replay */
	LC_PERIODIC_RELOAD,
	/*
	 * re-armed from its interrupt at the last deadline plus a period (an
	 * absolute schedule): a vCPU that did not run for a while takes the
	 * periods it missed at once, and that much catch-up is expected
	 */
	LC_PERIODIC_REARMED,
};

/*
 * A clock of the host's time of day in whole seconds (x86's CMOS RTC,
 * arm64's PL031), read after each event against the host's.
 */
struct lc_rtc {
	const char *name;
	const char *key;	/* its RESULT lines' name: eSEQ.KIND.KEY.tod_offset_ms */
	/* NULL when it is there and reads, else why not (an INFO: no such check) */
	const char *(*find)(void);
	/* A cheap read that changes at each of its seconds' edges, polled to time one. */
	u32 (*tick)(void);
	/* Its time of day: seconds since the epoch (as UTC), or why it could not be read. */
	const char *(*epoch)(u64 *secs);
	/* Set it to secs since the epoch, as a guest sets its clock: NULL, or why not. */
	const char *(*set)(u64 secs);
};

struct lc_arch {
	const char *name_of_slot[LC_MAX_SLOTS];
	enum lc_slot_use slot_use[LC_MAX_SLOTS];
	unsigned nslots;
	enum lc_periodic_kind periodic_kind;
	/* NULL when the machine has what the test needs, else why not (a SKIP) */
	const char *(*probe)(void);
	/* Once per vCPU, on that vCPU: route and enable the timers' interrupts. */
	void (*init_cpu)(void);
	/* On the calling vCPU; deadlines and periods in arch_counter() ticks. */
	void (*oneshot_at)(unsigned slot, u64 when);
	/*
	 * Tick about every period; returns the period programmed (a device
	 * with a few rates, the RTC, takes the nearest one at least as long).
	 */
	u64 (*periodic)(unsigned slot, u64 period);
	void (*stop)(unsigned slot);
	/* The guest's time of day in ns since the epoch, or NULL when the arch has no such clock here. */
	u64 (*tod_ns)(void);
	/* The clock of the host's time of day in seconds, or NULL. */
	const struct lc_rtc *rtc;
	/*
	 * This vCPU's "stopped by the host" flag (x86 under KVM:
	 * PVCLOCK_GUEST_STOPPED in its own kvmclock area), read and cleared as
	 * a guest's watchdog does: true when it was set. NULL when none here.
	 */
	bool (*take_stopped_flag)(void);
	/* Test-only (fault=stopped_reset): set this vCPU's flag again, as a faulty host would. */
	void (*set_stopped_flag)(void);
	const char *stopped_flag_name;
	const struct lc_clock *clocks;
	unsigned nclocks;
	/* NULL, or a clock of clocks the host derives from the counter by parameters */
	const struct lc_derived *derived;
	/* NULL, or how the guest writes its own counter (counter_set=) */
	const struct lc_counter_write *counter_write;
	enum lc_reset_counter counter_at_reset;
};

/*
 * The timer hooks every arch half has, each a static function named as
 * its member: an arch's struct lc_arch holds these and the rest its own.
 */
#define LC_ARCH_HOOKS                   \
	.probe = probe,                 \
	.init_cpu = init_cpu,           \
	.oneshot_at = oneshot_at,       \
	.periodic = periodic,           \
	.stop = stop

/*
 * The arch half's timer interrupt, on the vCPU it came to, with
 * arch_counter() read on entry. Returns the slot's role, so a periodic
 * timer that is re-armed by software knows to re-arm.
 */
enum lc_role lc_timer_fired(unsigned slot, u64 now);

/* The test: parse arguments, run each event, report. Returns the exit code. */
int lc_main(int argc, char **argv, const struct lc_arch *arch);

/*
 * The runner's answer to an event request, as parsed from
 * "LIFECYCLE-DONE KIND SEQ key=value ..." (docs/lifecycle.md).
 */
struct lc_done {
	enum lc_event kind;
	unsigned seq;
	u64 duration_ns;	/* the guest was stopped: QEMU's STOP to RESUME */
	u64 qmp_downtime_ns;	/* query-migrate's downtime (0 for a pause) */
	u64 total_ns;		/* request seen to answer sent */
	u64 overhead_ns;	/* pause: QEMU's stop and cont work, which a frozen clock may see */
	u64 host_req_ns;	/* host time of day when the request was seen */
	u64 host_ns;		/* host time of day when the answer was sent */
	/*
	 * the longest a vCPU thread of the guest's QEMUs waited for a host CPU
	 * during the event, plus the most this machine's own hypervisor stole
	 * from one CPU (0 from a runner that does not measure it)
	 */
	u64 vcpu_wait_ns;
	/*
	 * The host's waits around the event (0 from a runner that does not
	 * measure them; docs/lifecycle.md, "A busy host"): a vCPU's over the
	 * span before the request (the window before the event in it), any
	 * thread's of the guest's QEMUs or the runner's over that span and the
	 * event (what can delay the host's time stamps); and from the window
	 * answer, after the window after the event, the same two since the
	 * event's answer.
	 */
	u64 before_wait_ns;
	u64 stamp_wait_ns;
	u64 after_wait_ns;
	u64 after_stamp_wait_ns;
	/*
	 * reset only (the answer to the boot request after one): the counter
	 * and the report counts the guest sent with its reset request, which
	 * the runner hands back
	 */
	u64 counter;
	u64 tests;
	u64 failures;
	u64 skipped;
	/* a migration of a run (events=migrate=N): its place in the run, 1..N (0: an event alone) */
	u64 run;
};

/*
 * Parse an answer line (without the newline); false when it is not one.
 * Sequence numbers start at 1, but "reset 0" is the answer to the boot
 * request of a guest that has not been reset yet, and "window 0" to the
 * opening of the first event's window. "LIFECYCLE-DONE window
 * SEQ after_wait_ns=N after_stamp_wait_ns=N" answers the guest's last
 * words on event SEQ: its kind is LC_ANSWER_WINDOW, and the event's
 * facts are not required in it.
 */
#define LC_ANSWER_WINDOW LC_NR_EVENTS
bool lc_parse_done(const char *line, struct lc_done *out);
/* The first words of every request line the guest writes (scripts/lifecycle_protocol.py's REQUEST). */
#define LC_REQUEST	"LIFECYCLE-REQUEST: "
const char *lc_event_name(enum lc_event kind);

#endif
