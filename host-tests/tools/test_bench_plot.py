# SPDX-License-Identifier: GPL-2.0-only
"""scripts/bench-plot: which rows it draws by default and with --rows, its labels and key, and that labels do not overlap.

The results files are made up in the shape ./run_tests.sh -g micro-bench
(and a default suite) leave in logs/results.json: lib/bench rows (a median
in ns with min_ns, max_ns, overhead_ns, iterations, batches), skipped rows,
a counter frequency in Hz, a kvmclock ns_per_read, and timer-tick figures
in ns that are no cost of an operation (lateness). The chart is written as
SVG and its text read back: row labels, axis label, key, and the y of each
row label.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(TOP, "scripts", "bench-plot")
ROWS = 40
FONT_PX = 12
# gnuplot's SVG: each text in a group placed by translate(x,y)
TEXT_RE = re.compile(r'<g transform="translate\(([\d.]+),([\d.]+)\)"[^>]*>\s*<text>([^<]*)</text>')


def bench_row(value):
    return {"value": value, "unit": "ns", "min_ns": value * 0.9, "max_ns": value * 1.2,
            "mean_ns": value, "mad_ns": 0.1, "overhead_ns": 0.7, "iterations": 28672, "batches": 7}


def results(runs, created="2026-12-02T02:23:25+00:00"):
    return {"format": "vmtick-bench-results/1", "created": created,
            "host": {"hostname": "vm", "kvm": "kvm-pvm"}, "qemu": {"qemu-system-x86_64": "7.2.22"},
            "runs": runs}


def micro_bench_runs(skip_vmcall=True):
    bench = {f"exit.row{i:02d}": bench_row(10.0 + i * 7) for i in range(ROWS)}
    bench["exit.counter_hz"] = {"value": 2599804000, "unit": "Hz"}
    if skip_vmcall:
        bench["exit.vmcall"] = {"skipped": "#UD: TCG has no hypercalls"}
    else:
        bench["exit.vmcall"] = bench_row(900.0)
    ok = "23 tests, 0 unexpected failures, 2 skipped"
    return [{"test": "exit-bench", "accel": "tcg", "summary": ok, "benchmarks": bench},
            {"test": "kvmclock", "accel": "kvm", "summary": ok, "benchmarks": {
                "kvmclock.perf.raw.ns_per_read": {"value": 190.5, "unit": "ns"},
                "kvmclock.perf.raw.cycles_per_read": {"value": 5800, "unit": "cycles"},
                "kvmclock.warps.vcpu0.worst": {"value": 3, "unit": "ns"}}}]


def timer_runs():
    return [{"test": f"timer-{src}", "accel": "tcg", "summary": "5 tests, 0 unexpected failures, 0 skipped",
             "benchmarks": {f"timer_tick.{src}.late_median": {"value": 201840, "unit": "ns"},
                            f"timer_tick.{src}.ticks_received": {"value": 2000, "unit": "ticks"}}}
            for src in ("hpet", "pit")]


@unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot (Debian: gnuplot-nox)")
class Rows(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.file = self.write("results.json", results(micro_bench_runs() + timer_runs()))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def plot(self, *args, status=0):
        """(texts [(x, y, text)], stdout, stderr) of a chart drawn as SVG."""
        svg = os.path.join(self.dir, "chart.svg")
        r = subprocess.run([SCRIPT, "-o", svg, *args], capture_output=True, text=True, check=False,
                           cwd=self.dir, timeout=60)
        self.assertEqual(r.returncode, status, f"{args}: {r.stdout}{r.stderr}")
        if status:
            return [], r.stdout, r.stderr
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        texts = [(float(x), float(y), t) for x, y, t in TEXT_RE.findall(text)]
        return texts, r.stdout, r.stderr

    @staticmethod
    def labels(texts):
        return [t for _, _, t in texts if "/" in t and t.endswith(")") and ": " not in t]

    def test_default_is_ns_per_operation(self):
        texts, out, _ = self.plot(self.file)
        labels = self.labels(texts)
        want = [f"exit-bench/exit.row{i:02d} (tcg)" for i in range(ROWS)]
        want += ["exit-bench/exit.vmcall (tcg; SKIP)", "kvmclock/kvmclock.perf.raw.ns_per_read (kvm)"]
        self.assertEqual(sorted(labels), sorted(want))
        every = " ".join(t for _, _, t in texts)
        for other in ("late_median", "counter_hz", "cycles_per_read", "warps", "ticks_received"):
            self.assertNotIn(other, every)
        self.assertIn("ns per operation", [t for _, _, t in texts])
        self.assertIn("vmtick micro-benchmarks: ns per operation (median, min..max over batches)",
                      [t for _, _, t in texts])
        self.assertIn("(ns per operation; --rows REGEX for others)", out)

    def test_rows_selects_by_regex(self):
        texts, _, _ = self.plot("--rows", "late_median", self.file)
        self.assertEqual(sorted(self.labels(texts)), ["timer-hpet/timer_tick.hpet.late_median (tcg)",
                                                      "timer-pit/timer_tick.pit.late_median (tcg)"])
        # a lateness is no operation's cost: the axis says ns only
        axis = [t for _, _, t in texts if t.startswith("ns")]
        self.assertEqual(axis, ["ns"])
        texts, _, _ = self.plot("--rows", r"^exit-bench/exit\.row0[0-4]$", self.file)
        self.assertEqual(sorted(self.labels(texts)), [f"exit-bench/exit.row0{i} (tcg)" for i in range(5)])
        self.assertIn("ns per operation", [t for _, _, t in texts])

    def test_nothing_to_draw(self):
        _, _, err = self.plot("--rows", "nonesuch", self.file, status=1)
        self.assertIn("bench-plot: no ns figure matching --rows 'nonesuch' from a passing run to draw", err)
        timers = self.write("timers.json", results(timer_runs()))
        _, _, err = self.plot(timers, status=1)
        self.assertIn("no figure in ns per operation (a micro-bench row) from a passing run to draw: "
                      "run ./run_tests.sh -g micro-bench, or pick rows with --rows REGEX", err)
        _, _, err = self.plot("--rows", "(", self.file, status=2)
        self.assertIn("--rows '(': not a regular expression", err)

    def test_key_names_each_file(self):
        texts, _, _ = self.plot(self.file)
        key = [t for _, _, t in texts if t.startswith("results.json")]
        self.assertEqual(key, ["results.json: 2026-12-02 02:23 UTC, host vm (kvm-pvm), QEMU 7.2.22"])
        # two files, both logs/results.json: numbered, by path, a skip in one of them named by number
        a = self.write("a/logs/results.json", results(micro_bench_runs(skip_vmcall=False)))
        b = self.write("b/logs/results.json", results(micro_bench_runs(), created="2026-12-03T10:00:00+00:00"))
        texts, _, _ = self.plot(a, b)
        every = [t for _, _, t in texts]
        self.assertIn("1: a/logs/results.json: 2026-12-02 02:23 UTC, host vm (kvm-pvm), QEMU 7.2.22", every)
        self.assertIn("2: b/logs/results.json: 2026-12-03 10:00 UTC, host vm (kvm-pvm), QEMU 7.2.22", every)
        self.assertIn("exit-bench/exit.vmcall (tcg; SKIP in 2)", every)

    def test_labels_do_not_overlap(self):
        texts, _, _ = self.plot(self.file)
        ys = sorted(y for _, y, t in texts if t in self.labels(texts))
        self.assertEqual(len(ys), ROWS + 2)
        gaps = [b - a for a, b in zip(ys, ys[1:])]
        self.assertGreaterEqual(min(gaps), FONT_PX, "row labels closer than a line of text")
        # and the key's lines do not overlap the row labels or each other
        a = self.write("a/results.json", results(micro_bench_runs()))
        texts, _, _ = self.plot(a, self.file)
        ys = sorted(y for _, y, t in texts if t in self.labels(texts) or t[:3] in ("1: ", "2: "))
        self.assertGreaterEqual(min(b - a for a, b in zip(ys, ys[1:])), FONT_PX)


if __name__ == "__main__":
    unittest.main()
