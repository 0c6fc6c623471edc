#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A chart drawn by gnuplot for the host tools (scripts/bench-plot, scripts/timer-overhead.py, scripts/kvmclock-sweep.sh): finding gnuplot, the terminal by the image's extension, running it, its failure in words.

Each tool keeps its own data and plot commands; draw() puts the terminal
and output lines before them and runs gnuplot. The HTML report draws its
own SVG (scripts/reportlib/svg.py) and needs no gnuplot. Import it by path:
sys.path.insert(0, <scripts>); sys.dont_write_bytecode = True; import
gnuplot_chart. A shell tool runs it instead (main(): the commands on stdin,
the image and, with --keep, the whole script written; gnuplot_chart.py -h).
"""
import argparse
import os
import shutil
import subprocess
import sys

# The terminal per image extension, its size in pixels filled in. Text is
# drawn as written (noenhanced): a row name's _ is no subscript.
TERMINALS = {"png": "pngcairo size {w},{h} noenhanced", "svg": "svg size {w},{h} noenhanced"}
# PNG from a gnuplot built without cairo
PNG_WITHOUT_CAIRO = "png size {w},{h} noenhanced"
INSTALL = "Debian: gnuplot-nox"


class ChartError(Exception):
    pass


def image_format(path, fmt=None):
    """The image format of path: fmt when given (an extension must agree), else the extension."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if fmt:
        if fmt not in TERMINALS:
            raise ChartError(f"unknown image format '{fmt}' (want {' or '.join(sorted(TERMINALS))})")
        if ext and ext != fmt:
            raise ChartError(f"{path}: the extension says {ext}, the format asked for is {fmt}")
        return fmt
    if ext not in TERMINALS:
        want = " or ".join("." + e for e in sorted(TERMINALS))
        raise ChartError(f"{path}: unknown image format '{ext}' (want {want})")
    return ext


def find_gnuplot():
    """gnuplot's path on PATH; ChartError saying how to install it when there is none."""
    path = shutil.which("gnuplot")
    if not path:
        raise ChartError(f"gnuplot not found on PATH ({INSTALL})")
    return path


def terminal(gnuplot, fmt, width, height):
    """The 'set terminal' line for fmt: PNG through cairo when this gnuplot has it."""
    term = TERMINALS[fmt]
    if fmt == "png":
        r = subprocess.run([gnuplot, "-e", "set terminal"], capture_output=True, text=True, check=False)
        if "pngcairo" not in r.stdout + r.stderr:
            term = PNG_WITHOUT_CAIRO
    return "set terminal " + term.format(w=width, h=height)


def quote(text):
    """text as a gnuplot string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def draw(output, commands, width, height, fmt=None, keep=None):
    """Write the image output (its format fmt, or its extension's) from a tool's gnuplot
    commands (a string); ChartError with gnuplot's own words when it fails. keep: a path the
    whole script gnuplot ran is written to first, so that 'gnuplot KEEP', run where the tool
    ran it (the commands' data files are relative to there), draws the image again."""
    fmt = image_format(output, fmt)
    gnuplot = find_gnuplot()
    script = "\n".join([terminal(gnuplot, fmt, width, height),
                        f"set output {quote(os.path.abspath(output))}", commands, ""])
    if keep:
        try:
            with open(keep, "w", encoding="utf-8") as f:
                f.write(script)
        except OSError as e:
            raise ChartError(f"cannot write the script {keep}: {e.strerror}") from e
    r = subprocess.run([gnuplot], input=script, text=True, capture_output=True, check=False)
    if r.returncode:
        said = r.stderr.strip() or "no message"
        raise ChartError(f"gnuplot failed (status {r.returncode}) drawing {output}:\n{said}")


def size(text):
    """WIDTHxHEIGHT in pixels, for the command line: (width, height)."""
    w, x, h = text.partition("x")
    if not (x and w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0):
        raise argparse.ArgumentTypeError(f"'{text}' is no WIDTHxHEIGHT in pixels (e.g. 900x560)")
    return int(w), int(h)


def main(argv=None):
    """The command line, for shell tools (scripts/kvmclock-sweep.sh): the plot commands on
    stdin, OUTPUT drawn; status 0, 1 with why on stderr, 2 for bad usage."""
    ap = argparse.ArgumentParser(
        prog="gnuplot_chart.py",
        description="Draw OUTPUT with gnuplot from the plot commands read on stdin, its "
                    "terminal by OUTPUT's extension or --format.")
    ap.add_argument("output", nargs="?", help="the image: .png or .svg")
    ap.add_argument("--format", choices=sorted(TERMINALS), help="the image's format (else its extension's)")
    ap.add_argument("--size", type=size, default=(900, 560), metavar="WxH",
                    help="pixels (default 900x560)")
    ap.add_argument("--keep", metavar="SCRIPT",
                    help="also write the whole gnuplot script there: 'gnuplot SCRIPT' redraws OUTPUT")
    ap.add_argument("--check", action="store_true",
                    help="draw nothing: whether gnuplot is there (status 1 saying how to install it)")
    args = ap.parse_args(argv)
    if not args.check and not args.output:
        ap.error("an OUTPUT image, or --check")
    try:
        if args.check:
            find_gnuplot()
        else:
            draw(args.output, sys.stdin.read(), *args.size, fmt=args.format, keep=args.keep)
    except ChartError as e:
        print(f"{ap.prog}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
