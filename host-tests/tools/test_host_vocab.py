# SPDX-License-Identifier: GPL-2.0-only
"""The host vocabulary is one: the tools print the same QEMU command for the same kernel and read QEMU's status alike.

Commands: the runner (run_tests.sh -l -v; QEMU's words, without the
host-evidence agent it runs `evidence = host` entries under), scripts/run-kernel --print,
scripts/boot-bench.sh -p and scripts/timer-overhead.py --print, for the
same kernel, arguments and accelerator, must be the same words (the
runner's entry given to run-kernel with its QEMU options; boot-bench's
selftest is the runner's [selftest-smp1]; timer-overhead's runs are
run-kernel's with their -append, and the runner's where the entry adds
nothing for the accelerator). The runner's -l -v lists each entry's
header as its logs begin with it, and scripts/vmtick_host.py's reader of
the accelerator's record (results-to-json's, tick-miss-sweep's) reads
from it the accelerator the runner chose.

Statuses: a fake QEMU (host-tests/runner/fake-qemu) prints a SUMMARY and
exits with each status of a table; guest_status (scripts/guest.bash, also
through scripts/vmtick_host.py), run-kernel's exit status, the runner's
outcome, timer-overhead's run status and boot-bench's row must all give
the guest verdict the table says (PASS, FAIL, SKIP, or none).

No guest boots: the kernels are files of a made-up build.
"""
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
FAKE_QEMU = os.path.join(TOP, "host-tests", "runner", "fake-qemu")
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vmtick_host  # noqa: E402  (scripts/vmtick_host.py)

# QEMU's status -> the guest's verdict (testdev: (code << 1) | 1; docs/runner.md)
VERDICT = {1: "PASS", 3: "FAIL", 155: "SKIP", 0: None, 2: None, 124: None, 137: None, 139: None, 126: None}
# guest_status's decoding of each (scripts/guest.bash): the verdict word and the guest's exit code
DECODED = {1: ("PASS", 0), 3: ("FAIL", 1), 155: ("SKIP", 77), 0: ("EXITED", None), 2: ("STATUS", None),
           124: ("TIMEOUT", None), 137: ("SIGNAL", None), 139: ("SIGNAL", None), 126: ("NOSTART", None)}
# the SUMMARY line the fake guest prints before QEMU exits with the status
SUMMARY = {"PASS": "1 tests, 0 unexpected failures, 0 skipped",
           "FAIL": "1 tests, 1 unexpected failures, 0 skipped",
           "SKIP": "1 tests, 0 unexpected failures, 1 skipped", None: "1 tests, 0 unexpected failures, 0 skipped"}
# run-kernel's exit status for each verdict; 125: no verdict (scripts/run-kernel)
RUN_KERNEL_EXIT = {"PASS": 0, "FAIL": 1, "SKIP": 77, None: 125}
# the entries compared, as the runner names them and as run-kernel is given them
ENTRIES = {
    "x86_64": [("selftest-smp1", "selftest.flat", ["-smp", "1"], "smp=1 mem=256"),
               ("timer-hpet", "timer-tick.flat", ["-smp", "1", "-icount", "shift=7,sleep=off", "-rtc", "clock=vm"],
                "source=hpet hz=1000 seconds=2")],
    "aarch64": [("arm-selftest-gicv3-smp1", "selftest.flat", ["-smp", "1", "-machine", "virt,gic-version=3"],
                 "smp=1 mem=256 gic=3")],
}
TESTDIR = {"x86_64": "x86", "aarch64": "arm"}
# the agent the runner runs an `evidence = host` entry's QEMU under: PYTHON AGENT -- QEMU ARGS...
EVIDENCE_AGENT = "/host_evidence.py"
# boot-bench's selftest arguments (the runner's [selftest-smp1]) and its TCG row's firmware per arch
BOOT_ARGS = "smp=1 mem=256"
BOOT_TCG_FIRMWARE = {"x86_64": "qboot", "aarch64": "none"}
# timer-overhead's runs compared: arch, source, the entry that runs it
TICK_RUNS = {"x86_64": ("hpet", "timer-hpet"), "aarch64": ("vtimer", None)}


def run(argv, env=None, cwd=None):
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300,
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL)


def qemu_words(words):
    """The runner's command without the host-evidence agent it may wrap QEMU in: QEMU's own words."""
    if len(words) > 2 and words[1].endswith(EVIDENCE_AGENT) and words[2] == "--":
        return words[3:]
    return words


class HostVocab(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vmtick-host-vocab.")
        cls.dir = cls.tmp.name
        cls.builds = {}
        for arch, testdir in TESTDIR.items():
            build = os.path.join(cls.dir, "build", f"{arch}-gcc")
            os.makedirs(os.path.join(build, testdir))
            with open(os.path.join(build, "config.mak"), "w", encoding="utf-8") as f:
                f.write(f"ARCH := {arch}\n")
            for k in ("selftest", "timer-tick", "kvmclock_test"):
                cls.write_kernel(build, arch, f"{k}.flat", None)
            cls.builds[arch] = build
        cls.env = {k: v for k, v in os.environ.items() if k not in ("FIRMWARE", "BUILD_DIR", "UNITTESTS_CFG")}
        cls.env.update(QEMU=FAKE_QEMU, NO_COLOR="1", LOGDIR=os.path.join(cls.dir, "logs"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def write_kernel(build, arch, name, status):
        """A fake kernel: its SUMMARY for the status's verdict, then QEMU's exit with the status."""
        path = os.path.join(build, TESTDIR[arch], name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"out SUMMARY: {SUMMARY[VERDICT.get(status)]}\nstatus {0 if status is None else status}\n")
        return path

    def tool(self, argv, accel="tcg"):
        return run(argv, env=dict(self.env, ACCEL=accel), cwd=self.dir)

    # ---- commands

    def runner_cmds(self, arch, accel, names):
        r = self.tool([os.path.join(TOP, "run_tests.sh"), "--build", self.builds[arch], "-l", "-v", *names], accel)
        cmds, name = {}, None
        for line in r.stdout.splitlines():
            if not line.startswith(" "):
                name = line.strip()
            elif name and name not in cmds and not line.strip().startswith("("):
                cmds[name] = qemu_words(shlex.split(line))
        self.assertEqual(sorted(cmds), sorted(names), f"runner -l -v {names}\n{r.stdout}{r.stderr}")
        return cmds

    def run_kernel_cmd(self, arch, kernel, opts, append, accel="tcg"):
        path = os.path.join(self.builds[arch], TESTDIR[arch], kernel)
        r = self.tool([os.path.join(SCRIPTS, "run-kernel"), "--print", path, *opts, "-append", append], accel)
        self.assertEqual(r.returncode, 0, r.stderr)
        return shlex.split(r.stdout)

    def boot_bench_cmd(self, arch):
        r = self.tool([os.path.join(SCRIPTS, "boot-bench.sh"), "-p", self.builds[arch]])
        self.assertEqual(r.returncode, 0, r.stderr)
        for line in r.stdout.splitlines():
            a, accel, firmware, cmd = line.split(" ", 3)
            if (a, accel, firmware) == (arch, "tcg", BOOT_TCG_FIRMWARE[arch]):
                return shlex.split(cmd)
        self.fail(f"boot-bench -p: no {arch} tcg row\n{r.stdout}")
        return None

    def timer_overhead_cmd(self, arch, source, accel="tcg"):
        r = self.tool([os.path.join(SCRIPTS, "timer-overhead.py"), "--arch", arch, "--build", self.builds[arch],
                       "--print", "--sources", source, "--hz", "1000", "--seconds", "2"], accel)
        self.assertEqual(r.returncode, 0, r.stderr)
        cmds = dict(line.split(" ", 1) for line in r.stdout.splitlines())
        return shlex.split(cmds[source])

    def test_runner_and_run_kernel(self):
        for arch, entries in ENTRIES.items():
            runner = self.runner_cmds(arch, "tcg", [e[0] for e in entries])
            for name, kernel, opts, append in entries:
                with self.subTest(arch=arch, entry=name):
                    self.assertEqual(self.run_kernel_cmd(arch, kernel, opts, append), runner[name])

    def test_boot_bench(self):
        for arch in ENTRIES:
            with self.subTest(arch=arch):
                want = self.run_kernel_cmd(arch, "selftest.flat", ["-smp", "1"], BOOT_ARGS)
                self.assertEqual(self.boot_bench_cmd(arch), want)
        # x86's boot is the runner's [selftest-smp1] itself
        self.assertEqual(self.boot_bench_cmd("x86_64"), self.runner_cmds("x86_64", "tcg", ["selftest-smp1"])["selftest-smp1"])

    def test_timer_overhead(self):
        for arch, (source, _) in TICK_RUNS.items():
            with self.subTest(arch=arch):
                want = self.run_kernel_cmd(arch, "timer-tick.flat", ["-smp", "1"], f"source={source} hz=1000 seconds=2")
                self.assertEqual(self.timer_overhead_cmd(arch, source), want)

    @unittest.skipIf(vmtick_host.kvm_problem("x86_64"), "KVM is not usable here: compared with run-kernel above")
    def test_timer_overhead_is_the_runners_under_kvm(self):
        # the timer entries add QEMU options under TCG only
        source, entry = TICK_RUNS["x86_64"]
        runner = self.runner_cmds("x86_64", "kvm", [entry])[entry]
        self.assertEqual(self.timer_overhead_cmd("x86_64", source, "kvm"), runner)

    def test_accel_record_read_back(self):
        entry = ENTRIES["x86_64"][0][0]
        r = self.tool([os.path.join(TOP, "run_tests.sh"), "--build", self.builds["x86_64"], "-l", "-v", entry])
        header = [line.strip() for line in r.stdout.splitlines() if line.startswith(" ")]
        self.assertEqual(vmtick_host.recorded_accel(header), "tcg", r.stdout)
        # the version after it is what the QEMU in the command says of itself
        version = subprocess.run([shlex.split(header[0])[0], "--version"],
                                 capture_output=True, text=True, check=False).stdout
        self.assertIn(f"version {vmtick_host.recorded_qemu(header)} ", version, r.stdout)

    # ---- statuses

    def test_guest_status_table(self):
        for status, want in DECODED.items():
            self.assertEqual(vmtick_host.guest_status(status), want, status)
        # Python's -9 is bash's 137
        self.assertEqual(vmtick_host.guest_status(-9), vmtick_host.guest_status(137))

    def test_run_kernel_verdicts(self):
        rk = os.path.join(SCRIPTS, "run-kernel")
        for status, verdict in VERDICT.items():
            with self.subTest(status=status):
                k = self.write_kernel(self.builds["x86_64"], "x86_64", f"st{status}.flat", status)
                r = self.tool([rk, k])
                self.assertEqual(r.returncode, RUN_KERNEL_EXIT[verdict], r.stderr)
                if verdict is None:
                    self.assertIn(f"(status {status}) before" if status > 128 else f"status {status} without",
                                  r.stderr)

    def test_runner_verdicts(self):
        build = self.builds["x86_64"]
        cfg = os.path.join(self.dir, "statuses.cfg")
        with open(cfg, "w", encoding="utf-8") as f:
            for status in VERDICT:
                self.write_kernel(build, "x86_64", f"st{status}.flat", status)
                f.write(f"[st{status}]\nfile = st{status}.flat\narch = x86_64\ntimeout = 30\n\n")
        env = dict(self.env, ACCEL="tcg", UNITTESTS_CFG=cfg)
        r = run([os.path.join(TOP, "run_tests.sh"), "--build", build, "-j", "2"], env=env, cwd=self.dir)
        outcomes = dict((m.group(2), m.group(1)) for m in re.finditer(r"^(\w+) +st(\d+) ", r.stdout, re.M))
        for status, verdict in VERDICT.items():
            with self.subTest(status=status):
                got = outcomes.get(str(status))
                self.assertIsNotNone(got, r.stdout + r.stderr)
                self.assertEqual(got if got in ("PASS", "FAIL", "SKIP") else None, verdict, r.stdout)

    def test_timer_overhead_verdicts(self):
        build = self.builds["x86_64"]
        for status, verdict in VERDICT.items():
            with self.subTest(status=status):
                self.write_kernel(build, "x86_64", "timer-tick.flat", status)
                r = self.tool([os.path.join(SCRIPTS, "timer-overhead.py"), "--build", build, "--sources", "none",
                               "--runs", "1", "--seconds", "1", "--out", os.path.join(self.dir, "to")])
                m = re.search(r"none run 1/1: (\w+)", r.stderr)
                self.assertIsNotNone(m, r.stderr)
                self.assertEqual(m.group(1) if m.group(1) != "CRASH" else None, verdict, r.stderr)
        self.write_kernel(build, "x86_64", "timer-tick.flat", None)

    def test_boot_bench_verdicts(self):
        build = self.builds["x86_64"]
        for status, verdict in VERDICT.items():
            with self.subTest(status=status):
                self.write_kernel(build, "x86_64", "selftest.flat", status)
                r = self.tool([os.path.join(SCRIPTS, "boot-bench.sh"), "-n", "1", build])
                passed = re.search(r"^x86_64 +tcg +qboot +\d", r.stdout, re.M) is not None
                self.assertEqual(passed, verdict == "PASS", r.stdout + r.stderr)
                self.assertEqual(r.returncode, 0 if passed else 1)
        self.write_kernel(build, "x86_64", "selftest.flat", None)

    # ---- KVM and RESULT lines

    @unittest.skipUnless(vmtick_host.kvm_problem("x86_64"), "KVM is usable here")
    def test_kvmclock_sweep_needs_kvm(self):
        k = os.path.join(self.builds["x86_64"], "x86", "kvmclock_test.flat")
        r = self.tool([os.path.join(SCRIPTS, "kvmclock-sweep.sh"), "-o", os.path.join(self.dir, "ks"), k])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"{vmtick_host.kvm_problem('x86_64')}: kvmclock needs KVM", r.stderr)

    def test_result_lines_bash_and_python(self):
        lines = ["RESULT: timer_tick.hpet.phase 2000000 us", "RESULT: a.b 1.5 ns\r", "RESULT: x n/a ratio",
                 "INFO: RESULT: a 1 ns", "PASS: RESULT", "RESULT:a 1 ns"]
        script = ('. "$1/scripts/guest.bash"; shift; for l in "$@"; do '
                  'if guest_result "$l"; then echo "$GUEST_RESULT"; else echo -; fi; done')
        bash = run(["bash", "-c", script, "_", TOP, *lines]).stdout.splitlines()
        python = [" ".join(r) if r else "-" for r in map(vmtick_host.parse_result, lines)]
        self.assertEqual(bash, python)

    def test_bound_figures_bash_and_python(self):
        """A BOUND line's figure, as the runner collects it (guest_bound) and results-to-json
        reads it (vmtick_host.parse_bound): the same lines taken, the same figure."""
        lines = ["BOUND: catchup.cli.missed 64 ticks 0..17", "BOUND: a.b -4956.765 ppm -1031.967..1031.967\r",
                 "BOUND: c.d 50 count 1..inf", "BOUND: e.f 74.1000 % 90.0000..110.0000 72.0000..88.0000",
                 "BOUND: g.h -561 ticks -inf..1", "BOUND: x 1 ns", "BOUND: x 1 ns a..b", "BOUND: x 1 ns 0..",
                 "RESULT: a.b 1.5 ns", "INFO: BOUND: a 1 ns 0..1", "BOUND:a 1 ns 0..1"]
        script = ('. "$1/scripts/guest.bash"; shift; for l in "$@"; do '
                  'if guest_bound "$l"; then echo "$GUEST_RESULT"; else echo -; fi; done')
        bash = run(["bash", "-c", script, "_", TOP, *lines]).stdout.splitlines()
        python = [" ".join(b[:3]) if b else "-" for b in map(vmtick_host.parse_bound, lines)]
        self.assertEqual(bash, python)
        self.assertEqual(bash[:2], ["catchup.cli.missed 64 ticks", "a.b -4956.765 ppm"])

    def test_summary_counts(self):
        """A SUMMARY line's counts, read once (vmtick_host) for results-to-json, the report, bench-plot
        and the LAVA monitor's check: known failures 0 where none are printed, None where cut."""
        S = vmtick_host.Summary
        text = "23 tests, 1 unexpected failures, 2 skipped, 3 known failures"
        line = f"SUMMARY: {text}\r\n"
        self.assertEqual(vmtick_host.summary_text(line), text)
        self.assertEqual(vmtick_host.parse_summary(vmtick_host.summary_text(line)), S(23, 1, 2, 3))
        self.assertEqual(vmtick_host.parse_summary("5 tests, 0 unexpected failures, 0 skipped"), S(5, 0, 0, 0))
        for cut in ("5 tests, 0 unexpected failures", "garbage", "", None):
            self.assertIsNone(vmtick_host.parse_summary(cut), cut)
        for other in ("INFO: SUMMARY: 1 tests, 0 unexpected failures, 0 skipped", "SUMMARY:1 tests"):
            self.assertIsNone(vmtick_host.summary_text(other), other)

    def test_config_value_is_the_runners(self):
        """config.mak read by the runner's reader (arch_config_value): a value, or None."""
        for arch, build in self.builds.items():
            self.assertEqual(vmtick_host.config_value(build, "ARCH"), arch)
            self.assertIsNone(vmtick_host.config_value(build, "CC"))
        self.assertIsNone(vmtick_host.config_value(os.path.join(self.dir, "none"), "ARCH"))


if __name__ == "__main__":
    unittest.main()
