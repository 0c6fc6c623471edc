# SPDX-License-Identifier: GPL-2.0-only
"""The report's opening: each suite's verdict, host and accelerator, and the run's figures closest to their bounds."""
import functools
import math
import os
from collections import Counter
from dataclasses import dataclass

from .runs import R2J
from .sections import OUTCOME_CLASS, bands_text
from .svg import esc

CLOSEST_N = 10
# the runner's vocabulary (scripts/report.bash): the outcomes it counts as
# failed, each with the exit status it gives
_OUTCOMES_CALL = ('. "$SRCDIR/scripts/report.bash"; for o in "${REPORT_FAILED_OUTCOMES[@]}"; '
                  'do echo "$o $(report_status_of "$o")"; done')


@functools.lru_cache(maxsize=1)
def failed_status():
    """{outcome: exit status} of the outcomes the runner counts as failed (asked once)."""
    out = R2J.vmtick_host.bash("eval", _OUTCOMES_CALL).stdout.split("\n")
    pairs = [line.split() for line in out if len(line.split()) == 2]
    return {o: int(s) for o, s in pairs}


# the outcomes the runner does not count as failed, least bad first: a KFAIL
# is a check a known host defect failed, a SKIP or NOTRUN checked nothing
NOT_FAILED = ("PASS", "NOTRUN", "SKIP", "KFAIL")


def outcome_rank(outcome):
    """
    Higher is worse: a failed outcome above any other, among them the one
    whose exit status is higher; an outcome the runner does not name ("?",
    a log cut short) counts as failed, as make check counts it.
    """
    if outcome in NOT_FAILED:
        return (0, NOT_FAILED.index(outcome), outcome)
    return (1, failed_status().get(outcome, 0), outcome)


def worst(outcomes):
    return max(outcomes, key=outcome_rank) if outcomes else "?"


def counts_text(counts):
    """'1 FAIL, 3 PASS': the worst first."""
    ordered = sorted(counts.items(), key=lambda kv: outcome_rank(kv[0]), reverse=True)
    return ", ".join(f"{n} {o}" for o, n in ordered)


# ---- the host ---------------------------------------------------------------------------

NOT_RECORDED = "not recorded"


def stolen_ms(tests):
    """The ms the host's hypervisor stole in the tests' runs (the runner's last lines), or None."""
    seen = [t.disturb[2] for t in tests if t.disturb]
    return sum(seen) if seen else None


def guest_text(host, tests):
    """Whether the host is a guest: results.json's CPUID flag, else the steal the runner saw."""
    stolen = stolen_ms(tests)
    steal = f"; its hypervisor stole {stolen} ms in the runs (runner)" if stolen else ""
    flag = host.get("guest")
    if flag is True:
        return "yes (CPUID hypervisor flag)" + steal
    if flag is False:
        return "no (CPUID hypervisor flag)" + steal
    if stolen:
        return f"yes: its hypervisor stole {stolen} ms in the runs (runner)"
    return NOT_RECORDED


def cpu_text(host):
    cpu = host.get("cpu")
    if not cpu:
        return NOT_RECORDED
    return f"{cpu} ({host['cpus']} CPUs)" if host.get("cpus") else str(cpu)


def kvm_text(host):
    if "kvm" not in host:
        return NOT_RECORDED
    why = host.get("kvm_why_not")
    return f"{host['kvm']}: {why}" if why else str(host["kvm"])


def version_key(version):
    """'10.0.2' after '7.2.22': numerically, part by part."""
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def qemu_text(tests):
    """
    The QEMU version the suite's tests ran under: the runner's record in
    each log, else results.json's or the JUnit's; several with how many
    tests ran each, oldest first; "not recorded" where nothing says.
    """
    seen = Counter(t.qemu for t in tests if t.qemu)
    if not seen:
        return NOT_RECORDED
    if len(seen) == 1:
        return next(iter(seen))
    return ", ".join(f"{v} ({n} test{'s' if n > 1 else ''})"
                     for v, n in sorted(seen.items(), key=lambda kv: version_key(kv[0])))


def host_cells(suite, tests):
    host = suite.host
    return "".join(f"<td>{esc(text)}</td>" for text in
                   (cpu_text(host), host.get("kernel") or NOT_RECORDED, guest_text(host, tests),
                    kvm_text(host)))


# ---- the suites ---------------------------------------------------------------------------

@dataclass
class Entry:
    """One suite and accelerator of one side, as the page groups them."""
    anchor: str       # its section's id
    side: str         # "A" or "B" side by side, its label for a QEMU twin, "" alone
    label: str        # its name on the page ("A: x86_64-gcc" side by side)
    accel: str
    arch: str
    group: tuple      # (suite, tests, logdir)
    sections: list    # sections.build's [(key, title, [Block])]


def suite_row(e):
    suite, tests, logdir = e.group
    counts = Counter(t.outcome for t in tests)
    bad = worst(list(counts))
    cls = OUTCOME_CLASS.get(bad, "fail")
    qemu = qemu_text(tests)
    return (f'<tr class="{cls}" data-overview-suite="{esc(e.anchor)}" data-side="{esc(e.side)}" '
            f'data-qemu="{esc(qemu)}" data-worst="{esc(bad)}"><td><a href="#{esc(e.anchor)}">'
            f'{esc(e.label)}</a></td><td class="outcome">{esc(bad)}</td><td class="counts">'
            f'{esc(counts_text(counts))}</td><td>{esc(e.arch)} under {esc(e.accel)}</td>'
            f'<td class="qemu">{esc(qemu)}</td>{host_cells(suite, tests)}</tr>')


def suites_table(entries):
    return ('<table class="suites"><tr><th>suite</th><th>worst</th><th>outcomes</th>'
            "<th>arch, accelerator</th><th>QEMU</th><th>host CPU</th><th>host kernel</th>"
            "<th>host a guest</th><th>KVM on the host</th></tr>"
            + "\n".join(suite_row(e) for e in entries) + "</table>")


# ---- the figures closest to their bounds ----------------------------------------------------

def band_share(value, lo, hi):
    """
    How much of the room its bound gives a figure uses: from the ideal (0,
    or the band's middle where the band holds no 0) to the band's edge on
    the figure's side; 1 at the edge, over 1 outside. A band with no room
    on that side: 0 at the ideal, else infinite. An open end is infinitely
    far (share 0 on that side); a band open on one side that holds no 0 (at
    least lo): the finite end over the figure.
    """
    if not lo <= 0 <= hi and (math.isinf(lo) or math.isinf(hi)):
        # one end open, 0 outside (at least lo, or at most hi): the finite end's share of the figure
        edge = hi if math.isinf(lo) else lo
        return edge / value if value and (value > 0) == (edge > 0) else math.inf
    ideal = 0.0 if lo <= 0 <= hi else (lo + hi) / 2
    edge = hi if value >= ideal else lo
    if edge == ideal:
        return 0.0 if value == ideal else math.inf
    return (value - ideal) / (edge - ideal)


def share_of(row):
    """The least share over a row's bands (it passes inside any of them); None without a bound."""
    if not row.bands or not math.isfinite(row.value):
        return None
    return min(band_share(row.value, lo, hi) for lo, hi in row.bands)


@dataclass
class Near:
    share: float
    entry: Entry
    block: object     # sections.Block
    row: object       # svg.Row


def closest(entries, n=CLOSEST_N):
    """The n figures of every suite whose share of their bound is largest, largest first."""
    found = []
    for e in entries:
        for _, _, blocks in e.sections:
            for b in blocks:
                for r in b.rows:
                    s = share_of(r)
                    if s is not None:
                        found.append(Near(s, e, b, r))
    found.sort(key=lambda x: x.share, reverse=True)
    return found[:n]


def share_text(share):
    return "over a bound of 0" if math.isinf(share) else f"{100 * share:.0f} %"


def value_html(row):
    if row.ref:
        fig = f'<span class="fig" data-fig="{esc(row.ref)}">{esc(row.text)}</span>'
    else:
        fig = f'<span class="fig" data-from="log">{esc(row.text)}</span>'
    return fig + (f" {esc(row.unit)}" if row.unit else "")


def near_link(near, block_id):
    """The figure's name, linked to its chart: suite, accelerator, chart, row."""
    e = near.entry
    return (f'<a href="#{esc(block_id(e.anchor, near.block.key))}">{esc(e.label)} '
            f"{esc(e.accel)}: {esc(near.block.title)}: {esc(near.row.label)}</a>")


def share_cell(share):
    return (f'<td class="num"><span class="meter"><span style="width:{min(100 * share, 100):.0f}%">'
            f"</span></span> {esc(share_text(share))}</td>")


def near_row(i, near, block_id):
    """A closest figure: its share (data-share, read back by host-tests/report) and its suite."""
    suite, _, logdir = near.entry.group
    r = near.row
    cls = ' class="bad"' if near.share > 1 or r.ok is False else ""
    return (f'<tr{cls} data-share="{near.share!r}" data-suite="{esc(suite.rel)}" '
            f'data-logdir="{esc(os.path.abspath(logdir))}"><td class="num">{i}</td>'
            f"<td>{near_link(near, block_id)}</td><td class=\"num\">{value_html(r)}</td>"
            f'<td class="num">{esc(bands_text(r.bands, r.unit))}</td>{share_cell(near.share)}</tr>')


def closest_table(entries, block_id):
    near = closest(entries)
    if not near:
        return '<p class="none">no figure with a bound in these logs</p>'
    return ('<table class="closest"><tr><th></th><th>figure (links to its chart)</th><th>value</th>'
            "<th>bound</th><th>share of the bound used</th></tr>"
            + "\n".join(near_row(i + 1, x, block_id) for i, x in enumerate(near)) + "</table>")


def render(entries, block_id):
    """The overview section: block_id(section anchor, block key) names a chart's id on the page."""
    return ('<section class="overview" id="overview"><h2>The run at a glance</h2>'
            f"{suites_table(entries)}"
            f'<p class="caption">one row per suite (logs folder) and accelerator: the worst '
            "outcome of its tests and how many of each; the QEMU version they ran under (the "
            "runner's record in each log, else results.json's); a suite LABEL-qemuN, make "
            "check's run under another QEMU, follows LABEL, and their sections below show the "
            "two side by side; the host as results.json recorded it "
            "(scripts/results-to-json), whether it is a guest itself also from the steal time "
            "the runner measured.</p>"
            f"<h3>The {CLOSEST_N} figures closest to their bounds</h3>"
            f"{closest_table(entries, block_id)}"
            '<p class="caption">share: how much of the room between the ideal (0, or the '
            "middle of a band without 0) and the bound on the figure's side it uses; the "
            "bounds are those each chart below draws.</p></section>")
