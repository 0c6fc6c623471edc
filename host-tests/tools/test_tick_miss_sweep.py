# SPDX-License-Identifier: GPL-2.0-only
"""scripts/tick-miss-sweep: the command it runs for an entry, and how it reads the lost-tick check.

The entry's command and accelerator are the runner's header (run_tests.sh
-l -v: the command, then the runner's record of the accelerator it chose;
the accelerator is read from that record, never from the command). The
entry's command is the runner's with the fault's arguments added to
-append (one word, still quoted for QEMU), and --realtime drops only the
TCG entries' -icount and -rtc clock=vm. The guest's lost-tick lines, in
each of their three forms (clock by instructions, no steal time, steal
time), give the verdict and the figures; a SKIP line is a skip; a run with
no such line says so. No guest boots.
"""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.dont_write_bytecode = True
import vmtick_host  # noqa: E402

sweep = vmtick_host.load_script("tick-miss-sweep")

ENTRY = ["qemu-system-x86_64", "-machine", "pc", "-accel", "tcg", "-kernel", "timer-tick.flat",
         "-append", "source=hpet hz=1000 seconds=2", "-icount", "shift=7,sleep=off", "-rtc",
         "clock=vm"]


class Command(unittest.TestCase):
    def test_fault_joins_the_append_word(self):
        cmd = sweep.with_args(ENTRY, "fault=miss miss_every=100", realtime=False)
        self.assertEqual(cmd[cmd.index("-append") + 1],
                         "source=hpet hz=1000 seconds=2 fault=miss miss_every=100")
        self.assertEqual(len(cmd), len(ENTRY))
        self.assertIn("-icount", cmd)

    def test_realtime_drops_only_the_tcg_settings(self):
        cmd = sweep.with_args(ENTRY, "", realtime=True)
        self.assertEqual(cmd, ENTRY[:9])

    def test_another_rtc_clock_is_kept(self):
        cmd = sweep.with_args(ENTRY[:11] + ["-rtc", "base=utc"], "", realtime=True)
        self.assertEqual(cmd[-2:], ["-rtc", "base=utc"])


class Listing(unittest.TestCase):
    """entry_command() over a scripted run_tests.sh -l -v."""
    def listed(self, text, status=0):
        class Done:
            stdout, stderr, returncode = text, "", status
        real = sweep.subprocess.run
        sweep.subprocess.run = lambda *a, **k: Done()
        try:
            return sweep.entry_command("build", "timer-hpet")
        finally:
            sweep.subprocess.run = real

    def test_the_accelerator_is_the_runners_record(self):
        # the command names no accelerator the way QEMU's -accel does: only the record tells
        got = self.listed("timer-hpet\n    qemu-system-x86_64 -machine pc,accel=tcg -kernel t.flat\n"
                          "    runner: accelerator tcg\n")
        self.assertEqual(got, (["qemu-system-x86_64", "-machine", "pc,accel=tcg", "-kernel", "t.flat"],
                               "tcg", None))

    def test_the_record_not_the_command(self):
        got = self.listed("timer-hpet\n    qemu -accel kvm -kernel t.flat\n    runner: accelerator tcg\n")
        self.assertEqual(got[1], "tcg", "the accelerator was read from the command, not the record")

    def test_no_record(self):
        self.assertEqual(self.listed("timer-hpet\n    qemu -accel kvm\n")[1], "?")

    def test_skip(self):
        got = self.listed("timer-hpet\n    (SKIP: needs KVM (accel=kvm), which is not usable here)\n")
        self.assertEqual(got, (None, None, ["SKIP: needs KVM (accel=kvm), which is not usable here"]))


class Reading(unittest.TestCase):
    def read(self, text):
        class Done:
            stdout = text
        real = sweep.subprocess.run
        sweep.subprocess.run = lambda *a, **k: Done()
        try:
            return sweep.run(["qemu"])
        finally:
            sweep.subprocess.run = real

    def test_lost_line(self):
        got = self.read("INFO: x\nBOUND: timer_tick.pit.lost_unexplained 2 ticks 0..1\n"
                        "FAIL: pit: the sentence, in any words (7 of 9, at most 3)\n"
                        "RESULT: timer_tick.pit.slots_passed 2001 ticks\n")
        self.assertEqual(got[:4], ("FAIL", 2, 2001, 1))
        self.assertTrue(got[4].startswith("FAIL: pit: the sentence"))

    def test_lost_line_passing(self):
        got = self.read("BOUND: timer_tick.hpet.lost_unexplained 0 ticks 0..4\n"
                        "PASS: hpet: ticks lost that nothing explains: 0 of 2000, at most 4 (1, ...)\n"
                        "RESULT: timer_tick.hpet.catches_one_in 50 ticks\n"
                        "RESULT: timer_tick.hpet.slots_passed 2000 ticks\n")
        self.assertEqual(got[:4], ("PASS", 0, 2000, 4))
        self.assertIsNone(got[4])
        self.assertEqual(got[5], 50, "the check's own resolution")

    def test_skip_and_none(self):
        self.assertEqual(self.read("SKIP: rtc: no such source\n")[0], "SKIP")
        self.assertEqual(self.read("SUMMARY: 1 tests\n"), ("NONE", "no lost-tick check"))
        # a sentence alone is no check: only the BOUND line is read
        self.assertEqual(self.read("FAIL: pit: ticks lost that nothing explains: 2 of 2001, at most 1\n")[0],
                         "NONE")


if __name__ == "__main__":
    unittest.main()
