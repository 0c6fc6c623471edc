# SPDX-License-Identifier: GPL-2.0-only
"""
scripts/report on made-up logs folders: the parsers of the figures it
draws (the tick lateness histogram's buckets, bounded checks' BOUND
lines, figures unchanged when every sentence is reworded), a folder with a FAIL, a SKIP, a retried test, a missing log and a
truncated one, the errors for bad arguments, the side-by-side mode with
scripts/bench-compare's verdicts, and the checks of host-tests/report
themselves each seen failing on a page made wrong on purpose.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "scripts"))
import browsercheck  # noqa: E402
import pagecheck  # noqa: E402
from reportlib import bounds, overview, runs, sections  # noqa: E402

REPORT = os.path.join(TOP, "scripts", "report")
# a runner log's header: the command, then the runner's record of the accelerator
CMD = ("qemu-system-x86_64 -machine pc -accel tcg -cpu max -kernel "
       "/src/build/x86_64-gcc/x86/{kernel}.flat\nrunner: accelerator tcg")
# the runner's last line as it is now; the log at line ~205 keeps the older form without 'other processes'
RUNNER = "runner: QEMU's threads waited {w} ms for a CPU in 1000 ms, other processes ran 0 ms, the host's hypervisor stole 0 ms"
TICKS = """RESULT: timer_tick.pit.ticks_expected 100 ticks
RESULT: timer_tick.pit.ticks_received 100 ticks
RESULT: timer_tick.pit.late_median 9000 ns
RESULT: timer_tick.pit.late_p99 20000 ns
RESULT: timer_tick.pit.late_max 40000 ns
RESULT: timer_tick.pit.late_log2_ns.13 60 ticks
RESULT: timer_tick.pit.late_log2_ns.14 39 ticks
RESULT: timer_tick.pit.late_log2_ns.15 1 ticks
BOUND: timer_tick.pit.lost_unexplained 0 ticks 0..1
PASS: pit: ticks lost that nothing explains: 0 of 100, at most 1
RESULT: timer_tick.pit.catches_one_in 50 ticks
BOUND: timer_tick.pit.late_unexplained_max 40000 ns 0..19000000
PASS: pit: no tick late by more than 19 ms beyond the evidence (steal time, the host's): 0 were
BOUND: timer_tick.pit.counter_err 51.206 ppm -1001.734..1001.734
PASS: pit: the counter runs at the 1000000000 Hz used, against the HPET main counter over 100 ms: +51 ppm (bound +-1001 ppm)
BOUND: timer_tick.pit.schedule_err -153.428 ppm -1863.000..1863.000
PASS: pit: the schedule runs at hz=1000 against the HPET main counter: -153 ppm (bound +-1863 ppm); 1000.154 ticks per second in its time
"""
# test -> (kernel, body); the body's {runner} is the runner's last line
LOGS = {
    "timer-pit": ("timer-tick", TICKS + "SUMMARY: 5 tests, 0 unexpected failures, 0 skipped\n{runner}\n"),
    "rtc": ("rtc_test", "BOUND: rtc.tod_offset_ms 2245 ms -650..2000\n"
            "FAIL: tod: the RTC's time of day at an update is the host's +2245 ms (allowed above -651 ms, up to +2000 ms)\n"
            "SUMMARY: 5 tests, 1 unexpected failures, 0 skipped\n{runner}\n"),
    "tsc-adjust": (None, "not started: needs KVM (accel=kvm), which is not usable here\n"),
    "retried": ("timer-tick", "runner: attempt 1 FAIL while QEMU's threads waited 900 ms for a CPU in 1000 ms, the host's hypervisor stole 0 ms: run again, alone (its log: retried.log.1)\n"
                "RESULT: exit.cpuid 10.500 ns\nRESULT: exit.cpuid.min_ns 9.000 ns\n"
                "RESULT: exit.cpuid.max_ns 12.000 ns\nRESULT: exit.cpuid.iterations 100 count\n"
                "SUMMARY: 2 tests, 0 unexpected failures, 0 skipped\n{runner}\n"),
    "truncated": ("tsc_test", "RESULT: tsc.rdtsc.vcpu0.warps 3 count\nPASS: cpuid: fine\n"),
}


def write_logdir(root, logs=LOGS, waited=100, scale=1.0, label="x86_64-gcc", qemu=None):
    """
    A make-run-like logs folder: logs/LABEL/*.log, results.json, and its
    JUnit. qemu: the version the runner's header records (none without),
    and results.json's (7.2 without).
    """
    suite = os.path.join(root, label)
    os.makedirs(suite)
    cmd = CMD + (f"\nrunner: qemu {qemu}" if qemu else "")
    for name, (kernel, body) in logs.items():
        text = body.replace("10.500 ns", f"{10.5 * scale:.3f} ns").format(
            runner=RUNNER.format(w=waited))
        head = cmd.format(kernel=kernel) + "\n" if kernel else ""
        with open(os.path.join(suite, name + ".log"), "w", encoding="utf-8") as f:
            f.write(head + text)
    with open(os.path.join(suite, "retried.log.1"), "w", encoding="utf-8") as f:
        f.write(cmd.format(kernel="x") + "\nFAIL: late\n")
    subprocess.run([sys.executable, os.path.join(TOP, "scripts", "results-to-json"),
                    "--qemu-version", qemu or "7.2", "-o", os.path.join(suite, "results.json")]
                   + [os.path.join(suite, n + ".log") for n in logs], check=False,
                   capture_output=True)
    os.makedirs(os.path.join(root, "reports"), exist_ok=True)
    junit = [f'<testsuites name="vmtick.{label}">']
    for name, outcome, attempts in (("timer-pit", "PASS", 1), ("rtc", "FAIL", 1),
                                    ("retried", "PASS", 2), ("gone", "TIMEOUT", 1)):
        junit.append(f'<testsuite name="{name}"><properties>'
                     f'<property name="outcome" value="{outcome}"/>'
                     f'<property name="message" value="{outcome} message"/>'
                     f'<property name="arch" value="x86_64"/>'
                     f'<property name="log" value="logs/{label}/{name}.log"/>'
                     f'<property name="attempts" value="{attempts}"/></properties></testsuite>')
    junit.append("</testsuites>")
    with open(os.path.join(root, "reports", label + ".xml"), "w", encoding="utf-8") as f:
        f.write("\n".join(junit))
    return root


def report(*args):
    return subprocess.run([REPORT, *args], capture_output=True, text=True, check=False)


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vmtick-report-test.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def logdir(self, name="logs", **kw):
        return write_logdir(os.path.join(self.tmp, name), **kw)

    def page(self, *logdirs):
        out = os.path.join(self.tmp, "r.html")
        r = report("-o", out, *logdirs)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            return out, f.read()


class Parsers(Fixture):
    def test_histogram_buckets(self):
        """late_log2_ns.K lines become one bar per bucket, each tagged with its figure."""
        suites, _ = runs.load_logdir(self.logdir())
        t = next(t for t in suites[0].tests if t.name == "timer-pit")
        html = sections.tick_histogram(t, "pit")
        for k, n in ((13, 60), (14, 39), (15, 1)):
            self.assertIn(f'data-fig="timer-pit|timer_tick.pit.late_log2_ns.{k}">{n}<', html)
        self.assertEqual(html.count('class="hbar"'), 3)
        self.assertIn("8.2 us to 16 us: 60 ticks", html)   # bucket 13: 8192..16384 ns
        self.assertIn('class="bound"', html)

    def test_no_buckets_said(self):
        """An older guest without the buckets: the page says what is missing."""
        logs = {"timer-pit": ("timer-tick", "\n".join(
            line for line in TICKS.splitlines() if "log2" not in line) + "\n{runner}\n")}
        suites, _ = runs.load_logdir(self.logdir(logs=logs))
        html = sections.tick_histogram(suites[0].tests[0], "pit")
        self.assertIn("prints no lateness distribution", html)

    def test_bounds_from_bound_lines(self):
        """Figures and bands come from BOUND lines (lib/report.h), each check's outcome from the line after."""
        log = os.path.join(self.tmp, "lifecycle-pause.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(CMD.format(kernel="lifecycle") + "\n" + LIFECYCLE_LOG)
        t = runs.parse_test(log, "x86_64-gcc")
        found = [(e, b.name, b.bands, b.passed, what) for e, b, what in bounds.lifecycle(t)]
        self.assertEqual(found, [
            ("event 1 pause", "e1.pause.TSC.step", [(0, 1044.320953)], True, "TSC.step"),
            ("event 1 pause", "e1.pause.TSC.step", [(0, 102.845373)], True, "TSC.step"),
            ("event 1 pause", "e1.pause.TSC.offset_gap.cpu1", [(-math.inf, 1)], True,
             "TSC.offset_gap.cpu1"),
            ("event 1 pause", "e1.pause.lapic.cpu1.rate_pct", [(90, 110), (45.1, 65.1)], True,
             "lapic.cpu1.rate_pct"),
            ("event 2 save", "e2.save.rtc.tod_moved_ms", [(-56.2, 56.2)], False, "rtc.tod_moved_ms"),
            ("event 2 save", "e2.save.counter.step", [(990, math.inf)], True, "counter.step"),
        ])
        self.assertEqual(t.fig("e1.pause.TSC.step").text, "25.182482")
        self.assertEqual(bounds.find(t, "e2.save.rtc.tod_moved_ms").value, 4.0)
        self.assertIsNone(bounds.find(t, "e9.pause.TSC.step"))

    def test_rewording_changes_no_figure(self):
        """Every sentence reworded: results.json and the report's figures and bounds stay the same."""
        def outputs(body):
            root = tempfile.mkdtemp(dir=self.tmp)
            suite = os.path.join(root, "x86_64-gcc")
            os.makedirs(suite)
            log = os.path.join(suite, "lifecycle-pause.log")
            with open(log, "w", encoding="utf-8") as f:
                f.write(CMD.format(kernel="lifecycle") + "\n" + body)
            subprocess.run([os.path.join(TOP, "scripts", "results-to-json"), "-o",
                            os.path.join(suite, "results.json"), log], check=True,
                           capture_output=True)
            with open(os.path.join(suite, "results.json"), encoding="utf-8") as f:
                figures = json.load(f)["runs"][0]["benchmarks"]
            out, html = self.page(root)
            shown = sorted(re.findall(r'data-fig="[^"]*"[^>]*>([^<]*)<', html))
            return figures, shown, re.findall(r"\(bound [^)]*\)|\(\u00b1[^)]*\)", html)
        reworded = re.sub(r"^(PASS|FAIL): .*$", lambda m: m.group(1) + ": said in other words, "
                          "with 7 numbers, 12 us and +-3 ppm that mean nothing",
                          LIFECYCLE_LOG, flags=re.M)
        self.assertNotEqual(reworded, LIFECYCLE_LOG)
        before, after = outputs(LIFECYCLE_LOG), outputs(reworded)
        self.assertIn("bounds", before[0]["e1.pause.TSC.step"])
        self.assertEqual(before, after)


# A lifecycle log's bounded checks (common/lifecycle/lifecycle_check.c and its kin), two events.
LIFECYCLE_LOG = """BOUND: e1.pause.TSC.step 25.182482 ms 0.000000..1044.320953
PASS: event 1 pause: TSC: largest step over the event 25182 us (vCPU 1) <= stopped 1002439 us + 2 x 9240 us (largest step before) + 10000 us + 13400 us a vCPU waited for a host CPU
BOUND: e1.pause.TSC.step 25.182482 ms 0.000000..102.845373
PASS: event 1 pause: TSC was frozen while the guest was stopped: step 25182 us <= 2 x 9240 us + 60000 us + 10963 us QEMU spent stopping and restarting the vCPUs + 13400 us a vCPU waited for a host CPU
BOUND: e1.pause.TSC.offset_gap.cpu1 -561 ticks -inf..1
PASS: event 1 pause: vCPU 1's TSC against vCPU 0's kept its offset over the event: -320..220 ns before, -340..280 ns after (moved 20 ns; bound: the brackets overlap, to 1 tick)
BOUND: e1.pause.lapic.cpu1.rate_pct 55.4000 % 90.0000..110.0000 45.1000..65.1000
PASS: event 1 pause: vCPU 1 lapic periodic rate after the event 55.4% of nominal, within 10% of nominal or of the rate before, 55.1%, short by no more than the periods a vCPU waited for a host CPU (0.0% of the window after, 0.0% of the one before)
RESULT: e1.pause.host.stopped 1002.439 ms
BOUND: e2.save.rtc.tod_moved_ms 4.000000 ms -56.200000..56.200000
FAIL: event 2 save: RTC's offset to the host's time of day -322 ms before the event, -318 ms after: moved by +4 ms (at most +-56 ms)
BOUND: e2.save.counter.step 1001.000000 ms 990.000000..inf
PASS: event 2 save: counter ran while the guest was stopped: step 1001000 us >= stopped 1000000 us - 10000 us
SUMMARY: 6 tests, 1 unexpected failures, 0 skipped
runner: QEMU's threads waited 10 ms for a CPU in 1000 ms, the host's hypervisor stole 0 ms
"""


class BadInput(Fixture):
    def test_each_outcome_shown(self):
        """FAIL, SKIP, a retry, a missing log and a truncated one: each on the page, no crash."""
        out, html = self.page(self.logdir())
        figures, svgs = pagecheck.check_page(out)
        self.assertGreater(figures, 10)
        self.assertGreater(svgs, 2)
        for row in ('<td>rtc</td><td class="outcome">FAIL</td>',
                    "first FAIL: tod: the RTC&#x27;s time of day",
                    '<td>tsc-adjust</td><td class="outcome">SKIP</td>',
                    "needs KVM (accel=kvm)",
                    '<td class="num">2 (retried)</td>', "earlier attempts: retried.log.1",
                    '<td>gone</td><td class="outcome">TIMEOUT</td>', "its log is missing",
                    '<td>truncated</td><td class="outcome">?</td>', "the log ends early"):
            self.assertIn(row, html)
        # only the truncated log ends early: the runner's last line, as it is now, ends the others
        self.assertEqual(html.count("the log ends early"), 1, "a whole log read as cut short")

    def test_garbage_never_crashes(self):
        """Figures that are no numbers, an empty log, random bytes, a folder named .log, bad JUnit."""
        logs = {"odd": ("timer-tick", "RESULT: timer_tick.pit.ticks_expected 5 ticks\n"
                        "RESULT: timer_tick.pit.late_log2_ns.7 x ticks\n"
                        "RESULT: timer_tick.pit.late_median nan ns\n"
                        "BOUND: timer_tick.pit.late_unexplained_max inf ns 0..nan\n"
                        "BOUND: timer_tick.pit.lost_unexplained 1 ticks 0..1 x..y\n"
                        "RESULT: exit.b 5 ns\nRESULT: exit.b.iterations 3 count\n"
                        "RESULT: exit.b.min_ns q ns\nSUMMARY: garbage\n"),
                "empty": (None, "")}
        d = self.logdir(logs=logs)
        suite = os.path.join(d, "x86_64-gcc")
        with open(os.path.join(suite, "bytes.log"), "wb") as f:
            f.write(bytes(range(256)) * 4)
        os.mkdir(os.path.join(suite, "folder.log"))
        with open(os.path.join(d, "reports", "broken.xml"), "w", encoding="utf-8") as f:
            f.write("<testsuites><testsuite")
        out, html = self.page(d)
        pagecheck.parse_html(html)
        pagecheck.parse_svgs(html)
        for said in ("empty log", "folder.log: Is a directory", "broken.xml: not readable JUnit"):
            self.assertIn(said, html)

    def test_missing_results_json(self):
        d = self.logdir()
        os.remove(os.path.join(d, "x86_64-gcc", "results.json"))
        _, html = self.page(d)
        self.assertIn("no results.json in the folder", html)

    def test_corrupt_results_json(self):
        """A results.json that is no JSON: named on the page, the host 'not recorded'."""
        d = self.logdir()
        with open(os.path.join(d, "x86_64-gcc", "results.json"), "w", encoding="utf-8") as f:
            f.write('{"host": ')
        _, html = self.page(d)
        self.assertIn("results.json: not readable (Expecting value", html)
        self.assertIn("<td>not recorded</td><td>not recorded</td>", html)

    def test_errors(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        cases = [((os.path.join(self.tmp, "nope"),), 1, "nope: no such folder"),
                 ((empty,), 1, "empty: no runner logs (NAME.log)"),
                 (("--frobnicate", empty), 2, "unrecognized arguments: --frobnicate"),
                 ((empty, "--"), 2, "nothing after --"),
                 (("--", empty), 2, "nothing before --"),
                 ((), 2, "give at least one logs folder")]
        for args, status, msg in cases:
            with self.subTest(args=args):
                r = report("-o", os.path.join(self.tmp, "x.html"), *args)
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertIn(msg, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "x.html")))

    def test_one_good_folder_is_enough(self):
        """A bad folder beside a good one: named on the page and stderr, status 0."""
        out = os.path.join(self.tmp, "r.html")
        r = report("-o", out, self.logdir(), os.path.join(self.tmp, "nope"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nope: no such folder", r.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertIn("nope: no such folder", f.read())


class SideBySide(Fixture):
    def test_flags_what_bench_compare_flags(self):
        a = [self.logdir(f"a{i}", scale=1 + i / 100) for i in range(3)]
        b = [self.logdir(f"b{i}", scale=1.5 + i / 100) for i in range(3)]
        out, html = self.page(*a, "--", *b)
        pagecheck.check_page(out)
        self.assertIn('<span class="flag">slower</span>: x86_64-gcc retried/exit.cpuid (tcg)',
                      html)
        self.assertIn("slower x1.", html)
        self.assertIn('<p class="sidehead">A</p>', html)

    def test_run_tests_folders_pair(self):
        """./run_tests.sh's logs/ (the logs folder is the suite): A's pairs with B's, whatever their names."""
        flat = []
        for name, scale in (("a1", 1), ("a2", 1.01), ("a3", 1.02), ("b1", 1.5), ("b2", 1.51),
                            ("b3", 1.52)):
            flat.append(os.path.join(self.logdir(name, scale=scale), "x86_64-gcc"))
        _, html = self.page(*flat[:3], "--", *flat[3:])
        self.assertIn('<span class="flag">slower</span>: retried/exit.cpuid (tcg)', html)
        self.assertEqual(html.count("<h2>x86_64 under tcg</h2>"), 1)

    def test_several_folders_alone_each_shown(self):
        _, html = self.page(self.logdir("one"), self.logdir("two"))
        self.assertEqual(html.count("<h2>x86_64-gcc under tcg</h2>"), 2)

    def test_one_run_a_side_is_not_judged(self):
        _, html = self.page(self.logdir("a"), "--", self.logdir("b"))
        self.assertIn("bench-compare judges nothing: too few runs (1 old, 1 new; need 3)", html)


class Overview(Fixture):
    """The run at a glance: verdicts per suite, the host, the figures closest to their bounds."""

    def test_band_share(self):
        cases = [((0, -10, 10), 0.0), ((5, -10, 10), 0.5), ((-15, -10, 10), 1.5),
                 ((2245, -651, 2000), 1.1225), ((-325.5, -651, 2000), 0.5),
                 ((105, 90, 110), 0.5), ((0, 0, 0), 0.0), ((1, 0, 0), math.inf)]
        for (value, lo, hi), want in cases:
            with self.subTest(value=value, lo=lo, hi=hi):
                self.assertAlmostEqual(overview.band_share(value, lo, hi), want)

    def test_least_share_over_bands(self):
        """A figure passes inside any of its bands: the rate after an event, 55.4 % of nominal."""
        row = sections.Row(label="rate after", value=55.4, text="55.4",
                           bands=[(90, 110), (45.1, 65.1)])
        self.assertAlmostEqual(overview.share_of(row), 0.03)
        self.assertIsNone(overview.share_of(sections.Row(label="x", value=1, text="1")))

    def test_worst_outcome(self):
        """The runner's failed outcomes by exit status, above KFAIL, SKIP and PASS; '?' failed."""
        for outcomes, want in ((["PASS", "SKIP"], "SKIP"), (["SKIP", "KFAIL", "PASS"], "KFAIL"),
                               (["KFAIL", "FAIL"], "FAIL"), (["FAIL", "TIMEOUT"], "TIMEOUT"),
                               (["CRASH", "ERROR", "TIMEOUT"], "ERROR"), (["?", "KFAIL"], "?"),
                               (["PASS"], "PASS")):
            with self.subTest(outcomes=outcomes):
                self.assertEqual(overview.worst(outcomes), want)

    def test_outcomes_are_the_runners(self):
        """Every outcome scripts/report.bash counts is ranked: failed ones by its exit status."""
        out = runs.R2J.vmtick_host.bash("eval", '. "$SRCDIR/scripts/report.bash"; '
                                        'echo "${!REPORT_COUNT[@]}"').stdout.split()
        self.assertIn("TIMEOUT", out)
        self.assertEqual(set(out), set(overview.NOT_FAILED) | set(overview.failed_status()))
        self.assertEqual(overview.failed_status()["ERROR"], 4)

    def test_guest_from_record_or_runner(self):
        t = runs.Test(name="t", log="t.log", disturb=(10, 1000, 7))
        self.assertEqual(overview.guest_text({"guest": True}, [t]),
                         "yes (CPUID hypervisor flag); its hypervisor stole 7 ms in the runs "
                         "(runner)")
        self.assertEqual(overview.guest_text({}, [t]),
                         "yes: its hypervisor stole 7 ms in the runs (runner)")
        t.disturb = (10, 1000, 0)
        self.assertEqual(overview.guest_text({}, [t]), "not recorded")
        self.assertEqual(overview.guest_text({"guest": False}, [t]), "no (CPUID hypervisor flag)")

    def test_guest_flag_recorded(self):
        """results-to-json's guest: the x86 hypervisor flag, None where no flags line says."""
        cases = (("flags\t\t: fpu vme hypervisor lahf_lm\n", True), ("flags\t: fpu vme\n", False),
                 ("Features\t: fp asimd evtstrm\n", None))
        for text, want in cases:
            path = os.path.join(self.tmp, "cpuinfo")
            with open(path, "w", encoding="utf-8") as f:
                f.write("processor\t: 0\n" + text)
            with self.subTest(text=text):
                self.assertIs(runs.R2J.host_is_guest(path), want)
        self.assertIsNone(runs.R2J.host_is_guest(os.path.join(self.tmp, "none")))

    def overview_of(self, html):
        head = re.search(r'<section class="overview" id="overview">.*?</section>', html, re.S)
        self.assertIsNotNone(head, "no overview on the page")
        return head

    def test_opens_the_page(self):
        out, html = self.page(self.logdir())
        head = self.overview_of(html)
        self.assertLess(head.start(), html.index('<section class="group"'))
        self.assertNotIn("<h2", html[: head.start()])
        # TIMEOUT above FAIL: the runner's exit status for it is higher
        self.assertRegex(head.group(0), r'data-worst="TIMEOUT"><td><a href="#\S*x86_64-gcc-tcg">'
                         r'x86_64-gcc</a></td><td class="outcome">TIMEOUT</td><td class="counts">'
                         r"1 TIMEOUT, 1 FAIL, 1 \?, 1 SKIP, 2 PASS</td>")
        pagecheck.check_page(out)

    def test_host_from_results_json(self):
        d = self.logdir()
        path = os.path.join(d, "x86_64-gcc", "results.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        doc["host"].update(cpu="Made-up CPU", cpus=3, kernel="9.9.9-test", guest=False,
                           kvm="none", kvm_why_not="no /dev/kvm")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        head = self.overview_of(self.page(d)[1]).group(0)
        for cell in ("<td>Made-up CPU (3 CPUs)</td>", "<td>9.9.9-test</td>",
                     "<td>no (CPUID hypervisor flag)</td>", "<td>none: no /dev/kvm</td>"):
            self.assertIn(cell, head)
        os.remove(path)
        head = self.overview_of(self.page(d)[1]).group(0)
        self.assertEqual(head.count("<td>not recorded</td>"), 4)

    def test_closest_figures(self):
        """Every bounded figure of the fixture, largest share first, the RTC's failed one on top."""
        out, html = self.page(self.logdir())
        rows = re.findall(r'<tr[^>]*data-share="([^"]+)"[^>]*><td class="num">\d+</td><td>'
                          r'<a href="#([^"]+)">([^<]*)</a>', html)
        self.assertEqual(len(rows), 5)
        shares = [float(s) for s, _, _ in rows]
        self.assertEqual(shares, sorted(shares, reverse=True))
        self.assertAlmostEqual(shares[0], (2245 - 0) / 2000)
        self.assertIn("rtc: rtc.tod_offset_ms", rows[0][2])
        for _, anchor, _ in rows:
            self.assertIn(f'id="{anchor}"', html)

    def test_no_empty_section(self):
        """The fixture has no lifecycle figures: no Lifecycle heading, no 'no figures' line."""
        out, html = self.page(self.logdir())
        self.assertIn(">Ticks</h3>", html)
        self.assertNotIn(">Lifecycle</h3>", html)
        self.assertNotIn("figures in these logs", html)

    def test_every_suite_listed(self):
        _, html = self.page(self.logdir("one"), self.logdir("two"))
        head = self.overview_of(html).group(0)
        for anchor in re.findall(r'data-suite-key="([^"]+)"', html):
            self.assertIn(f'data-overview-suite="{anchor}"', head)
        self.assertEqual(head.count("data-overview-suite="), 2)


class Checks(Fixture):
    """Each check of host-tests/report fails on a page made wrong on purpose."""

    def wrong_page(self, old, new):
        out, html = self.page(self.logdir())
        self.assertIn(old, html)
        with open(out, "w", encoding="utf-8") as f:
            f.write(html.replace(old, new, 1))
        return out

    def test_misrounded_figure(self):
        out = self.wrong_page(">51.206<", ">51.21<")
        with self.assertRaisesRegex(pagecheck.PageError, r"figure timer-pit/timer_tick.pit."
                                    r"counter_err on the page is 51.21, .*results.json has 51.206"):
            pagecheck.check_page(out)

    def test_broken_svg(self):
        out = self.wrong_page('<rect class="track"', '<rect class="track" x="1" x="2"')
        with self.assertRaisesRegex(pagecheck.PageError, r"SVG \d+ \(.*\): not XML: duplicate "
                                    "attribute"):
            pagecheck.check_page(out)

    def test_unbalanced_html(self):
        out = self.wrong_page("</table>", "</tr>")
        with self.assertRaisesRegex(pagecheck.PageError, r"HTML: line \d+: </tr> closes <table>"):
            pagecheck.check_page(out)

    def test_script_refused(self):
        out = self.wrong_page("</body>", "<script>1</script></body>")
        with self.assertRaisesRegex(pagecheck.PageError, "a <script>: the page must hold none"):
            pagecheck.check_page(out)

    def two_suites_page(self):
        out, html = self.page(self.logdir("one"), self.logdir("two"))
        return out, html

    def wrong_shape(self, html, out, regex):
        with open(out, "w", encoding="utf-8") as f:
            f.write(html)
        with self.assertRaisesRegex(pagecheck.PageError, regex):
            pagecheck.check_page(out)

    def test_overview_not_first(self):
        out, html = self.page(self.logdir())
        head = re.search(r'<section class="overview".*?</section>', html, re.S).group(0)
        moved = html.replace(head, "").replace("</body>", head + "</body>")
        # the known QEMU defects' section follows the overview: it opens the page now
        self.wrong_shape(moved, out, r"overview: the page opens with <section "
                         r'id="defects" class="defects">, not the overview')

    def test_suite_dropped(self):
        out, html = self.two_suites_page()
        row = re.search(r'<tr [^>]*data-overview-suite="[^"]*two[^"]*".*?</tr>', html, re.S)
        self.wrong_shape(html.replace(row.group(0), ""), out,
                         r"overview: suite \S*two\S* has a section but no row in the overview")

    def test_counts_wrong(self):
        out, html = self.page(self.logdir())
        self.wrong_shape(html.replace("1 TIMEOUT, 1 FAIL", "1 TIMEOUT", 1), out,
                         r"overview: suite \S*x86_64-gcc-tcg lists outcomes '1 TIMEOUT, 1 \?, 1 "
                         r"SKIP, 2 PASS', its verdicts table has 1 \?, 1 FAIL, 2 PASS, 1 SKIP, "
                         "1 TIMEOUT")

    def test_closest_out_of_order(self):
        out, html = self.page(self.logdir())
        rows = re.findall(r'<tr[^>]*data-share=.*?</tr>', html, re.S)
        swapped = html.replace(rows[0], "@@").replace(rows[1], rows[0]).replace("@@", rows[1])
        self.wrong_shape(swapped, out, r"overview: closest figures out of order: figure 2 uses "
                         r"1\.12 of its bound, figure 1 before it only")

    def test_closest_dangling_link(self):
        out, html = self.page(self.logdir())
        link = re.search(r'data-share=[^>]*><td class="num">1</td><td><a href="#([^"]+)"', html)
        self.wrong_shape(html.replace(f'id="{link.group(1)}"', 'id="elsewhere"'), out,
                         r"overview: closest figure 1 links to '#" + re.escape(link.group(1))
                         + "', no such id on the page")

    def test_empty_section(self):
        out, html = self.page(self.logdir())
        empty = ('<div class="part" data-part="lifecycle"><h3 id="made-up-lifecycle">'
                 "Lifecycle</h3></div></section>")
        # the third </section>: the first suite's (after the overview's and the defects')
        self.wrong_shape(html.replace("</section>", empty, 3).replace(empty, "</section>", 2),
                         out, r"page: section 'Lifecycle' of suite \S*x86_64-gcc-tcg holds no "
                         r"chart or table \(an empty section\)")

    def test_empty_plot(self):
        out, html = self.page(self.logdir())
        empty = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                 "<title>nothing drawn</title></svg>")
        self.wrong_shape(html.replace('<div class="blocks">', '<div class="blocks">' + empty, 1),
                         out, r"page: SVG 1 \(nothing drawn\) holds no figure \(an empty plot\)")

    def test_console_error_seen(self):
        """A page whose inline script throws: the browser check sees the console error."""
        page = os.path.join(self.tmp, "bad.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><body><script>noSuchFunction();</script></body></html>")
        with self.assertRaisesRegex(browsercheck.BrowserError,
                                    "console: .*noSuchFunction is not defined"):
            browsercheck.check(page, os.path.join(self.tmp, "bad.png"))

    def test_clean_page_renders(self):
        out, _ = self.page(self.logdir())
        png = browsercheck.check(out, os.path.join(self.tmp, "r.png"))
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
