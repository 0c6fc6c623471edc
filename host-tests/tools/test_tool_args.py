# SPDX-License-Identifier: GPL-2.0-only
"""The host tools refuse bad arguments with a message and status 2 before booting anything, print help with -h, and mark failed runs.

QEMU is replaced by a script that records that it was started (and fails
the way a failing guest makes QEMU exit), so "before anything boots" and
"a failed run is marked" are checked without a guest and without timing.
"""
import json
import os
import stat
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
# QEMU's status for a guest that failed, through the testdev chardev: (1 << 1) | 1
QEMU_GUEST_FAILED = 3


class Tools(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.ran = os.path.join(self.dir, "qemu-ran")
        self.qemu = os.path.join(self.dir, "fake-qemu")
        with open(self.qemu, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\necho \"$@\" >> '{self.ran}'\nexit {QEMU_GUEST_FAILED}\n")
        os.chmod(self.qemu, stat.S_IRWXU)
        # a configured x86_64 build with the kernels the tools look for
        self.build = os.path.join(self.dir, "build", "x86_64-gcc")
        os.makedirs(os.path.join(self.build, "x86"))
        with open(os.path.join(self.build, "config.mak"), "w", encoding="utf-8") as f:
            f.write("ARCH := x86_64\n")
        for k in ("selftest", "timer-tick", "kvmclock_test"):
            with open(os.path.join(self.build, "x86", f"{k}.flat"), "wb") as f:
                f.write(b"\0" * 64)

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *argv):
        env = dict(os.environ, QEMU=self.qemu, ACCEL="tcg", TIMEOUT="20")
        return subprocess.run([os.path.join(SCRIPTS, argv[0]), *argv[1:]], capture_output=True,
                              text=True, check=False, env=env, cwd=self.dir, timeout=120)

    def booted(self):
        return os.path.exists(self.ran)

    def refuses(self, argv, message):
        r = self.run_tool(*argv)
        self.assertEqual(r.returncode, 2, f"{argv}: status {r.returncode}\n{r.stdout}{r.stderr}")
        self.assertIn(message, r.stderr, f"{argv}")
        self.assertFalse(self.booted(), f"{argv}: QEMU was started")

    def test_help(self):
        for tool, words in (("boot-bench.sh", "Usage: scripts/boot-bench.sh"),
                            ("kvmclock-sweep.sh", "Usage: scripts/kvmclock-sweep.sh"),
                            ("run-kernel", "Usage: scripts/run-kernel"),
                            ("timer-overhead.py", "--sources SOURCES"),
                            ("bench-plot", "--format"), ("bench-compare", "OLD... -- NEW...")):
            r = self.run_tool(tool, "-h")
            self.assertEqual(r.returncode, 0, tool)
            self.assertIn(words, r.stdout, tool)
        self.assertFalse(self.booted())

    def test_boot_bench_arguments(self):
        cases = ((["-x"], "see -h"), (["-n", "0"], "-n wants a number of boots in 1..1000, not '0'"),
                 (["-n", "abc"], "not 'abc'"), (["-n", "1001"], "not '1001'"),
                 ([os.path.join(self.dir, "nonesuch")], "nonesuch: not a configured build"),
                 ([self.dir], f"{self.dir}: not a configured build"))
        for args, message in cases:
            self.refuses(["boot-bench.sh", *args], message)

    def test_boot_bench_marks_a_failed_boot(self):
        r = self.run_tool("boot-bench.sh", "-n", "2", self.build)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"x86_64 +tcg +qboot +FAIL: the guest did not pass \(boot 1 of 2\)")

    def test_timer_overhead_arguments(self):
        b = ["--build", self.build]
        cases = ((["--sources", "bogus", *b], "--sources: 'bogus' not a timer source of x86_64"),
                 (["--sources", "pit,,hpet", *b], "--sources: '' not a timer source"),
                 (["--arch", "arm64", "--sources", "hpet", *b], "'hpet' not a timer source of aarch64"),
                 (["--hz", "0", *b], "argument --hz: 0 is not in 1..10000"),
                 (["--seconds", "x", *b], "argument --seconds: 'x' is not a whole number"),
                 (["--runs", "0", *b], "argument --runs: 0 is not in 1..100"),
                 (["--arch", "sparc", *b], "--arch sparc: want one of aarch64, i386, x86_64"),
                 (["--build", self.dir], f"--build {self.dir}: no configured build there"),
                 (["--out", "/proc/vmtick-no", *b], "--out /proc/vmtick-no: cannot create it"),
                 (["--bogus"], "unrecognized arguments: --bogus"))
        for args, message in cases:
            self.refuses(["timer-overhead.py", *args], message)

    def test_timer_overhead_output_under_logs(self):
        # by default its output goes where the runner's does (logs/, or LOGDIR), never the source tree
        b = ["--build", self.build, "--sources", "none", "--runs", "1", "--seconds", "1"]
        for env, out in (({}, os.path.join(self.dir, "logs", "timer-overhead")),
                         ({"LOGDIR": "mylogs"}, os.path.join(self.dir, "mylogs", "timer-overhead"))):
            env = dict(os.environ, QEMU=self.qemu, ACCEL="tcg", **env)
            r = subprocess.run([os.path.join(SCRIPTS, "timer-overhead.py"), *b], capture_output=True,
                               text=True, check=False, env=env, cwd=self.dir, timeout=120)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # the fake guest failed
            self.assertTrue(os.path.isfile(os.path.join(out, "timer-overhead.json")), r.stdout + r.stderr)
            self.assertIn(f"# {os.path.relpath(out, self.dir)}/timer-overhead.json", r.stdout)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "timer-overhead.out")))
        self.assertFalse(os.path.exists(os.path.join(TOP, "timer-overhead.out")))

    def test_kvmclock_sweep_arguments(self):
        k = os.path.join(self.build, "x86", "kvmclock_test.flat")
        cases = ((["-n", "0", k], "-n wants a positive number, not '0'"),
                 (["-l", "x", k], "-l wants a positive number, not 'x'"),
                 (["-f", "gif", k], "-f wants png or svg"), (["-q", k], "see -h"),
                 (["-o", "/proc/vmtick-no", k], "-o /proc/vmtick-no: cannot create it"),
                 ([k, k], "one kernel at most"), (["/nonesuch.flat"], "/nonesuch.flat not built"))
        for args, message in cases:
            self.refuses(["kvmclock-sweep.sh", *args], message)

    def test_run_kernel_arguments(self):
        k = os.path.join(self.build, "x86", "selftest.flat")
        cases = (([], "no kernel given"), (["-bogus", k], "unknown option '-bogus' before the kernel"),
                 (["--accel", "xen", k], "accelerator 'xen': want kvm or tcg"),
                 (["--arch", "sparc", k], "--arch 'sparc'"), (["nonesuch.flat"], "nonesuch.flat: no such file"),
                 ([k, "-append"], "-append wants the kernel's arguments"))
        for args, message in cases:
            self.refuses(["run-kernel", *args], message)

    def test_run_kernel_command_and_status(self):
        k = os.path.join(self.build, "x86", "selftest.flat")
        r = self.run_tool("run-kernel", k, "-smp", "2", "-append", "a b")
        # the guest's verdict (fail) is the status; the command is printed first
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{self.qemu} -machine pc -accel tcg -cpu max -m 256 -smp 2 ", r.stderr)
        self.assertIn(f"-kernel {k} -append 'a b'", r.stderr)

    def test_bench_plot_format_and_failed_runs(self):
        doc = {"format": "vmtick-bench-results/1", "runs": [
            {"test": "t", "summary": "3 tests, 1 unexpected failures, 0 skipped",
             "benchmarks": {"s.a": {"value": 5.0, "unit": "ns", "iterations": 100}}},
            {"test": "u", "summary": "3 tests, 0 unexpected failures, 0 skipped",
             "benchmarks": {"s.b": {"value": 7.0, "unit": "ns", "iterations": 100},
                            "s.c": {"skipped": "why"}}}]}
        res = os.path.join(self.dir, "r.json")
        with open(res, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        svg = os.path.join(self.dir, "x.svg")
        r = self.run_tool("bench-plot", "-o", svg, res)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.lstrip().startswith("<?xml"), "-o x.svg did not write SVG")
        self.assertIn("t/s.a (FAIL)", text)
        self.assertIn("u/s.c (SKIP)", text)
        self.assertIn("(a run FAILED)", text)
        png = os.path.join(self.dir, "x.png")
        self.assertEqual(self.run_tool("bench-plot", "-o", png, res).returncode, 0)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        for args, message in ((["-o", "x.gif", res], "unknown image format 'gif'"),
                              (["--format", "svg", "-o", "x.png", res], "the extension says png"),
                              (["nonesuch.json"], "nonesuch.json: No such file or directory"),
                              ([self.qemu], "not JSON")):
            self.refuses(["bench-plot", *args], message)


if __name__ == "__main__":
    unittest.main()
