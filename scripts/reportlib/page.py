# SPDX-License-Identifier: GPL-2.0-only
"""The report's one HTML page: inline CSS and SVG, no script, nothing fetched."""
import datetime
import os
import re
from collections import Counter
from dataclasses import dataclass

from . import defects, overview, sections
from .svg import esc

CSS = """
body{font:14px/1.4 sans-serif;margin:16px 24px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:2px solid #345}
h3{font-size:15px;margin:18px 0 4px;color:#345}h4{font-size:14px;margin:10px 0 2px}
.meta,.caption,small{color:#555;font-size:12px}.problem{color:#a40}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;
vertical-align:top;text-align:left}th{background:#eef}td.num{text-align:right;white-space:nowrap}
td.why{max-width:520px;overflow-wrap:anywhere}
table.suites td{max-width:300px}table.suites td:first-child,table.suites td:nth-child(4){white-space:nowrap}
tr.pass td.outcome{background:#cfc}tr.fail td.outcome{background:#f99;font-weight:bold}
tr.skip td.outcome{background:#eee;color:#666}tr.kfail td.outcome{background:#fd8}
tr.bad td{background:#fdd}
.meter{display:inline-block;width:60px;height:8px;background:#eee;border:1px solid #bbb}
.meter span{display:block;height:8px;background:#c63}
.blocks{display:grid;grid-template-columns:repeat(auto-fill,minmax(645px,1fr));gap:4px 16px}
.block{min-width:0;overflow-x:auto}.blocks .block:has(table.verdicts){grid-column:1/-1}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:16px}.side{min-width:0;overflow-x:auto}
.sidehead{font-weight:bold;color:#345}.none{color:#888;font-style:italic}
.mark{fill:#b00;font-weight:bold}.flag{color:#b00;font-weight:bold}
svg{display:block;margin:4px 0}svg text{font:11px sans-serif;fill:#222}
svg .axis{fill:#666;font-size:10px}svg .lab{fill:#222}svg .val{font-size:10.5px}svg .val.bad{fill:#b00}
svg .track{fill:#f2f2f2}svg .band{fill:#9c9;opacity:.55}svg .zero{stroke:#888;stroke-width:1}
svg .dot{fill:#236}svg .dot.bad{fill:#d00}svg .bar{fill:#69c}svg .bar.bad{fill:#d66}
svg .whisker{stroke:#123;stroke-width:1.2;fill:none}svg .grid{stroke:#e4e4e4}
svg .bound{stroke:#d00;stroke-width:2}svg .blab{fill:#b00;font-size:10px}
svg .hbar{fill:#69c}svg .count{font-size:9px;fill:#234}svg .marker{stroke:#444;stroke-dasharray:3 2}
svg .mlab{font-size:10px;fill:#333}svg .axisline{stroke:#444}
td.d-pass{background:#dfd}td.d-kfail{background:#fe9}td.d-fail{background:#fbb}
table.defects td b{white-space:nowrap}
"""


def group_tests(suite):
    """[(accel, tests)]: a suite's tests by accelerator; tests that never started join the main one."""
    accels = Counter(t.accel for t in suite.tests if t.accel != "unknown")
    main = accels.most_common(1)[0][0] if accels else "unknown"
    groups = {}
    for t in suite.tests:
        groups.setdefault(t.accel if t.accel != "unknown" else main, []).append(t)
    return sorted(groups.items(), key=lambda kv: (kv[0] != main, kv[0]))


def groups_of(side, per_logdir):
    """
    {(logs folder or "", suite folder in it, accel): (suite, tests, logdir)}.
    One side alone shows every logs folder given; two sides pair suites by
    their folder in the logs folder ("." for the logs folder itself), the
    first logs folder of a side drawn.
    """
    out = {}
    for logdir, suites in side:
        for suite in suites:
            for accel, tests in group_tests(suite):
                key = (logdir if per_logdir else "", suite.rel, accel)
                out.setdefault(key, (suite, tests, logdir))
    return out


# make check's twin of a suite run under another QEMU: LABEL-qemuN beside LABEL
# (scripts/check.sh: x86_64-gcc-qemu10 beside x86_64-gcc)
TWIN_RE = re.compile(r"^(.+)-qemu[0-9][0-9.]*$")


def twins(groups):
    """
    {twin's key: its base's key} of one side's groups: each suite folder
    LABEL-qemuN whose LABEL is a suite of the same logs folder under the
    same accelerator.
    """
    out = {}
    for key in groups:
        logdir, rel, accel = key
        m = TWIN_RE.match(os.path.basename(rel))
        if not m:
            continue
        base = (logdir, os.path.join(os.path.dirname(rel), m.group(1)), accel)
        # one twin a suite: a second (LABEL-qemu9 too) keeps a section of its own
        if base in groups and not TWIN_RE.match(os.path.basename(base[1])) \
                and base not in out.values():
            out[key] = base
    return out


@dataclass
class Side:
    """One column of a suite's section: a side of two runs, a QEMU twin, or the suite alone."""
    name: str         # data-side: "A" or "B", the suite's label for a QEMU twin, "" alone
    head: str         # its heading above the column ("A", "QEMU 10.0.2: x86_64-gcc-qemu10")
    prefix: str       # before the suite's label in the overview ("A: ", or "")
    group: tuple      # (suite, tests, logdir), None where this side lacks the suite
    sections: list    # sections.build's, None with the group
    kind: str = "run"  # "qemu" for a suite beside its twin under another QEMU


def arch_of(tests):
    arches = Counter(t.arch for t in tests if t.arch != "unknown")
    return arches.most_common(1)[0][0] if arches else "unknown arch"


def block_html(block):
    return (f"<h4>{esc(block.title)}</h4>{block.html}"
            f'<p class="caption">{esc(block.caption)}</p>' if block else
            '<p class="none">not in this run</p>')


def suite_head(suite, tests, logdir, accel):
    probs = "".join(f'<li class="problem">{esc(p)}</li>' for p in suite.problems)
    return (f'<p class="meta">{esc(arch_of(tests))} under {esc(accel)}, QEMU '
            f'{esc(overview.qemu_text(tests))}: {len(tests)} tests, '
            f'logs {esc(suite.path)}</p>' + (f"<ul>{probs}</ul>" if probs else ""))


def anchor_of(key):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(k for k in key if k and k != ".")) or "run"


def block_id(anchor, key):
    """The id of a chart (a block) in its suite's section: what the overview links to."""
    return f"{anchor}--{re.sub(r'[^A-Za-z0-9_.-]+', '-', key)}"


def side_of(name, head, prefix, g, marks):
    return Side(name, head, prefix, g, sections.build(g[1], marks) if g else None)


def build_sides(key, sides, marks):
    """[Side], one per side of two runs (A, B) or the one side alone, of one suite and accelerator."""
    marks = {(test, fig): m for (suite, test, fig), m in marks.items() if suite == key[1]}
    if len(sides) == 1:
        return [side_of("", "", "", sides[0].get(key), marks)]
    return [side_of(name, name, f"{name}: ", groups.get(key), marks)
            for name, groups in zip("AB", sides)]


def build_twins(keys, groups):
    """[Side, Side] of a suite and its twin under another QEMU, in the order of keys."""
    built = []
    for key in keys:
        g = groups[key]
        head = f"QEMU {overview.qemu_text(g[1])}: {display_label(g)}"
        built.append(side_of(g[0].label, head, "", g, {}))
        built[-1].kind = "qemu"
    return built


def part(anchor, skey, title, body):
    return (f'<div class="part" data-part="{esc(skey)}"><h3 id="{esc(anchor)}-{skey}">'
            f"{esc(title)}</h3>{body}</div>")


def section_title(key, built):
    """'x86_64-gcc under tcg' (the suite's, not its twin's), and for a QEMU twin the versions side by side."""
    shown = [s for s in built if s.group]
    label = display_label(next((s.group for s in shown if s.group[0].rel == key[1]), shown[0].group))
    title = f"{label} under {key[2]}"
    if built[0].kind == "qemu":
        title += ": " + " beside ".join(f"QEMU {overview.qemu_text(s.group[1])}" for s in built)
    return title


def group_section(key, built):
    """
    One arch/accelerator: each side's sections, only those with blocks; two
    sides pair block by block.
    """
    accel = key[2]
    anchor = anchor_of(key)
    out = [f'<section class="group" id="{esc(anchor)}" data-suite-key="{esc(anchor)}">'
           f"<h2>{esc(section_title(key, built))}</h2>"]
    if len(built) == 1:
        g, secs = built[0].group, built[0].sections
        out.append(f'<div data-suite="{esc(g[0].rel)}" data-logdir="{esc(os.path.abspath(g[2]))}" '
                   f'data-side="" data-qemu="{esc(overview.qemu_text(g[1]))}">')
        out.append(suite_head(g[0], g[1], g[2], accel))
        for skey, title, blocks in secs:
            if blocks:
                out.append(part(anchor, skey, title, '<div class="blocks">' + "".join(
                    f'<div class="block" id="{esc(block_id(anchor, b.key))}">{block_html(b)}</div>'
                    for b in blocks) + "</div>"))
        out.append("</div>")
    else:
        out.append(paired(built, accel, anchor))
    out.append("</section>")
    return "\n".join(out)


def side_div(side, content):
    g = side.group
    if not g:
        return f'<div class="side">{content}</div>'
    return (f'<div class="side" data-suite="{esc(g[0].rel)}" data-logdir="{esc(os.path.abspath(g[2]))}" '
            f'data-side="{esc(side.name)}" data-qemu="{esc(overview.qemu_text(g[1]))}">{content}</div>')


def paired(built, accel, anchor):
    """
    A beside B (or a suite beside its QEMU twin), section by section and
    block by block (matched by their keys).
    """
    a, b = built
    sa, sb = a.sections, b.sections
    out = ['<div class="pair">']
    for s in built:
        g = s.group
        head = suite_head(g[0], g[1], g[2], accel) if g else '<p class="none">not in this run</p>'
        out.append(side_div(s, f'<p class="sidehead">{esc(s.head)}</p>{head}'))
    out.append("</div>")
    for i, (skey, title, _) in enumerate(sa or sb):
        ba = {x.key: x for x in (sa[i][2] if sa else [])}
        bb = {x.key: x for x in (sb[i][2] if sb else [])}
        if not ba and not bb:
            continue
        out.append(part(anchor, skey, title, "".join(
            f'<div class="pair blockpair" id="{esc(block_id(anchor, key))}">' +
            side_div(a, block_html(ba.get(key))) + side_div(b, block_html(bb.get(key)))
            + "</div>" for key in list(ba) + [k for k in bb if k not in ba])))
    return "\n".join(out)


def oldest_qemu(group):
    """A suite's order beside its twin: by its oldest QEMU version, one without any first."""
    versions = sorted(overview.version_key(t.qemu) for t in group[1] if t.qemu)
    return versions[0] if versions else ()


def display_label(group):
    """A suite's folder name (make run's ARCH-CC), or its arch when it is the logs folder itself."""
    suite, tests, _ = group
    return suite.label if suite.rel != "." else arch_of(tests)


def nav_link(key, groups):
    label = next(display_label(g[key]) for g in groups if key in g)
    return f'<a href="#{esc(anchor_of(key))}">{esc(label)} {esc(key[2])}</a>'


def entries_of(keys, built):
    """The overview's suites: each suite and accelerator of each side, in the page's order."""
    out = []
    for key in keys:
        for s in built[key]:
            if s.group:
                out.append(overview.Entry(anchor_of(key), s.name, s.prefix + display_label(s.group),
                                          key[2], arch_of(s.group[1]), s.group, s.sections))
    return out


def page_head(title, sides, notes):
    """The page's title, what it was made from, and what could not be read."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    which = [", ".join(esc(d) for d, _ in side) for side in sides]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{esc(title)}</h1>"]
    if len(sides) == 1:
        out.append(f'<p class="meta">logs: {which[0]}; made {when} by scripts/report '
                   '(docs/report.md)</p>')
    else:
        out.append(f'<p class="meta">A: {which[0]}<br>B: {which[1]}<br>made {when} by '
                   'scripts/report (docs/report.md)</p>')
    if notes:
        out.append("<ul>" + "".join(f'<li class="problem">{esc(n)}</li>' for n in notes) + "</ul>")
    return out


def defect_runs(sides):
    """defects.Run of every suite of every side, named as the overview names it."""
    prefix = ["", ""] if len(sides) == 1 else ["A: ", "B: "]
    return [defects.Run(p + display_label((suite, suite.tests, logdir)), suite.tests)
            for p, side in zip(prefix, sides) for logdir, suite_list in side for suite in suite_list]


def render(title, sides, notes, compare_lines, marks, known=((), ()), out_dir=None):
    """
    sides: [[(logdir, suites)]], one list per side; notes: problems to show
    at the top; known: (defects, problems) of defects.load; out_dir: the
    page's folder (its links to docs/). The run at a glance first, the known
    QEMU defects against the run's QEMUs, then each suite's sections.
    """
    groups = [groups_of(side, len(sides) == 1) for side in sides]
    keys = []
    for g in groups:
        keys += [k for k in g if k not in keys]
    # one run alone: a suite and its twin under another QEMU in one section, side by side
    pairs = twins(groups[0]) if len(sides) == 1 else {}
    keys = [k for k in keys if k not in pairs]
    built = {key: build_sides(key, groups, marks) for key in keys if key not in pairs.values()}
    for twin, base in pairs.items():
        built[base] = build_twins(sorted((base, twin), key=lambda k: oldest_qemu(groups[0][k])),
                                  groups[0])
    out = page_head(title, sides, notes)
    out.append(overview.render(entries_of(keys, built), block_id))
    out.append(defects.render(defect_runs(sides), *known, out_dir=out_dir))
    if compare_lines:
        out.append('<h2>Changes bench-compare flags</h2><ul>' +
                   "".join(f"<li>{line}</li>" for line in compare_lines) + "</ul>")
    out.append("<nav><p>" + " | ".join(nav_link(key, groups) for key in keys) + "</p></nav>")
    for key in keys:
        out.append(group_section(key, built[key]))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
