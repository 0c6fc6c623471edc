# SPDX-License-Identifier: GPL-2.0-only
"""scripts/wait_meter.py: the largest wait of one vCPU thread and of any thread over a span, plus one CPU's steal.

What: spans() on literal readings (a vCPU's growth apart from the other
threads', a thread born in the span counted whole, the largest steal of
one CPU added to both, never negative), and a WaitMeter run over this
process and a busy child that reads its threads. Why: the lifecycle
kernels explain clock steps and missed ticks by these figures; one that
under-states them would pass a faulty host, one that over-states them
would hide a fault. How: literal dicts; a live meter over a child's pid.
"""
import os
import subprocess
import sys
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import wait_meter  # noqa: E402

MS = 10**6
FIRST = {"vcpu0": (True, 10 * MS), "vcpu1": (True, 0), "main": (False, 0)}
LAST = {"vcpu0": (True, 13 * MS), "vcpu1": (True, 2 * MS), "main": (False, 7 * MS)}


class Spans(unittest.TestCase):
    def test_one_threads_largest_growth_plus_one_cpus_steal(self):
        self.assertEqual(wait_meter.spans(FIRST, LAST, [0, 5 * MS], [MS, 5 * MS]), (4 * MS, 8 * MS))

    def test_a_thread_born_in_the_span_counts_whole(self):
        first = dict(FIRST, vcpu2=(True, 0))        # what _sample() records for a newcomer
        last = dict(LAST, vcpu2=(True, 9 * MS))
        self.assertEqual(wait_meter.spans(first, last, [], []), (9 * MS, 9 * MS))

    def test_nothing_waited(self):
        self.assertEqual(wait_meter.spans({}, {}, [3], [3]), (0, 0))
        self.assertEqual(wait_meter.spans(FIRST, FIRST, [5], [4]), (0, 0))


class Live(unittest.TestCase):
    def test_a_meter_reads_the_named_processes_and_its_own(self):
        child = subprocess.Popen(["sleep", "5"])
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        meter = wait_meter.WaitMeter(lambda: [child.pid])
        time.sleep(3 * wait_meter.WAIT_SAMPLE)
        vcpu, anyone = meter.finish()
        self.assertIn(child.pid, {pid for pid, _ in meter.last})
        self.assertIn(os.getpid(), {pid for pid, _ in meter.last})
        self.assertGreaterEqual(vcpu, 0)
        self.assertGreaterEqual(anyone, vcpu)
        self.assertFalse(meter.thread.is_alive())
        self.assertEqual(meter.reader.threads, {})


if __name__ == "__main__":
    unittest.main()
