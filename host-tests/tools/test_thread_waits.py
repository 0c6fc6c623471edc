# SPDX-License-Identifier: GPL-2.0-only
"""scripts/thread_waits.py: threads' run_delay and vCPU-ness, CPUs' steal and the PIT kthread, read from /proc.

What: ThreadReader over a literal /proc tree (a vCPU told by its name,
the reader's own threads never vCPUs, a thread that ends forgotten and
its file closed, a name read only while new), the steal of each CPU from
/proc/stat's text in ns, and the kvm-pit kthread of a QEMU found. Why:
the host-evidence agent and the lifecycle helper judge what a guest saw
by these figures; a vCPU taken for another thread, or a wrong unit,
under- or over-states what the host did. How: thread_waits.PROC points
at a temporary directory laid out as /proc; one reading of the real
/proc checks that the live layout still parses.
"""
import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import thread_waits as tw  # noqa: E402

STAT = """cpu  10 0 10 100 0 0 0 9 0 0
cpu0 5 0 5 50 0 0 0 4 0 0
cpu1 5 0 5 50 0 0 0 5 0 0
intr 12345
"""
OWN = 7


class FakeProc:
    """A /proc tree: tasks with a schedstat (run time, run_delay, slices) and a comm."""

    def __init__(self, test):
        self.dir = tempfile.TemporaryDirectory()
        test.addCleanup(self.dir.cleanup)
        old, tw.PROC = tw.PROC, self.dir.name
        test.addCleanup(setattr, tw, "PROC", old)

    def write(self, rel, text):
        path = os.path.join(self.dir.name, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def thread(self, pid, tid, name, delay):
        self.write(f"{pid}/task/{tid}/comm", name + "\n")
        self.write(f"{pid}/task/{tid}/schedstat", f"1000 {delay} 3\n")

    def end(self, pid, tid):
        for f in ("comm", "schedstat"):
            os.unlink(os.path.join(self.dir.name, f"{pid}/task/{tid}/{f}"))
        os.rmdir(os.path.join(self.dir.name, f"{pid}/task/{tid}"))


class Reader(unittest.TestCase):
    def setUp(self):
        self.proc = FakeProc(self)
        self.proc.thread(100, "100", "qemu-system-x86", 10)
        self.proc.thread(100, "101", "CPU 0/KVM", 20)
        self.proc.thread(100, "102", "ALL CPUs/TCG", 30)
        self.proc.thread(OWN, "7", "CPU lookalike", 40)
        self.reader = tw.ThreadReader(OWN)
        self.addCleanup(self.reader.close)

    def test_vcpus_by_name_and_the_readers_own_never(self):
        self.assertEqual(self.reader.read([100, OWN, 999]), {
            (100, "100"): (False, 10), (100, "101"): (True, 20), (100, "102"): (True, 30),
            (OWN, "7"): (False, 40)})

    def test_a_run_delay_is_read_again_and_an_ended_thread_dropped(self):
        self.reader.read([100])
        self.proc.thread(100, "101", "CPU 0/KVM", 25)
        self.proc.end(100, "102")
        self.assertEqual(self.reader.read([100]), {(100, "100"): (False, 10), (100, "101"): (True, 25)})
        self.assertEqual(set(self.reader.threads), {(100, "100"), (100, "101")})

    def test_a_name_is_read_while_the_thread_is_new(self):
        self.proc.thread(100, "103", "qemu-system-x86", 0)
        self.reader.read([100])
        self.proc.write("100/task/103/comm", "CPU 1/KVM\n")    # QEMU names it just after it starts
        self.assertTrue(self.reader.read([100])[(100, "103")][0])
        for _ in range(tw.COMM_READS):
            self.reader.read([100])
        self.proc.write("100/task/103/comm", "renamed\n")
        self.assertTrue(self.reader.read([100])[(100, "103")][0])


class Steal(unittest.TestCase):
    def test_each_cpus_steal_in_ns(self):
        self.assertEqual(tw.parse_steal(STAT, 10**7), [4 * 10**7, 5 * 10**7])

    def test_from_the_fake_stat_file_both_ways(self):
        proc = FakeProc(self)
        proc.write("stat", STAT)
        want = [4 * tw.tick_ns(), 5 * tw.tick_ns()]
        self.assertEqual(tw.cpu_steal_ns(), want)
        reader = tw.StealReader()
        self.addCleanup(os.close, reader.fd)
        self.assertEqual(reader.read(), want)

    def test_no_stat_file_is_no_figures(self):
        FakeProc(self)
        self.assertEqual(tw.cpu_steal_ns(), [])

    def test_the_real_proc_parses(self):
        self.assertEqual(len(tw.cpu_steal_ns()), os.cpu_count())


class Pit(unittest.TestCase):
    def test_the_kvm_pit_kthread_of_this_qemu(self):
        proc = FakeProc(self)
        proc.write("50/comm", "kvm-pit/99\n")
        proc.write("51/comm", "kvm-pit/100\n")
        proc.write("self/comm", "kvm-pit/100\n")
        self.assertEqual(tw.find_pit_thread(100), 51)
        self.assertIsNone(tw.find_pit_thread(101))


if __name__ == "__main__":
    unittest.main()
