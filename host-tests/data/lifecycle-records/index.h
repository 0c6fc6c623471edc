/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The recorded lifecycle runs test_lifecycle_replay.c judges again, each
 * event's record (LC-RECORD lines) beside the lines the guest printed for
 * it: real runs of lifecycle.flat with record=always under
 * scripts/lifecycle.py on a 2-CPU machine without KVM (TCG), QEMU 7.2
 * ("tcg-") and 10.0.2 ("q10-"), 2026-12-05, recorded again 2026-12-07. "idle": nothing else
 * running; "busy": beside two shell busy loops. No KVM run: this machine
 * has no /dev/kvm. Made by record.sh here (the entries of unittests.cfg with
 * record=always appended, the faults' entries with fault=); run it again
 * only when a lifecycle check's figure, band or verdict changes (or the
 * entries it makes: a check, INFO or SKIP added or gone). The replay
 * compares entries, never sentences: a sentence reworded, its numbers
 * too, needs no new recording.
 */
static const struct replay_fixture replays[] = {
	/* x86 (TSC, HPET, PM timer; LAPIC, RTC, HPET comparator), at rest and beside busy loops */
	{ "tcg-idle-x86-pause.log", REPLAY_SAME, 1 },
	{ "tcg-idle-x86-save.log", REPLAY_SAME, 1 },
	{ "tcg-idle-x86-migrate10.log", REPLAY_SAME, 1 },
	{ "tcg-busy-x86-pause.log", REPLAY_SAME, 1 },
	{ "tcg-busy-x86-save.log", REPLAY_SAME, 1 },
	{ "tcg-busy-x86-migrate10.log", REPLAY_SAME, 1 },
	{ "q10-idle-x86-migrate10.log", REPLAY_SAME, 1 },
	/* faults: every clock 3 s ahead after a save (6 FAILs); the RTC reprogrammed slow (its
	 * nearest rate: half) */
	{ "tcg-idle-x86-save-fault-jump.log", REPLAY_SAME, 1 },
	{ "q10-idle-x86-pause-fault-rate5.log", REPLAY_SAME, 1 },
	/*
	 * recorded before the run checks took QEMU's threads' waits for a device
	 * of the machine: the HPET comparator's one-shot of migration 2 fired
	 * 306 ms after its deadline, its vCPU had waited 206 ms, QEMU's threads
	 * 675 ms; a FAIL then, every check passes now
	 */
	{ "tcg-idle-x86-migrate10-hpet-late.log", REPLAY_PASSES, 1 },
	/*
	 * QEMU 10 at rest, recorded (a failed event's record) before the clock
	 * checks took the window after's waits: the boot vCPU's TSC, HPET and
	 * PM timer stepped 103 ms there, its waits 122.9 ms, the event's 3 ms;
	 * "was frozen" FAILed for all three then, every check passes now
	 */
	{ "q10-idle-x86-pause-after-wait.log", REPLAY_PASSES, 1 },
	/* arm64 (CNTVCT, CNTPCT; the virtual and physical timers), at rest and beside busy loops */
	{ "tcg-idle-arm-pause.log", REPLAY_SAME, 1 },
	{ "tcg-idle-arm-save.log", REPLAY_SAME, 1 },
	{ "tcg-idle-arm-migrate10.log", REPLAY_SAME, 1 },
	{ "tcg-busy-arm-pause.log", REPLAY_SAME, 1 },
	{ "tcg-busy-arm-migrate10.log", REPLAY_SAME, 1 },
	/* QEMU 10: the virtual timer never fires with CNTVOFF_EL2 set (qemu-cntvoff-wrap), 2 FAILs */
	{ "q10-idle-arm-pause.log", REPLAY_SAME, 1 },
	{ "q10-idle-arm-migrate10.log", REPLAY_SAME, 1 },
	/* a fault: the boot vCPU's one-shot of the middle migration fired twice */
	{ "tcg-idle-arm-migrate10-fault-run-twice.log", REPLAY_SAME, 1 },
};
