# SPDX-License-Identifier: GPL-2.0-only
"""
scripts/report's catch-up section (issue 41): a catchup run's
catchup.KIND.behind_at_ms.T figures drawn as one line per disturbance
over time, each point's figure tagged with what results.json calls it
(so check-report compares it), a run without them drawing nothing, and a
disturbance whose curve lacks a point left out rather than drawn short.
The figures are a real run's (QEMU 7.2, TCG, -rtc driftfix=slew).
"""
import os
import re
import sys
import unittest
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from reportlib import sections  # noqa: E402  (scripts/ on the path first)

SLEW = {"cli": [17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        "pause": [10, 9, 7, 7, 0, 0, 0, -1, 0, 0, 0],
        "save": [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0]}
MS = [0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1500]


@dataclass
class Fig:
    value: float
    text: str
    unit: str = "ticks"


@dataclass
class FakeTest:
    name: str
    outcome: str = "PASS"
    figures: dict = field(default_factory=dict)

    def fig(self, name):
        return self.figures.get(name)


def run_of(curves, name="clock-rtc-slew"):
    t = FakeTest(name)
    for kind, ys in curves.items():
        for ms, y in zip(MS, ys):
            t.figures[f"catchup.{kind}.behind_at_ms.{ms}"] = Fig(y, str(y))
    t.figures["catchup.cli.missed"] = Fig(16, "16")
    return t


class CatchUp(unittest.TestCase):
    def test_one_line_per_disturbance(self):
        blocks = sections.catchup([run_of(SLEW)])
        self.assertEqual(len(blocks), 1)
        html = blocks[0].html
        self.assertEqual(html.count("<path d="), 3)
        for kind, ys in SLEW.items():
            for ms, y in zip(MS, ys):
                ref = f"clock-rtc-slew|catchup.{kind}.behind_at_ms.{ms}"
                self.assertIn(f'data-fig="{ref}">{y}<', html, ref)
        self.assertRegex(html, r"cli at 0: 17")

    def test_nothing_without_figures(self):
        t = FakeTest("timer-pit", figures={"timer_tick.pit.lost": Fig(0, "0")})
        self.assertEqual(sections.catchup([t]), [])

    def test_short_curve_left_out(self):
        t = run_of(SLEW)
        del t.figures["catchup.save.behind_at_ms.500"]
        html = sections.catchup([t])[0].html
        self.assertEqual(html.count("<path d="), 2)
        self.assertNotIn("catchup.save.", html)

    def test_section_registered(self):
        self.assertIn("catchup", [key for key, _, _ in sections.SECTIONS])
        self.assertTrue(re.match(sections.CATCHUP_RE.pattern, "catchup.pause.behind_at_ms.20"))


if __name__ == "__main__":
    unittest.main()
