/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * apic_ccr: the local APIC timer's current count read once, after the
 * initial count's write; the smallest guest that reaches QEMU's
 * qemu-x2apic-icount defect (docs/upstream/qemu-x2apic-icount.md).
 *
 * Why: in x2APIC mode the timer's registers are MSRs (Intel SDM vol. 3,
 * "x2APIC Register Address Space": LVT timer 832H, initial count 838H,
 * current count 839H, divide configuration 83EH). QEMU 9.0 and later,
 * under TCG with -icount, end with "Bad icount read" on the RDMSR of
 * 839H: the read asks the virtual clock where QEMU allows that only to
 * an instruction translated as I/O. The WRMSRs before it and the RDMSR
 * of 838H do not touch the clock that way, so the guest says what it is
 * about to do before each step: the last line QEMU lets it print names
 * the instruction QEMU ended on.
 *
 * How: the boot CPU's APIC is enabled by start-up, in x2APIC mode where
 * CPUID offers it (lib/x86/apic.c), else in xAPIC mode, whose registers
 * are MMIO (QEMU 7.2's TCG offers no x2APIC: the same steps through
 * MMIO). The timer, masked and one-shot, divide by 1, is started from
 * INITIAL_COUNT; then
 *  1. the initial count reads back as written (838H, or 380H);
 *  2. the current count (839H, or 390H), read next, lies in
 *     1..INITIAL_COUNT - 1: the timer counts down from the count written
 *     and has not reached 0 (INITIAL_COUNT timer clocks are seconds at
 *     any rate QEMU or hardware gives the timer; the read follows at
 *     once). A BOUND line, apic_ccr.current_count.
 *
 * Arguments, key=value:
 *   fault=stale   test-only: take the current count as the initial count,
 *                 as a timer that never started would read; step 2 FAILs
 * Anything else is a failure.
 */
#include "libc.h"
#include "argv.h"
#include "report.h"
#include "x86/apic.h"
#include "x86/apic_timer.h"

/* 2^31 timer clocks: seconds at any timer rate, so the count cannot reach 0 before it is read. */
#define INITIAL_COUNT 0x80000000u

enum fault { FAULT_NONE, FAULT_STALE };
static const char *const fault_names[] = {"none", "stale"};
static unsigned fault; /* enum fault */

static const struct arg args[] = {
	ARG_ONE_OF("fault", &fault, fault_names, "none", "test-only: the check to make fail"),
};
static const struct arg_table arg_table = ARG_TABLE(args);

/* Where the guest reaches register reg: an x2APIC MSR or an xAPIC MMIO offset, as text in buf. */
static const char *where(char *buf, size_t size, u32 reg)
{
	if (apic_x2apic_mode())
		snprintf(buf, size, "MSR %03XH", X2APIC_MSR_BASE + reg / 16);
	else
		snprintf(buf, size, "MMIO offset %03XH", reg);
	return buf;
}

#define WHERE_SIZE 24

static u32 read_current_count(void)
{
	u32 ccr = apic_read(APIC_TMCCT);

	return fault == FAULT_STALE ? INITIAL_COUNT : ccr;
}

int main(int argc, char **argv)
{
	char w[3][WHERE_SIZE];
	u32 initial, current;

	args_parse_or_abort(&arg_table, argc, argv);
	report_info("local APIC in %s mode", apic_x2apic_mode() ? "x2APIC" : "xAPIC");
	report_info(
		"writing the LVT timer (%s), the divide configuration (%s), the initial count (%s)",
		where(w[0], WHERE_SIZE, APIC_LVTT), where(w[1], WHERE_SIZE, APIC_TDCR),
		where(w[2], WHERE_SIZE, APIC_TMICT));
	apic_write(APIC_LVTT, APIC_LVT_MASKED | APIC_LVT_TIMER_ONESHOT);
	apic_timer_divide(APIC_TDCR_DIV_1);
	apic_timer_count(INITIAL_COUNT);
	report_info("reading the initial count (%s)", where(w[0], WHERE_SIZE, APIC_TMICT));
	initial = apic_read(APIC_TMICT);
	report(initial == INITIAL_COUNT, "the initial count reads back as written: %#x (wrote %#x)",
	       initial, INITIAL_COUNT);
	report_info("reading the current count (%s)", where(w[0], WHERE_SIZE, APIC_TMCCT));
	current = read_current_count();
	report_bounded_count("apic_ccr.current_count", "count", current, 1, INITIAL_COUNT - 1,
			     "the current count counts down from the initial count %#x: read %#x",
			     INITIAL_COUNT, current);
	apic_timer_stop();
	return report_summary();
}
