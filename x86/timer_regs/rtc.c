/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs' CMOS RTC families (MC146818A data sheet): rtc_rates - the
 * periodic rate select's 15 rates and rate 0 (off), the periodic flag
 * with and without its interrupt enable and register C cleared by its
 * read; rtc_clock - update-in-progress and its window, the update-ended
 * flag, binary and BCD, 12- and 24-hour modes across a day's and a
 * month's end, and the alarm with don't-care bytes.
 *
 * All by polling with interrupts off (the RTC's line goes nowhere):
 * register C says what happened. Timing is by the TSC. The clock family
 * sets its own time and date (this guest's alone); both leave register B's
 * format and enables as they found them.
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "report.h"
#include "units.h"
#include "x86/processor.h"
#include "x86/rtc.h"
#include "x86/timer_regs.h"
#include "host_evidence.h"

/* rate select 1 and 2 give 256 and 128 Hz; 3 to 15 give 32768 Hz >> (RS - 1) */
#define RS_MIN 1
#define RS_MAX 15
/* a rate's period measured as its intervals cluster over at least this long */
#define RATE_WINDOW_US	   20000
#define RATE_INTERVALS_MAX 256
/* at 16 Hz and up, at least 4 intervals, so that a late flag and its catch-up cannot make the
 * cluster */
#define RATE_INTERVALS_MIN 4
#define RATE_MEDIAN_MIN_HZ 16
#define RATE_TOLERANCE_PCT 10
#define RATE_TRIES	   5
/* intervals whose quartiles lie over a quarter period apart tell nothing about the rate */
#define RATE_SPREAD_DIV 4
/* rate 0 watched for this long: no flag */
#define RS_OFF_US  100000
#define RS_PROBE   6 /* 1024 Hz */
#define PF_WAIT_US 10000
/* a flag that must come: its period twice, and what a busy host may delay QEMU's timers by */
#define FLAG_WAIT_US 100000
/* an update comes once a second: wait a little longer */
#define UPDATE_WAIT_US	  1200000
/*
 * Beside two busy loops on two CPUs a try may miss the 244 us window while
 * the host holds the polling vCPU, and the misses come together (the
 * vCPU is preempted as QEMU's main loop wakes for the update: one run of
 * six missed all six tries). With three tries fault=rtc_uip once came out
 * a SKIP there (every try explained); with six it FAILed in every attempt.
 */
#define UIP_TRIES	  6
#define UIP_WINDOW_MAX_US (RTC_UIP_LEAD_US + RTC_UPDATE_MAX_US)
/*
 * Between reads of a polled update: QEMU ends the update-in-progress window
 * in a timer callback of its main loop, which a vCPU reading the RTC
 * back to back keeps waiting for the I/O lock (wait.h: leave the VMM room).
 */
#define POLL_GAP_US	20
#define POLL_PER_PERIOD 16
/* fault=rtc_uip_long: update-in-progress held this much past its fall */
#define UIP_LONG_FAULT_US 3000

/* ---- access, and the faults that imitate a buggy RTC ------------------------------------ */

static u8 reg_c(void)
{
	return cmos_read(opt.fault == FAULT_RTC_REG_C ? RTC_REG_D : RTC_REG_C);
}

static bool uip(void)
{
	static bool was_high;
	static u64 fell_at;
	u8 bit = opt.fault == FAULT_RTC_UIP ? RTC_A_UIP >> 1 : RTC_A_UIP;
	bool high = cmos_read(RTC_REG_A) & bit;

	if (opt.fault != FAULT_RTC_UIP_LONG)
		return high;
	/* held UIP_LONG_FAULT_US past its fall, as an RTC whose update ran long */
	if (high || was_high) {
		if (!high)
			fell_at = rdtsc();
		was_high = high;
	}
	return high || (fell_at && rdtsc() - fell_at < tsc_from_us(UIP_LONG_FAULT_US));
}

static void write_b(u8 b)
{
	if (opt.fault == FAULT_RTC_FORMAT)
		b ^= RTC_B_DM_BINARY | RTC_B_24H;
	cmos_write(RTC_REG_B, b);
}

static void rate_select(unsigned rs)
{
	if (opt.fault == FAULT_RTC_RATE)
		rs = rs % RS_MAX + 1;
	cmos_write(RTC_REG_A, (cmos_read(RTC_REG_A) & ~RTC_A_RS_MASK) | (rs & RTC_A_RS_MASK));
}

static void alarm_write(u8 reg, u8 v)
{
	if (opt.fault == FAULT_RTC_ALARM)
		v = RTC_ALARM_DONT_CARE;
	cmos_write(reg, v);
}

static unsigned rs_hz(unsigned rs)
{
	return rs <= 2 ? RTC_TIME_BASE_HZ >> (rs + 6) : RTC_TIME_BASE_HZ >> (rs - 1);
}

/*
 * Poll register C every gap_us until a flag of want, or us pass: the TSC at
 * the sighting, 0 if none.
 */
static u64 wait_flag(u8 want, u64 us, u64 gap_us)
{
	u64 end = rdtsc() + tsc_from_us(us), t;

	do {
		t = rdtsc();
		if (reg_c() & want)
			return t;
		spin_us(gap_us);
	} while (t < end);
	return 0;
}

/* ---- what the host held QEMU's threads over a try (lib/host_evidence.h) ------------------- */

/* A stretch of one try on the counter, and what the host held QEMU's threads over it. */
struct host_hold {
	u64 from, to;
	u64 held_us;
	bool known; /* the agent answered for it */
};

static void hold_window(void *arg, u32 i, u64 *from, u64 *to)
{
	const struct host_hold *h = arg;

	*from = h[i].from;
	*to = h[i].to;
}

/* lib/host_evidence.h's rule: the main loop running the RTC, the vCPU polling it, the steal. */
static void hold_answer(void *arg, u32 i, const struct host_part *p)
{
	struct host_hold *h = arg;

	h[i].held_us = host_held_us(p, 0);
	h[i].known = true;
}

/* Ask the agent what the host held QEMU's threads over each of n stretches of span. */
static void ask_holds(const struct host_span *span, struct host_hold *h, unsigned n)
{
	struct host_ask q = {n, hold_window, hold_answer, h};
	u64 stamp_us;

	host_span_windows(span, &q, &stamp_us);
}

/* Whether the host held QEMU's threads at least need_us over the stretch; need 0: nothing can. */
static bool hold_explains(const struct host_hold *h, u64 need_us)
{
	return h->known && need_us && h->held_us >= need_us;
}

/* ---- rate select ------------------------------------------------------------------------- */

/*
 * The interval most others lie within 10% of (the shortest such, on a tie):
 * a busy host's merged flags (two periods and more) and the catch-up after
 * a late one scatter, the period itself clusters.
 */
static u64 clustered(const u64 *v, unsigned n)
{
	unsigned best = 0, support;
	u64 at = 0;

	for (unsigned i = 0; i < n; i++) {
		support = 0;
		for (unsigned j = 0; j < n; j++)
			support += v[j] * 100 >= v[i] * (100 - RATE_TOLERANCE_PCT) &&
				   v[j] * 100 <= v[i] * (100 + RATE_TOLERANCE_PCT);
		if (support > best || (support == best && v[i] < at)) {
			best = support;
			at = v[i];
		}
	}
	return at;
}

static void sort(u64 *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j && v[j - 1] > v[j]; j--) {
			u64 x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
}

/* A rate's flags: the period they cluster at and their intervals' interquartile spread, in TSC
 * cycles. */
struct rate_seen {
	u64 period;	 /* 0 when no flag came */
	u64 spread;	 /* 0 with fewer than 4 intervals */
	unsigned n;	 /* intervals */
};

static struct rate_seen period_at(unsigned rs)
{
	static u64 iv[RATE_INTERVALS_MAX];
	struct rate_seen r = {0};
	u64 period_us = USEC_PER_SEC / rs_hz(rs), end, prev, t;
	/* polls a sixteenth of a period apart: the sightings' error, and room for QEMU's main loop
	 */
	u64 gap = max(period_us / POLL_PER_PERIOD, (u64)POLL_GAP_US);
	unsigned n = 0;

	rate_select(rs);
	reg_c();
	/* the first flag comes within a period of the write, at the divider's phase */
	prev = wait_flag(RTC_C_PF, 2 * period_us + FLAG_WAIT_US, gap);
	/* at the faster rates the change's own first interval is left out */
	if (prev && rs_hz(rs) >= RATE_MEDIAN_MIN_HZ)
		prev = wait_flag(RTC_C_PF, 2 * period_us + FLAG_WAIT_US, gap);
	if (!prev)
		return r;
	end = prev + tsc_from_us(RATE_WINDOW_US);
	do {
		t = wait_flag(RTC_C_PF, 2 * period_us + FLAG_WAIT_US, gap);
		if (!t)
			break;
		iv[n++] = t - prev;
		prev = t;
	} while ((t < end || (n < RATE_INTERVALS_MIN && rs_hz(rs) >= RATE_MEDIAN_MIN_HZ)) &&
		 n < RATE_INTERVALS_MAX);
	if (!n)
		return r;
	r.n = n;
	r.period = clustered(iv, n);
	sort(iv, n);
	if (n >= RATE_INTERVALS_MIN)
		r.spread = iv[3 * (n - 1) / 4] - iv[(n - 1) / 4];
	return r;
}

/* One rate's tries, each over its whole stretch on the counter. */
struct rate_tries {
	unsigned n;
	struct host_hold hold[RATE_TRIES];
	struct rate_seen seen[RATE_TRIES];
};

/*
 * What the host must have held QEMU's threads to explain a try's period,
 * longer than the rate's: its flags came late by the difference each
 * interval at least, n intervals (a delay makes the flags later, never
 * sooner). 0 for a period not longer: nothing explains it.
 */
static u64 rate_need_us(const struct rate_seen *r, u64 want)
{
	return r->period > want ? us_from_tsc((r->period - want) * r->n) : 0;
}

static bool rate_off(const struct rate_seen *r, u64 want)
{
	u64 diff = r->period > want ? r->period - want : want - r->period;

	return diff * 100 > want * RATE_TOLERANCE_PCT;
}

/*
 * A rate's tries, until one is within the tolerance: a window whose flags
 * scattered, or were late, is measured again (at the slow rates four
 * intervals, one late sighting bends two of them); a rate that is wrong is
 * off in every one. Where the agent answers, the tries lie between two of
 * its marks, and where they ended off it is asked what the host held
 * QEMU's threads over each.
 */
static void rate_tries(unsigned rs, struct rate_tries *t)
{
	u64 want = arch_counter_hz() / rs_hz(rs);
	bool evidence = host_evidence_offered();
	struct host_span span;

	memset(t, 0, sizeof(*t));
	if (evidence)
		host_span_begin(&span, arch_counter, arch_counter_hz());
	do {
		t->hold[t->n].from = arch_counter();
		t->seen[t->n] = period_at(rs);
		t->hold[t->n].to = arch_counter();
	} while (rate_off(&t->seen[t->n++], want) && t->n < RATE_TRIES);
	if (!evidence)
		return;
	host_span_end(&span);
	if (rate_off(&t->seen[t->n - 1], want))
		ask_holds(&span, t->hold, t->n);
}

/*
 * One rate select: PASS within the tolerance at a try; FAIL outside it in
 * every try when its flags came regularly and the host's evidence does not
 * explain each; SKIP, with the evidence, when they scattered by more than
 * a quarter period (the host kept QEMU's timer callbacks late: such flags
 * cannot tell the rate from its neighbours), or when every try came late
 * by no more than the host held QEMU's threads over it.
 */
static void rate_check(unsigned rs)
{
	static struct rate_tries t;
	u64 want = arch_counter_hz() / rs_hz(rs);
	const struct rate_seen *r;
	const struct host_hold *h;
	unsigned explained = 0;
	bool off;
	char held[64] = "";

	rate_tries(rs, &t);
	r = &t.seen[t.n - 1];
	h = &t.hold[t.n - 1];
	off = rate_off(r, want);
	for (unsigned i = 0; i < t.n; i++)
		explained += hold_explains(&t.hold[i], rate_need_us(&t.seen[i], want));
	if (off && r->spread * RATE_SPREAD_DIV > want) {
		report_skip(
			"rate select %u: flags %llu us apart where they cluster, but their "
			"intervals' quartiles %llu us apart, over a quarter of the %llu us period "
			"(%u Hz): QEMU's timer callbacks ran late on a busy host, %u tries",
			rs, us_from_tsc(r->period), us_from_tsc(r->spread), us_from_tsc(want),
			rs_hz(rs), t.n);
		return;
	}
	if (off && explained == t.n) {
		report_skip("rate select %u: periodic flag every %llu us (%u Hz: %llu us) in %u "
			    "tries, each late by no more than the host held QEMU's threads (the "
			    "last: %llu us late over %u intervals, held %llu us): not judged",
			    rs, us_from_tsc(r->period), rs_hz(rs), us_from_tsc(want), t.n,
			    rate_need_us(r, want), r->n, h->held_us);
		return;
	}
	if (off && h->known)
		snprintf(held, sizeof(held), "; the host held QEMU's threads %llu us of the last",
			 h->held_us);
	report(r->period && !off,
	       "rate select %u: periodic flag every %llu us, where its intervals over 20 ms "
	       "cluster (or its one interval), try %u (%u Hz: %llu us, within %u%%)%s",
	       rs, us_from_tsc(r->period), t.n, rs_hz(rs), us_from_tsc(want), RATE_TOLERANCE_PCT,
	       held);
}

void rtc_rate_checks(void)
{
	u8 b = cmos_read(RTC_REG_B), c, c2;
	u64 t;

	write_b(b | RTC_B_PIE);
	for (unsigned rs = RS_MIN; rs <= RS_MAX; rs++)
		rate_check(rs);
	/* register C: its flags and IRQF, cleared by the read (PIE set: IRQF comes with PF) */
	rate_select(RS_PROBE);
	reg_c();
	wait_flag(RTC_C_PF, 0, POLL_GAP_US);
	spin_us(PF_WAIT_US);
	c = reg_c();
	c2 = reg_c();
	report((c & (RTC_C_PF | RTC_C_IRQF)) == (RTC_C_PF | RTC_C_IRQF),
	       "register C %#x with PIE set, a periodic edge since the last read: PF and IRQF set",
	       c);
	report(!(c2 & (RTC_C_PF | RTC_C_IRQF)),
	       "register C %#x read right after: PF and IRQF clear (cleared by "
	       "the read)",
	       c2);
	rate_select(0);
	reg_c();
	t = wait_flag(RTC_C_PF, RS_OFF_US, POLL_GAP_US);
	report(!t, "rate select 0: the periodic flag %s over %u ms (never: the rate is off)",
	       t ? "set" : "clear", RS_OFF_US / 1000);
	/* PF follows the divider whatever PIE says; IRQF only with its enable */
	write_b(b & ~(RTC_B_PIE | RTC_B_AIE | RTC_B_UIE));
	rate_select(RS_PROBE);
	reg_c();
	spin_us(PF_WAIT_US);
	c = reg_c();
	report_kfail(c & RTC_C_PF, DEFECT_QEMU("rtc-pf-needs-pie"),
		     "register C %#x after 10 ms at 1024 Hz with PIE clear: PF set (set "
		     "independent of PIE)",
		     c);
	report(!(c & RTC_C_IRQF), "register C %#x with every enable clear: IRQF clear", c);
	rate_select(RS_PROBE);
	cmos_write(RTC_REG_B, b);
	reg_c();
}

/* ---- update-in-progress, formats, the alarm ------------------------------------------------ */

struct uip_window {
	bool seen;
	/* TSC: after the first sighting's read, before the last one's (the least it lasted) */
	u64 first_high, last_high;
	u8 sec_before, sec_after; /* the seconds read before it rose and after it fell */
	/* unseen: the seconds moved between the polls at low_at and change_at */
	bool moved;
	/*
	 * Before the reads of the last poll that saw it low before it rose (or
	 * the seconds moved), after the read that saw it fall (the seconds
	 * move): a read is stamped either side, since it can wait for QEMU's
	 * lock while a busy host holds the thread that has it (4 ms once,
	 * beside two busy loops in real time: the seconds moved between
	 * stamps taken before the reads, 21 us apart). The seconds moved
	 * within that span; had it been under RTC_UIP_LEAD_US, the first
	 * poll's UIP read lay in the window's lead: missed.
	 */
	u64 low_at, change_at;
};

/*
 * Watch one update: UIP low, then high, then low again; the seconds read
 * only while it is low. Where the seconds move with UIP never seen, the
 * watch ends there, with the two polls the update fell between.
 */
static void watch_uip(struct uip_window *w)
{
	u64 end = rdtsc() + tsc_from_us(UPDATE_WAIT_US), t, after;
	bool high;
	u8 s;

	*w = (struct uip_window){.seen = false};
	while ((w->low_at = rdtsc()) < end && uip())
		spin_us(POLL_GAP_US);
	w->sec_before = w->sec_after = cmos_read(RTC_SECONDS);
	for (; (t = rdtsc()) < end; spin_us(POLL_GAP_US)) {
		high = uip();
		after = rdtsc();
		if (high) {
			if (!w->seen)
				w->first_high = after;
			w->seen = true;
			w->last_high = t;
		} else if (w->seen) {
			w->sec_after = cmos_read(RTC_SECONDS);
			w->change_at = after;
			return;
		} else if ((s = cmos_read(RTC_SECONDS)) != w->sec_before) {
			*w = (struct uip_window){.sec_before = w->sec_before, .sec_after = s,
						 .moved = true, .low_at = w->low_at, .change_at = rdtsc()};
			return;
		} else {
			w->low_at = t;
		}
	}
}

/* The UIP checks' tries, each with what the host held QEMU's threads over its stretch. */
struct uip_tries {
	unsigned n;
	struct uip_window w[UIP_TRIES];
	struct host_hold hold[UIP_TRIES]; /* each try's stretch in question (uip_narrow) */
	u8 c[UIP_TRIES];		  /* register C after each */
};

/* The window's length at least: its first to last sighting. */
static u64 uip_len_us(const struct uip_window *w)
{
	return w->seen && w->last_high > w->first_high ? us_from_tsc(w->last_high - w->first_high) : 0;
}

/* The window's length at most: the polls either side of it (0: it never fell in the try). */
static u64 uip_span_us(const struct uip_window *w)
{
	return w->seen && w->change_at ? us_from_tsc(w->change_at - w->low_at) : 0;
}

/* A window seen and known to be no longer than its lead and the update. */
static bool uip_good(const struct uip_window *w)
{
	return uip_span_us(w) && uip_span_us(w) <= UIP_WINDOW_MAX_US;
}

/*
 * A try gone wrong narrowed to the stretch the host may explain, the polls
 * either side of the update: UIP unseen while the seconds moved (had they
 * been under RTC_UIP_LEAD_US apart, one lay in the window), or UIP seen
 * but not bounded within its lead and the update (QEMU ends the window in
 * its main loop's update callback; a vCPU kept from polling widens the
 * bound); a window that never fell, or no update at all: the whole try.
 */
static void uip_narrow(const struct uip_window *w, struct host_hold *h)
{
	if (w->moved || w->change_at) {
		h->from = w->low_at;
		h->to = w->change_at;
	}
}

/* How long the host must have held QEMU's threads to explain try i; 0: nothing can. */
static u64 uip_need_us(const struct uip_tries *u, unsigned i)
{
	const struct uip_window *w = &u->w[i];
	u64 us = us_from_tsc(u->hold[i].to - u->hold[i].from);
	u64 allowed = w->moved ? RTC_UIP_LEAD_US : w->change_at ? UIP_WINDOW_MAX_US : USEC_PER_SEC;

	return us > allowed ? us - allowed : 0;
}

/*
 * Up to UIP_TRIES watches, until one sees the window within its length or
 * goes wrong in a way no host can explain (the seconds moved between polls
 * under RTC_UIP_LEAD_US apart); where the last is not good and the agent
 * answers, it is asked what the host held QEMU's threads over each try's
 * stretch in question.
 */
static void uip_tries(struct uip_tries *u)
{
	bool evidence = host_evidence_offered();
	struct host_span span;
	unsigned i;

	memset(u, 0, sizeof(*u));
	if (evidence)
		host_span_begin(&span, arch_counter, arch_counter_hz());
	do {
		i = u->n++;
		reg_c();
		u->hold[i].from = arch_counter();
		watch_uip(&u->w[i]);
		u->hold[i].to = arch_counter();
		u->c[i] = reg_c();
		uip_narrow(&u->w[i], &u->hold[i]);
	} while (!uip_good(&u->w[i]) && uip_need_us(u, i) && u->n < UIP_TRIES);
	if (!evidence)
		return;
	host_span_end(&span);
	if (!uip_good(&u->w[i]))
		ask_holds(&span, u->hold, u->n);
}

static unsigned from_bcd(u8 v)
{
	return (v >> 4) * 10 + (v & 0xf);
}

/* What the last try saw, and what the host held over it where asked, in words. */
static void uip_seen_words(const struct uip_tries *u, char *buf, size_t size)
{
	const struct host_hold *h = &u->hold[u->n - 1];
	int k = 0;

	buf[0] = 0;
	if (u->w[u->n - 1].moved)
		k = snprintf(buf, size, "; the seconds moved between polls %llu us apart",
			     us_from_tsc(h->to - h->from));
	if (h->known && k >= 0 && (size_t)k < size)
		snprintf(buf + k, size - k, "; the host held QEMU's threads %llu us of it",
			 h->held_us);
}

/* Every try explained by the host: what they saw, not judged. */
static void uip_skip(const struct uip_tries *u)
{
	const struct uip_window *w = &u->w[u->n - 1];

	report_skip("update-in-progress: %s in each of %u tries, each by no more than the host "
		    "held QEMU's threads (the last: %llu us needed, held %llu us): not judged",
		    w->seen ? "not bounded within its lead and the update" : "missed", u->n,
		    uip_need_us(u, u->n - 1), u->hold[u->n - 1].held_us);
}

/* With an update seen: the seconds one more across it, and register C's UF after it. */
static void uip_after_checks(const struct uip_window *w, u8 b, u8 c)
{
	bool binary = b & RTC_B_DM_BINARY;
	unsigned s0 = binary ? w->sec_before : from_bcd(w->sec_before);
	unsigned s1 = binary ? w->sec_after : from_bcd(w->sec_after);

	if (!w->seen) {
		report_skip("the seconds across the update and register C's UF: no "
			    "update-in-progress window seen to judge them by");
		return;
	}
	report(s1 == (s0 + 1) % 60,
	       "the seconds read %u before update-in-progress rose and %u after it fell (one "
	       "more: the update happens inside the window)",
	       s0, s1);
	report(c & RTC_C_UF, "register C %#x after the update: UF set", c);
}

/*
 * RTC_UIP_LEAD_US ahead of each update, register A's UIP rises, and falls
 * when the update is done (MC146818A, "update cycle"): seen within a try,
 * no longer than the lead and the update, the seconds one more after it,
 * register C's UF set; the length passes only where the polls either
 * side of the window bound it (its sightings alone give only a lower
 * bound: a vCPU kept from polling sees a long window short). A try the
 * host disturbed (an unseen window whose polls it kept over
 * RTC_UIP_LEAD_US apart, a window not bounded in time) is watched again;
 * every try so disturbed is a SKIP with the figures, and one it does not
 * explain is judged.
 */
static void uip_checks(u8 b)
{
	static struct uip_tries u;
	const struct uip_window *w;
	unsigned explained = 0;
	char words[128];
	u64 len;

	uip_tries(&u);
	w = &u.w[u.n - 1];
	for (unsigned i = 0; i < u.n; i++)
		explained += hold_explains(&u.hold[i], uip_need_us(&u, i));
	if (!uip_good(w) && explained == u.n) {
		uip_skip(&u);
	} else {
		len = uip_len_us(w);
		uip_seen_words(&u, words, sizeof(words));
		report(w->seen, "update-in-progress (register A bit 7) %s within 1.2 s (of %u tries)%s",
		       w->seen ? "seen" : "never seen", u.n, w->seen ? "" : words);
		report(uip_good(w),
		       "update-in-progress high for %llu us between its first and last sightings, "
		       "%llu us between the polls either side (at most %u: %u us ahead of the update "
		       "and the update's %u)%s",
		       len, uip_span_us(w), UIP_WINDOW_MAX_US, RTC_UIP_LEAD_US, RTC_UPDATE_MAX_US,
		       w->seen && !uip_good(w) ? words : "");
	}
	uip_after_checks(w, b, u.c[u.n - 1]);
}

struct clock_case {
	const char *what;
	u8 format;   /* register B's DM and 24/12 bits */
	u8 set[6];   /* seconds, minutes, hours, day, month, year as written */
	u8 century;  /* the century register's value in the same format */
	u8 alarm[3]; /* seconds, minutes, hours alarm */
	u8 want[6];  /* the same one second later */
	bool alarm_fires;
};

static const u8 clock_regs[6] = {RTC_SECONDS,	   RTC_MINUTES, RTC_HOURS,
				 RTC_DAY_OF_MONTH, RTC_MONTH,	RTC_YEAR};

static const struct clock_case clock_cases[] = {
	{"12-hour BCD, 2023-02-28 11:59:59 PM",
	 0,
	 {0x59, 0x59, RTC_HOURS_PM | 0x11, 0x28, 0x02, 0x23},
	 0x20,
	 {0x00, RTC_ALARM_DONT_CARE, RTC_ALARM_DONT_CARE},
	 {0x00, 0x00, 0x12, 0x01, 0x03, 0x23},
	 true},
	{"24-hour binary, 2023-12-31 23:59:59",
	 RTC_B_DM_BINARY | RTC_B_24H,
	 {59, 59, 23, 31, 12, 23},
	 20,
	 {0, 0, 5},
	 {0, 0, 0, 1, 1, 24},
	 false},
};

/* Wait until the seconds register leaves v (an update), then until update-in-progress is low. */
static bool wait_second(u8 v)
{
	u64 end = rdtsc() + tsc_from_us(UPDATE_WAIT_US);

	while (cmos_read(RTC_SECONDS) == v || (cmos_read(RTC_REG_A) & RTC_A_UIP)) {
		if (rdtsc() > end)
			return false;
		spin_us(POLL_GAP_US);
	}
	return true;
}

static void clock_case(const struct clock_case *k, u8 base)
{
	u8 got[6], b, c;
	bool ticked;

	write_b(base | RTC_B_SET | k->format);
	for (unsigned i = 0; i < 6; i++)
		cmos_write(clock_regs[i], k->set[i]);
	/* the century counts in the registers' format too: left BCD, binary 2023 would be year 3223
	 */
	if (rtc_century_reg())
		cmos_write(rtc_century_reg(), k->century);
	alarm_write(RTC_SECONDS_ALARM, k->alarm[0]);
	alarm_write(RTC_MINUTES_ALARM, k->alarm[1]);
	alarm_write(RTC_HOURS_ALARM, k->alarm[2]);
	b = cmos_read(RTC_REG_B);
	got[2] = cmos_read(RTC_HOURS);
	report((b & (RTC_B_DM_BINARY | RTC_B_24H)) == k->format && got[2] == k->set[2],
	       "%s written with SET: register B %#x (DM %u, 24/12 %u as written), hours read %#x "
	       "(%#x)",
	       k->what, b, !!(k->format & RTC_B_DM_BINARY), !!(k->format & RTC_B_24H), got[2],
	       k->set[2]);
	reg_c();
	write_b(base | k->format);
	ticked = wait_second(k->set[0]);
	for (unsigned i = 0; i < 6; i++)
		got[i] = cmos_read(clock_regs[i]);
	c = reg_c();
	report(ticked && got[0] == k->want[0] && got[1] == k->want[1] && got[2] == k->want[2],
	       "%s, one update later: %02x:%02x:%02x (%02x:%02x:%02x)", k->what, got[2], got[1],
	       got[0], k->want[2], k->want[1], k->want[0]);
	report(ticked && got[3] == k->want[3] && got[4] == k->want[4] && got[5] == k->want[5],
	       "%s, one update later: day %#x month %#x year %#x (%#x %#x %#x: the month's and "
	       "year's end)",
	       k->what, got[3], got[4], got[5], k->want[3], k->want[4], k->want[5]);
	report(ticked && !!(c & RTC_C_AF) == k->alarm_fires,
	       "%s, alarm %02x:%02x:%02x (0xc0 and up: don't care): AF %s after the update (%s)",
	       k->what, k->alarm[2], k->alarm[1], k->alarm[0], c & RTC_C_AF ? "set" : "clear",
	       k->alarm_fires ? "set" : "clear");
}

void rtc_clock_checks(void)
{
	u8 b = cmos_read(RTC_REG_B);
	u8 base =
		b & ~(RTC_B_SET | RTC_B_PIE | RTC_B_AIE | RTC_B_UIE | RTC_B_DM_BINARY | RTC_B_24H);

	uip_checks(b);
	for (unsigned i = 0; i < ARRAY_SIZE(clock_cases); i++)
		clock_case(&clock_cases[i], base);
	cmos_write(RTC_REG_B, b);
	reg_c();
}
