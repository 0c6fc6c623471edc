# SPDX-License-Identifier: GPL-2.0-only
"""scripts/run-kernel, x86/run and arm/run: the guest's verdict as the exit status (0 pass, 1 fail, 77 skip), kernels by name.

The verdicts come from real x86_64 kernels under TCG (a build of their own
in a temporary directory, kernels.py), one short QEMU at a time: the
selftest passing, skipping (mode=skip) and failing on a bad argument, and
timer-tick asked for "help" (a SKIP) or left without its required source=.
The name lookup, arm/run and QEMU deaths use a fake QEMU: no aarch64 build
or guest is needed to see which kernel and which arch a name gives.
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402  (host-tests/tools/kernels.py)

TOP = kernels.TOP
RUN_KERNEL = os.path.join(TOP, "scripts", "run-kernel")
X86_RUN = os.path.join(TOP, "x86", "run")
ARM_RUN = os.path.join(TOP, "arm", "run")
EXIT_PASS, EXIT_FAIL, EXIT_SKIP, EXIT_NO_VERDICT = 0, 1, 77, 125
NO_VERDICT = "without the guest's verdict"


def run(argv, cwd, **env):
    return subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd, timeout=60,
                          env=dict(os.environ, **env), stdin=subprocess.DEVNULL)


class Verdicts(unittest.TestCase):
    """Real kernels under TCG through run-kernel and x86/run."""

    @classmethod
    def setUpClass(cls):
        why = kernels.missing()
        if why:
            raise unittest.SkipTest(why)
        cls.build = kernels.x86_64_build("selftest", "timer-tick")
        cls.selftest = os.path.join(cls.build, "x86", "selftest.flat")
        cls.tick = os.path.join(cls.build, "x86", "timer-tick.flat")

    def verdict(self, argv, status, cwd=None, **env):
        env.setdefault("BUILD_DIR", "")
        r = run(argv, cwd or tempfile.gettempdir(), **env)
        self.assertEqual(r.returncode, status, f"{argv}\n{r.stdout}{r.stderr}")
        self.assertNotIn(NO_VERDICT, r.stderr, argv)
        return r

    def test_pass(self):
        r = self.verdict([RUN_KERNEL, "--accel", "tcg", self.selftest], EXIT_PASS)
        self.assertRegex(r.stdout, r"SUMMARY: \d+ tests, 0 unexpected failures")

    def test_skip(self):
        r = self.verdict([RUN_KERNEL, "--accel", "tcg", self.selftest, "-append", "mode=skip"], EXIT_SKIP)
        self.assertIn("SKIP: ", r.stdout)

    def test_fail_on_a_bad_argument(self):
        r = self.verdict([RUN_KERNEL, "--accel", "tcg", self.selftest, "-append", "bogus=1"], EXIT_FAIL)
        self.assertIn("FAIL: bad argument 'bogus=1': unknown key", r.stdout)

    def test_help_is_a_skip(self):
        r = self.verdict([RUN_KERNEL, self.tick, "--accel", "tcg", "-append", "help"], EXIT_SKIP)
        self.assertIn("usage: timer-tick", r.stdout)
        self.assertIn("SKIP: usage printed, nothing run", r.stdout)
        self.assertNotIn("FAIL", r.stdout)

    def test_missing_required_key(self):
        r = self.verdict([RUN_KERNEL, "--accel=tcg", self.tick], EXIT_FAIL)
        self.assertRegex(r.stdout, r"FAIL: missing source=: source is required \(one of lapic-periodic, .*\)")

    def test_x86_run_by_name_and_path(self):
        # a name in BUILD_DIR's build, the kvm-unit-tests form from the build directory, a path
        self.verdict([X86_RUN, "selftest", "--accel", "tcg", "-append", "mode=skip"], EXIT_SKIP,
                     BUILD_DIR=self.build)
        self.verdict([X86_RUN, "--accel", "tcg", "x86/selftest.flat", "-append", "mode=fail"], EXIT_FAIL,
                     cwd=self.build)
        self.verdict([X86_RUN, "--accel", "tcg", self.selftest], EXIT_PASS)


class Lookup(unittest.TestCase):
    """Which kernel and arch a name or path gives, and QEMU's deaths, with a fake QEMU."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.status = os.path.join(self.dir, "status")
        self.qemu = os.path.join(self.dir, "fake-qemu")
        # exits with the status in the file, or kills itself with the signal named there
        with open(self.qemu, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nread s < '{self.status}'\ncase $s in\n"
                    "SIG*) kill -s \"${s#SIG}\" $$; sleep 5 ;;\nesac\nexit \"$s\"\n")
        os.chmod(self.qemu, stat.S_IRWXU)
        self.qemu_exits("1")
        self.builds = {}
        for arch, testdir in (("x86_64", "x86"), ("aarch64", "arm")):
            b = os.path.join(self.dir, arch)
            os.makedirs(os.path.join(b, testdir))
            with open(os.path.join(b, "config.mak"), "w", encoding="utf-8") as f:
                f.write(f"ARCH := {arch}\n")
            with open(os.path.join(b, testdir, "selftest.flat"), "wb") as f:
                f.write(b"\0" * 64)
            self.builds[arch] = b

    def tearDown(self):
        self.tmp.cleanup()

    def qemu_exits(self, how):
        with open(self.status, "w", encoding="utf-8") as f:
            f.write(how + "\n")

    def tool(self, argv, cwd=None, **env):
        env = dict({"QEMU": self.qemu, "ACCEL": "tcg", "BUILD_DIR": ""}, **env)
        return run(argv, cwd or self.dir, **env)

    def test_arm_run_finds_a_name_in_the_aarch64_build(self):
        arm = self.builds["aarch64"]
        for name in ("selftest", "selftest.flat", "arm/selftest.flat"):
            r = self.tool([ARM_RUN, name, "-smp", "2"], BUILD_DIR=arm)
            self.assertEqual(r.returncode, EXIT_PASS, f"{name}: {r.stderr}")
            self.assertIn(f"{self.qemu} -machine virt,gic-version=3 -accel tcg -cpu max -m 256 -smp 2 ",
                          r.stderr)
            self.assertIn(f"-kernel {arm}/arm/selftest.flat", r.stderr)
        # from the build directory, as ./run_tests.sh would pick it
        r = self.tool([ARM_RUN, "selftest"], cwd=arm)
        self.assertIn(f"-kernel {arm}/arm/selftest.flat", r.stderr)

    def test_x86_run_finds_a_name_in_the_x86_64_build(self):
        x86 = self.builds["x86_64"]
        r = self.tool([X86_RUN, "x86/selftest.flat"], cwd=x86)
        self.assertEqual(r.returncode, EXIT_PASS, r.stderr)
        self.assertIn("-machine pc -accel tcg", r.stderr)
        r = self.tool([X86_RUN, "selftest"], BUILD_DIR=x86)
        self.assertIn(f"-kernel {x86}/x86/selftest.flat", r.stderr)

    def test_refusals(self):
        x86, arm = self.builds["x86_64"], self.builds["aarch64"]
        cases = (([ARM_RUN, f"{x86}/x86/selftest.flat"], {},
                  f"{x86}/x86/selftest.flat is a kernel of an x86_64 build, not aarch64"),
                 ([X86_RUN, "timer-tik"], {"BUILD_DIR": x86},
                  "timer-tik: no such file, and no test kernel of that name (x86: "),
                 ([X86_RUN, "timer-tick"], {"BUILD_DIR": x86},
                  f"timer-tick: {x86}/x86/timer-tick.flat is not built (make -C {x86} builds it)"),
                 ([X86_RUN, "selftest"], {"BUILD_DIR": arm}, f"'{arm}' is configured for aarch64, not x86_64"),
                 ([RUN_KERNEL, "--default-arch", "sparc", "selftest"], {}, "--default-arch 'sparc'"))
        for argv, env, message in cases:
            r = self.tool(argv, **env)
            self.assertEqual(r.returncode, 2, f"{argv}: {r.stderr}")
            self.assertIn(message, r.stderr, argv)
            self.assertNotIn(self.qemu, r.stderr, f"{argv}: QEMU was started")

    def test_status_decoding(self):
        k = os.path.join(self.builds["x86_64"], "x86", "selftest.flat")
        # (code << 1) | 1 for the guest's code; 155 is EXIT_SKIP's though 128 + SIGPROF too
        for qemu, status, message in (("1", EXIT_PASS, None), ("3", EXIT_FAIL, None), ("155", EXIT_SKIP, None),
                                      ("0", EXIT_NO_VERDICT, "QEMU exited with status 0 " + NO_VERDICT),
                                      ("SIGTERM", EXIT_NO_VERDICT, "QEMU was killed by signal TERM (status 143)"),
                                      ("SIGKILL", EXIT_NO_VERDICT, "QEMU was killed by signal KILL (status 137)")):
            self.qemu_exits(qemu)
            r = self.tool([RUN_KERNEL, k])
            self.assertEqual(r.returncode, status, f"QEMU {qemu}: {r.stderr}")
            if message:
                self.assertIn(message, r.stderr)


if __name__ == "__main__":
    unittest.main()
