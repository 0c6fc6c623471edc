# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lava-report outside LAVA: without lava-test-case (or, with --checks, lava-test-set) on PATH it says so and fails before reading anything.

Inside LAVA the job puts those commands on PATH; here stand-ins that record
their arguments play them, to show the same TAP is reported when they are
there. (host-tests/lava/testdef-check checks the calls themselves.)
"""
import os
import stat
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(TOP, "scripts", "lava-report")
TAP = """TAP version 13
ok 1 - selftest-smp1
  ---
  outcome: PASS
  message: '13 tests, 0 unexpected failures, 1 skipped'
  log: 'logs/selftest-smp1.log'
  ...
1..1
"""


def path_without(*commands):
    """PATH with no directory that holds one of commands (a LAVA install, say)."""
    dirs = os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not any(os.path.exists(os.path.join(d, c)) for c in commands))


class OutsideLava(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.tap = os.path.join(self.dir, "vmtick.tap")
        with open(self.tap, "w", encoding="utf-8") as f:
            f.write(TAP)
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        self.record = os.path.join(self.dir, "record")

    def tearDown(self):
        self.tmp.cleanup()

    def stand_in(self, name):
        path = os.path.join(self.bin, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\necho \"{name} $*\" >> '{self.record}'\n")
        os.chmod(path, stat.S_IRWXU)

    def report(self, *args, extra_path=""):
        path = path_without("lava-test-case", "lava-test-set")
        env = dict(os.environ, PATH=(extra_path + os.pathsep if extra_path else "") + path)
        return subprocess.run([SCRIPT, *args], capture_output=True, text=True, check=False, env=env,
                              cwd=self.dir, timeout=60)

    def test_no_lava_commands(self):
        r = self.report(self.tap)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "lava-report: lava-test-case is not on PATH: run it in a LAVA job's "
                         "test shell (LAVA provides the lava-test-* commands), or put stand-ins on PATH\n")
        self.assertNotIn("command not found", r.stdout + r.stderr)
        self.assertEqual(r.stdout, "", "it reported before it checked")
        # --checks needs lava-test-set too
        self.stand_in("lava-test-case")
        r = self.report("--checks", self.tap, extra_path=self.bin)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("lava-report: lava-test-set is not on PATH", r.stderr)
        self.assertFalse(os.path.exists(self.record), "a case was reported before the check")

    def test_with_lava_commands(self):
        self.stand_in("lava-test-case")
        r = self.report(self.tap, extra_path=self.bin)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(self.record, encoding="utf-8") as f:
            self.assertEqual(f.read(), "lava-test-case selftest-smp1 --result pass\n")


if __name__ == "__main__":
    unittest.main()
