# SPDX-License-Identifier: GPL-2.0-only
"""
scripts/report's table of known QEMU defects (issue 48 item 2) on recorded
runs (defects-logs/, run_tests.sh on this host, 2026-12-07, TCG):
x86_64-gcc under QEMU 7.2.22 and x86_64-gcc-qemu10 under 10.0.2, each
qemu-x2apic-icount, qemu-hpet-periodic-twice and timer-hpet;
x86_64-gcc-qemu9, qemu-hpet-periodic-twice under QEMU 10.0.2 behind a
wrapper whose --version says 9.0.2 (the runner's FAIL outside the defect's
range, from a real run). Left out of the recording: replay bundles,
earlier attempts' logs, the JUnit's system-out. Also the rows read from
QEMU_DEFECTS (a malformed row named), the runner's words, and the shape
check seen failing.
"""
import html as htmllib
import os
import re
import shutil
import subprocess
import unittest

import defectscheck
import pagecheck
from test_report import HERE, TOP, Fixture
from reportlib import defects, runs

RECORDED = os.path.join(HERE, "defects-logs")


def cells(html):
    """{(defect, QEMU version): (outcome, text)} of the page's defects table."""
    table = re.search(r'<section class="defects" id="defects">.*?</section>', html, re.S).group(0)
    out = {}
    for name, row in re.findall(r'<tr data-defect="([^"]*)">(.*?)</tr>', table, re.S):
        for v, outcome, body in re.findall(r'<td class="defect[^"]*" data-qemu="([^"]*)" '
                                           r'data-outcome="([^"]*)">(.*?)</td>', row, re.S):
            out[(name, v)] = (outcome, htmllib.unescape(re.sub(r"<[^>]+>", " ", body)).strip())
    return out


class Table(Fixture):
    def recorded(self, *labels, junit=True):
        """A logs folder of the recorded suites named, with their JUnit or without."""
        root = os.path.join(self.tmp, "logs")
        for label in labels:
            shutil.copytree(os.path.join(RECORDED, label), os.path.join(root, label))
            if junit:
                os.makedirs(os.path.join(root, "reports"), exist_ok=True)
                shutil.copy(os.path.join(RECORDED, "reports", label + ".xml"),
                            os.path.join(root, "reports"))
        return root

    def assert_7_beside_10(self, html):
        got = cells(html)
        self.assertEqual(re.findall(r'<th data-qemu="([^"]*)">', html), ["7.2.22", "10.0.2"])
        self.assertEqual(got[("qemu-hpet-periodic-twice", "7.2.22")][0], "PASS")
        self.assertIn("PASS: does not have it", got[("qemu-hpet-periodic-twice", "7.2.22")][1])
        outcome, text = got[("qemu-hpet-periodic-twice", "10.0.2")]
        self.assertEqual(outcome, "KFAIL")
        self.assertIn("KFAIL: has it, within its known range (9.1 to 11.0)", text)
        self.assertIn("first FAIL: hpet: no tick early beyond the calibration's error", text)
        self.assertIn("also seen by: timer-hpet", text)
        self.assertNotIn("also seen by", got[("qemu-hpet-periodic-twice", "7.2.22")][1])
        self.assertEqual(got[("qemu-x2apic-icount", "10.0.2")][0], "KFAIL")
        self.assertIn("CRASH: ", got[("qemu-x2apic-icount", "10.0.2")][1])
        self.assertEqual(got[("qemu-x2apic-icount", "7.2.22")][0], "PASS")
        for v in ("7.2.22", "10.0.2"):
            self.assertEqual(got[("qemu-cntvoff-wrap", v)],
                             ("not run", f"not run: an entry of aarch64, and no aarch64 suite ran "
                              f"under QEMU {v} here"))

    def test_kfail_in_10_pass_in_7(self):
        """make check's two QEMUs side by side: the defect KFAIL in 10.0.2, PASS in 7.2.22."""
        out, html = self.page(self.recorded("x86_64-gcc", "x86_64-gcc-qemu10"))
        self.assert_7_beside_10(html)
        self.assertIn("<h2>Known QEMU defects</h2>", html)
        self.assertLess(html.index('id="overview"'), html.index('id="defects"'))
        row = re.search(r'<tr data-defect="qemu-hpet-periodic-twice">(.*?)</tr>', html, re.S).group(1)
        self.assertIn("<td class=\"num\">9.1 to 11.0</td>", row)
        href = re.search(r'<a href="([^"]*)">docs/upstream/qemu-hpet-periodic-twice.md</a>', row)
        self.assertIsNotNone(href, "no link to the defect's report")
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(out), href.group(1))),
                        f"{href.group(1)} is no file beside the page")
        pagecheck.check_page(out)

    def test_from_the_logs_alone(self):
        """Without JUnit the runner's line in the log makes the KFAIL: the same table."""
        out, html = self.page(self.recorded("x86_64-gcc", "x86_64-gcc-qemu10", junit=False))
        self.assert_7_beside_10(html)
        suites, _ = runs.load_logdir(os.path.join(self.tmp, "logs"))
        t = next(t for s in suites for t in s.tests if s.label.endswith("qemu10")
                 and t.name == "timer-hpet")
        self.assertEqual((t.outcome, t.source), ("KFAIL", "log"))
        self.assertTrue(t.message.startswith("known QEMU defect qemu-hpet-periodic-twice (QEMU 9.1 "
                                             "to 11.0, this is 10.0.2)"), t.message)
        pagecheck.check_page(out)

    def test_fail_outside_its_range(self):
        """A QEMU that has the defect outside its known range: FAIL, saying so, in its own column."""
        out, html = self.page(self.recorded("x86_64-gcc", "x86_64-gcc-qemu10", "x86_64-gcc-qemu9"))
        got = cells(html)
        self.assertEqual(re.findall(r'<th data-qemu="([^"]*)">', html), ["7.2.22", "9.0.2", "10.0.2"])
        outcome, text = got[("qemu-hpet-periodic-twice", "9.0.2")]
        self.assertEqual(outcome, "FAIL")
        self.assertIn("FAIL: has it, outside its known range (9.1 to 11.0)", text)
        self.assertIn("first FAIL: hpet: no tick early", text)
        self.assertIn("x86_64-gcc-qemu9: qemu-hpet-periodic-twice.log", text)
        self.assertIn('class="defect d-fail why" data-qemu="9.0.2"', html)
        pagecheck.check_page(out)

    def test_entry_not_run(self):
        """A suite that ran timer-hpet only: the reproducers not selected there, and the defect
        still marked as seen by timer-hpet."""
        root = self.recorded("x86_64-gcc-qemu10", junit=False)
        for name in ("qemu-hpet-periodic-twice", "qemu-x2apic-icount"):
            os.remove(os.path.join(root, "x86_64-gcc-qemu10", name + ".log"))
        out, html = self.page(root)
        outcome, text = cells(html)[("qemu-hpet-periodic-twice", "10.0.2")]
        self.assertEqual(outcome, "not run")
        self.assertIn("not run: not selected in x86_64-gcc-qemu10 (1 entry ran there)", text)
        self.assertIn("also seen by: timer-hpet", text)
        pagecheck.check_page(out)

    def test_two_runs_name_their_side(self):
        """A -- B: a cell holds each side's run of the reproducer, named by its side."""
        a = self.recorded("x86_64-gcc-qemu10")
        b = os.path.join(self.tmp, "b")
        shutil.copytree(a, b)
        out, html = self.page(a, "--", b)
        text = cells(html)[("qemu-hpet-periodic-twice", "10.0.2")][1]
        self.assertIn("A: x86_64-gcc-qemu10: qemu-hpet-periodic-twice.log", text)
        self.assertIn("B: x86_64-gcc-qemu10: qemu-hpet-periodic-twice.log", text)


class Rows(unittest.TestCase):
    def test_rows_are_qemu_bash(self):
        """One row per id of QEMU_DEFECTS, its first row's range; each reproducer's arch from unittests.cfg."""
        got, problems = defects.load()
        self.assertEqual(problems, [])
        ids = subprocess.run(["bash", "-c", '. scripts/qemu.bash; for r in "${QEMU_DEFECTS[@]}"; '
                              'do echo "${r%%|*}"; done'], cwd=TOP, capture_output=True, text=True,
                             check=True).stdout.split()
        self.assertEqual([d.id for d in got], list(dict.fromkeys(ids)))
        by_id = {d.id: d for d in got}
        self.assertEqual((by_id["qemu-cntvoff-wrap"].first, by_id["qemu-cntvoff-wrap"].last,
                          by_id["qemu-cntvoff-wrap"].arches), ("8.1.4", "11.0", ["aarch64"]))
        self.assertEqual(by_id["qemu-x2apic-icount"].arches, ["x86_64"])

    def fake_table(self, rows):
        path = os.path.join(self.tmp, "qemu.bash")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f'. "{TOP}/scripts/qemu.bash"\nQEMU_DEFECTS=(\n'
                    + "".join(f"\t'{r}'\n" for r in rows) + ")\n")
        return path

    def setUp(self):
        self.tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"vmtick-defects-{os.getpid()}")
        os.makedirs(self.tmp, exist_ok=True)
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_malformed_row_named(self):
        """A row short of its fields is left out and named; qemu_defects_check's faults are passed on."""
        got, problems = defects.load(qemu_bash=self.fake_table([
            "qemu-a|9.0|11.0|tcg|*|icount|what a is|qemu:boom",
            "qemu-b|9.0|tcg|*|icount|what b is|qemu:boom",
            "qemu-c|10.0|9.0|tcg|*|icount|what c is|qemu:boom"]))
        self.assertEqual([d.id for d in got], ["qemu-a", "qemu-c"])
        self.assertTrue(any("QEMU_DEFECTS row 'qemu-b|9.0|tcg|*|icount|what b is|qemu:boom' has 7 "
                            "fields separated by '|', not 8" in p for p in problems), problems)
        self.assertTrue(any("qemu-c: its range ends (9.0) before it starts (10.0)" in p
                            for p in problems), problems)
        self.assertEqual(got[0].arches, [], "no entry [qemu-a] in unittests.cfg")

    def test_first_row_of_an_id(self):
        """An id of several rows (qemu-cntvoff-wrap's two): one row, the first's range, as
        qemu_defect_row_into reads it."""
        got, problems = defects.load(qemu_bash=self.fake_table([
            "qemu-a|9.0|11.0|tcg|a-*|icount|what a is|qemu:boom",
            "qemu-a|8.0|12.0|tcg|b-*|any|what a is elsewhere|qemu:bang"]))
        self.assertEqual(problems, [])
        self.assertEqual([(d.id, d.first, d.last, d.what) for d in got],
                         [("qemu-a", "9.0", "11.0", "what a is")])

    def test_unreadable_table_named(self):
        got, problems = defects.load(qemu_bash=os.path.join(self.tmp, "none.bash"))
        self.assertEqual(got, [])
        self.assertEqual(len(problems), 1)
        self.assertIn("QEMU_DEFECTS not read (bash exited 3", problems[0])

    def test_no_entry_said(self):
        d = defects.Defect("qemu-a", "9.0", "11.0", "what", [])
        self.assertEqual(defects.not_run(d, [], "10.0.2"), "no entry [qemu-a] in unittests.cfg to "
                         "reproduce it")


class Vocabulary(unittest.TestCase):
    def test_runner_lines_parsed(self):
        """The log lines the report reads are the ones run_known_defect writes (scripts/runner.bash)."""
        with open(os.path.join(TOP, "scripts", "runner.bash"), encoding="utf-8") as f:
            echoes = re.findall(r'echo "(runner: [^"]*QEMU defect \$id[^"]*)"', f.read())
        self.assertEqual(len(echoes), 2, echoes)
        for line in echoes:
            line = line.replace("$id", "qemu-x").replace("$from", "9.1").replace("$through", "11.0")
            kinds = [k for k, pat in runs.DEFECT_LINE_RE.items() if pat.match(line)]
            self.assertEqual(len(kinds), 1, line)

    def test_words_are_the_runners(self):
        """PASS, KFAIL and FAIL outside the range say what scripts/report.bash's table says."""
        call = ('. scripts/qemu.bash; . scripts/report.bash; for o in PASS KFAIL FAIL; do '
                'report_defect_verdict_into v "$o" "QEMU defect x seen outside its known range"; '
                'echo "$v"; done')
        said = subprocess.run(["bash", "-c", call], cwd=TOP, capture_output=True, text=True,
                              check=True).stdout.splitlines()
        self.assertEqual(said, [f"PASS: {defects.HAS_NOT}", f"KFAIL: {defects.HAS_IN}",
                                f"FAIL: {defects.HAS_OUT}"])


class Shape(Fixture):
    def test_missing_cell_seen(self):
        root = os.path.join(self.tmp, "logs")
        for label in ("x86_64-gcc", "x86_64-gcc-qemu10"):
            shutil.copytree(os.path.join(RECORDED, label), os.path.join(root, label))
        out, html = self.page(root)
        self.assertEqual(defectscheck.check(html), [])
        wrong = re.sub(r'(<tr data-defect="qemu-x2apic-icount">.*?)<td class="defect[^"]*" '
                       r'data-qemu="10.0.2".*?</td>', r"\1", html, count=1, flags=re.S)
        self.assertEqual(defectscheck.check(wrong), [
            "defects: row qemu-x2apic-icount has cells for QEMU 7.2.22, the columns are 7.2.22, 10.0.2"])
        gone = re.sub(r'<th data-qemu="10.0.2">[^<]*</th>', "", html)
        self.assertIn("defects: QEMU 10.0.2, a suite's in the overview, has no column",
                      defectscheck.check(gone))
        with open(out, "w", encoding="utf-8") as f:
            f.write(wrong)
        with self.assertRaisesRegex(pagecheck.PageError, "row qemu-x2apic-icount has cells"):
            pagecheck.check_page(out)


if __name__ == "__main__":
    unittest.main()
