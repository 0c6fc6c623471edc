# SPDX-License-Identifier: GPL-2.0-only
"""The report's figures of one suite and accelerator: verdicts, clocks, ticks, lifecycle, exit costs."""
import math
import re
from dataclasses import dataclass, field

from . import bounds as B
from .svg import Row, bars, bullet_rows, curves, esc, fig_span, histogram, ns_text

OUTCOME_CLASS = {"PASS": "pass", "KFAIL": "kfail", "SKIP": "skip", "NOTRUN": "skip"}
# the runner's default for running a FAIL again (RUN_DISTURBED_PCT, docs/runner.md)
DISTURB_NOTE = ("a FAIL during which the host took more than RUN_DISTURBED_PCT (default 5 %) "
                "of the run is run again")


@dataclass
class Block:
    key: str        # the same figure of another run has the same key
    title: str
    html: str
    caption: str = ""
    rows: list = field(default_factory=list)    # the Rows drawn in it: the overview ranks them


def numeric(test, name):
    """The figure when it is a finite number (a log may hold anything), else None."""
    f = test.fig(name)
    ok = f is not None and isinstance(f.value, (int, float)) and math.isfinite(f.value)
    return f if ok else None


def ref(test, name):
    return f"{test.name}|{name}"


def figure_row(test, name, label, bands=None, note=None, **kw):
    """A Row of a RESULT figure; its bound printed after it unless note says otherwise."""
    f = numeric(test, name)
    if f is None:
        return None
    row = Row(label=label, value=float(f.value), text=f.text, unit=f.unit, ref=ref(test, name),
              bands=bands or [], **kw)
    if bands and row.ok is None:
        row.ok = any(a <= row.value <= b for a, b in bands)
    row.note = bands_text(bands, row.unit) if note is None and bands else (note or "")
    return row


def bound_text(v, unit):
    return ns_text(v) if unit == "ns" and v > 0 else f"{v:.6g}"


def bands_text(bands, unit):
    """(bound LO..HI), or (bound +-B) for a band around 0, in the figure's unit."""
    parts = [f"\u00b1{bound_text(b, unit)}" if a == -b and b > 0 else
             f"{bound_text(a, unit)}..{bound_text(b, unit)}" for a, b in bands]
    return "(" + " or ".join(parts) + ")"


# ---- verdicts ---------------------------------------------------------------------------

def disturb_cell(test):
    if not test.disturb:
        return '<td class="num">-</td>'
    waited, run, stolen = test.disturb
    pct = 100 * (waited + stolen) / max(run, 1)
    width = min(pct, 100)
    return (f'<td class="num"><span class="meter"><span style="width:{width:.0f}%"></span></span>'
            f' {waited} + {stolen} of {run} ms ({pct:.0f} %)</td>')


def why_of(test):
    """What the row says beside the outcome: a SKIP's reason, the first FAIL line, the message."""
    if test.outcome == "SKIP":
        return test.first("SKIP") or test.message
    if test.outcome in ("PASS", "KFAIL"):
        return test.message
    fail = test.first("FAIL")
    return f"first FAIL: {fail}" if fail else test.message


def verdicts(tests):
    rows = []
    for t in tests:
        cls = OUTCOME_CLASS.get(t.outcome, "fail")
        tries = f"{t.attempts}" + (" (retried)" if t.attempts > 1 else "")
        earlier = f"<br><small>earlier attempts: {esc(', '.join(t.earlier))}</small>" \
            if t.earlier else ""
        problems = "".join(f'<br><small class="problem">{esc(p)}</small>' for p in t.problems)
        rows.append(f'<tr class="{cls}"><td>{esc(t.name)}</td><td class="outcome">'
                    f'{esc(t.outcome)}</td><td class="num">{esc(tries)}</td>'
                    f'<td class="why">{esc(why_of(t))}{earlier}{problems}</td>{disturb_cell(t)}</tr>')
    counts = {}
    for t in tests:
        counts[t.outcome] = counts.get(t.outcome, 0) + 1
    head = ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
    html = ('<table class="verdicts"><tr><th>test</th><th>outcome</th><th>attempts</th>'
            '<th>reason, first FAIL line, problems</th><th>host took from QEMU: waited + stolen '
            'of the run</th></tr>' + "\n".join(rows) + "</table>")
    source = sorted({t.source for t in tests})
    return Block("verdicts", f"Verdicts: {head}", html,
                 f"outcomes from {' and '.join(source)}; {DISTURB_NOTE}.")


# ---- clocks -----------------------------------------------------------------------------

def rate_rows(t):
    """Each clock's rate on each vCPU against each reference, within its BOUND line's band."""
    rows = []
    for name in t.figures:
        m = B.RATE_RE.match(name)
        b = B.find(t, name) if m else None
        if b:
            rows.append(figure_row(t, name, f"{m['clock']} vCPU {m['cpu']} vs {m['ref']}",
                                   b.bands, ok=b.passed))
    return rows


def warp_cells(t):
    """{clock: {"warps"|"stalls": [(vCPU, figure name)]}} of one test."""
    per_vcpu = [n for n in t.figures if B.VCPU_WARP_RE.match(n)]
    names = per_vcpu or [n for n in t.figures if B.TOTAL_WARP_RE.match(n)
                         and t.figures[n].unit == "count"]
    clocks = {}
    for name in names:
        m = B.VCPU_WARP_RE.match(name) or B.TOTAL_WARP_RE.match(name)
        cpu = m.groupdict().get("cpu") or "all"
        clocks.setdefault(m["clock"], {}).setdefault(m["what"], []).append((cpu, name))
    return clocks


def warp_table(tests):
    """Warps are mostly zero: a table, non-zero warps marked, says it better than bars."""
    rows, nonzero = [], 0
    for t in tests:
        for clock, what in warp_cells(t).items():
            cells = []
            for kind in ("warps", "stalls"):
                figs = []
                for cpu, name in what.get(kind, []):
                    f = t.fig(name)
                    bad = kind == "warps" and f.value != 0
                    nonzero += bad
                    cls = ' class="flag"' if bad else ""
                    figs.append(f'{esc(cpu)}: <span{cls} data-fig="{esc(ref(t, name))}">'
                                f"{esc(f.text)}</span>")
                cells.append(f'<td>{", ".join(figs) or "-"}</td>')
            rows.append(f"<tr><td>{esc(t.name)}</td><td>{esc(clock)}</td>{''.join(cells)}</tr>")
    if not rows:
        return None, 0
    return ('<table class="small"><tr><th>test</th><th>clock</th><th>warps per vCPU</th>'
            "<th>stalls per vCPU</th></tr>" + "".join(rows) + "</table>"), nonzero


def wallclock_rows(tests):
    rows = []
    for t in tests:
        for name in B.WALLCLOCK:
            b = B.find(t, name)
            row = figure_row(t, name, f"{t.name}: {name}", b.bands if b else [],
                             ok=b.passed if b else None)
            if row:
                rows.append(row)
    return rows


def clocks(tests):
    blocks = []
    for t in tests:
        rates = rate_rows(t)
        if rates:
            blocks.append(Block(f"clock-rates-{t.name}", f"Clock rates: {t.name} (ppm)",
                                bullet_rows(f"{t.name} clock rates", rates),
                                "rate error of each clock on each vCPU against each reference "
                                "clock; the band is the check's bound (lib/ratecheck).",
                                rates))
    table, nonzero = warp_table(tests)
    if table:
        blocks.append(Block("clock-warps", f"Warps and stalls per vCPU ({nonzero} warps "
                            "non-zero)", table,
                            "a warp (a read going backwards across vCPUs) fails its test where "
                            "the clock is stated monotonic: the bound is 0 (non-zero in red); "
                            "stalls (the same value read again) are counted."))
    wall = wallclock_rows(tests)
    if wall:
        blocks.append(Block("clock-wallclock", "Time of day at start-up",
                            bullet_rows("wall clock", wall),
                            "the guest's time of day against the host's when it started; the "
                            "band is what its check allows (its BOUND line).",
                            wall))
    return blocks


# ---- ticks ------------------------------------------------------------------------------

def tick_sources(tests):
    for t in tests:
        for name in t.figures:
            m = B.TICK_RE.match(name)
            if m and m["src"] != "none":
                yield t, m["src"]


def tick_histogram(t, src):
    p = f"timer_tick.{src}."
    buckets = []
    for name in t.figures:
        m = B.BUCKET_RE.match(name)
        f = numeric(t, name)
        if m and m["src"] == src and f and f.value >= 0:
            buckets.append((int(m["k"]), f.value, ref(t, name), f.text))
    markers = [(stat, numeric(t, p + "late_" + stat).value, ref(t, p + "late_" + stat),
                numeric(t, p + "late_" + stat).text)
               for stat in ("median", "p99", "max") if numeric(t, p + "late_" + stat)]
    late = B.find(t, p + "late_unexplained_max")
    bound = late.bands[0][1] if late else None
    if not buckets and not markers:
        return "<p class=\"problem\">no lateness figures in this log</p>"
    note = ""
    if not buckets:
        note = ('<p class="problem">this guest prints no lateness distribution '
                '(late_log2_ns.K): only its median, p99 and max are drawn</p>')
    bound_text = ""
    if bound is not None:
        bound_text = f"bound on lateness beyond the evidence: {ns_text(bound)} (its BOUND line)"
    svg = histogram(f"{t.name} lateness", sorted(buckets), markers, bound, bound_text)
    return note + svg


def tick_rows(t, src):
    p = f"timer_tick.{src}."
    rows = []
    for name, what in (("lost_unexplained", "lost, nothing explaining"),
                       ("late_unexplained_max", "worst late beyond the evidence"),
                       ("counter_err", "counter frequency error"),
                       ("schedule_err", "schedule rate error")):
        b = B.find(t, p + name)
        r = figure_row(t, p + name, what, b.bands if b else None, ok=b.passed if b else None)
        if r:
            rows.append(r)
    return rows


def tick_counts(t, src):
    p = f"timer_tick.{src}."
    parts = []
    for name, what in (("ticks_expected", "expected"), ("slots_passed", "owed (slots passed)"),
                       ("ticks_received", "received"), ("ticks_per_s_arrived", "arrived per s"),
                       ("lost", "lost"), ("steal_lost", "explained by steal time"),
                       ("lost_host", "by the host's evidence"), ("lost_late", "by a late delivery"),
                       ("lost_unjudged", "not judged"), ("steal", "steal time (us)"),
                       ("host_us", "host's waits (us)"),
                       # the lost-tick check's resolution on the run, where it passed: 1 in K caught
                       ("catches_one_in", "never-delivered caught at 1 in")):
        f = t.fig(p + name)
        if f:
            parts.append(f'{what} <span class="fig" data-fig="{esc(ref(t, p + name))}">'
                         f'{esc(f.text)}</span>')
    return "<p>" + ", ".join(parts) + "</p>"


def ticks(tests):
    blocks = []
    for t, src in tick_sources(tests):
        rows = tick_rows(t, src)
        html = tick_counts(t, src) + tick_histogram(t, src)
        if rows:
            html += bullet_rows(f"{t.name} checks", rows)
        blocks.append(Block(f"ticks-{t.name}-{src}", f"Ticks: {src} ({t.name}, {t.outcome})",
                            html, "ticks per log2 bucket of lateness; the red line is the "
                            "bound on a tick's lateness beyond the evidence; below, each "
                            "check's figure against its bound.", rows))
    return blocks


# ---- lifecycle --------------------------------------------------------------------------

def lifecycle(tests):
    blocks = []
    for t in tests:
        found = B.lifecycle(t)
        if not found:
            continue
        rows = []
        several = len({event for event, _, _ in found}) > 1
        for event, b, what in found:
            label = f"e{event.split()[1]}: {what}" if several else what
            r = figure_row(t, b.name, label, b.bands, ok=b.passed)
            if r:
                rows.append(r)
        host = [f'{esc(n.split(".")[-1])} <span data-fig="{esc(ref(t, n))}">{esc(f.text)}</span> '
                f"{esc(f.unit)}" for n, f in t.figures.items() if ".host." in n]
        events = sorted({event for event, _, _ in found})
        html = (f'<p class="meta">{esc(", ".join(events))}; host: {", ".join(host)}</p>') + \
            bullet_rows(f"{t.name} lifecycle", rows)
        blocks.append(Block(f"lifecycle-{t.name}", f"Lifecycle: {t.name} ({t.outcome})", html,
                            "per event and clock: the step over the event and the rate after "
                            "it; the band is the bound its check printed (its BOUND line).", rows))
    return blocks


# ---- catch-up under a clock setting ---------------------------------------------------

CATCHUP_RE = re.compile(r"^catchup\.(?P<kind>\w+)\.behind_at_ms\.(?P<ms>\d+)$")


def catchup(tests):
    """Per catchup run: how far behind its count was after each disturbance, over time (x86/catchup)."""
    blocks = []
    for t in tests:
        points = {}
        for name in t.figures:
            m = CATCHUP_RE.match(name)
            f = numeric(t, name)
            if m and f:
                points.setdefault(m["kind"], {})[int(m["ms"])] = (f.value, ref(t, name), f.text)
        if not points:
            continue
        xs = sorted({ms for pts in points.values() for ms in pts})
        series = [(kind, [pts[ms] for ms in xs]) for kind, pts in points.items() if set(pts) == set(xs)]
        svg = curves(f"{t.name} catch-up", [str(ms) for ms in xs], series,
                     "periods behind the source's clock, by ms after the disturbance ended")
        blocks.append(Block(f"catchup-{t.name}", f"Catch-up: {t.name} ({t.outcome})", svg,
                            "how many periods the tick count was behind after each disturbance "
                            "(masked interrupts, a pause, a save): a setting that catches up "
                            "falls to 0 within ms, one that drops stays at what it missed."))
    return blocks


# ---- exit costs -------------------------------------------------------------------------

def bench_rows(t, marks):
    rows, skipped = [], []
    for name, f in t.figures.items():
        if t.fig(name + ".iterations") is None:
            continue
        mn, mx = numeric(t, f"{name}.{B.STAT_MIN}"), numeric(t, f"{name}.{B.STAT_MAX}")
        r = figure_row(t, name, name.split(".", 1)[-1], lo=float(mn.value) if mn else None,
                       hi=float(mx.value) if mx else None)
        if r is None:
            continue
        r.unit = ""
        for stat, what in ((B.STAT_MAD, "MAD "), (B.STAT_OVH, "ovh ")):
            f = t.fig(f"{name}.{stat}")
            if f:
                r.extras.append((what, ref(t, f"{name}.{stat}"), f.text, ""))
        r.mark = marks.get((t.name, name), "")
        rows.append(r)
    for tag, msg in t.checks:
        if tag == "SKIP" and msg.startswith("exit."):
            skipped.append(msg)
    return rows, skipped


def exit_costs(tests, marks):
    blocks = []
    for t in tests:
        rows, skipped = bench_rows(t, marks)
        if not rows and not skipped:
            continue
        html = bars(f"{t.name} costs", rows, "ns") if rows else ""
        if skipped:
            html += ('<p class="caption">skipped rows:</p><ul class="caption">' +
                     "".join(f"<li>{esc(s)}</li>" for s in skipped) + "</ul>")
        blocks.append(Block(f"exit-{t.name}", f"Exit costs: {t.name} ({t.outcome}, ns per "
                            "operation)", html,
                            "median over batches with the empty loop's overhead already "
                            "subtracted (ovh), whisker min..max, MAD: median absolute "
                            "deviation (docs/bench.md)."))
    return blocks


SECTIONS = (("verdicts", "Verdicts", lambda ts, m: [verdicts(ts)]),
            ("clocks", "Clocks", lambda ts, m: clocks(ts)),
            ("ticks", "Ticks", lambda ts, m: ticks(ts)),
            ("lifecycle", "Lifecycle", lambda ts, m: lifecycle(ts)),
            ("catchup", "Catch-up", lambda ts, m: catchup(ts)),
            ("exits", "Exit costs", exit_costs))


def build(tests, marks):
    """[(section key, title, [Block])] of one group of tests, every section (empty ones too)."""
    return [(key, title, make(tests, marks)) for key, title, make in SECTIONS]


__all__ = ["build", "Block", "ns_text"]
