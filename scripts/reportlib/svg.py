# SPDX-License-Identifier: GPL-2.0-only
"""Inline SVG charts for the report: rows against their bounds, bars with spread, a histogram."""
import math
from dataclasses import dataclass, field
from html import escape

from units import NSEC_PER_MSEC, NSEC_PER_SEC, NSEC_PER_USEC  # scripts/units.py (scripts/ is on the path)

WIDTH = 640
ROW_H = 22
TOP = 26            # room for the axis labels above the first row
BOTTOM = 10
LABEL_CHARS = 30    # longer labels are cut, whole in their tooltip
HIST_H = 190
MAX_AXIS_LABELS = 5   # decades labelled on a bar chart's axis of ~200 px
HIST_BAR_GAP = 2
NS_UNITS = ((NSEC_PER_SEC, "s"), (NSEC_PER_MSEC, "ms"), (NSEC_PER_USEC, "us"), (1, "ns"))


@dataclass(frozen=True)
class Layout:
    """A chart of rows: the labels' column, the plot, the figures' column."""
    label_w: int = 190
    value_w: int = 185

    @property
    def plot_x(self):
        return self.label_w + 10

    @property
    def plot_w(self):
        return WIDTH - self.plot_x - self.value_w - 10


ROWS = Layout()
# bench rows: short names, long figures (median, MAD, overhead)
BARS = Layout(label_w=150, value_w=255)


def esc(text):
    return escape(str(text), quote=True)


@dataclass
class Row:
    """A figure in a chart: its label, value, how the page prints it, and its bound."""
    label: str
    value: float
    text: str                 # the figure as printed (the guest's text)
    unit: str = ""
    ref: str = ""             # TEST|FIGURE in results.json, or "" for a figure of a log line
    bands: list = field(default_factory=list)   # [(lo, hi)]: the bound(s) it must lie in
    lo: float = None          # bars: the spread (min..max)
    hi: float = None
    note: str = ""            # printed after the figure
    extras: list = field(default_factory=list)  # [(before, ref, text, after)]: more figures after it
    mark: str = ""            # a change flagged beside it (compare mode)
    ok: bool = None           # None: not judged here


def fig_span(ref, text):
    """A figure's text, tagged with what results.json calls it (host-tests/report reads it back)."""
    if ref:
        return f'<tspan class="fig" data-fig="{esc(ref)}">{esc(text)}</tspan>'
    return f'<tspan class="fig" data-from="log">{esc(text)}</tspan>'


def short(label):
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "\u2026"


def svg_open(height, title):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img"><title>{esc(title)}</title>']


def row_label(y, row, lay):
    return (f'<text class="lab" x="{lay.label_w}" y="{y + 15}" text-anchor="end">'
            f'<title>{esc(row.label)}</title>{esc(short(row.label))}</text>')


def row_value(y, row, lay):
    cls = {True: "val ok", False: "val bad", None: "val"}[row.ok]
    unit = f" {esc(row.unit)}" if row.unit else ""
    extra = f" {esc(row.note)}" if row.note else ""
    extra += "".join(f" {esc(before)}{fig_span(ref, text)}{esc(after)}"
                     for before, ref, text, after in row.extras)
    mark = f'<tspan class="mark"> {esc(row.mark)}</tspan>' if row.mark else ""
    return (f'<text class="{cls}" x="{lay.plot_x + lay.plot_w + 8}" y="{y + 15}">'
            f'{fig_span(row.ref, row.text)}{unit}{extra}{mark}</text>')


def bullet_rows(title, rows):
    """
    One row per figure, each on its own linear scale: the bound as a band,
    zero as a thin line, the figure as a dot (red outside the band).
    """
    lay = ROWS
    h = TOP + ROW_H * len(rows) + BOTTOM
    out = svg_open(h, title)
    out.append(f'<text class="axis" x="{lay.plot_x}" y="14">each row on its own scale: '
               'band = bound, dot = figure, line = 0</text>')
    for i, row in enumerate(rows):
        y = TOP + i * ROW_H
        # an open end (BOUND's -inf, inf) runs to the plot's edge: the scale holds the finite ones
        points = [row.value, 0] + [b for band in row.bands for b in band if math.isfinite(b)]
        lo, hi = min(points), max(points)
        pad = (hi - lo) * 0.08 or 1
        lo, hi = lo - pad, hi + pad

        def x_of(v):
            return lay.plot_x + (min(max(v, lo), hi) - lo) / (hi - lo) * lay.plot_w
        out.append(row_label(y, row, lay))
        out.append(f'<rect class="track" x="{lay.plot_x}" y="{y + 8}" width="{lay.plot_w}" height="8"/>')
        for a, b in row.bands:
            out.append(f'<rect class="band" x="{x_of(a):.1f}" y="{y + 5}" '
                       f'width="{max(x_of(b) - x_of(a), 1):.1f}" height="14"/>')
        out.append(f'<line class="zero" x1="{x_of(0):.1f}" x2="{x_of(0):.1f}" y1="{y + 3}" '
                   f'y2="{y + 21}"/>')
        dot = "dot bad" if row.ok is False else "dot"
        out.append(f'<circle class="{dot}" cx="{x_of(row.value):.1f}" cy="{y + 12}" r="5"/>')
        out.append(row_value(y, row, lay))
    out.append("</svg>")
    return "\n".join(out)


def log_ticks(lo, hi):
    """Decades from lo to hi (both > 0)."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return [10.0 ** k for k in range(first, last + 1)]


def ns_text(ns):
    for scale, unit in NS_UNITS:
        if ns >= scale:
            v = ns / scale
            return f"{v:.0f} {unit}" if v >= 10 or v == int(v) else f"{v:.1f} {unit}"
    return f"{ns:g} ns"


def tick_text(v, unit):
    return ns_text(v) if unit == "ns" else f"{v:g}"


def bars(title, rows, unit):
    """Horizontal bars on a log axis: the figure, a whisker from lo to hi, bounds as ticks."""
    values = [v for r in rows for v in (r.value, r.lo, r.hi) if v is not None and v > 0]
    values += [b for r in rows for band in r.bands for b in band if 0 < b < math.inf]
    lay = BARS
    h = TOP + ROW_H * len(rows) + BOTTOM
    out = svg_open(h, title)
    if not values:
        values = [1]
    ticks = log_ticks(min(values), max(values) * 1.01)
    lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
    hi = hi if hi > lo else lo + 1

    def x_of(v):
        return lay.plot_x + (math.log10(v) - lo) / (hi - lo) * lay.plot_w if v > 0 else lay.plot_x
    every = -(-len(ticks) // MAX_AXIS_LABELS)   # a label on every n-th decade: they never overlap
    for i, t in enumerate(ticks):
        x = x_of(t)
        out.append(f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP - 4}" y2="{h - BOTTOM}"/>')
        if i % every == 0:
            out.append(f'<text class="axis" x="{x:.1f}" y="{TOP - 8}" text-anchor="middle">'
                       f'{esc(tick_text(t, unit))}</text>')
    for i, row in enumerate(rows):
        y = TOP + i * ROW_H
        out.append(row_label(y, row, lay))
        cls = "bar bad" if row.ok is False else "bar"
        out.append(f'<rect class="{cls}" x="{lay.plot_x}" y="{y + 5}" '
                   f'width="{max(x_of(row.value) - lay.plot_x, 1):.1f}" height="13"/>')
        if row.lo is not None and row.hi is not None:
            a, b = x_of(row.lo), x_of(row.hi)
            out.append(f'<path class="whisker" d="M{a:.1f} {y + 11.5}H{b:.1f}M{a:.1f} {y + 7}'
                       f'V{y + 16}M{b:.1f} {y + 7}V{y + 16}"/>')
        for a, b in row.bands:
            if math.isinf(b):
                continue
            out.append(f'<line class="bound" x1="{x_of(b):.1f}" x2="{x_of(b):.1f}" y1="{y + 2}" '
                       f'y2="{y + 21}"/>')
        out.append(row_value(y, row, lay))
    out.append("</svg>")
    return "\n".join(out)


def histogram(title, buckets, markers, bound_ns, bound_text):
    """
    Ticks per log2 bucket of lateness (bucket k: 2^k to 2^(k+1) ns) on a log
    axis of ns; markers [(name, ns, ref, text)] as thin lines, the bound red.
    buckets: [(k, count, ref, text)].
    """
    ks = [k for k, *_ in buckets] + [math.log2(max(ns, 1)) for _, ns, *_ in markers]
    if bound_ns:
        ks.append(math.log2(bound_ns))
    k_lo, k_hi = math.floor(min(ks)), math.ceil(max(ks)) + 1
    k_lo = min(k_lo, k_hi - 4)
    x0, w, base, top = 60, WIDTH - 80, HIST_H - 38, 30
    peak = max((c for _, c, *_ in buckets), default=1)

    def x_of(k):
        return x0 + (k - k_lo) / (k_hi - k_lo) * w
    out = svg_open(HIST_H, title)
    out.append(f'<text class="axis" x="{x0 - 6}" y="{top + 4}" text-anchor="end">{peak}</text>')
    out.append(f'<text class="axis" x="{x0 - 6}" y="{base}" text-anchor="end">0</text>')
    out.append(f'<text class="axis" x="{x0 - 6}" y="{top - 14}" text-anchor="start">ticks '
               '(lateness on a log axis)</text>')
    for k in range(k_lo, k_hi + 1):
        if (k - k_lo) % 2 == 0 or k_hi - k_lo <= 10:
            out.append(f'<text class="axis" x="{x_of(k):.1f}" y="{base + 14}" '
                       f'text-anchor="middle">{esc(ns_text(2 ** k))}</text>')
        out.append(f'<line class="grid" x1="{x_of(k):.1f}" x2="{x_of(k):.1f}" y1="{top}" '
                   f'y2="{base}"/>')
    for k, count, ref, text in buckets:
        bh = (base - top) * count / peak
        out.append(f'<rect class="hbar" x="{x_of(k) + HIST_BAR_GAP / 2:.1f}" y="{base - bh:.1f}" '
                   f'width="{x_of(k + 1) - x_of(k) - HIST_BAR_GAP:.1f}" height="{max(bh, 1):.1f}">'
                   f'<title>{esc(ns_text(2 ** k))} to {esc(ns_text(2 ** (k + 1)))}: '
                   f'{esc(text)} ticks</title></rect>')
        out.append(f'<text class="count" x="{x_of(k + 0.5):.1f}" y="{base - bh - 3:.1f}" '
                   f'text-anchor="middle">{fig_span(ref, text)}</text>')
    legend = []
    for name, ns, ref, text in markers:
        x = x_of(math.log2(max(ns, 1)))
        out.append(f'<line class="marker" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{base}">'
                   f'<title>{esc(name)} {esc(text)} ns</title></line>')
        legend.append(f"{esc(name)} {fig_span(ref, text)}")
    if legend:
        out.append(f'<text class="mlab" x="{x0 + w}" y="{top - 14}" text-anchor="end">'
                   f'dashed: {", ".join(legend)} ns</text>')
    if bound_ns:
        x = x_of(math.log2(bound_ns))
        out.append(f'<line class="bound" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{base}"/>')
        out.append(f'<text class="blab" x="{x - 3:.1f}" y="{base + 28}" text-anchor="end">'
                   f'{bound_text}</text>')
    out.append(f'<line class="axisline" x1="{x0}" x2="{x0 + w}" y1="{base}" y2="{base}"/>')
    out.append("</svg>")
    return "\n".join(out)


CURVE_H = 230
CURVE_COLOURS = ("#1f6fb4", "#c0392b", "#27864a", "#8e44ad")


def curves(title, xs, series, y_label):
    """
    Lines over categories xs (evenly spaced, labelled as given): series
    [(name, [(y, ref, text)] one per x)], each its own colour, a dot per
    point whose tooltip is the figure (tagged for the report's checks).
    """
    ys = [y for _, pts in series for y, _, _ in pts] + [0]
    lo, hi = min(ys), max(ys)
    hi = hi if hi > lo else lo + 1
    x0, w, base, top = 60, WIDTH - 80, CURVE_H - 70, 30

    def x_of(i):
        return x0 + i / max(len(xs) - 1, 1) * w

    def y_of(v):
        return base - (v - lo) / (hi - lo) * (base - top)
    out = svg_open(CURVE_H, title)
    out.append(f'<text class="axis" x="{x0 - 6}" y="{top - 14}" text-anchor="start">{esc(y_label)}</text>')
    last_y = None
    for v in sorted({lo, 0, hi}):
        if last_y is None or abs(y_of(v) - last_y) >= 12:
            out.append(f'<text class="axis" x="{x0 - 6}" y="{y_of(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
            last_y = y_of(v)
        out.append(f'<line class="grid" x1="{x0}" x2="{x0 + w}" y1="{y_of(v):.1f}" y2="{y_of(v):.1f}"/>')
    for i, x in enumerate(xs):
        out.append(f'<text class="axis" x="{x_of(i):.1f}" y="{base + 14}" text-anchor="middle">{esc(x)}</text>')
    legend = []
    for k, (name, pts) in enumerate(series):
        colour = CURVE_COLOURS[k % len(CURVE_COLOURS)]
        path = " ".join(f"{'M' if i == 0 else 'L'}{x_of(i):.1f} {y_of(y):.1f}" for i, (y, _, _) in enumerate(pts))
        out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for i, (y, ref, text) in enumerate(pts):
            out.append(f'<circle cx="{x_of(i):.1f}" cy="{y_of(y):.1f}" r="3" fill="{colour}">'
                       f'<title>{esc(name)} at {esc(xs[i])}: {esc(text)}</title></circle>')
        legend.append(f'<tspan fill="{colour}">{esc(name)}:</tspan> ' +
                      " ".join(fig_span(ref, text) for _, ref, text in pts))
    for k, line in enumerate(legend):
        out.append(f'<text class="axis" x="{x0}" y="{base + 28 + 12 * k}">{line}</text>')
    out.append("</svg>")
    return "\n".join(out)
