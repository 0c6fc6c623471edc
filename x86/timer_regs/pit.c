/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs' PIT family (Intel 8254 data sheet): the counter latch and
 * read-back commands and the status byte, the output and reload of modes
 * 0, 2 and 3, the count's read in the LSB-only and MSB-only access modes,
 * BCD counting and the gate.
 *
 * All on counter 2, whose gate and output port 0x61 gives the guest
 * (NMI status and control: GATE2 bit 0, OUT2 bit 5) and which interrupts
 * nothing; the speaker stays off. Counter 0 stays as main() left it.
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "report.h"
#include "units.h"
#include "x86/io.h"
#include "x86/pit.h"
#include "x86/processor.h"
#include "x86/timer_regs.h"

#define CH 2
/* what a latched count must be behind the live one after HOLD_US (half the counts HOLD_US is) */
#define HOLD_US		500
#define HOLD_MIN_COUNTS (PIT_HZ / 2 * HOLD_US / 1000000)
/* counts of the mode checks: mode 0 about 5 ms, modes 2 and 3 about 0.84 ms */
#define ONESHOT_COUNT 6000
#define RATE_COUNT    1000
#define MUST_COME_US  50000
#define PIT_TRIES     3
#define SAMPLES	      2000
/* the modes' OUT sampled over about 12 periods */
#define SAMPLE_US 10000
/* mode 2's OUT is low one clock a period (1 in RATE_COUNT): high in at least 90% of samples */
#define MODE2_HIGH_PCT 90
/* mode 3's OUT is high half the period */
#define MODE3_HIGH_LO_PCT 35
#define MODE3_HIGH_HI_PCT 65
/*
 * Modes 2 and 3: OUT's share of time high is summed over the stretches between samples
 * no more than DENSE_GAP_US apart (0.3-1 us at rest under TCG): a longer
 * gap is the host holding the vCPU, and the samples around it say nothing
 * of OUT within it. One such gap left a run with 300 samples, all in one
 * half-period (beside a build, QEMU's threads waiting 571 ms in 682 ms).
 * Two transitions a period at most 20 us off each: the share within 5% of
 * 838 us. Sampling goes on until SAMPLE_US of such stretches, for at most
 * SAMPLE_MAX_US.
 */
#define DENSE_GAP_US  20
#define SAMPLE_MAX_US 500000
#define BCD_COUNT     0x0100
#define LSB_COUNT     200
#define MSB_COUNT     0x10

static u8 port_b_saved;

/* ---- access, and the faults that imitate a buggy PIT ---------------------------------- */

static void control(u8 cw)
{
	bool program = (cw & PIT_SC_READ_BACK) != PIT_SC_READ_BACK && (cw & PIT_RW_LSB_MSB);

	if (program && opt.fault == FAULT_PIT_MODE)
		cw = (cw & ~PIT_STATUS_MODE_MASK) | PIT_MODE((((cw >> 1) & 7) + 3) % 4);
	if (program && opt.fault == FAULT_PIT_ACCESS)
		cw |= PIT_RW_LSB_MSB;
	outb(cw, PIT_MODE_CMD);
}

static void gate(bool high)
{
	u8 b = inb(PIT_PORT_B) & ~(PIT_PORT_B_GATE2 | PIT_PORT_B_SPEAKER);

	outb(b | (high ? PIT_PORT_B_GATE2 : 0), PIT_PORT_B);
}

static bool out2(void)
{
	/* bit 4 is the refresh toggle, which pit_out reads by mistake */
	return inb(PIT_PORT_B) &
	       (opt.fault == FAULT_PIT_OUT ? PIT_PORT_B_OUT2 >> 1 : PIT_PORT_B_OUT2);
}

/* Program counter 2 in mode with access rw and count, its gate low while loading, then high. */
static void load(unsigned mode, u8 rw, u16 count, u8 bcd)
{
	gate(false);
	control(PIT_SC(CH) | rw | PIT_MODE(mode) | bcd);
	if (rw != PIT_RW_MSB)
		outb((u8)count, PIT_CH2_DATA);
	if (rw != PIT_RW_LSB)
		outb((u8)(count >> 8), PIT_CH2_DATA);
	gate(true);
}

/* The counter latch command; pit_no_latch leaves it out, so the reads see the live counter. */
static void latch(void)
{
	if (opt.fault != FAULT_PIT_NO_LATCH)
		control(PIT_SC(CH) | PIT_RW_LATCH);
}

/* A count in LSB-then-MSB access: the latched one if latched, else the live one. */
static u16 read16(void)
{
	u8 lo = inb(PIT_CH2_DATA), hi = inb(PIT_CH2_DATA);

	return (u16)(lo | hi << 8);
}

static u16 latched(void)
{
	latch();
	return read16();
}

/* The read-back command for counter 2: its status byte, then its count. */
static u8 read_back(u16 *count)
{
	u8 cmd = PIT_SC_READ_BACK | PIT_RB_CNT(CH), status;

	if (opt.fault == FAULT_PIT_STATUS)
		cmd |= PIT_RB_NO_STATUS;
	if (opt.fault != FAULT_PIT_NO_LATCH)
		outb(cmd, PIT_MODE_CMD);
	status = inb(PIT_CH2_DATA);
	*count = read16();
	return status;
}

/* How far a down-counter moved from a to b, modulo its 2^16 wrap. */
static unsigned moved(u16 a, u16 b)
{
	return (u16)(a - b);
}

/* ---- the counter latch command -------------------------------------------------------- */

/*
 * Latch, wait HOLD_US and latch `again` more times, then read the count
 * (the first latch's, if the later ones were ignored) and the live one.
 */
static void latch_and_hold(unsigned again, u16 *held, u16 *live)
{
	latch();
	spin_us(HOLD_US);
	while (again--)
		latch();
	*held = read16();
	*live = latched();
}

static void latch_checks(void)
{
	u16 l, c;

	load(2, PIT_RW_LSB_MSB, 0, 0);
	latch_and_hold(0, &l, &c);
	report(moved(l, c) >= HOLD_MIN_COUNTS,
	       "counter latch: the count latched %u us before reading is %u, the live count then "
	       "%u: %u apart (at least %u: the latch held it)",
	       HOLD_US, l, c, moved(l, c), HOLD_MIN_COUNTS);
	latch_and_hold(1, &l, &c);
	report(moved(l, c) >= HOLD_MIN_COUNTS,
	       "counter latch twice %u us apart, then read: %u, the live count %u: %u apart (at "
	       "least %u: the second latch is ignored)",
	       HOLD_US, l, c, moved(l, c), HOLD_MIN_COUNTS);
}

/* ---- the read-back command and the status byte ---------------------------------------- */

static const char *const rw_names[] = {"latch", "LSB", "MSB", "LSB then MSB"};

/* The read-back's status byte after each way of programming the channel. */
static void status_checks(void)
{
	static const struct {
		unsigned mode;
		u8 rw, bcd;
		u16 count;
	} progs[] = {
		{0, PIT_RW_LSB_MSB, 0, ONESHOT_COUNT},
		{2, PIT_RW_LSB, 0, LSB_COUNT},
		{3, PIT_RW_MSB, 0, MSB_COUNT << 8},
		{2, PIT_RW_LSB_MSB, PIT_BCD, BCD_COUNT},
	};
	u16 count;
	u8 st;

	for (unsigned i = 0; i < ARRAY_SIZE(progs); i++) {
		u8 want = PIT_MODE(progs[i].mode) | progs[i].rw | progs[i].bcd;

		load(progs[i].mode, progs[i].rw, progs[i].count, progs[i].bcd);
		st = read_back(&count);
		report((st & (PIT_STATUS_MODE_MASK | PIT_STATUS_RW_MASK | PIT_STATUS_BCD)) == want,
		       "read-back status %#x after programming mode %u, %s, %s: mode %u, access "
		       "%s, BCD %u",
		       st, progs[i].mode, rw_names[progs[i].rw >> 4],
		       progs[i].bcd ? "BCD" : "binary", (st >> 1) & 7, rw_names[(st >> 4) & 3],
		       st & PIT_STATUS_BCD);
	}
}

/* The read-back's OUTPUT bit in mode 0, and its count latched like the latch command's. */
static void read_back_checks(void)
{
	u16 count, live;
	u8 st;

	/* mode 0: OUT is low until terminal count, and the status byte's OUTPUT says so */
	load(0, PIT_RW_LSB_MSB, ONESHOT_COUNT, 0);
	st = read_back(&count);
	report(!(st & PIT_STATUS_OUTPUT) && count <= ONESHOT_COUNT && count > ONESHOT_COUNT / 2,
	       "read-back in mode 0 right after the count: OUTPUT %u (0), count %u (%u..%u: loaded "
	       "and "
	       "counting)",
	       !!(st & PIT_STATUS_OUTPUT), count, ONESHOT_COUNT / 2, ONESHOT_COUNT);
	/* read-back latches the count like the latch command: held until read */
	load(2, PIT_RW_LSB_MSB, 0, 0);
	if (opt.fault != FAULT_PIT_NO_LATCH)
		outb(PIT_SC_READ_BACK | PIT_RB_NO_STATUS | PIT_RB_CNT(CH), PIT_MODE_CMD);
	spin_us(HOLD_US);
	count = read16();
	live = latched();
	report(moved(count, live) >= HOLD_MIN_COUNTS,
	       "read-back of the count: %u read %u us later, the live count %u: %u apart (at least "
	       "%u: held)",
	       count, HOLD_US, live, moved(count, live), HOLD_MIN_COUNTS);
}

/* Mode 1 waits for the gate's rising edge to load its count: the count is null until then. */
static void mode1_gate_checks(void)
{
	u16 count;
	u8 st;

	gate(false);
	control(PIT_SC(CH) | PIT_RW_LSB_MSB | PIT_MODE(1));
	outb((u8)ONESHOT_COUNT, PIT_CH2_DATA);
	outb((u8)(ONESHOT_COUNT >> 8), PIT_CH2_DATA);
	st = read_back(&count);
	report_kfail(st & PIT_STATUS_NULL_COUNT, DEFECT_QEMU("pit-null-count"),
		     "read-back status %#x in mode 1 with a count written and the gate low: NULL "
		     "COUNT %u (1: "
		     "not loaded before the trigger)",
		     st, !!(st & PIT_STATUS_NULL_COUNT));
	report_kfail(st & PIT_STATUS_OUTPUT, DEFECT_QEMU("pit-mode1-out"),
		     "read-back status %#x in mode 1 before the gate's trigger: OUTPUT %u (1: high "
		     "until the "
		     "trigger)",
		     st, !!(st & PIT_STATUS_OUTPUT));
	gate(true);
	{
		bool out = out2();
		u16 c = latched();

		/* read before terminal count when the count read after it still runs */
		report_kfail(!out || c == 0 || c > ONESHOT_COUNT, DEFECT_QEMU("pit-mode1-out"),
			     "mode 1 right after the gate's trigger: OUT %s, the count then %u "
			     "(low while the "
			     "one-shot counts %u)",
			     out ? "high" : "low", c, ONESHOT_COUNT);
	}
}

/* ---- modes 0, 2 and 3: OUT and the reload ---------------------------------------------- */

static bool out_high_within(u64 us)
{
	u64 end = rdtsc() + tsc_from_us(us);

	while (!out2())
		if (rdtsc() > end)
			return false;
	return true;
}

/* Mode 0, interrupt on terminal count: OUT low from the count's write to terminal count, then high.
 */
static void mode0_checks(void)
{
	bool low_at_load = false, low_before = false, high;
	u16 c = 0, after;

	/* OUT read before the count: with the count still running then, OUT was read before
	 * terminal count */
	for (unsigned t = 0; t < PIT_TRIES; t++) {
		load(0, PIT_RW_LSB_MSB, ONESHOT_COUNT, 0);
		low_at_load = !out2();
		spin_us(HOLD_US);
		low_before = !out2();
		c = latched();
		if (c > 0 && c <= ONESHOT_COUNT)
			break;
	}
	report(low_at_load, "mode 0: OUT %s right after the count's write (low)",
	       low_at_load ? "low" : "high");
	report(low_before,
	       "mode 0: OUT %s %u us later, the count then at %u of %u (low before terminal count)",
	       low_before ? "low" : "high", HOLD_US, c, ONESHOT_COUNT);
	high = out_high_within(MUST_COME_US);
	spin_us(HOLD_US);
	after = latched();
	report(high && after > ONESHOT_COUNT,
	       "mode 0: OUT %s within 50 ms; the count then reads %u (high; above %u: it counts on "
	       "past 0, "
	       "wrapped)",
	       high ? "high" : "still low", after, ONESHOT_COUNT);
}

/* OUT sampled: the TSC time it was high and sampled densely, what the gaps left out; the counts. */
struct out_time {
	u64 high, dense, gaps;
	unsigned n, odd, reloads, most;
};

/*
 * Sample OUT and the latched count until SAMPLE_US of dense stretches or
 * SAMPLE_MAX_US: OUT's time high, the counts read odd, the reloads (a count
 * above the one before) and the largest count.
 */
static struct out_time sample_out_time(void)
{
	struct out_time o = {0};
	u64 gap_max = tsc_from_us(DENSE_GAP_US), need = tsc_from_us(SAMPLE_US);
	u64 prev = rdtsc(), end = prev + tsc_from_us(SAMPLE_MAX_US);
	bool was = out2();
	u16 last = latched();

	while (o.dense < need && prev < end) {
		bool out = out2();
		u64 now = rdtsc(), d = now - prev;
		u16 c = latched();

		if (d <= gap_max) {
			o.dense += d;
			o.high += was ? d : 0;
		} else {
			o.gaps += d;
		}
		o.odd += c & 1;
		o.reloads += c > last;
		o.most = max(o.most, (unsigned)c);
		o.n++;
		was = out;
		prev = now;
		last = c;
	}
	return o;
}

/* Whether the samples cover SAMPLE_US densely; a SKIP saying what the host held when not. */
static bool out_time_judged(unsigned mode, const struct out_time *o)
{
	if (o->dense >= tsc_from_us(SAMPLE_US))
		return true;
	report_skip("mode %u: only %llu of %u us sampled with no gap over %u us in %u ms (the host "
		    "held the vCPU %llu us): OUT's share of the period not judged",
		    mode, us_from_tsc(o->dense), SAMPLE_US, DENSE_GAP_US, SAMPLE_MAX_US / 1000,
		    us_from_tsc(o->gaps));
	return false;
}

/* Mode 2, rate generator: OUT high but for one clock a period; the count reloads from the register.
 */
static void mode2_checks(void)
{
	struct out_time o;

	load(2, PIT_RW_LSB_MSB, RATE_COUNT, 0);
	o = sample_out_time();
	if (out_time_judged(2, &o))
		report_kfail(o.high * 100 >= o.dense * MODE2_HIGH_PCT, DEFECT_QEMU("pit-mode2-out"),
			     "mode 2: OUT high %llu of %llu us sampled, %u samples (at least %u%%: "
			     "low one "
			     "clock a period; gaps over %u us left out: %llu us)",
			     us_from_tsc(o.high), us_from_tsc(o.dense), o.n, MODE2_HIGH_PCT,
			     DENSE_GAP_US, us_from_tsc(o.gaps));
	report(o.reloads > 0 && o.most <= RATE_COUNT,
	       "mode 2: the count reloaded %u times in %u samples, never above %u (the count "
	       "written: "
	       "%u)",
	       o.reloads, o.n, o.most, RATE_COUNT);
}

/* Mode 3, square wave: OUT high for half the period, the count going down by 2. */
static void mode3_checks(void)
{
	struct out_time o;

	load(3, PIT_RW_LSB_MSB, RATE_COUNT, 0);
	o = sample_out_time();
	if (out_time_judged(3, &o))
		report(o.high * 100 >= o.dense * MODE3_HIGH_LO_PCT &&
			       o.high * 100 <= o.dense * MODE3_HIGH_HI_PCT,
		       "mode 3: OUT high %llu of %llu us sampled, %u samples (%u..%u%%: a square "
		       "wave; "
		       "gaps over %u us left out: %llu us)",
		       us_from_tsc(o.high), us_from_tsc(o.dense), o.n, MODE3_HIGH_LO_PCT,
		       MODE3_HIGH_HI_PCT, DENSE_GAP_US, us_from_tsc(o.gaps));
	report(o.odd == 0, "mode 3: %u of %u counts read odd (0: an even count goes down by 2)",
	       o.odd, o.n);
}

/* ---- access modes, BCD and the gate ---------------------------------------------------- */

static void access_checks(void)
{
	unsigned most = 0;
	u64 end;

	/* LSB only: the count is the one byte written; a latched read is one byte */
	load(2, PIT_RW_LSB, LSB_COUNT, 0);
	for (end = rdtsc() + tsc_from_us(SAMPLE_US); rdtsc() < end;) {
		latch();
		most = max(most, (unsigned)inb(PIT_CH2_DATA));
	}
	report(most <= LSB_COUNT && most > 0,
	       "LSB-only access, %u written: latched one-byte reads over %u ms never above %u (%u)",
	       LSB_COUNT, SAMPLE_US / 1000, LSB_COUNT, most);
	/* MSB only: the count is the byte written times 256; a read gives its high byte */
	load(2, PIT_RW_MSB, MSB_COUNT << 8, 0);
	most = 0;
	for (end = rdtsc() + tsc_from_us(SAMPLE_US); rdtsc() < end;) {
		latch();
		most = max(most, (unsigned)inb(PIT_CH2_DATA));
	}
	report(most <= MSB_COUNT && most > 0,
	       "MSB-only access, %#x written (count %#x): latched one-byte reads over %u ms never "
	       "above %#x "
	       "(%#x)",
	       MSB_COUNT, MSB_COUNT << 8, SAMPLE_US / 1000, MSB_COUNT, most);
}

static bool is_bcd(u16 v)
{
	for (unsigned d = 0; d < 4; d++)
		if (((v >> (4 * d)) & 0xf) > 9)
			return false;
	return true;
}

static void bcd_gate_checks(void)
{
	unsigned bad = 0;
	u16 c, first = 0, a, b;

	load(2, PIT_RW_LSB_MSB, BCD_COUNT, PIT_BCD);
	for (unsigned i = 0; i < SAMPLES / 10; i++) {
		c = latched();
		if (!is_bcd(c) && !bad++)
			first = c;
	}
	report_kfail(bad == 0, DEFECT_QEMU("pit-bcd"),
		     "BCD mode, %#x (100) written: %u of %u counts read not BCD (0; first %#x)",
		     BCD_COUNT, bad, SAMPLES / 10, first);
	/* mode 2: GATE low disables counting */
	load(2, PIT_RW_LSB_MSB, 0, 0);
	gate(false);
	a = latched();
	spin_us(HOLD_US);
	b = latched();
	gate(true);
	report_kfail(moved(a, b) <= 1, DEFECT_QEMU("pit-gate"),
		     "mode 2 with GATE low: the count moved %u in %u us (%u then %u; at most 1: "
		     "counting stops)",
		     moved(a, b), HOLD_US, a, b);
}

void pit_checks(void)
{
	port_b_saved = inb(PIT_PORT_B);
	latch_checks();
	status_checks();
	read_back_checks();
	mode1_gate_checks();
	mode0_checks();
	mode2_checks();
	mode3_checks();
	access_checks();
	bcd_gate_checks();
	pit_ch2_stop();
	outb(port_b_saved, PIT_PORT_B);
}
