# SPDX-License-Identifier: GPL-2.0-only
"""scripts/gnuplot_chart.py: the terminal picked by the image's extension, refusals named, gnuplot missing or failing said.

What: an image's format follows its extension (.png, .svg, any case), or
the format asked for when the extension agrees or there is none; an
unknown extension, or one that contradicts the format, is an error naming
both; draw() writes a real PNG or SVG for the extension; without gnuplot on
PATH, draw() and scripts/bench-plot say so and how to install it; a gnuplot
that fails is reported with its own message and the image's name; the
command line (scripts/kvmclock-sweep.sh's way) draws from stdin, keeps the
whole script it ran where asked (gnuplot redraws the image from it) and
refuses what it cannot draw.
Why: scripts/bench-plot, scripts/timer-overhead.py and
scripts/kvmclock-sweep.sh draw their charts through this module only; a
wrong terminal writes PNG bytes into a .svg.
How: images drawn into a temporary folder and their first bytes read;
gnuplot hidden by a PATH of an empty folder.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gnuplot_chart  # noqa: E402  (scripts/gnuplot_chart.py)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PLOT = "plot sin(x)"
# (path, format asked for, the format picked)
FORMATS = (("a.png", None, "png"), ("a.svg", None, "svg"), ("dir/B.SVG", None, "svg"),
           ("chart", "png", "png"), ("chart", "svg", "svg"), ("c.svg", "svg", "svg"))
# (path, format asked for, words the error must hold)
REFUSED = (("x.gif", None, ("x.gif", "unknown image format 'gif'")),
           ("noext", None, ("noext", "unknown image format ''")),
           ("x.png", "svg", ("x.png", "the extension says png", "svg")),
           ("x.png", "gif", ("unknown image format 'gif'",)))


class Formats(unittest.TestCase):
    def test_format_by_extension(self):
        for path, fmt, want in FORMATS:
            with self.subTest(path=path, fmt=fmt):
                self.assertEqual(gnuplot_chart.image_format(path, fmt), want,
                                 f"{path} (format {fmt}): the wrong image format")

    def test_refused_named(self):
        for path, fmt, words in REFUSED:
            with self.subTest(path=path, fmt=fmt):
                with self.assertRaises(gnuplot_chart.ChartError, msg=f"{path} (format {fmt}) taken") as cm:
                    gnuplot_chart.image_format(path, fmt)
                for w in words:
                    self.assertIn(w, str(cm.exception))

    def test_terminal_names_the_format(self):
        for fmt in gnuplot_chart.TERMINALS:
            with self.subTest(fmt=fmt):
                self.assertTrue(gnuplot_chart.TERMINALS[fmt].startswith(fmt),
                                f".{fmt} is drawn by terminal '{gnuplot_chart.TERMINALS[fmt]}'")


class Draw(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def head(self, path, n):
        with open(path, "rb") as f:
            return f.read(n)

    @unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot (Debian: gnuplot-nox)")
    def test_image_written_as_its_extension_says(self):
        png, svg = os.path.join(self.dir, "c.png"), os.path.join(self.dir, "c.svg")
        gnuplot_chart.draw(png, PLOT, 300, 200)
        gnuplot_chart.draw(svg, PLOT, 300, 200)
        self.assertEqual(self.head(png, 8), PNG_MAGIC, f"{png} is not a PNG")
        text = self.head(svg, 400).decode("utf-8", "replace")
        self.assertTrue(text.lstrip().startswith("<?xml") and "<svg" in text,
                        f"{svg} is not SVG: begins {text[:40]!r}")
        self.assertIn('width="300"', text, "the size asked for is not the SVG's")

    def test_unknown_extension_before_gnuplot(self):
        out = os.path.join(self.dir, "c.gif")
        with self.assertRaises(gnuplot_chart.ChartError, msg=f"{out} drawn") as cm:
            gnuplot_chart.draw(out, PLOT, 300, 200)
        self.assertIn("unknown image format 'gif'", str(cm.exception))
        self.assertFalse(os.path.exists(out), f"{out} written though refused")

    @unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot (Debian: gnuplot-nox)")
    def test_gnuplot_failure_said(self):
        out = os.path.join(self.dir, "c.svg")
        with self.assertRaises(gnuplot_chart.ChartError, msg="gnuplot's failure not reported") as cm:
            gnuplot_chart.draw(out, "plot nonesuch_function(x)", 300, 200)
        said = str(cm.exception)
        for w in ("gnuplot failed", out, "nonesuch_function"):
            self.assertIn(w, said, f"the failure does not say {w!r}: {said}")

    def test_gnuplot_missing(self):
        with mock.patch.dict(os.environ, {"PATH": self.dir}):
            for call in (gnuplot_chart.find_gnuplot,
                         lambda: gnuplot_chart.draw(os.path.join(self.dir, "c.png"), PLOT, 300, 200)):
                with self.assertRaises(gnuplot_chart.ChartError, msg="gnuplot missing not said") as cm:
                    call()
                self.assertIn("gnuplot not found", str(cm.exception))
                self.assertIn("gnuplot-nox", str(cm.exception), "no word on how to install it")

    def cli(self, args, stdin="", path=None):
        env = {**os.environ, "PATH": path} if path is not None else None
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "gnuplot_chart.py"), *args],
                              input=stdin, capture_output=True, text=True, check=False, env=env,
                              cwd=self.dir, timeout=60)

    @unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot (Debian: gnuplot-nox)")
    def test_command_line_keeps_its_script(self):
        """The shell tools' way (scripts/kvmclock-sweep.sh): commands on stdin, data relative
        to where it runs, the whole script kept; gnuplot run on the kept script redraws it."""
        with open(os.path.join(self.dir, "d.tsv"), "w", encoding="utf-8") as f:
            f.write("1 2\n2 4\n")
        r = self.cli(["--size", "300x200", "--keep", "c.gp", "c.svg"], 'plot "d.tsv" using 1:2\n')
        self.assertEqual(r.returncode, 0, r.stderr)
        svg, gp = os.path.join(self.dir, "c.svg"), os.path.join(self.dir, "c.gp")
        self.assertIn('width="300"', self.head(svg, 400).decode("utf-8", "replace"))
        with open(gp, encoding="utf-8") as f:
            kept = f.read()
        self.assertTrue(kept.startswith("set terminal svg size 300,200"), kept)
        os.remove(svg)
        subprocess.run(["gnuplot", gp], cwd=self.dir, check=True, timeout=60)
        self.assertTrue(os.path.isfile(svg), "the kept script did not redraw the image")

    def test_command_line_refusals(self):
        r = self.cli(["--check"], path=self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("gnuplot_chart.py: gnuplot not found on PATH (Debian: gnuplot-nox)", r.stderr)
        for args, words in ((["--size", "900", "c.png"], "no WIDTHxHEIGHT"),
                            ([], "an OUTPUT image, or --check")):
            with self.subTest(args=args):
                r = self.cli(args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(words, r.stderr)
        r = self.cli(["c.gif"], "plot x\n")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("unknown image format 'gif'", r.stderr)

    def test_bench_plot_without_gnuplot(self):
        """bench-plot says gnuplot is missing (status 2), before it reads a row."""
        res = os.path.join(self.dir, "r.json")
        with open(res, "w", encoding="utf-8") as f:
            f.write('{"format": "vmtick-bench-results/1", "runs": []}')
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bench-plot"), "-o",
                            os.path.join(self.dir, "c.svg"), res], capture_output=True, text=True,
                           check=False, env={**os.environ, "PATH": self.dir}, timeout=60)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("bench-plot: gnuplot not found on PATH (Debian: gnuplot-nox)", r.stderr)


if __name__ == "__main__":
    unittest.main()
