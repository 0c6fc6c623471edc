# SPDX-License-Identifier: GPL-2.0-only
"""scripts/bench-compare on synthetic runs: a gate that flags no row of an unchanged build and flags a 10 % slowdown.

Synthetic runs: each row's figure is its cost times a log-normal noise
factor (the run-to-run noise seen on these hosts is a proportion of the
figure, and skewed), drawn with fixed seeds so every run of this test sees
the same numbers. The statistics are checked in-process over many trials;
the command line (files, logs, units, alignment, exit status) by running
the script.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(TOP, "scripts", "bench-compare")
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.dont_write_bytecode = True
import vmtick_host  # noqa: E402

TRIALS = 400
# relative run-to-run noise of the rows: quiet TCG rows to the noisiest KVM ones
NOISE = (0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5)

bc = vmtick_host.load_script(SCRIPT)


class Args:
    threshold = bc.DEFAULT_THRESHOLD


def runs(rng, cost, noise, n):
    return [cost * rng.lognormvariate(0, noise) for _ in range(n)]


def flagged_rows(rng, slow_row=None, factor=1.0, n=bc.DEFAULT_MIN_RUNS):
    """The rows one comparison of two synthetic sets of n runs flags."""
    level = 1 - bc.DEFAULT_ALPHA / len(NOISE)
    out = []
    for i, noise in enumerate(NOISE):
        old = runs(rng, 1000.0, noise, n)
        new = runs(rng, 1000.0 * (factor if i == slow_row else 1.0), noise, n)
        verdict = bc.judge(old, new, Args, level)[3]
        if verdict != "same":
            out.append((i, verdict))
    return out


class Statistics(unittest.TestCase):
    def test_t_quantiles(self):
        # Student's t from printed tables
        for p, df, want in ((0.975, 1, 12.706), (0.975, 4, 2.776), (0.995, 10, 3.169),
                            (0.9975, 4, 5.598), (0.95, 2, 2.920), (0.975, 30, 2.042)):
            self.assertAlmostEqual(bc.t_quantile(p, df), want, places=3, msg=f"t({p}, {df})")

    def test_aa_flags_no_row(self):
        rng = random.Random(1)
        bad = [(t, f) for t in range(TRIALS) if (f := flagged_rows(rng))]
        # alpha bounds the share of trials with any row flagged
        self.assertLessEqual(len(bad), TRIALS * bc.DEFAULT_ALPHA,
                             f"A/A: {len(bad)} of {TRIALS} trials flagged rows, e.g. {bad[:3]}")

    def test_ab_10_percent_slowdown_flagged(self):
        # a quiet row (1 % noise) slowed by 10 %: flagged, and only it; at
        # 3 runs a side (the least) the t interval is wide, at 5 it is not
        for n, may_miss in ((3, 0.15), (5, 0.01)):
            rng = random.Random(2)
            missed, others = 0, 0
            for _ in range(TRIALS):
                f = flagged_rows(rng, slow_row=1, factor=1.10, n=n)
                missed += (1, "slower") not in f
                others += any(i != 1 for i, _ in f)
            self.assertLessEqual(missed, TRIALS * may_miss,
                                 f"{n} runs: 10 % slowdown missed in {missed} of {TRIALS}")
            self.assertLessEqual(others, TRIALS * bc.DEFAULT_ALPHA,
                                 f"{n} runs: other rows flagged in {others} of {TRIALS}")

    def test_sensitivity_is_what_gets_flagged(self):
        rng = random.Random(3)
        level = 1 - bc.DEFAULT_ALPHA / 10
        for noise in NOISE:
            old, new = runs(rng, 500.0, noise, 3), runs(rng, 500.0, noise, 3)
            lo = bc.judge(old, new, Args, level)[1]
            s = bc.smallest_flagged(lo, Args) / 100
            above = bc.judge(old, [v * (1 + s) * 1.001 for v in new], Args, level)[3]
            below = bc.judge(old, [v * (1 + s) * 0.999 for v in new], Args, level)[3]
            self.assertEqual((above, below), ("slower", "same"), f"noise {noise}: {s}")


def results_file(path, figures):
    """A scripts/results-to-json file of one run: figures is {test/name: (value, unit)}."""
    by_test = {}
    for key, (value, unit) in figures.items():
        test, name = key.split("/", 1)
        by_test.setdefault(test, {})[name] = {"value": value, "unit": unit}
    doc = {"format": "vmtick-bench-results/1",
           "runs": [{"test": t, "benchmarks": b} for t, b in by_test.items()]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def runner_log(path, figures):
    """A runner log: the QEMU command line, the runner's record of the accelerator, the guest's RESULT lines."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("qemu-system-x86_64 -accel tcg -kernel x.flat\nrunner: accelerator tcg\n")
        for name, (value, unit) in figures.items():
            f.write(f"RESULT: {name} {value} {unit}\n")
        f.write("SUMMARY: 3 tests, 0 unexpected failures\n")


class CommandLine(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              check=False)

    def sides(self, old_figs, new_figs, fmt=results_file):
        """Files of the runs: old_figs and new_figs are lists of per-run figure dicts."""
        paths = []
        for side, figs in (("old", old_figs), ("new", new_figs)):
            for i, f in enumerate(figs):
                p = os.path.join(self.dir, f"{side}{i}.json")
                fmt(p, f)
                paths.append(p)
            if side == "old":
                paths.append("--")
        return paths

    @staticmethod
    def figures(scale=1.0, hz=2.1e9, jitter=(1.0, 1.01, 0.99)):
        return [{"exit-bench/exit.cpuid": (1990.0 * j * scale, "ns"),
                 "exit-bench/exit.rdtsc": (38.2 * j, "ns"),
                 "exit-bench/exit.counter_hz": (hz * j, "Hz"),
                 "exit-bench/exit.cpuid.iterations": (28672 * j, "count"),
                 "kvmclock/kvmclock.perf.adjusted_over_raw": (12.5 * j, "ratio")} for j in jitter]

    def test_ab_slower_strict_fails(self):
        r = self.run_script("--strict", *self.sides(self.figures(), self.figures(scale=1.1)))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit-bench/exit\.cpuid +ns .* slower")
        self.assertRegex(r.stdout, r"exit-bench/exit\.rdtsc +ns .* same")

    def test_faster_is_not_a_failure(self):
        r = self.run_script("--strict", *self.sides(self.figures(), self.figures(scale=0.8)))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit\.cpuid .* faster")

    def test_only_costs_are_judged(self):
        # the counter frequency doubles, counts and ratios change: properties, not benchmarks
        new = self.figures(hz=4.2e9)
        for run in new:
            run["exit-bench/exit.cpuid.iterations"] = (1, "count")
            run["kvmclock/kvmclock.perf.adjusted_over_raw"] = (99.0, "ratio")
        r = self.run_script("--strict", *self.sides(self.figures(), new))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        table, _, rest = r.stdout.partition("not judged:")
        self.assertNotIn("counter_hz", table)
        for name, unit in (("counter_hz", "Hz"), ("iterations", "count"),
                           ("adjusted_over_raw", "ratio")):
            self.assertRegex(rest, rf"{name}: not a benchmark \(unit {unit}\)")

    def test_too_few_runs_cannot_pass_the_gate(self):
        # one row lacks a run, the others are judged (nothing judged at all: below)
        old = self.figures()
        del old[2]["exit-bench/exit.cpuid"]
        r = self.run_script("--strict", *self.sides(old, self.figures()))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("exit-bench/exit.cpuid: too few runs (2 old, 3 new; need 3)", r.stdout)
        self.assertRegex(r.stdout, r"exit-bench/exit\.rdtsc +ns .* same")
        self.assertIn("could not be judged", r.stderr)

    def test_judging_nothing_is_not_a_pass(self):
        # one run a side (scripts/bench-compare A -- A), with or without --strict
        one = self.sides(self.figures()[:1], self.figures()[:1])
        for strict in ([], ["--strict"]):
            r = self.run_script(*strict, *one)
            self.assertEqual(r.returncode, 2, f"{strict}: {r.stdout}{r.stderr}")
            self.assertIn("0 judged", r.stdout)
            self.assertIn("bench-compare: no benchmark judged: too few runs (1 old, 1 new; need 3): "
                          "give at least 3 runs of each build", r.stderr)
        # enough runs, but not one figure is a cost
        props = [{k: v for k, v in f.items() if v[1] != "ns"} for f in self.figures()]
        r = self.run_script(*self.sides(props, props))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("bench-compare: no benchmark judged: no figure in both OLD and NEW is a cost "
                      "(ns, us, ms, s, cycles)", r.stderr)

    def test_columns_align(self):
        figs = self.figures()
        for run in figs:
            run["a-very-long-test-name-indeed/suite.a_row_name_longer_than_the_old_column"] = \
                (123456789.5, "ns")
        r = self.run_script(*self.sides(figs, figs))
        lines = r.stdout.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith("benchmark"))
        table = lines[start:lines.index("", start)]
        self.assertGreater(len(table), 3)
        # every column ends (numbers) or starts (verdict) where the header's does
        for col in ("unit", "verdict"):
            at = table[0].index(col)
            for line in table[1:]:
                self.assertEqual(line[at - 2:at], "  ", f"{col} column broken: {line!r}")
                self.assertNotEqual(line[at], " ", f"{col} column broken: {line!r}")
        for col in ("old", "new", "new/old", "interval"):
            end = re.search(rf"\s{re.escape(col)}(\s|$)", table[0]).end(0) - 1
            for line in table[1:]:
                self.assertNotEqual(line[end - 1], " ", f"{col} not right-aligned: {line!r}")
                self.assertEqual(line[end], " ", f"{col} not right-aligned: {line!r}")

    def test_relative_cancels_the_hosts_speed(self):
        # each run's host speed scales every figure and its empty loop alike
        # (0.6x to 1x, as a loaded host did); one row slowed by 10 %
        rng = random.Random(4)

        def run(slow):
            speed = rng.choice((0.6, 1.0)) * rng.lognormvariate(0, 0.01)
            figs = {}
            for name, cost, ovh in (("cpuid", 12.0, 2.0), ("rdtsc", 40.0, 5.0)):
                f = cost * speed * rng.lognormvariate(0, 0.01) * (1.1 if name == slow else 1)
                figs[f"exit-bench-tcg/exit.{name}"] = (f, "ns", ovh * speed)
            return figs

        def write(path, figs):
            doc = {"format": "vmtick-bench-results/1", "runs": [{"test": "exit-bench-tcg",
                   "benchmarks": {k.split("/")[1]: {"value": v, "unit": u, "overhead_ns": o}
                                  for k, (v, u, o) in figs.items()}}]}
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)

        paths = self.sides([run(None) for _ in range(5)], [run("cpuid") for _ in range(5)],
                           fmt=write)
        r = self.run_script("--strict", "--relative", *paths)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit\.cpuid +x empty .* slower")
        self.assertRegex(r.stdout, r"exit\.rdtsc +x empty .* same")
        r = self.run_script("--strict", *paths)
        self.assertRegex(r.stdout, r"exit\.cpuid +ns .* same", "without --relative: lost in noise")

    def test_runner_logs_are_inputs(self):
        old = [{k.split("/", 1)[1]: v for k, v in f.items() if k.startswith("exit-bench/")}
               for f in self.figures()]
        paths = []
        for side in ("a", "b"):
            for i, f in enumerate(old):
                os.makedirs(os.path.join(self.dir, f"{side}{i}"))
                p = os.path.join(self.dir, f"{side}{i}", "exit-bench.log")
                runner_log(p, f)
                paths.append(p)
            if side == "a":
                paths.append("--")
        r = self.run_script("--strict", *paths)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"exit-bench/exit\.cpuid \(tcg\) +ns .* same")

    def test_accelerators_are_compared_apart(self):
        """One entry runs under KVM or TCG: a KVM run is never judged against a TCG one."""
        figs = [{k.split("/", 1)[1]: v for k, v in f.items() if k.startswith("exit-bench/")}
                for f in self.figures()]
        paths = []
        for side, accel in (("a", "kvm"), ("b", "tcg")):
            for i, f in enumerate(figs):
                os.makedirs(os.path.join(self.dir, f"{side}{i}"))
                p = os.path.join(self.dir, f"{side}{i}", "exit-bench.log")
                runner_log(p, f)
                with open(p) as fh:
                    text = fh.read().replace(" tcg", f" {accel}")
                with open(p, "w") as fh:
                    fh.write(text)
                paths.append(p)
            if side == "a":
                paths.append("--")
        r = self.run_script(*paths)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no benchmark judged", r.stdout + r.stderr)

    def test_units_that_differ_are_an_error(self):
        new = self.figures()
        for run in new:
            run["exit-bench/exit.rdtsc"] = (38.2, "cycles")
        r = self.run_script("--strict", *self.sides(self.figures(), new))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("exit-bench/exit.rdtsc: units differ: cycles, ns", r.stdout)

    def test_bad_arguments(self):
        good = self.sides(self.figures(), self.figures())
        split = good.index("--")
        cases = (
            ([], "separate the OLD runs"),
            (good[:split], "separate the OLD runs"),
            (["--bogus", *good], "unrecognized arguments: --bogus"),
            (["--threshold", "x", *good], "invalid float value: 'x'"),
            (["--threshold", "100", *good], "--threshold 100.0"),
            (["--alpha", "0", *good], "--alpha 0.0"),
            (["--min-runs", "2", *good], "--min-runs 2: want at least 3"),
            ([*good[:split + 1]], "give runs on both sides"),
            ([os.path.join(self.dir, "nonesuch.json"), "--", good[0]],
             "nonesuch.json: No such file or directory"),
        )
        for args, message in cases:
            r = self.run_script(*args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stdout}{r.stderr}")
            self.assertIn(message, r.stderr, f"{args}")
        notjson = os.path.join(self.dir, "bad.json")
        with open(notjson, "w", encoding="utf-8") as f:
            f.write('{"format": "something else"}')
        r = self.run_script(notjson, "--", good[0])
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.json: not a results file", r.stderr)
        r = self.run_script("-h")
        self.assertEqual(r.returncode, 0)
        self.assertIn("OLD... -- NEW...", r.stdout)


if __name__ == "__main__":
    unittest.main()
