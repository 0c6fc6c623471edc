// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/cpu_cycle/cpu_cycle_check.c, the cpu-off-on engine's judgments, on the host,
 * with the real lib/handoff.c and lib/report.c under it.
 * What: what a hand-off shows of each vCPU (its first and last reads, its
 * offset to the boot vCPU's counter); a hand-off read that went back,
 * either way round, equal reads not; a vCPU's first read after a cycle
 * behind its last before; a step of one vCPU's offset to the boot vCPU's,
 * and CNTVCT - CNTPCT moved on any vCPU before or after, each judged
 * against GRAIN_TICKS from both sides (brackets 1 tick apart are one
 * offset, 2 apart are not); no interrupt on the restarted vCPU; a check's
 * cycles counted once each however many reads or vCPUs failed it, its
 * first failure's message kept; report_checks' lines (PASS, FAIL with "N
 * of M cycles", SKIP of the interrupt check, no offset line without a
 * physical count). (The arguments: test_cpu_cycle_args.c.)
 * Why: a guest run on a good host shows each check passing, and the
 * guest's fault= shows each failing once with figures of that run; the
 * bounds (GRAIN_TICKS, "at least the read before") and the counting are
 * hit from both sides only here.
 * How: records written out as literals (a clean cycle of three vCPUs, one
 * field changed per case), table-driven; an arm64-like arch (CNTVCT, a
 * CNTPCT hook that must not be called, SGI 3) and an x86-like one (TSC, no
 * physical count); a counter at 2 GHz (fake_checks_arch.h: 2 ticks a ns);
 * outcome lines captured (console_capture.h).
 */
/* LIBSRC: common/cpu_cycle/cpu_cycle_check.c lib/handoff.c lib/wait.c lib/stats.c */
/* LIBSRC: lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "host_shim.h"
#include "../common/cpu_cycle/cpu_cycle_check.h"
#include "../lib/report.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NCPUS	     3
#include "fake_checks_arch.h"
#include "fake_checks_never.h"

/* --- the arch's hooks: the checks judge a record, they run nothing -------------------- */

static u64 phys_never(void)
{
	fail_msg("a check read the physical count");
	return 0;
}

static const struct cpu_cycle_arch arm = {
	.counter = "CNTVCT",
	.phys_read = phys_never,
	.phys_counter = "CNTPCT",
	.irq_name = "SGI 3",
};
static const struct cpu_cycle_arch x86 = {.counter = "TSC", .irq_name = "IPI (vector 0xe8)"};

/* --- the checks' tallies -------------------------------------------------------- */

static const char *const check_names[NR_CHECKS] = {"hand-off", "own reads", "step", "offset",
						   "interrupt"};
/* Each check's bound, and where it comes from, for the messages. */
#define GRAIN "GRAIN_TICKS 1, the counter's grain: brackets 1 tick apart are one offset, 2 are not"
static const char *const bounds[NR_CHECKS] = {
	[CHECK_HANDOFF] = "each read at least the one before it: equal reads are in order",
	[CHECK_OWN] = "the first read after at least the last before: an equal one is not back",
	[CHECK_STEP] = GRAIN,
	[CHECK_OFFSET] = GRAIN,
	[CHECK_IRQ] = "one interrupt is enough",
};

/* Check ch failed want cycles (why says where that comes from) and kept want_first, if given. */
static void expect_tally(const struct cc_checks *k, enum cc_check ch, const char *what,
			 unsigned want, const char *want_first, const char *why)
{
	const struct cc_check_state *st = &k->state[ch];

	if (st->failed != want)
		fail_msg("%s: the %s check failed %u cycles, want %u (%s)", what, check_names[ch],
			 st->failed, want, why);
	if (want_first && strcmp(st->first, want_first))
		fail_msg("%s: the %s check said '%s', want '%s'", what, check_names[ch], st->first,
			 want_first);
}

/* --- a hand-off: what each vCPU showed, and a read that went back ----------------- */

#define TURN_TICKS 20 /* boot reads TURN_TICKS apart, each peer read half-way */

/* A hand-off in order from base, the peer's counter off ticks from the boot vCPU's. */
static void handoff_fill(struct handoff *ho, u64 base, s64 off)
{
	for (unsigned r = 0; r <= HANDOFF_ROUNDS; r++)
		ho->boot[r] = base + r * TURN_TICKS;
	for (unsigned r = 0; r < HANDOFF_ROUNDS; r++)
		ho->peer[r] = base + r * TURN_TICKS + TURN_TICKS / 2 + off;
}

/*
 * cpu 0: the first read of its first hand-off (cpu 1's) and the last of its
 * last (cpu 2's); a peer: its own first and last (round 63) reads, and its
 * offset +-10 (a read half a turn after a boot read, half a turn before the
 * next).
 */
#define LAST_PEER_READ (TURN_TICKS / 2 + (HANDOFF_ROUNDS - 1) * TURN_TICKS)
static const struct cc_view taken[NCPUS] = {
	{1000, 5000 + HANDOFF_ROUNDS *TURN_TICKS, {0, 0}},
	{1004 + TURN_TICKS / 2, 1004 + LAST_PEER_READ, {4 - TURN_TICKS / 2, 4 + TURN_TICKS / 2}},
	{4994 + TURN_TICKS / 2, 4994 + LAST_PEER_READ, {-6 - TURN_TICKS / 2, -6 + TURN_TICKS / 2}},
};

static void test_take_handoff(void **state)
{
	static struct handoff ho1, ho2;
	struct cc_view v[NCPUS];

	memset(v, 0x5a, sizeof(v));
	handoff_fill(&ho1, 1000, 4);
	handoff_fill(&ho2, 5000, -6);
	cc_take_handoff(v, 1, &ho1);
	cc_take_handoff(v, 2, &ho2);
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		const struct cc_view *g = &v[cpu], *w = &taken[cpu];

		if (g->first != w->first || g->last != w->last || g->off.lo != w->off.lo ||
		    g->off.hi != w->off.hi)
			fail_msg("hand-offs with cpus 1 and 2: cpu %d showed reads %llu..%llu, "
				 "offset "
				 "[%lld, %lld]; want %llu..%llu, [%lld, %lld]",
				 cpu, g->first, g->last, g->off.lo, g->off.hi, w->first, w->last,
				 w->off.lo, w->off.hi);
	}
}

enum side { PEER_READ, BOOT_READ };

/* One read of an ordered hand-off (base 1000) set to the read before it plus delta. */
struct order_case {
	const char *what;
	enum side side;
	unsigned round;
	s64 delta;
	const char *want; /* the check's message, or NULL: it passes */
};

static const struct order_case orders[] = {
	{"in order", PEER_READ, 5, TURN_TICKS / 2, NULL},
	{"the peer's read equal to the boot vCPU's before it", PEER_READ, 5, 0, NULL},
	{"the boot vCPU's read equal to the peer's before it", BOOT_READ, 6, 0, NULL},
	{"the peer's read 4 behind", PEER_READ, 5, -4,
	 "cycle 2, after: cpu 1 read CNTVCT 1096 after cpu 0 read 1100: back by 4 ticks (2 ns)"},
	{"the boot vCPU's read 2 behind", BOOT_READ, 6, -2,
	 "cycle 2, after: cpu 0 read CNTVCT 1108 after cpu 1 read 1110: back by 2 ticks (1 ns)"},
	{"the peer's last read 1 behind", PEER_READ, HANDOFF_ROUNDS - 1, -1,
	 "cycle 2, after: cpu 1 read CNTVCT 2259 after cpu 0 read 2260: back by 1 ticks (0 ns)"},
};

static void test_order(void **state)
{
	static struct handoff ho;

	for (size_t i = 0; i < ARRAY_LEN(orders); i++) {
		const struct order_case *c = &orders[i];
		struct cc_checks k = {.arch = &arm};

		handoff_fill(&ho, 1000, 0);
		if (c->side == PEER_READ)
			ho.peer[c->round] = ho.boot[c->round] + c->delta;
		else
			ho.boot[c->round] = ho.peer[c->round - 1] + c->delta;
		cc_check_order(&k, 2, "after", 1, &ho);
		expect_tally(&k, CHECK_HANDOFF, c->what, !!c->want, c->want, bounds[CHECK_HANDOFF]);
	}
}

/* --- a cycle's views: each vCPU's own reads, the step, CNTVCT - CNTPCT ------------ */

/*
 * A clean cycle: cpu N read 1000 + N first and 2000 + N last before, 3000 +
 * N and 4000 after; its offset to cpu 0 in [100N - 5, 100N + 5] and CNTVCT -
 * CNTPCT in [-3, 3] before and after.
 */
static void clean_cycle(struct cc_cycle *c, unsigned n)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->ncpus = NCPUS;
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		s64 off = cpu ? 100 * cpu : 0, half = cpu ? 5 : 0;

		c->before[cpu] =
			(struct cc_view){1000 + cpu, 2000 + cpu, {off - half, off + half}, {-3, 3}};
		c->after[cpu] =
			(struct cc_view){3000 + cpu, 4000 + cpu, {off - half, off + half}, {-3, 3}};
	}
}

enum field { NOTHING, AFTER_FIRST, AFTER_OFF, BEFORE_PHYS, AFTER_PHYS };

/* One field of a clean cycle changed: a first read after = last before + by, or a bracket moved. */
struct views_case {
	const char *what;
	enum field field;
	int cpu;
	s64 by;
	enum cc_check fails; /* NR_CHECKS: none */
	const char *want;
};

static const struct views_case views[] = {
	{"a clean cycle", NOTHING, 0, 0, NR_CHECKS, NULL},
	{"cpu 0's first read after equal to its last before", AFTER_FIRST, 0, 0, NR_CHECKS, NULL},
	{"cpu 0's first read after 2 behind its last before", AFTER_FIRST, 0, -2, CHECK_OWN,
	 "cycle 1: cpu 0 read CNTVCT 2000 before the cycle and 1998 after it: "
	 "back by 2 ticks (1 ns)"},
	{"cpu 2's first read after 4 behind", AFTER_FIRST, 2, -4, CHECK_OWN,
	 "cycle 1: cpu 2 read CNTVCT 2002 before the cycle and 1998 after it: "
	 "back by 4 ticks (2 ns)"},
	{"cpu 1's offset 5 up: the brackets overlap", AFTER_OFF, 1, 5, NR_CHECKS, NULL},
	{"cpu 1's offset 11 up: brackets GRAIN_TICKS apart", AFTER_OFF, 1, 11, NR_CHECKS, NULL},
	{"cpu 1's offset 12 up: 2 apart", AFTER_OFF, 1, 12, CHECK_STEP,
	 "cycle 1: cpu 1's CNTVCT minus cpu 0's was in [95, 105] before the cycle, in [107, 117] "
	 "after it: a step of at least 2 ticks (1 ns)"},
	{"cpu 2's offset 11 down: GRAIN_TICKS apart", AFTER_OFF, 2, -11, NR_CHECKS, NULL},
	{"cpu 2's offset 12 down: 2 apart", AFTER_OFF, 2, -12, CHECK_STEP,
	 "cycle 1: cpu 2's CNTVCT minus cpu 0's was in [195, 205] before the cycle, in [183, 193] "
	 "after it: a step of at least 2 ticks (1 ns)"},
	{"CNTVCT - CNTPCT on cpu 1 after 7 up: GRAIN_TICKS apart", AFTER_PHYS, 1, 7, NR_CHECKS,
	 NULL},
	{"CNTVCT - CNTPCT on cpu 1 after 8 up: 2 apart", AFTER_PHYS, 1, 8, CHECK_OFFSET,
	 "cycle 1: CNTVCT - CNTPCT on cpu 1 after the cycle is in [5, 11], on cpu 0 before it in "
	 "[-3, 3]: the offset moved by at least 2 ticks (1 ns)"},
	{"CNTVCT - CNTPCT on cpu 2 before 7 down: GRAIN_TICKS apart", BEFORE_PHYS, 2, -7, NR_CHECKS,
	 NULL},
	{"CNTVCT - CNTPCT on cpu 2 before 8 down: 2 apart", BEFORE_PHYS, 2, -8, CHECK_OFFSET,
	 "cycle 1: CNTVCT - CNTPCT on cpu 2 before the cycle is in [-11, -5], "
	 "on cpu 0 before it in [-3, 3]: the offset moved by at least 2 ticks (1 ns)"},
	{"CNTVCT - CNTPCT on cpu 0 after 1000 down (every counter reset)", AFTER_PHYS, 0, -1000,
	 CHECK_OFFSET,
	 "cycle 1: CNTVCT - CNTPCT on cpu 0 after the cycle is in [-1003, -997], "
	 "on cpu 0 before it in [-3, 3]: the offset moved by at least 994 ticks (497 ns)"},
};

static void move(struct bracket *b, s64 by)
{
	b->lo += by;
	b->hi += by;
}

static void apply(struct cc_cycle *c, const struct views_case *v)
{
	switch (v->field) {
	case NOTHING:
		break;
	case AFTER_FIRST:
		c->after[v->cpu].first = c->before[v->cpu].last + v->by;
		break;
	case AFTER_OFF:
		move(&c->after[v->cpu].off, v->by);
		break;
	case BEFORE_PHYS:
		move(&c->before[v->cpu].phys, v->by);
		break;
	case AFTER_PHYS:
		move(&c->after[v->cpu].phys, v->by);
		break;
	}
}

static void test_views(void **state)
{
	static struct cc_cycle c;

	for (size_t i = 0; i < ARRAY_LEN(views); i++) {
		const struct views_case *v = &views[i];
		struct cc_checks k = {.arch = &arm};

		clean_cycle(&c, 1);
		apply(&c, v);
		cc_check_views(&k, &c);
		cc_check_phys(&k, &c);
		for (unsigned ch = 0; ch < NR_CHECKS; ch++)
			expect_tally(&k, ch, v->what, ch == v->fails,
				     ch == v->fails ? v->want : NULL, bounds[ch]);
	}
}

/* --- the interrupt, and the counting over cycles --------------------------------- */

static void test_irq(void **state)
{
	static const u32 seen[] = {0, 1, 5};
	static const char *const none = "cycle 3: cpu 2 took no interrupt within 1000 ms of an "
					"SGI 3 sent to it after its restart";
	char what[64];

	for (size_t i = 0; i < ARRAY_LEN(seen); i++) {
		struct cc_checks k = {.arch = &arm};

		snprintf(what, sizeof(what), "%u interrupts seen", seen[i]);
		cc_check_irq(&k, 3, 2, seen[i]);
		expect_tally(&k, CHECK_IRQ, what, !seen[i], seen[i] ? NULL : none,
			     bounds[CHECK_IRQ]);
	}
}

#define OWN_MSG_CYCLE1                                                                         \
	"cycle 1: cpu 0 read CNTVCT 2000 before the cycle and 1998 after it: back by 2 ticks " \
	"(1 ns)"

/*
 * Five cycles: in 1 cpu 0 and cpu 2 back (both hand-offs' order too), 2
 * clean, in 3 cpu 1 back, 4 clean, in 5 cpu 2's offset steps: the own-reads
 * check fails 2 cycles and keeps cycle 1's cpu 0, the step 1, the rest none.
 */
static void five_cycles(struct cc_checks *k)
{
	static const struct views_case back0 = {"", AFTER_FIRST, 0, -2},
				       back1 = {"", AFTER_FIRST, 1, -2},
				       back2 = {"", AFTER_FIRST, 2, -2},
				       step2 = {"", AFTER_OFF, 2, 50};
	static struct cc_cycle c;
	static struct handoff ho;

	handoff_fill(&ho, 1000, 0);
	ho.peer[3] = ho.boot[3] - 2;
	for (unsigned n = 1; n <= 5; n++) {
		clean_cycle(&c, n);
		if (n == 1) {
			apply(&c, &back0);
			apply(&c, &back2);
			cc_check_order(k, n, "before", 1, &ho);
			cc_check_order(k, n, "after", 2, &ho);
		}
		if (n == 3)
			apply(&c, &back1);
		if (n == 5)
			apply(&c, &step2);
		cc_check_views(k, &c);
		cc_check_phys(k, &c);
		cc_check_irq(k, n, 2, 1);
	}
}

static void test_counting(void **state)
{
	static const unsigned want[NR_CHECKS] = {
		[CHECK_HANDOFF] = 1, [CHECK_OWN] = 2, [CHECK_STEP] = 1};
	static const char *const want_first[NR_CHECKS] = {
		[CHECK_HANDOFF] = "cycle 1, before: cpu 1 read CNTVCT 1058 after cpu 0 read 1060: "
				  "back by 2 ticks (1 ns)",
		[CHECK_OWN] = OWN_MSG_CYCLE1,
		[CHECK_STEP] = "cycle 5: cpu 2's CNTVCT minus cpu 0's was in [195, 205] before the "
			       "cycle, in [245, 255] after it: a step of at least 40 ticks (20 ns)",
	};
	struct cc_checks k = {.arch = &arm};

	five_cycles(&k);
	for (unsigned ch = 0; ch < NR_CHECKS; ch++)
		expect_tally(&k, ch, "five cycles", want[ch], want_first[ch],
			     "a cycle counts once however many reads or vCPUs failed it, the first "
			     "failure's message kept");
}

/* --- report_checks' lines ------------------------------------------------------- */

struct report_case {
	const struct cpu_cycle_arch *arch;
	unsigned failing_cycles; /* of the own-reads check, from cycle 1 */
	u64 cycles;
	const char *irq_skip;
};

static void report_run(const void *arg)
{
	const struct report_case *r = arg;
	struct cc_checks k = {.arch = r->arch};
	struct cc_cycle c;

	for (unsigned n = 1; n <= r->failing_cycles; n++) {
		static const struct views_case back0 = {"", AFTER_FIRST, 0, -2};

		clean_cycle(&c, n);
		apply(&c, &back0);
		cc_check_views(&k, &c);
	}
	cc_report_checks(&k, r->cycles, r->irq_skip);
}

#define W_HANDOFF "no read went back from one vCPU's read to the next one's"
#define W_OWN	  "each vCPU's counter went on across each cycle"
#define W_STEP	  "no vCPU's counter stepped against the boot vCPU's over a cycle"
#define W_OFFSET  "the counter's offset to the physical count the same on every vCPU"
#define W_IRQ	  "the restarted vCPU took an interrupt after each restart"

static void test_report(void **state)
{
	static const struct report_case clean_arm = {&arm, 0, 3, NULL},
					failing_x86 = {&x86, 1, 1, "no local APIC"},
					failing_arm = {&arm, 2, 5, NULL};
	char out[CAPTURE_MAX];

	capture(report_run, &clean_arm, out, sizeof(out));
	EXACTLY(out, "PASS: " W_HANDOFF " (3 cycles)", "PASS: " W_OWN " (3 cycles)",
		"PASS: " W_STEP " (3 cycles)", "PASS: " W_OFFSET " (3 cycles)",
		"PASS: " W_IRQ " (3 cycles)");
	capture(report_run, &failing_x86, out, sizeof(out));
	if (strstr(out, W_OFFSET))
		fail_msg("an arch without a physical count (no phys_read): report_checks printed "
			 "the "
			 "offset check's line, which judges CNTVCT - CNTPCT");
	EXACTLY(out, "PASS: " W_HANDOFF " (1 cycles)",
		"FAIL: " W_OWN ": cycle 1: cpu 0 read TSC 2000 before the cycle and 1998 after it: "
		"back by 2 ticks (1 ns) (1 of 1 cycles failed it)",
		"PASS: " W_STEP " (1 cycles)", "SKIP: " W_IRQ ": no local APIC");
	capture(report_run, &failing_arm, out, sizeof(out));
	EXACTLY(out, "PASS: " W_HANDOFF " (5 cycles)",
		"FAIL: " W_OWN ": " OWN_MSG_CYCLE1 " (2 of 5 cycles failed it)",
		"PASS: " W_STEP " (5 cycles)", "PASS: " W_OFFSET " (5 cycles)",
		"PASS: " W_IRQ " (5 cycles)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_handoff), cmocka_unit_test(test_order),
		cmocka_unit_test(test_views),	     cmocka_unit_test(test_irq),
		cmocka_unit_test(test_counting),     cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
