# SPDX-License-Identifier: GPL-2.0-only
"""scripts/bench-interleave and scripts/bench_gate.py: the paired statistic, the setup diff and the floors.

Synthetic pairs: each pair of runs shares a host factor (0.6x or 1x, as a
loaded host did to whole runs) times a small log-normal noise per run,
drawn with fixed seeds. The statistic is checked in-process over many
trials; the command line (saved pairs, setup refusal, floors, exit status)
by running the scripts on results files written here.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
INTERLEAVE = os.path.join(SCRIPTS, "bench-interleave")
COMPARE = os.path.join(SCRIPTS, "bench-compare")
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True
import bench_gate  # noqa: E402
import vmtick_host  # noqa: E402

il = vmtick_host.load_script(INTERLEAVE)
r2j = bench_gate.results_to_json()

TRIALS = 400
PAIRS = 12
HOST_FACTORS = (0.6, 1.0)
# per-run noise left once the host's factor is shared by a pair
NOISE = (0.005, 0.01, 0.02, 0.03, 0.05)


def pair_values(rng, cost, noise, n, factor=1.0):
    """n (a, b) pairs: a host factor per pair, a noise per run; b costs factor more."""
    out = []
    for _ in range(n):
        host = rng.choice(HOST_FACTORS)
        out.append((cost * host * rng.lognormvariate(0, noise),
                    cost * factor * host * rng.lognormvariate(0, noise)))
    return out


def flagged(rng, slow_row=None, factor=1.0, n=PAIRS, threshold=il.DEFAULT_THRESHOLD):
    """The rows one synthetic interleaved comparison flags, and its pairs."""
    level = bench_gate.bonferroni_level(bench_gate.DEFAULT_ALPHA, len(NOISE))
    out, data = [], []
    for i, noise in enumerate(NOISE):
        pairs = pair_values(rng, 100.0, noise, n, factor if i == slow_row else 1.0)
        data.append(pairs)
        _, lo, hi = bench_gate.paired_interval(pairs, level, il.DEFAULT_TRIM)
        verdict = bench_gate.verdict_of(lo, hi, threshold)
        if verdict != "same":
            out.append((i, verdict))
    return out, data


class PairedStatistic(unittest.TestCase):
    def test_interval_by_hand(self):
        # ratios e^0.01, e^0.03, e^0.02, e^0.04, e^0.00: mean 0.02, s = 0.0158, t(0.975, 4) = 2.776
        pairs = [(1.0, math.exp(d)) for d in (0.01, 0.03, 0.02, 0.04, 0.00)]
        ratio, lo, hi = bench_gate.paired_interval(pairs, 0.95)
        half = 2.776 * math.sqrt(0.00025) / math.sqrt(5)
        self.assertAlmostEqual(ratio, math.exp(0.02), places=9)
        self.assertAlmostEqual(lo, math.exp(0.02 - half), places=4)
        self.assertAlmostEqual(hi, math.exp(0.02 + half), places=4)

    def test_trimmed_interval_by_hand(self):
        # Yuen, 20 % of 6 pairs trimmed (1 each end): kept 0.01..0.04, mean 0.025; winsorized
        # 0.01 0.01 0.02 0.03 0.04 0.04, variance 0.00019; se = sqrt(5 * 0.00019 / (4 * 3))
        pairs = [(1.0, math.exp(d)) for d in (0.03, 0.50, 0.01, 0.00, 0.04, 0.02)]
        ratio, lo, hi = bench_gate.paired_interval(pairs, 0.95, 0.2)
        half = 3.182 * math.sqrt(5 * 0.00019 / 12)
        self.assertAlmostEqual(ratio, math.exp(0.025), places=9)
        self.assertAlmostEqual(lo, math.exp(0.025 - half), places=4)
        self.assertAlmostEqual(hi, math.exp(0.025 + half), places=4)

    def test_a_disturbed_pair_hides_nothing_when_trimmed(self):
        # 20 pairs of a 5 % slower row, 1 % noise; two pairs met bursts of other work
        rng = random.Random(14)
        pairs = pair_values(rng, 100.0, 0.01, 20, factor=1.05)
        pairs[3] = (pairs[3][0], pairs[3][1] * 1.8)
        pairs[11] = (pairs[11][0] * 1.7, pairs[11][1])
        level = bench_gate.bonferroni_level(bench_gate.DEFAULT_ALPHA, 10)
        verdicts = [bench_gate.verdict_of(*bench_gate.paired_interval(pairs, level, trim)[1:],
                                          il.DEFAULT_THRESHOLD) for trim in (0.0, il.DEFAULT_TRIM)]
        self.assertEqual(verdicts, ["same", "slower"])

    def test_order_alternates(self):
        orders = [il.order_of(p) for p in range(4)]
        self.assertEqual(orders, [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")])

    def test_aa_flags_no_row(self):
        rng = random.Random(11)
        bad = [f for _ in range(TRIALS) if (f := flagged(rng)[0])]
        self.assertLessEqual(len(bad), TRIALS * bench_gate.DEFAULT_ALPHA,
                             f"A/A: {len(bad)} of {TRIALS} trials flagged rows, e.g. {bad[:3]}")

    def test_5_percent_found_through_the_hosts_drift(self):
        # a 1 % noisy row slowed by 5 % under a host whose speed is 0.6x or 1x per pair
        rng = random.Random(12)
        slow = 1
        missed = others = lost_unpaired = 0
        level = bench_gate.bonferroni_level(bench_gate.DEFAULT_ALPHA, len(NOISE))
        for _ in range(TRIALS):
            found, data = flagged(rng, slow_row=slow, factor=1.05)
            missed += (slow, "slower") not in found
            others += any(i != slow for i, _ in found)
            # the same runs judged as two sets taken apart (bench-compare's statistic)
            a, b = [x for x, _ in data[slow]], [y for _, y in data[slow]]
            _, lo, hi = bench_gate.ratio_interval(a, b, level)
            lost_unpaired += bench_gate.verdict_of(lo, hi, il.DEFAULT_THRESHOLD) != "slower"
        self.assertLessEqual(missed, TRIALS * 0.1, f"5 % missed in {missed} of {TRIALS}")
        self.assertLessEqual(others, TRIALS * bench_gate.DEFAULT_ALPHA, f"others in {others}")
        self.assertGreaterEqual(lost_unpaired, TRIALS * 0.9,
                                f"unpaired found it in {TRIALS - lost_unpaired} of {TRIALS}")

    def test_detects_is_what_gets_flagged(self):
        rng = random.Random(13)
        level = bench_gate.bonferroni_level(bench_gate.DEFAULT_ALPHA, 1)
        for noise in NOISE:
            pairs = pair_values(rng, 50.0, noise, PAIRS)
            ratio, lo, _ = bench_gate.paired_interval(pairs, level)
            s = bench_gate.smallest_flagged(lo / ratio, il.DEFAULT_THRESHOLD) / 100
            for scale, want in ((1.001, "slower"), (0.999, "same")):
                # a slowdown of s on top of pairs whose ratio is exactly 1
                moved = [(a, b / ratio * (1 + s) * scale) for a, b in pairs]
                _, lo2, hi2 = bench_gate.paired_interval(moved, level)
                self.assertEqual(bench_gate.verdict_of(lo2, hi2, il.DEFAULT_THRESHOLD), want,
                                 f"noise {noise}: detects {s}")


# --- files as the runner writes them ---------------------------------------------

SETUP = {"qemu_version": {"qemu-system-x86_64": "7.2.22"}, "host_kernel": "6.1.0",
         "cpu_model": "AMD EPYC", "cpu_family": "25", "cpu_model_number": "1",
         "cpu_stepping": "1", "cpu_microcode": "0x1000065", "host_is_guest": "yes",
         "governor": "unreadable", "boost": "unreadable",
         "vulnerabilities": {"spectre_v2": "Mitigation: Retpolines"}}
COMMAND = ("qemu-system-x86_64 -machine pc -accel {accel} -m 256 -smp 2 -kernel "
           "/build/{build}/x86/exit-bench.flat -append '{args}' -device pci-testdev")


def doc(rows, accel="tcg", build="one", args="", setup=None, qemu_extra="", host_kind="none",
        hz=2.4e9):
    """A results document of one exit-bench run: rows is {row: (value ns, overhead ns)}."""
    benchmarks = {"exit.counter_hz": {"value": hz, "unit": "Hz"}}
    for row, (value, overhead) in rows.items():
        benchmarks[f"exit.{row}"] = {"value": value, "unit": "ns", "overhead_ns": overhead,
                                     "per_empty": value / overhead}
    command = COMMAND.format(accel=accel, build=build, args=args) + qemu_extra
    return {"format": "vmtick-bench-results/1", "host": {"kvm": host_kind},
            "setup": dict(setup or SETUP),
            "runs": [{"test": "exit-bench", "accel": accel, "command": command,
                      "benchmarks": benchmarks}]}


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, document):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)
        return path

    def pairs_dir(self, n=8, slow=1.0, seed=5, a_kw=None, b_kw=None, rows=None):
        """n saved pairs; row cpuid of B slowed by slow; each pair shares a host factor."""
        rng = random.Random(seed)
        rows = rows or {"cpuid": 1000.0, "pio_user": 5000.0}
        for p in range(n):
            host = rng.choice(HOST_FACTORS)
            for side, kw in (("a", a_kw or {}), ("b", b_kw or {})):
                figs = {}
                for row, cost in rows.items():
                    f = slow if side == "b" and row == "cpuid" else 1.0
                    figs[row] = (cost * f * host * rng.lognormvariate(0, 0.005), 10.0 * host)
                self.write(os.path.join(self.dir, f"p{p:02d}", side, "results.json"),
                           doc(figs, **kw))
        return self.dir

    def run_script(self, script, *args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                              check=False)


class Interleave(Files):
    def test_aa_passes(self):
        r = self.run_script(INTERLEAVE, "--judge", self.pairs_dir())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit-bench/exit\.cpuid \(tcg\) +ns +8 .* same")
        self.assertIn("2 judged: 0 slower", r.stdout)

    def test_slower_row_fails(self):
        r = self.run_script(INTERLEAVE, "--judge", self.pairs_dir(slow=1.05))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit\.cpuid \(tcg\) +ns +8 .* 1\.0[45]\d .* slower")
        self.assertRegex(r.stdout, r"exit\.pio_user \(tcg\) .* same")

    def test_relative_uses_per_empty(self):
        r = self.run_script(INTERLEAVE, "--judge", self.pairs_dir(slow=1.05), "--relative")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit\.cpuid \(tcg\) +x empty .* slower")

    def test_too_few_pairs_judges_nothing(self):
        r = self.run_script(INTERLEAVE, "--judge", self.pairs_dir(n=2))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("too few pairs (2; need 3)", r.stdout)
        self.assertIn("bench-interleave: no row judged", r.stderr)

    def test_bad_options(self):
        empty = os.path.join(self.dir, "empty")
        os.makedirs(empty)
        build = os.path.join(self.dir, "build")
        os.makedirs(build)
        with open(os.path.join(build, "config.mak"), "w", encoding="utf-8") as f:
            f.write("ARCH := x86_64\n")
        cases = (([], "want two build directories"),
                 (["--judge", empty, "x"], "give no BUILD_A BUILD_B"),
                 ([self.dir, self.dir], "not a configured build directory"),
                 (["--judge", os.path.join(self.dir, "none")], "no such directory"),
                 (["--judge", empty, "--min-pairs", "2"], "--min-pairs 2: want at least 3"),
                 (["--judge", empty, "--threshold", "100"], "--threshold 100.0"),
                 (["--judge", empty, "--alpha", "1"], "--alpha 1.0"),
                 (["--judge", empty, "--cpus", "a"], "--cpus 'a'"),
                 (["--judge", empty, "--pairs", "0"], "--pairs 0: want 1 to 99"),
                 (["--judge", empty], "no pairs"),
                 (["--out", self.pairs_dir(), build, build], "holds pairs of an earlier comparison"))
        for args, message in cases:
            r = self.run_script(INTERLEAVE, *args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stdout}{r.stderr}")
            self.assertIn(message, r.stderr, f"{args}")

    def test_pinning_says_when_it_cannot(self):
        prefix, said = il.pinning("0")
        self.assertEqual((prefix[1:], said), (["-c", "0"], "pinned to CPUs 0 (taskset), both sides alike"))
        # a CPU no host has: taskset refuses, the runs go on unpinned and the line says why
        prefix, said = il.pinning("4095")
        self.assertEqual(prefix, [])
        self.assertRegex(said, r"^not pinned: taskset -c 4095 failed: .+")

    def test_cfg_extras(self):
        text = "[one]\nfile = x.flat\ntest_args = a=1\n\n[two]\nfile = y.flat\n"
        out = il.cfg_with_extras(text, {"one", "two"},
                                 {"test_args": "slow=cpuid:5", "qemu_params": "-m 300"})
        self.assertIn("test_args = a=1 slow=cpuid:5\n", out)
        self.assertIn("[two]\nfile = y.flat\ntest_args = slow=cpuid:5\nqemu_params = -m 300\n", out)
        self.assertEqual(out.count("qemu_params"), 2)


class Setup(Files):
    def test_per_build_paths_are_no_change(self):
        a = doc({"cpuid": (1000.0, 10.0)}, build="one")
        b = doc({"cpuid": (1000.0, 10.0)}, build="two")
        self.assertEqual(bench_gate.setup_diff([a], [b]), ({}, {}))

    def test_what_differs_is_named(self):
        base = {"cpuid": (1000.0, 10.0)}
        kernel = dict(SETUP, host_kernel="6.2.0")
        vuln = dict(SETUP, vulnerabilities={"spectre_v2": "Vulnerable"})
        cases = ((dict(qemu_extra=" -overcommit mem-lock=off"), "qemu command of exit-bench (tcg)"),
                 (dict(setup=kernel), "host_kernel"),
                 (dict(setup=vuln), "vulnerabilities/spectre_v2"),
                 (dict(setup=dict(SETUP, cpu_microcode="0x1000066")), "cpu_microcode"),
                 (dict(setup=dict(SETUP, governor="powersave")), "governor"),
                 (dict(setup=dict(SETUP, qemu_version={"qemu-system-x86_64": "8.0.0"})),
                  "qemu_version/qemu-system-x86_64"))
        for kw, key in cases:
            setup, guest = bench_gate.setup_diff([doc(base)], [doc(base, **kw)])
            self.assertEqual(list(setup), [key], kw)
            self.assertEqual(guest, {})

    def test_guest_arguments_are_listed_not_refused(self):
        setup, guest = bench_gate.setup_diff([doc({"cpuid": (1.0, 1.0)})],
                                             [doc({"cpuid": (1.0, 1.0)}, args="slow=cpuid:5")])
        self.assertEqual(setup, {})
        self.assertEqual(list(guest), ["guest arguments of exit-bench (tcg)"])

    def test_both_gates_refuse_a_changed_setup(self):
        b_kw = {"qemu_extra": " -overcommit mem-lock=off"}
        d = self.pairs_dir(slow=1.05, b_kw=b_kw)
        old = [os.path.join(d, f"p{p:02d}", "a", "results.json") for p in range(8)]
        new = [os.path.join(d, f"p{p:02d}", "b", "results.json") for p in range(8)]
        for cmd in ([INTERLEAVE, "--judge", d], [COMPARE, *old, "--", *new]):
            r = self.run_script(*cmd)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertRegex(r.stderr, r"the setup differs between the two sides \(qemu command "
                             r"of exit-bench \(tcg\)\)")
            # the words that differ, not two whole command lines
            self.assertIn("qemu command of exit-bench (tcg): +-overcommit +mem-lock=off\n", r.stderr)
            self.assertNotIn("slower", r.stdout)
            # --relative: each run's figure over its empty loop (the host factor cancels)
            r = self.run_script(*cmd, "--allow-setup-change", "--relative")
            self.assertIn("judged across a changed setup", r.stdout)
            self.assertRegex(r.stdout, r"exit\.cpuid \(tcg\) .* slower \[setup changed\]")
            self.assertRegex(r.stdout, r"exit\.pio_user \(tcg\) .* same\n")

    def test_results_to_json_reads_the_host(self):
        cpuinfo = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
                   "model name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0x1000065\n"
                   "flags\t\t: fpu vme hypervisor lahf_lm\n\nprocessor\t: 1\nmicrocode\t: 0x9\n")
        facts = r2j.cpuinfo_facts(cpuinfo)
        self.assertEqual((facts["cpu_family"], facts["cpu_model_number"], facts["cpu_microcode"],
                          facts["host_is_guest"]), ("25", "1", "0x1000065", "yes"))
        self.assertEqual(r2j.cpuinfo_facts(cpuinfo.replace(" hypervisor", ""))["host_is_guest"], "no")
        sysdir = os.path.join(self.dir, "cpu")
        os.makedirs(os.path.join(sysdir, "cpu0"))
        self.assertEqual((r2j.governors(sysdir), r2j.boost(sysdir), r2j.vulnerabilities(sysdir)),
                         ("unreadable",) * 3)
        for rel, text in (("cpu0/cpufreq/scaling_governor", "performance"), ("cpufreq/boost", "0"),
                          ("vulnerabilities/mds", "Not affected")):
            os.makedirs(os.path.dirname(os.path.join(sysdir, rel)), exist_ok=True)
            with open(os.path.join(sysdir, rel), "w", encoding="utf-8") as f:
                f.write(text + "\n")
        self.assertEqual((r2j.governors(sysdir), r2j.boost(sysdir), r2j.vulnerabilities(sysdir)),
                         ("performance", "off", {"mds": "Not affected"}))


class Floors(Files):
    def test_below_the_empty_loop(self):
        why = bench_gate.floor_problem("exit-bench/exit.rdtsc (tcg)",
                                       {"value": 0.5, "unit": "ns", "overhead_ns": 1.8}, 2.4e9, "none")
        self.assertRegex(why, r"0\.500 ns is below its empty loop iteration \(1\.800 ns")
        above = {"value": 2.5, "unit": "ns", "overhead_ns": 1.8}
        self.assertIsNone(bench_gate.floor_problem("t/exit.rdtsc (tcg)", above, 2.4e9, "none"))
        # guest code emulated (kvm-pvm): its empty loop is no floor
        self.assertIsNone(bench_gate.floor_problem("t/exit.rdtsc (kvm)",
                                                   {"value": 0.5, "unit": "ns", "overhead_ns": 1.8},
                                                   2.4e9, "kvm-pvm"))

    def test_cheaper_than_a_vm_exit(self):
        hz = 2.0e9  # the floor: 1000 cycles = 500 ns
        floor_ns = bench_gate.EXIT_FLOOR_CYCLES * 1e9 / hz
        below = {"value": floor_ns * 0.9, "unit": "ns", "overhead_ns": 1.0}
        above = {"value": floor_ns * 1.1, "unit": "ns", "overhead_ns": 1.0}
        why = bench_gate.floor_problem("exit-bench/exit.cpuid (kvm)", below, hz, "kvm")
        self.assertRegex(why, r"below the cheapest real VM exit, 1000 cycles = 500\.000 ns "
                         r"at the guest's 2000 MHz counter \(AMD SVM round trip .*lkml")
        self.assertIsNone(bench_gate.floor_problem("exit-bench/exit.cpuid (kvm)", above, hz, "kvm"))
        # not an exit under TCG; rdtsc need not exit under KVM
        self.assertIsNone(bench_gate.floor_problem("exit-bench/exit.cpuid (tcg)", below, hz, "kvm"))
        self.assertIsNone(bench_gate.floor_problem("exit-bench/exit.rdtsc (kvm)", below, hz, "kvm"))

    def test_both_gates_flag_a_row_below_its_floor(self):
        # pio_user at 200 ns under KVM with a 2.4 GHz counter: below 1000 cycles (417 ns)
        kw = {"accel": "kvm", "host_kind": "kvm"}
        d = self.pairs_dir(rows={"cpuid": 1000.0, "pio_user": 200.0}, a_kw=kw, b_kw=kw)
        old = [os.path.join(d, f"p{p:02d}", "a", "results.json") for p in range(8)]
        new = [os.path.join(d, f"p{p:02d}", "b", "results.json") for p in range(8)]
        for cmd in ([INTERLEAVE, "--judge", d], [COMPARE, "--strict", *old, "--", *new]):
            r = self.run_script(*cmd)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertRegex(r.stdout, r"exit\.pio_user \(kvm\) .* below floor")
            self.assertRegex(r.stdout, r"exit\.cpuid \(kvm\) .* same")
            self.assertIn("below the cheapest real VM exit, 1000 cycles", r.stdout)

    def test_one_run_below_its_floor_is_not_the_row(self):
        # one run of eight (an empty loop timed high) below the floor; the row's median is not
        kw = {"accel": "kvm", "host_kind": "kvm"}
        d = self.pairs_dir(rows={"cpuid": 1000.0, "pio_user": 2000.0}, a_kw=kw, b_kw=kw)
        path = os.path.join(d, "p03", "b", "results.json")
        with open(path, encoding="utf-8") as f:
            one = json.load(f)
        one["runs"][0]["benchmarks"]["exit.pio_user"]["value"] = 200.0
        self.write(path, one)
        floors = bench_gate.floor_problems([("B", [bench_gate.load_doc(path)])])
        self.assertRegex(floors["exit-bench/exit.pio_user (kvm)"], r"^B, median of 1 runs: 200\.000 ns")
        r = self.run_script(INTERLEAVE, "--judge", d)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotRegex(r.stdout, r"exit\.pio_user .* below floor")
        self.assertNotIn("below floor (not an exit)", r.stdout)


if __name__ == "__main__":
    unittest.main()
