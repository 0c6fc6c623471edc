# SPDX-License-Identifier: GPL-2.0-only
"""Two sides of runs judged by scripts/bench-compare's own statistics (never a second implementation)."""
import argparse

from vmtick_host import load_script  # noqa: E402  scripts/vmtick_host.py: the one loader (scripts/report puts scripts/ on the path)
from .svg import esc

def bench_compare():
    return load_script("bench-compare", "bench_compare")


def side_figures(side):
    """{(suite folder, test, figure, accel): [one figure dict per logs folder]}, as bench-compare reads runs."""
    out = {}
    for _, suites in side:
        for suite in suites:
            for t in suite.tests:
                figs = {}
                for name, f in t.figures.items():
                    parent, _, stat = name.rpartition(".")
                    if parent in t.figures:
                        continue
                    d = {"value": f.value, "unit": f.unit}
                    for sub in ("overhead_ns", "iterations"):
                        s = t.fig(f"{name}.{sub}")
                        if s:
                            d[sub] = s.value
                    figs[name] = d
                for name, d in figs.items():
                    out.setdefault((suite.rel, t.name, name, t.accel), []).append(d)
    return out


def judge(side_a, side_b):
    """
    (lines for the page, {(suite folder, test, figure): mark}) over the benchmarks both
    sides have: bench-compare's classify() and judge() at its default
    threshold and alpha, Bonferroni over the benchmarks judged.
    """
    bc = bench_compare()
    args = argparse.Namespace(threshold=bc.DEFAULT_THRESHOLD, alpha=bc.DEFAULT_ALPHA)
    old, new = side_figures(side_a), side_figures(side_b)
    keys = sorted(set(old) & set(new))
    why = {k: bc.classify(k, old[k], new[k], bc.DEFAULT_MIN_RUNS) for k in keys}
    judged = [k for k in keys if why[k][0] is None]
    level = 1 - args.alpha / max(len(judged), 1)
    lines, marks = [], {}
    for k in judged:
        ratio, lo, hi, verdict = bc.judge(bc.values_of(old[k]), bc.values_of(new[k]), args, level)
        if verdict == "same":
            continue
        text = f"{verdict} x{ratio:.3f} ({lo:.3f}..{hi:.3f})"
        marks[(k[0], k[1], k[2])] = text
        where = "" if k[0] == "." else f"{k[0]} "
        lines.append(f'<span class="flag">{esc(verdict)}</span>: {esc(where)}{esc(k[1])}/'
                     f"{esc(k[2])} ({esc(k[3])}): new/old {ratio:.3f}, interval "
                     f"{lo:.3f}..{hi:.3f}")
    costs = [k for k in keys if why[k][0] is None or why[k][0].startswith("too few")]
    if not judged:
        few = next((why[k][0] for k in costs if why[k][0]), None)
        reason = f"{few}: give at least {bc.DEFAULT_MIN_RUNS} logs folders a side" if few else \
            "no benchmark figure is in both"
        lines.append(f"bench-compare judges nothing: {esc(reason)}")
    else:
        lines.append(f"{len(judged)} benchmarks judged at {level * 100:.2f} % "
                     f"(threshold {args.threshold:g} %): {len(marks)} flagged")
    return lines, marks
