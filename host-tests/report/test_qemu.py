# SPDX-License-Identifier: GPL-2.0-only
"""
scripts/report and QEMU's version (issue 39): the version each suite ran
under, read from the runner's record in each log's header, else from
results.json or the JUnit, in the overview's QEMU column and each suite's
section; make check's suite under QEMU 10 (LABEL-qemu10) beside its twin
under Debian's 7.2 in one section; and the shape check that sees a row
naming another QEMU than its section.
"""
import json
import os
import re
import shutil
import subprocess
import unittest

import pagecheck
from test_report import TOP, Fixture, write_logdir
from reportlib import overview, runs


def overview_html(html):
    return re.search(r'<section class="overview" id="overview">.*?</section>', html, re.S).group(0)


def qemu_cells(html):
    """(row's name, its QEMU cell) of each suite of the overview, in order."""
    return re.findall(r'<tr [^>]*data-overview-suite="[^"]*"[^>]*><td><a href="#[^"]*">([^<]*)</a>'
                      r'.*?<td class="qemu">([^<]*)</td>', overview_html(html), re.S)


class Versions(Fixture):
    def suite(self, root):
        suites, problems = runs.load_logdir(root)
        self.assertEqual(problems, [])
        return {t.name: t for t in suites[0].tests}

    def test_record_is_the_runners(self):
        """The header's record is the one scripts/runner.bash writes (RUN_QEMU_RECORD)."""
        with open(os.path.join(TOP, "scripts", "runner.bash"), encoding="utf-8") as f:
            m = re.search(r"^RUN_QEMU_RECORD='([^']*)'$", f.read(), re.M)
        self.assertIsNotNone(m, "scripts/runner.bash sets no RUN_QEMU_RECORD")
        self.assertEqual(m.group(1), runs.R2J.vmtick_host.QEMU_RECORD)

    def test_from_the_log_first(self):
        """The header's record wins over results.json's; a test that never started has none."""
        root = self.logdir(qemu="10.0.2")
        path = os.path.join(root, "x86_64-gcc", "results.json")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace('"10.0.2"', '"9.9.9"'))
        tests = self.suite(root)
        self.assertEqual((tests["timer-pit"].qemu, tests["timer-pit"].qemu_from), ("10.0.2", "log"))
        self.assertEqual(tests["gone"].qemu, "")

    def test_from_results_json_then_junit(self):
        """No record in the header: results.json's setup.qemu_version, else the JUnit's --version line."""
        root = self.logdir()
        tests = self.suite(root)
        self.assertEqual((tests["rtc"].qemu, tests["rtc"].qemu_from), ("7.2", "results.json"))
        os.remove(os.path.join(root, "x86_64-gcc", "results.json"))
        junit = os.path.join(root, "reports", "x86_64-gcc.xml")
        with open(junit, encoding="utf-8") as f:
            text = f.read()
        with open(junit, "w", encoding="utf-8") as f:
            f.write(text.replace('<property name="attempts"', '<property name="qemu_version" value='
                                 '"QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)"/>'
                                 '<property name="attempts"'))
        tests = self.suite(root)
        self.assertEqual((tests["rtc"].qemu, tests["rtc"].qemu_from), ("7.2.22", "JUnit"))
        self.assertEqual(tests["truncated"].qemu, "")

    def test_unknown_is_not_a_version(self):
        self.assertEqual(runs.recorded_qemu(["qemu-system-x86_64 -kernel k", "runner: accelerator tcg",
                                             "runner: qemu unknown"]), "")
        self.assertEqual(runs.recorded_qemu(["qemu-system-x86_64", "PASS: x", "runner: qemu 10.0.2"]),
                         "", "a line after the header is no record")

    def test_record_names_the_binary(self):
        """The record's version, then its binary; a runner before the binary wrote the version alone."""
        host = runs.R2J.vmtick_host
        for record, want in (("runner: qemu 10.0.2 /opt/q/usr/bin/qemu-system-x86_64",
                              ("10.0.2", "/opt/q/usr/bin/qemu-system-x86_64")),
                             ("runner: qemu unknown qemu-system-x86_64", (None, "qemu-system-x86_64")),
                             ("runner: qemu 7.2.22", ("7.2.22", None))):
            header = ["/usr/bin/python3 host_evidence.py -- qemu-system-x86_64", "runner: accelerator tcg", record]
            with self.subTest(record=record):
                self.assertEqual((host.recorded_qemu(header), host.recorded_qemu_binary(header)), want)

    def test_agent_run_names_its_qemu(self):
        """A run under the host-evidence agent: results.json and the report name the QEMU the
        runner recorded, never the agent that ran it (issue 48)."""
        qemu = "/opt/q/usr/bin/qemu-system-x86_64"
        suite = os.path.join(self.tmp, "logs", "x86_64-gcc")
        os.makedirs(suite)
        log = os.path.join(suite, "timer-pit.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(f"/usr/bin/python3 {TOP}/scripts/host_evidence.py -- {qemu} -machine pc -kernel "
                    f"/src/build/x86_64-gcc/x86/timer-tick.flat\nrunner: accelerator tcg\n"
                    f"runner: qemu 10.0.2 {qemu}\nRESULT: a.b 1 ns\n"
                    "SUMMARY: 1 tests, 0 unexpected failures, 0 skipped\n")
        results = os.path.join(suite, "results.json")
        subprocess.run([os.path.join(TOP, "scripts", "results-to-json"), "-o", results, log],
                       check=True, capture_output=True)
        with open(results, encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual((doc["runs"][0]["qemu"], doc["runs"][0]["qemu_version"]), (qemu, "10.0.2"))
        self.assertEqual(doc["setup"]["qemu_version"], {qemu: "10.0.2"})
        self.assertEqual(runs.qemu_versions(doc), {"timer-pit": "10.0.2"})
        _, html = self.page(os.path.join(self.tmp, "logs"))
        self.assertEqual(qemu_cells(html), [("x86_64-gcc", "10.0.2")])

    def test_text_of_a_suite(self):
        def tests(*versions):
            return [runs.Test(name=f"t{i}", log="", qemu=v) for i, v in enumerate(versions)]
        cases = [((), "not recorded"), (("", ""), "not recorded"), (("10.0.2", ""), "10.0.2"),
                 (("10.0.2", "7.2.22", "10.0.2"), "7.2.22 (1 test), 10.0.2 (2 tests)")]
        for versions, want in cases:
            with self.subTest(versions=versions):
                self.assertEqual(overview.qemu_text(tests(*versions)), want)


class Twins(Fixture):
    """make check's x86_64-gcc (QEMU 7.2) and x86_64-gcc-qemu10 (QEMU 10) in one logs folder."""

    def twins(self, name="logs"):
        root = write_logdir(os.path.join(self.tmp, name), qemu="7.2.22")
        return write_logdir(root, label="x86_64-gcc-qemu10", qemu="10.0.2", scale=1.3)

    def test_column_names_each_version(self):
        out, html = self.page(self.twins())
        self.assertEqual(qemu_cells(html), [("x86_64-gcc", "7.2.22"), ("x86_64-gcc-qemu10", "10.0.2")])
        self.assertIn("<th>QEMU</th>", html)
        pagecheck.check_page(out)

    def test_side_by_side(self):
        """One section, 7.2 beside 10, block by block; both rows link to it."""
        out, html = self.page(self.twins())
        self.assertEqual(html.count('<section class="group"'), 1)
        self.assertIn("<h2>x86_64-gcc under tcg: QEMU 7.2.22 beside QEMU 10.0.2</h2>", html)
        heads = re.findall(r'<p class="sidehead">([^<]*)</p>', html)
        self.assertEqual(heads, ["QEMU 7.2.22: x86_64-gcc", "QEMU 10.0.2: x86_64-gcc-qemu10"])
        pair = re.search(r'<div class="pair blockpair" id="[^"]*">(.*?)</div></div>', html, re.S)
        self.assertIsNotNone(pair, "no chart drawn side by side")
        sides = re.findall(r'data-suite="([^"]*)"', pair.group(0))
        self.assertEqual(sides, ["x86_64-gcc", "x86_64-gcc-qemu10"])
        anchors = set(re.findall(r'data-overview-suite="([^"]*)"', overview_html(html)))
        self.assertEqual(len(anchors), 1)
        # each figure read back against its own suite's results.json: 10.5 ns and 13.65 ns
        self.assertIn(">10.500<", html)
        self.assertIn(">13.650<", html)
        pagecheck.check_page(out)

    def test_newer_first_in_the_folder(self):
        """The order comes from the versions: the older QEMU on the left, whatever the labels."""
        root = write_logdir(os.path.join(self.tmp, "logs"), qemu="10.0.2")
        write_logdir(root, label="x86_64-gcc-qemu7.2", qemu="7.2.22")
        _, html = self.page(root)
        heads = re.findall(r'<p class="sidehead">([^<]*)</p>', html)
        self.assertEqual(heads, ["QEMU 7.2.22: x86_64-gcc-qemu7.2", "QEMU 10.0.2: x86_64-gcc"])
        self.assertIn("<h2>x86_64-gcc under tcg: QEMU 7.2.22 beside QEMU 10.0.2</h2>", html)

    def test_one_twin_a_suite(self):
        """A second twin (LABEL-qemu9 beside LABEL-qemu10) keeps a section of its own."""
        root = self.twins()
        write_logdir(root, label="x86_64-gcc-qemu9", qemu="9.2.0")
        out, html = self.page(root)
        self.assertEqual(html.count('<section class="group"'), 2)
        self.assertEqual(len(qemu_cells(html)), 3)
        pagecheck.check_page(out)

    def test_twin_alone_stands_alone(self):
        """A suite under QEMU 10 without its 7.2 twin: its own section, nothing paired."""
        root = self.twins()
        shutil.rmtree(os.path.join(root, "x86_64-gcc"))
        out, html = self.page(root)
        self.assertIn("<h2>x86_64-gcc-qemu10 under tcg</h2>", html)
        self.assertNotIn('class="sidehead"', html)
        self.assertEqual(qemu_cells(html), [("x86_64-gcc-qemu10", "10.0.2")])
        pagecheck.check_page(out)

    def test_two_runs_pair_by_folder(self):
        """A -- B: each folder beside the same folder of the other run, twins not merged."""
        a, b = self.twins("a"), self.twins("b")
        out, html = self.page(a, "--", b)
        self.assertEqual(html.count('<section class="group"'), 2)
        self.assertEqual([name for name, _ in qemu_cells(html)],
                         ["A: x86_64-gcc", "B: x86_64-gcc", "A: x86_64-gcc-qemu10",
                          "B: x86_64-gcc-qemu10"])
        pagecheck.check_page(out)

    def test_row_naming_another_qemu_is_seen(self):
        out, html = self.page(self.twins())
        wrong = html.replace('<td class="qemu">10.0.2</td>', '<td class="qemu">7.2.22</td>', 1)
        with open(out, "w", encoding="utf-8") as f:
            f.write(wrong)
        with self.assertRaisesRegex(pagecheck.PageError, r"overview: suite \S+ \(side "
                                    r"x86_64-gcc-qemu10\) ran under QEMU '10.0.2' \(its section\), "
                                    r"its row says '7.2.22'"):
            pagecheck.check_page(out)


if __name__ == "__main__":
    unittest.main()
