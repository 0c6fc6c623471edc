# SPDX-License-Identifier: GPL-2.0-only
"""scripts/host_evidence.py: the parts it cuts between two marks, its answer line, its errors, and a whole run.

What: the figures of a request over a literal sample series (each part
bracketed outward by the samples around it, a thread born mid-run counted
whole, a stamp's lateness), the HOST-EVIDENCE-DONE line's shape, malformed
or impossible requests answered HOST-EVIDENCE-ERROR, and main() wrapping a
fake "QEMU" (a Python script) that marks, asks and echoes the answer.
Why: the guest explains lost and late ticks by these figures; one that
under-states what the host did would pass a faulty host. How: the module is
imported from scripts/; the whole run starts the script with
/usr/bin/python3 as the runner does. No guest boots.
"""
import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(TOP, "scripts", "host_evidence.py")
PYTHON = "/usr/bin/python3"
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import host_evidence as he  # noqa: E402

MS = 1000000  # ns

# Five samples 10 ms apart: (time, {thread: (is a vCPU, run_delay)}, [steal per CPU]).
# "w" is born between 10 and 20 ms; the marks are stamped at 5 and 35 ms.
SAMPLES = [
    (0 * MS, {"v": (True, 0), "m": (False, 1 * MS)}, [0, 0]),
    (10 * MS, {"v": (True, 0), "m": (False, 1 * MS)}, [0, MS // 2]),
    (20 * MS, {"v": (True, 3 * MS), "m": (False, 1 * MS), "w": (False, 2 * MS)}, [0, MS // 2]),
    (30 * MS, {"v": (True, 3 * MS), "m": (False, 1 * MS), "w": (False, 5 * MS // 2)}, [MS, MS // 2]),
    (40 * MS, {"v": (True, 3 * MS), "m": (False, 5 * MS), "w": (False, 5 * MS // 2)}, [MS, MS // 2]),
]
MARK_A, MARK_B = 5 * MS, 35 * MS


def series(samples=SAMPLES):
    s = he.Series()
    for t, delays, steal in samples:
        s.add(t, delays, steal)
    return s


class FakeProc:
    """What handle() writes to: a QEMU whose stdin is a buffer."""

    def __init__(self):
        self.stdin = io.BytesIO()

    def told(self):
        return self.stdin.getvalue().decode()


class Parts(unittest.TestCase):
    def setUp(self):
        self.ev = he.evidence(series(), MARK_A, MARK_B, 3)

    def test_parts_are_bracketed_outward(self):
        # part 1 (5-15 ms) runs from the sample at 0 to the one at 20: the vCPU's 3 ms
        # between 10 and 20 may have fallen in it; part 3 (25-35) from 20 to 40: none
        self.assertEqual(self.ev["vcpu"], [3 * MS, 3 * MS, 0])
        self.assertEqual(self.ev["steal"], [MS // 2, MS, MS])

    def test_a_thread_born_during_a_part_counts_whole(self):
        # w waited 2 ms before the sample at 20 first saw it: all of it is part 1's
        self.assertEqual(self.ev["other"], [2 * MS, 5 * MS // 2, 4 * MS])

    def test_stamp_is_the_other_threads_wait_around_a_mark_plus_a_sample(self):
        # around mark B (30-40 ms) the main loop waited 4 ms; around A nothing did
        self.assertEqual(self.ev["stamp"], 4 * MS + he.STAMP_FLOOR_NS)
        self.assertEqual(self.ev["span"], 30 * MS)

    def test_a_thread_that_ended_keeps_its_last_figure(self):
        ended = [(t, {k: v for k, v in d.items() if not (k == "m" and t == 40 * MS)}, st)
                 for t, d, st in SAMPLES[:4]] + [(40 * MS, {"v": (True, 3 * MS)}, [MS, MS // 2])]
        ended[3][1]["m"] = (False, 3 * MS)
        ev = he.evidence(series(ended), MARK_A, MARK_B, 3)
        self.assertEqual(ev["other"][2], 2 * MS)

    def test_a_sample_read_across_a_parts_start_is_not_before_it(self):
        s = he.Series()
        s.add(0, {"v": (True, 0)}, [0])
        s.add(4 * MS, {"v": (True, MS)}, [0], t1=6 * MS)     # read from 4 to 6 ms
        s.add(10 * MS, {"v": (True, 2 * MS)}, [0])
        self.assertEqual(s.bracket(5 * MS, 5 * MS), (0, 2))

    def test_no_sample_after_the_second_mark_is_an_error(self):
        with self.assertRaisesRegex(he.EvidenceError, "no host sample after"):
            he.evidence(series(), MARK_A, 45 * MS, 2)


class Answer(unittest.TestCase):
    def test_line_of_the_literal_series(self):
        line = he.answer_line(he.evidence(series(), MARK_A, MARK_B, 3))
        self.assertEqual(line, "HOST-EVIDENCE-DONE parts=3 span_us=30000 stamp_us=4200 "
                               "vcpu=3000,3000,0 other=2000,2500,4000 steal=500,1000,1000")

    def test_waits_round_up_to_whole_microseconds(self):
        ev = {"parts": 2, "span": 1999, "stamp": 5000001, "vcpu": [1, 0], "other": [999, 1000],
              "steal": [1001, 0]}
        self.assertEqual(he.answer_line(ev), "HOST-EVIDENCE-DONE parts=2 span_us=1 stamp_us=5001 "
                                             "vcpu=1,0 other=1,1 steal=2,0")


class AgentThreads(unittest.TestCase):
    def test_the_agents_waits_explain_no_tick_but_late_stamps(self):
        s = he.Series()
        s.own_pid = 7
        s.add(0, {(7, "a"): (False, 0), (9, "m"): (False, 0)}, [0])
        s.add(10 * MS, {(7, "a"): (False, 4 * MS), (9, "m"): (False, MS)}, [0])
        self.assertEqual(s.largest(0, 1), (0, MS, 0))
        self.assertEqual(s.largest(0, 1, agent=True), (0, 4 * MS, 0))


class Windows(unittest.TestCase):
    """Windows in the guest's us after mark A, mapped onto the stamps (5 and 35 ms: 30 ms of host
    time for the guest's 30000 us), widened by the stamps' slack, bracketed by samples."""

    def test_a_window_takes_the_samples_around_it(self):
        # 5 + 12 ms .. 5 + 14 ms, widened by 4.2 ms: 12.8 .. 23.2 ms, samples 10 .. 30 ms
        ev = he.window_evidence(series(), MARK_A, MARK_B, 30000, [(12000, 14000)], 0)
        self.assertEqual(ev["stamp"], 4 * MS + he.STAMP_FLOOR_NS)
        self.assertEqual((ev["vcpu"], ev["other"], ev["steal"]), ([3 * MS], [5 * MS // 2], [MS]))

    def test_steal_counted_one_clock_tick_short(self):
        ev = he.window_evidence(series(), MARK_A, MARK_B, 30000, [(12000, 14000), (0, 1000)], MS // 2)
        self.assertEqual(ev["steal"], [MS // 2, 0])

    def test_asked_at_once_a_window_waits_for_a_sample_past_its_widened_end(self):
        # the last sample 0.1 ms after mark B, inside the stamps' 0.2 ms slack: a window ending
        # at mark B is answered once the sampler has read one past B + 0.2 ms (at 40 ms)
        sampler = object.__new__(he.Sampler)
        sampler.series, sampler.cond, sampler.error, sampler.tick_ns = series(SAMPLES[:3] + [
            (35 * MS + MS // 10, SAMPLES[3][1], SAMPLES[3][2])]), threading.Condition(), None, 0

        def later():
            with sampler.cond:
                sampler.series.add(*SAMPLES[4])
                sampler.cond.notify_all()
        threading.Timer(0.1, later).start()
        ev = sampler.windows(MARK_A, MARK_B, 30000, [(29000, 30000)])
        self.assertEqual(ev["other"], [5 * MS - MS])

    def test_a_quiet_window_shows_nothing(self):
        # the guest's clock twice as fast as the host's: 100 us is 50 us of host time, at 5 ms:
        # widened, 0.8 .. 9.25 ms, samples 0 .. 10 ms, before any thread waited
        ev = he.window_evidence(series(), MARK_A, MARK_B, 60000, [(0, 100)], 0)
        self.assertEqual((ev["vcpu"], ev["other"]), ([0], [0]))

    def test_answer_line(self):
        ev = {"windows": 2, "stamp": 200001, "vcpu": [1, 0], "other": [999, 0], "steal": [0, 0]}
        self.assertEqual(he.windows_answer_line(ev), "HOST-EVIDENCE-DONE windows=2 stamp_us=201 "
                                                     "vcpu=1,0 other=1,0 steal=0,0")


class Requests(unittest.TestCase):
    MARKS = {0: 10 * MS, 1: 20 * MS, 7: 15 * MS}

    def answer(self, text):
        proc = FakeProc()
        he.handle(proc, None, dict(self.MARKS), 0, text)
        return proc.told()

    def test_errors(self):
        cases = {
            "request 0 1": "malformed request 'request 0 1'",
            "request 0 1 4 5": "malformed request",
            "request 0 x 4": "malformed request",
            "request 0 100 4": "malformed request",
            "request 0 1 0": "0 parts is not 1..1000",
            "request 0 1 1001": "1001 parts is not 1..1000",
            "request 0 5 4": "mark 5 was never stamped",
            "request 1 0 4": "mark 1 was not stamped before mark 0",
            "request 1 7 4": "mark 1 was not stamped before mark 7",
            "request 1 1 4": "mark 1 was not stamped before mark 1",
            "windows 0 1 1000": "malformed request",
            "windows 0 1 1000 5-6": "malformed request",
            "windows 0 1 1000 7:6": "a window that ends before it starts",
            "windows 0 1 1000 " + " ".join(["1:2"] * 65): "65 windows, at most 64",
            "windows 0 5 1000 1:2": "mark 5 was never stamped",
            "windows 1 0 1000 1:2": "mark 1 was not stamped before mark 0",
        }
        for text, why in cases.items():
            with self.subTest(text=text):
                told = self.answer(text)
                self.assertTrue(told.startswith("HOST-EVIDENCE-ERROR "), told)
                self.assertIn(why, told)
                self.assertEqual(told.count("\n"), 1)
                self.assertTrue(told.endswith("\n"))

    def test_marks_are_stamped_and_stamped_again(self):
        marks, proc, err = {}, FakeProc(), io.StringIO()
        with contextlib.redirect_stderr(err):
            for stamp, text in ((5, "mark 3"), (9, "mark 4"), (12, "mark 3"), (13, "mark 100"), (14, "mark")):
                he.handle(proc, None, marks, stamp, text)
        self.assertEqual(marks, {3: 12, 4: 9})
        self.assertEqual(proc.told(), "")
        self.assertIn("host-evidence: warning: ignored 'HOST-EVIDENCE: mark 100'", err.getvalue())

    def test_thread_names_and_fw_cfg(self):
        self.assertEqual(he.qemu_command(["q", "-m", "1"]),
                         ["q", "-m", "1", "-fw_cfg", "name=opt/vmtick/host-evidence,string=1",
                          "-name", "vmtick,debug-threads=on"])
        self.assertEqual(he.qemu_command(["q", "-name", "x"])[3:],
                         ["-fw_cfg", "name=opt/vmtick/host-evidence,string=1"])


FAKE_QEMU = textwrap.dedent("""\
    import os, signal, sys, time
    status, argfile, HANG = int(sys.argv[1]), sys.argv[2], 99
    with open(argfile, "w") as f:
        f.write("\\n".join(sys.argv[3:]))
    print("booting\\r", flush=True)
    print("HOST-EVIDENCE: mark 0\\r", flush=True)
    time.sleep(0.2)
    print("HOST-EVIDENCE: mark 1", flush=True)
    print("HOST-EVIDENCE: request 0 1 4", flush=True)
    print("GOT " + sys.stdin.readline().rstrip("\\n"), flush=True)
    if status < 0:
        os.kill(os.getpid(), -status)
    if status == HANG:
        time.sleep(60)
    sys.exit(status)
    """)
ANSWER_RE = re.compile(r"^GOT HOST-EVIDENCE-DONE parts=4 span_us=(\d+) stamp_us=(\d+) "
                       r"vcpu=(\d+,){3}\d+ other=(\d+,){3}\d+ steal=(\d+,){3}\d+$", re.M)


HANG = 99  # the fake's status that makes it sleep a minute after the answer


class WholeRun(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="vmtick-host-evidence.")
        self.addCleanup(tmp.cleanup)
        self.fake, self.argfile = os.path.join(tmp.name, "fake-qemu.py"), os.path.join(tmp.name, "args")
        with open(self.fake, "w") as f:
            f.write(FAKE_QEMU)

    def agent(self, status):
        return [PYTHON, SCRIPT, "--", PYTHON, self.fake, str(status), self.argfile]

    def run_agent(self, status):
        r = subprocess.run(self.agent(status), capture_output=True, timeout=30)
        with open(self.argfile) as f:
            return r, f.read().split("\n")

    def test_answer_options_and_status(self):
        r, args = self.run_agent(3)
        out = r.stdout.decode()
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertTrue(out.startswith("booting\r\nHOST-EVIDENCE: mark 0\r\nHOST-EVIDENCE: mark 1\n"
                                       "HOST-EVIDENCE: request 0 1 4\n"), out)
        m = ANSWER_RE.search(out)
        self.assertIsNotNone(m, out)
        # the marks are printed 0.2 s apart, but a loaded host may keep the reader from
        # stamping the first until just before the second: only their order is sure
        self.assertGreaterEqual(int(m.group(1)), 1)
        self.assertGreaterEqual(int(m.group(2)), he.STAMP_FLOOR_NS // 1000)
        self.assertEqual(args, ["-fw_cfg", "name=opt/vmtick/host-evidence,string=1",
                                "-name", "vmtick,debug-threads=on"])
        self.assertEqual(r.stderr, b"")

    def test_death_by_signal_is_128_plus_it(self):
        r, _ = self.run_agent(-9)
        self.assertEqual(r.returncode, 128 + 9)

    def test_sigterm_stops_qemu_and_is_143(self):
        p = subprocess.Popen(self.agent(HANG), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(p.kill)
        out = ""
        while not out.endswith("GOT"):
            c = p.stdout.read(1)
            self.assertTrue(c, f"the agent's output ended before the answer: {out}")
            out += c
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=30), 128 + signal.SIGTERM)
        fake = subprocess.run(["pgrep", "-f", self.fake], capture_output=True, text=True)
        self.assertEqual(fake.stdout, "")
        p.stdout.close()
        p.stderr.close()

    def test_usage(self):
        r = subprocess.run([PYTHON, SCRIPT, "qemu"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, he.ERROR_STATUS)
        self.assertIn("host-evidence: ERROR: usage: host_evidence.py -- QEMU ARGS...", r.stderr)

    def test_qemu_that_cannot_start_is_an_error(self):
        r = subprocess.run([PYTHON, SCRIPT, "--", "/nonexistent/qemu"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, he.ERROR_STATUS)
        self.assertRegex(r.stderr, r"^host-evidence: ERROR: cannot start /nonexistent/qemu: ")


if __name__ == "__main__":
    unittest.main()
