/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timer_regs: the x86 timers' registers as their specifications state
 * them - the LAPIC timer (xAPIC MMIO and x2APIC MSRs), TSC-deadline, the
 * HPET, the 8254 PIT and the CMOS RTC - programmed every way a guest may,
 * one check a line. The x86 counterpart of arm/timer_test.c.
 *
 * Why: vmtick's tick engines measure rates and lost ticks, which a
 * register that misbehaves in a way the tick never uses does not show.
 * Hypervisors rework these devices (QEMU's HPET in 9.1 and 10.x, the
 * x2APIC under TCG): the registers are where such changes break first.
 *
 * How: each family (a file of this folder) programs its device through its
 * registers (lib/x86/timer_regs.h names them as the manuals do) and checks
 * each behaviour against its specification, the section named in each
 * check's comment; a message gives the figure and the bound. Timing comes
 * from the TSC (calibrated at boot); interrupts are counted per vector by
 * one handler here. Where QEMU or TCG differs from the specification for
 * a diagnosed reason (docs/timers.md, "timer_regs"), the check is
 * report_kfail() with the defect's name, known only on the host kinds the
 * runner passes (host=).
 *
 * Families (phases=): lapic (lapic.c), deadline (deadline.c: TSC-deadline,
 * SKIP where CPUID has none, as under TCG), hpet (hpet.c; 2 or more vCPUs
 * for its readers), pit (pit.c), rtc_rates and rtc_clock (rtc.c). Each
 * entry of unittests.cfg runs some of them, so that each stays under 5 s
 * under TCG.
 *
 * Arguments, key=value:
 *   phases=LIST  which families to run (default all)
 *   host=KINDS   comma-separated host kinds whose known defects apply:
 *                tcg, qemu, kvm-pvm, none (default none)
 *   fault=NAME   test-only, makes checks fail as a buggy emulation would:
 *     lvt           LVT timer writes take the other of one-shot/periodic
 *     divide        the divide configuration written as the next code
 *     count         an initial-count write that does not take
 *     current       the current count read from the initial count register
 *     current_write a current-count write that lands in the initial count
 *     mask          LVT timer writes lose the mask bit
 *     stop          an initial count of 0 that does not take
 *     deadline_keep TSC-deadline MSR reads as last written (not cleared)
 *     hpet_halt     a write of ENABLE_CNF = 0 that does not take
 *     hpet_restart  the main counter goes on 1000 counts back after a halt
 *     hpet_period   the capabilities' period read 5% long
 *     hpet_width    Tn_32MODE_CNF written inverted (the timer's width wrong)
 *     hpet_val_set  the periodic comparator written without Tn_VAL_SET_CNF
 *     hpet_status   the status register's clear takes a 0 for a 1
 *     hpet_type     Tn_INT_TYPE_CNF written inverted (level <-> edge)
 *     hpet_route    Tn_INT_ROUTE_CNF written as the next input
 *     pit_no_latch  a count read that skips the latch (reads the counter)
 *     pit_status    the read-back's status byte not latched (a count byte read as it)
 *     pit_mode      the control word programs mode (m + 3) mod 4 for mode m
 *     pit_access    the control word programs LSB then MSB for every access
 *     pit_out       OUT2 read from port 0x61's refresh bit instead
 *     rtc_uip       update-in-progress read from the wrong bit
 *     rtc_format    register B's DM and 24/12 bits written inverted
 *     rtc_rate      the rate select written one higher
 *     rtc_alarm     every alarm byte written as don't care
 *     rtc_reg_c     register C read from register D
 *     rtc_uip_long  update-in-progress held 3 ms past its fall (an update that runs long)
 * Anything else is refused, a failure.
 */
#include "libc.h"
#include "regs_test.h"
#include "arch.h"
#include "argv.h"
#include "irq.h"
#include "report.h"
#include "units.h"
#include "wait.h"
#include "x86/apic.h"
#include "x86/desc.h"
#include "x86/pit.h"
#include "x86/processor.h"

struct regs_opt opt;

static const char *host_kinds;

static const char *const fault_names[] = {
	"none",	      "lvt",	      "divide",	       "count",	    "current",	    "current_write",
	"mask",	      "stop",	      "deadline_keep", "hpet_halt", "hpet_restart", "hpet_period",
	"hpet_width", "hpet_val_set", "hpet_status",   "hpet_type", "hpet_route",   "pit_no_latch",
	"pit_status", "pit_mode",     "pit_access",    "pit_out",   "rtc_uip",	    "rtc_format",
	"rtc_rate",   "rtc_alarm",    "rtc_reg_c",     "rtc_uip_long",
};

static const char *const phase_names[] = {"lapic", "deadline",	"hpet",
					  "pit",   "rtc_rates", "rtc_clock"};
static void (*const phase_fns[])(void) = {lapic_checks, deadline_checks, hpet_checks,
					  pit_checks,	rtc_rate_checks, rtc_clock_checks};

static const char *const known_kinds[] = {"none", "tcg", "qemu", "kvm-pvm"};

static const char *check_kinds(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool ok = false;

		for (size_t i = 0; i < ARRAY_SIZE(known_kinds); i++)
			ok |= strlen(known_kinds[i]) == len && !memcmp(known_kinds[i], p, len);
		if (!ok)
			break;
		p += len + (comma != NULL);
		if (!comma)
			return NULL;
	}
	return "comma-separated host kinds: none, tcg, qemu, kvm-pvm";
}

_Static_assert(ARRAY_SIZE(fault_names) == FAULT_COUNT_, "a name for every fault");

static const struct arg args[] = {
	ARG_LIST("phases", &opt.phases, phase_names, "lapic,deadline,hpet,pit,rtc_rates,rtc_clock",
		 "the families to run"),
	ARG_TEXT("host", &host_kinds, check_kinds, "none", "host kinds whose known defects apply"),
	ARG_ONE_OF("fault", &opt.fault, fault_names, "none", "test-only: the bug to imitate"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* ---- interrupts and time ---------------------------------------------------- */

struct irq_seen irq_seen[3];
void (*regs_eoi)(void) = apic_eoi;
void (*regs_irq_hook)(unsigned vector);

static void regs_irq(struct ex_regs *regs)
{
	struct irq_seen *s = IRQ_SEEN(regs->vector);

	s->last_tsc = rdtsc();
	s->count = s->count + 1;
	if (regs_irq_hook)
		regs_irq_hook((unsigned)regs->vector);
	regs_eoi();
}

void regs_irq_reset(unsigned vector)
{
	IRQ_SEEN(vector)->count = 0;
	IRQ_SEEN(vector)->last_tsc = 0;
}

u64 tsc_from_us(u64 us)
{
	return us * arch_counter_hz() / USEC_PER_SEC;
}

u64 us_from_tsc(u64 tsc)
{
	return tsc * USEC_PER_SEC / arch_counter_hz();
}

void spin_us(u64 us)
{
	spin_ns(us * NSEC_PER_USEC);
}

int main(int argc, char **argv)
{
	args_parse_or_abort(&arg_table, argc, argv);
	report_known_defects(strcmp(host_kinds, "none") ? host_kinds : NULL);
	if (!arch_counter_hz())
		report_abort("the TSC's rate is unknown: nothing here can be timed");
	for (unsigned v = REGS_LAPIC_VECTOR; v <= REGS_SPARE_VECTOR; v++)
		handle_exception(v, regs_irq);
	/* QEMU starts the PIT's channel 0 at reset: stopped, it interrupts nothing here */
	pit_quiesce();
	for (unsigned i = 0; i < ARRAY_SIZE(phase_fns); i++) {
		if (!arg_listed(opt.phases, i))
			continue;
		report_prefix_push(phase_names[i]);
		phase_fns[i]();
		report_prefix_pop();
	}
	return report_summary();
}
