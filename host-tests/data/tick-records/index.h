/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The recorded runs test_tick_judge.c judges again, and the verdict each
 * must have (its lost-tick and rate checks): real runs of x86/timer-tick.flat
 * with record=always (or the record a failed check printed) under scripts/host_evidence.py, on a 2-CPU kvm-pvm host
 * (QEMU 7.2), 2026-12-03. "idle": nothing else running; "busy": beside two
 * shell busy loops; "tcg-rt": TCG without -icount (TCG_REALTIME=1).
 */
static const struct fixture recorded[] = {
	/* idle KVM: the host's hypervisor stole in most 100 ms parts, lost ticks it explains */
	{ "kvm-idle-hpet.log", true },
	{ "kvm-idle-lapic-periodic.log", true },
	{ "kvm-idle-lapic-oneshot.log", true },
	/* the RTC's calibration too loose to count lost ticks by: not judged, not failed */
	{ "kvm-idle-rtc.log", true },
	/* faults: one interrupt in ten not counted; the LVT masked over two expiries in ten */
	{ "kvm-idle-hpet-drop10.log", false },
	{ "kvm-idle-lapic-periodic-miss10.log", false },
	/* beside two busy loops: hundreds of ticks lost, each explained by steal time or QEMU's waits */
	{ "kvm-busy-hpet.log", true },
	{ "kvm-busy-lapic-periodic.log", true },
	{ "kvm-busy-lapic-oneshot.log", true },
	/*
	 * a one-shot's uncounted interrupts (fault=drop10 on pit-oneshot): lost
	 * at the end, not explained by a normal latency taken against the
	 * shifted slots (180 ms) as they were before; and the same source clean
	 */
	{ "kvm-idle-pit-oneshot-drop10.log", false },
	{ "kvm-idle-pit-oneshot.log", true },
	/* a fault the host's share hides: drop10's losses within what the delays explain */
	{ "kvm-busy-hpet-drop10.log", true },
	/* TCG in real time: no steal time, the host's evidence alone */
	{ "tcg-rt-idle-hpet.log", true },
	{ "tcg-rt-busy-hpet.log", true },
	{ "tcg-rt-busy-lapic-periodic.log", true },
	{ "tcg-rt-idle-pit-miss20.log", false },
	/* the counter calibrated 108 ppm off the PM timer: ticks on schedule are none over or short */
	{ "tcg-rt-busy-hpet-routed-oneshot.log", true },
};
