# SPDX-License-Identifier: GPL-2.0-only
"""A chart drawn by gnuplot for the host tools (scripts/bench-plot, scripts/timer-overhead.py): finding gnuplot, the terminal by the image's extension, running it, its failure in words.

Each tool keeps its own data and plot commands; draw() puts the terminal
and output lines before them and runs gnuplot. The HTML report draws its
own SVG (scripts/reportlib/svg.py) and needs no gnuplot. Import it by path:
sys.path.insert(0, <scripts>); sys.dont_write_bytecode = True; import
gnuplot_chart.
"""
import os
import shutil
import subprocess

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


def draw(output, commands, width, height, fmt=None):
    """Write the image output (its format fmt, or its extension's) from a tool's gnuplot
    commands (a string); ChartError with gnuplot's own words when it fails."""
    fmt = image_format(output, fmt)
    gnuplot = find_gnuplot()
    script = "\n".join([terminal(gnuplot, fmt, width, height),
                        f"set output {quote(os.path.abspath(output))}", commands, ""])
    r = subprocess.run([gnuplot], input=script, text=True, capture_output=True, check=False)
    if r.returncode:
        said = r.stderr.strip() or "no message"
        raise ChartError(f"gnuplot failed (status {r.returncode}) drawing {output}:\n{said}")
