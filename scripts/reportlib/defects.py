# SPDX-License-Identifier: GPL-2.0-only
"""The known QEMU defects (scripts/qemu.bash QEMU_DEFECTS) against the QEMUs of the run: each reproducer's outcome per QEMU version."""
import os
import subprocess
from dataclasses import dataclass, field

from .overview import NOT_RECORDED, version_key
from .runs import defects_named
from .svg import esc

# QEMU_DEFECTS' fields, split by '|' (scripts/qemu.bash says what each holds)
FIELDS = ("id", "first", "last", "accel", "entries", "where", "what", "evidence")
ROW, FAULT, ENTRY = "row ", "fault ", "entry "
# The table and each reproducer's arches from the runner's own files: QEMU_DEFECTS
# sourced, its rows checked by qemu_defects_check, unittests.cfg read by cfg_parse.
# $1 the source tree, $2 qemu.bash, $3 unittests.cfg.
_CALL = r'''. "$2" || exit 3; . "$1/scripts/cfg.bash" || exit 3
for row in "${QEMU_DEFECTS[@]}"; do printf 'row %s\n' "${row//$'\n'/ }"; done
qemu_defects_check | sed 's/^/fault /'
cfg_parse "$3" >/dev/null 2>&1
for row in "${QEMU_DEFECTS[@]}"; do id=${row%%|*}; printf 'entry %s|%s\n' "$id" "${CFG_ARCH[$id]-}"; done'''
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Defect:
    id: str
    first: str        # the first QEMU version known to have it
    last: str         # the newest whose source was read
    what: str         # what it is, in a few words
    arches: list = field(default_factory=list)   # its reproducer entry's (unittests.cfg); [] without one


def load(srcdir=SRCDIR, qemu_bash=None, cfg=None):
    """
    ([Defect], problems): one Defect per id of QEMU_DEFECTS, its first row
    (as qemu_defect_row_into reads it), in the table's order; problems name
    a row that is malformed and what qemu_defects_check says of it.
    """
    qemu_bash = qemu_bash or os.path.join(srcdir, "scripts", "qemu.bash")
    cfg = cfg or os.path.join(srcdir, "unittests.cfg")
    where = os.path.relpath(qemu_bash, srcdir) if qemu_bash.startswith(srcdir) else qemu_bash
    r = subprocess.run(["bash", "-c", _CALL, "defects", srcdir, qemu_bash, cfg],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return [], [f"{where}: QEMU_DEFECTS not read (bash exited {r.returncode}: "
                    f"{r.stderr.strip() or 'no message'})"]
    defects, problems, arches = {}, [], {}
    for n, line in enumerate(r.stdout.splitlines(), 1):
        if line.startswith(FAULT):
            problems.append(f"{where}: QEMU_DEFECTS: {line[len(FAULT):]}")
        elif line.startswith(ENTRY):
            name, _, arch = line[len(ENTRY):].partition("|")
            arches[name] = arch.split()
        elif line.startswith(ROW):
            d = parse_row(line[len(ROW):], problems, where)
            if d and d.id not in defects:
                defects[d.id] = d
    if not defects and not problems:
        problems.append(f"{where}: QEMU_DEFECTS holds no row")
    for d in defects.values():
        d.arches = arches.get(d.id, [])
    return list(defects.values()), problems


def parse_row(text, problems, where):
    """A Defect of one row; None (its fault in problems) when it has not its 8 fields."""
    parts = text.split("|")
    if len(parts) != len(FIELDS) or not parts[0]:
        problems.append(f"{where}: QEMU_DEFECTS row '{text[:80]}' has {len(parts)} fields "
                        f"separated by '|', not {len(FIELDS)} ({'|'.join(FIELDS)}): left out")
        return None
    row = dict(zip(FIELDS, parts))
    return Defect(row["id"], row["first"], row["last"], row["what"])


# ---- what each run showed ----------------------------------------------------------------

@dataclass
class Run:
    """One suite of one side: its name on the page and its tests."""
    label: str
    tests: list


def column_of(test):
    return test.qemu or NOT_RECORDED


def columns(runs):
    """The QEMU versions among the runs' tests, oldest first; 'not recorded' last where a run has none."""
    seen = {column_of(t) for r in runs for t in r.tests if t.qemu}
    if any(not any(t.qemu for t in r.tests) for r in runs):
        seen.add(NOT_RECORDED)
    return sorted(seen, key=lambda v: (v == NOT_RECORDED, version_key(v)))


# the runner's words of a reproducer's outcome (scripts/report.bash, report_defect_verdict_into)
HAS_NOT, HAS_IN, HAS_OUT = "does not have it", "has it, within its known range", \
    "has it, outside its known range"
FAILS_OTHERWISE, NOT_JUDGED = "fails otherwise", "not judged"


def reason(test, d):
    """What the log says showed it: the runner's message after the defect's words, else the first FAIL."""
    msg = test.message
    cut = msg.find(f"{d.what}; ")
    if cut >= 0:
        return msg[cut + len(d.what) + 2:]
    fail = test.first("FAIL")
    return f"first FAIL: {fail}" if fail else msg


def verdict(test, d):
    """(class, head, reason) of a reproducer's run against its defect."""
    kinds = [k for k, name in defects_named(test) if name == d.id]
    if test.outcome == "PASS":
        return "pass", f"PASS: {HAS_NOT}", ""
    if test.outcome == "KFAIL" and "known" in kinds:
        return "kfail", f"KFAIL: {HAS_IN} ({d.first} to {d.last})", reason(test, d)
    if test.outcome == "FAIL" and "outside" in kinds:
        return "fail", f"FAIL: {HAS_OUT} ({d.first} to {d.last})", reason(test, d)
    if test.outcome == "FAIL":
        fail = test.first("FAIL")
        return "fail", f"FAIL: {FAILS_OTHERWISE}", f"first FAIL: {fail}" if fail else test.message
    why = test.first("SKIP") if test.outcome == "SKIP" else ""
    return "none", f"{test.outcome}: {NOT_JUDGED}", why or test.message


def arches_under(runs, version):
    found = set()
    for r in runs:
        found |= {t.arch for t in r.tests if column_of(t) == version and t.arch != "unknown"}
    return found


def not_run(d, runs, version):
    """Why the reproducer has no outcome under this QEMU: no entry, its arch not run, not selected."""
    if not d.arches:
        return f"no entry [{d.id}] in unittests.cfg to reproduce it"
    under = arches_under(runs, version)
    mine = [a for a in d.arches if a in under]
    if not mine:
        return (f"not run: an entry of {' '.join(d.arches)}, and no {' or '.join(d.arches)} "
                f"suite ran under QEMU {version} here")
    ran = [(r.label, sum(column_of(t) == version for t in r.tests)) for r in runs
           if any(column_of(t) == version and t.arch in mine for t in r.tests)]
    return "not run: not selected in " + ", ".join(
        f"{label} ({n} entr{'y' if n == 1 else 'ies'} ran there)" for label, n in ran)


def also_seen(d, runs, version):
    """The other entries whose runs under this QEMU the runner found failing by this defect."""
    out = []
    for r in runs:
        for t in r.tests:
            if t.name == d.id or column_of(t) != version:
                continue
            kinds = [k for k, name in defects_named(t) if name == d.id]
            if kinds:
                out.append(t.name + (" (outside its range)" if "outside" in kinds else ""))
    return sorted(set(out))


def cell(d, runs, version):
    """One cell: each run of the reproducer under this QEMU (its suite named), else why none."""
    found = [(r, t) for r in runs for t in r.tests if t.name == d.id and column_of(t) == version]
    parts, outcome, cls = [], "", "none"
    for r, t in found:
        cls, head, why = verdict(t, d)
        outcome = outcome or t.outcome
        parts.append(f'<b>{esc(head)}</b>' + (f"<br>{esc(why)}" if why else "")
                     + f"<br><small>{esc(r.label)}: {esc(os.path.basename(t.log))}</small>")
    if not found:
        parts.append(f'<span class="none">{esc(not_run(d, runs, version))}</span>')
        outcome = "not run"
    also = also_seen(d, runs, version)
    if also:
        parts.append(f"<br><small>also seen by: {esc(', '.join(also))}</small>")
    if len(found) > 1:
        cls = "fail" if any(verdict(t, d)[0] == "fail" for _, t in found) else cls
    return (f'<td class="defect d-{cls} why" data-qemu="{esc(version)}" '
            f'data-outcome="{esc(outcome)}">' + "".join(parts) + "</td>")


def doc_cell(d, out_dir):
    """docs/upstream/ID.md, linked relative to the page where it exists in this tree."""
    doc = os.path.join(SRCDIR, "docs", "upstream", d.id + ".md")
    text = f"docs/upstream/{d.id}.md"
    if not os.path.exists(doc):
        return f'<td>{esc(text)} <small class="problem">(not in this tree)</small></td>'
    href = os.path.relpath(doc, out_dir) if out_dir else doc
    return f'<td><a href="{esc(href)}">{esc(text)}</a></td>'


def render(runs, defects, problems=(), out_dir=None):
    """
    The section 'Known QEMU defects': a row per defect (load's), a column
    per QEMU version of the runs; problems: load's, named above the table.
    """
    cols = columns(runs)
    head = ("<tr><th>defect</th><th>what it is</th><th>known in</th><th>report</th>"
            + "".join(f'<th data-qemu="{esc(v)}">QEMU {esc(v)}</th>' for v in cols) + "</tr>")
    rows = [f'<tr data-defect="{esc(d.id)}"><td>{esc(d.id)}</td><td class="why">{esc(d.what)}</td>'
            f'<td class="num">{esc(d.first)} to {esc(d.last)}</td>{doc_cell(d, out_dir)}'
            + "".join(cell(d, runs, v) for v in cols) + "</tr>" for d in defects]
    probs = "".join(f'<li class="problem">{esc(p)}</li>' for p in problems)
    table = ('<table class="defects">' + head + "\n".join(rows) + "</table>" if defects and cols
             else '<p class="none">no defect or no QEMU version to show</p>')
    return ('<section class="defects" id="defects"><h2>Known QEMU defects</h2>'
            + (f"<ul>{probs}</ul>" if probs else "") + table +
            '<p class="caption">one row per defect of scripts/qemu.bash QEMU_DEFECTS (its known '
            "range: the first version that has it to the newest whose source was read), one "
            "column per QEMU version the runs ran under; each cell the outcome of the defect's "
            "reproducer (the unittests.cfg entry named after it, group qemu-defects) under that "
            "QEMU: PASS does not have it, KFAIL has it within its range, FAIL has it outside "
            "(the runner's judgment, with the failure that showed it); also seen by: other "
            "entries the runner found failing by it there.</p></section>")
