# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lifecycle-judge: recorded lifecycle events judged again on the host.

What: a recorded run that passed is judged again as passing (status 0), a
faulted one as failing (status 1) with the guest's own FAIL line; bad input
(no log, a log that cannot be read, one with no record, a record cut short
or with a bad line) is refused with status 2 and a message naming it.
Why: the tool is how a user re-judges a logged event after a change to the
judgment; a wrong status would hide a failure in CI.
How: the recorded logs of host-tests/data/lifecycle-records/, copied and
cut in a temporary folder.
"""
import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(TOP, "scripts", "lifecycle-judge")
RECORDS = os.path.join(TOP, "host-tests", "data", "lifecycle-records")
BAD_INPUT = 2


def judge(*logs):
    return subprocess.run([TOOL, *logs], capture_output=True, text=True, check=False, timeout=300)


class LifecycleJudge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_passing_run(self):
        r = judge(os.path.join(RECORDS, "tcg-idle-arm-save.log"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("PASS: event 1 save: ", r.stdout)
        self.assertIn("SUMMARY: ", r.stdout)

    def test_faulted_run(self):
        r = judge(os.path.join(RECORDS, "tcg-idle-x86-save-fault-jump.log"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # fault=jump: every clock 3 s ahead after the save, so a step of 3 s and a few ms
        self.assertRegex(r.stdout, r"FAIL: event 1 save: TSC: largest step over the event 30\d\d\d\d\d us")

    def test_bad_input(self):
        with open(os.path.join(RECORDS, "tcg-idle-x86-pause.log"), encoding="utf-8") as f:
            whole = f.read()
        cut = whole[:whole.index("LC-RECORD: end")]
        bad = whole.replace("LC-RECORD: rec ncpus 2", "LC-RECORD: rec ncpus two")
        cases = (
            ([], "scripts/lifecycle-judge LOG..."),
            ([os.path.join(self.tmp.name, "none.log")], "none.log: cannot read it"),
            ([self.write("plain.log", "PASS: something\n")], "no LC-RECORD lines"),
            ([self.write("cut.log", cut)], "a record with no 'end'"),
            ([self.write("bad.log", bad)], "a value that is not a number: 'rec ncpus two'"),
        )
        for argv, message in cases:
            r = judge(*argv)
            self.assertEqual(r.returncode, BAD_INPUT, f"{argv}: {r.stdout}{r.stderr}")
            self.assertIn(message, r.stdout + r.stderr, f"{argv}")


if __name__ == "__main__":
    unittest.main()
