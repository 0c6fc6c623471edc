# SPDX-License-Identifier: GPL-2.0-only
"""./run_tests.sh with a test name no entry has: the error names the closest tests when the name looks like a typo of them.

Runs ./run_tests.sh -l (list, nothing boots) against a configured x86_64
build of its own (kernels.py) and the tree's unittests.cfg.
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402  (host-tests/tools/kernels.py)

RUN_TESTS = os.path.join(kernels.TOP, "run_tests.sh")
EXIT_NOTHING_SELECTED = 4


class DidYouMean(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = kernels.x86_64_build()

    def listing(self, *names):
        return subprocess.run([RUN_TESTS, "--build", self.build, "-l", *names], capture_output=True,
                              text=True, check=False, cwd=self.build, timeout=60, stdin=subprocess.DEVNULL)

    def test_typos_name_the_closest_tests(self):
        cfg = os.path.join(kernels.TOP, "unittests.cfg")
        cases = (("timer-hept", "did you mean timer-hpet?"),       # two letters swapped
                 ("timr-hpet", "did you mean timer-hpet?"),        # one left out
                 ("Timer-HPET", "did you mean timer-hpet?"),       # case
                 ("kvmclok", "did you mean kvmclock?"),
                 ("selftest-smp2", "did you mean selftest-smp1 or selftest-smp4?"))
        for name, hint in cases:
            r = self.listing(name)
            self.assertEqual(r.returncode, EXIT_NOTHING_SELECTED, f"{name}: {r.stdout}{r.stderr}")
            self.assertEqual(r.stderr.strip().splitlines()[-1],
                             f"run_tests: no test in {cfg} matches '{name}'; {hint}")

    def test_no_hint_when_nothing_is_close(self):
        for name in ("xyz", "timer-hep*", "completely-unrelated-name"):
            r = self.listing(name)
            self.assertEqual(r.returncode, EXIT_NOTHING_SELECTED, name)
            self.assertIn(f"matches '{name}'", r.stderr)
            self.assertNotIn("did you mean", r.stderr, name)

    def test_a_right_name_is_listed(self):
        r = self.listing("timer-hpet")
        self.assertEqual((r.returncode, r.stdout), (0, "timer-hpet\n"), r.stderr)


if __name__ == "__main__":
    unittest.main()
