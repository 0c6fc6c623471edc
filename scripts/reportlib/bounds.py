# SPDX-License-Identifier: GPL-2.0-only
"""Figures and the bounds the guests judged them by: from RESULT lines, and from PASS/FAIL lines where a bound is printed only there."""
import re
from dataclasses import dataclass

from units import MSEC_PER_SEC, USEC_PER_MSEC  # scripts/units.py (scripts/report puts scripts/ on the path)

# CLOCK.rate.vcpuN.REF.err_ppm and .bound_ppm (lib/ratecheck.c)
RATE_RE = re.compile(r"^(?P<clock>.+)\.rate\.vcpu(?P<cpu>\d+)\.(?P<ref>[^.]+)\.err_ppm$")
# per-vCPU warps and stalls: tsc.rdtsc.vcpu0.warps, hpet.warps.vcpu1.stalls, hyperv.page.vcpu0.warps
VCPU_WARP_RE = re.compile(r"^(?P<clock>.+?)(?:\.warps)?\.vcpu(?P<cpu>\d+)\.(?P<what>warps|stalls)$")
# totals where no per-vCPU figures exist: kvmclock.raw.warps
TOTAL_WARP_RE = re.compile(r"^(?P<clock>.+)\.(?P<what>warps|stalls)$")
# timer_tick.SOURCE.late_log2_ns.K (common/tick_report.c)
BUCKET_RE = re.compile(r"^timer_tick\.(?P<src>[^.]+)\.late_log2_ns\.(?P<k>\d+)$")
TICK_RE = re.compile(r"^timer_tick\.(?P<src>[^.]+)\.ticks_expected$")
# lib/bench rows: exit.ROW with exit.ROW.iterations (docs/bench.md)
STAT_MIN, STAT_MAX, STAT_MAD, STAT_OVH = "min_ns", "max_ns", "mad_ns", "overhead_ns"
US_TERM_RE = re.compile(r"(?:(\d+) x )?(\d+) us")


@dataclass
class Bounded:
    """A figure against its bound, found in a check's message."""
    label: str
    figure: str            # RESULT name, or "" when the value comes from the message
    value_text: str        # the message's own value, used when figure is ""
    unit: str
    bands: list
    scale: float = 1.0     # figure units per message units (us -> ms: 0.001)
    note: str = None       # printed after the figure instead of its bands


def _sum_us(expr):
    """'2 x 52263 us + 60000 us + 33550 us QEMU spent ...' -> 164076 (us)."""
    return sum(int(m.group(1) or 1) * int(m.group(2)) for m in US_TERM_RE.finditer(expr))


def _num(text):
    return float(text.replace("+", ""))


def _overlap(m):
    """How far two brackets' middles may move while they still overlap: half their widths summed."""
    return (_num(m[6]) - _num(m[5]) + _num(m[8]) - _num(m[7])) / 2


# Lifecycle checks (common/lifecycle_check.c, lifecycle_tod.c): message -> figure and bound.
# Each: (regex, function of the match giving a Bounded)
LIFECYCLE = (
    (re.compile(r"^event (\d+) (\S+): (\S+) was frozen while the guest was stopped: "
                r"step (\d+) us <= (.*)$"),
     lambda m: Bounded(f"{m[3]} step (frozen bound)", f"e{m[1]}.{m[2]}.{m[3]}.step",
                       "", "ms", [(0, _sum_us(m[5]) / USEC_PER_MSEC)])),
    (re.compile(r"^event (\d+) (\S+): (\S+): largest step over the event (\d+) us "
                r"\(vCPU \d+\) <= (.*)$"),
     lambda m: Bounded(f"{m[3]} step (running bound)", f"e{m[1]}.{m[2]}.{m[3]}.step", "", "ms",
                       [(0, _sum_us(m[5]) / USEC_PER_MSEC)])),
    (re.compile(r"^event (\d+) (\S+): RTC reads the host's time of day after the event: "
                r"([+-]?\d+) ms .*\(allowed ([+-]?\d+) to \+?(\d+) ms"),
     lambda m: Bounded("RTC time of day after", f"e{m[1]}.{m[2]}.rtc.tod_offset_ms",
                       "", "ms", [(_num(m[4]), _num(m[5]))])),
    (re.compile(r"^event (\d+) (\S+): RTC's offset .* moved by ([+-]?\d+) ms "
                r"\(at most \+-(\d+) ms\)"),
     lambda m: Bounded("RTC offset moved", f"e{m[1]}.{m[2]}.rtc.tod_moved_ms", "", "ms",
                       [(-_num(m[4]), _num(m[4]))])),
    (re.compile(r"^event (\d+) (\S+): (\S+) keeps the time of day the guest set: .*\(([+-]?\d+) ms "
                r"apart, at most \+-(\d+) ms\)"),
     lambda m: Bounded(f"{m[3]} kept the time of day the guest set", "", m[4], "ms",
                       [(-_num(m[5]), _num(m[5]))])),
    # common/lifecycle_derived.c: kvmclock against the TSC, to the ns
    (re.compile(r"^event (\d+) (\S+): (\S+) moved (-?\d+) ns against the (\S+) over the event; "
                r".*: (\d+) ns off \(bound (\d+) ns\)"),
     lambda m: Bounded(f"{m[3]} against the {m[5]}: off the declared move", "", m[6], "ns",
                       [(0, _num(m[7]))], note=f"(moved {m[4]} ns)")),
    (re.compile(r"^event (\d+) (\S+): (\S+) moved alike against the (\S+) on every vCPU over the "
                r"event: .* (\d+) ns apart \(bound (\d+) ns"),
     lambda m: Bounded(f"{m[3]} against the {m[4]}: vCPUs apart", "", m[5], "ns",
                       [(0, _num(m[6]))])),
    # common/lifecycle_agree.c: a vCPU's clock against the boot vCPU's, brackets before and after
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+)'s (\S+) against vCPU 0's kept its offset over the "
                r"event: (-?\d+)\.\.(-?\d+) ns before, (-?\d+)\.\.(-?\d+) ns after \(moved (-?\d+) ns"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} offset to vCPU 0 moved",
                       f"e{m[1]}.{m[2]}.{m[4]}.offset_moved.cpu{m[3]}", "", "ns",
                       [(-_overlap(m), _overlap(m))])),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) catch-up: (\d+) ticks .*<= (\d+)"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} catch-up", f"e{m[1]}.{m[2]}.{m[4]}.cpu{m[3]}.catchup",
                       "", "ticks", [(0, _num(m[6]))])),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) one-shot armed before the event fired "
                r"after its deadline, by (\d+) us, and within (\d+) ms"),
     # its bound is on the firing's time after the QMP answer, not on this figure (the
     # lateness after the deadline, which may fall before the event): printed, not drawn
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} one-shot late", f"e{m[1]}.{m[2]}.{m[4]}.oneshot_late",
                       "", "ms", [], note=f"(fired within {m[6]} ms of the answer)")),
    # common/lifecycle_run_check.c: a run of migrations back to back, the worst migration's figures
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) over \d+ migrations back to back: ticks lost "
                r".*migration (\d+): (\d+) of \d+ periods without a tick, allowed 1 \+ (\d+) periods "
                r"stopped \+ (\d+) periods"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} ticks lost in one migration of a run (the worst: {m[5]})",
                       f"e{m[1]}.{m[2]}.{m[4]}.cpu{m[3]}.run_lost_worst", "", "ticks",
                       [(0, 1 + _num(m[7]) + _num(m[8]))])),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) over \d+ migrations back to back: no tick later "
                r".*migration (\d+): (\d+) us after the tick before, allowed (.*)\)$"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} longest gap in one migration of a run (the worst: {m[5]})",
                       f"e{m[1]}.{m[2]}.{m[4]}.cpu{m[3]}.run_gap_worst_us", "", "us",
                       [(0, _sum_us(m[7]))])),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) one-shot armed with each of (\d+) migrations "
                r"back to back fired once.*\((\d+) not; (\d+) of them still pending"),
     # the bound is on each one-shot's time (fired once, after its deadline): printed, not drawn
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} one-shots pending across a stop, of {m[5]}",
                       f"e{m[1]}.{m[2]}.{m[4]}.cpu{m[3]}.run_oneshot_pending", "", "count", [],
                       note=f"({m[6]} not fired once after the deadline)")),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) period after the event (-?\d+) ppm off "
                r"the period before.*\(bound \+-(\d+) ppm"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} period after/before",
                       f"e{m[1]}.{m[2]}.{m[4]}.cpu{m[3]}.period_ppm", "", "ppm",
                       [(-_num(m[6]), _num(m[6]))])),
    (re.compile(r"^event (\d+) (\S+): vCPU (\d+) (\S+) periodic rate after the event "
                r"([\d.]+)% of nominal, within (\d+)% of nominal or of the rate before, "
                r"([\d.]+)%"),
     lambda m: Bounded(f"vCPU {m[3]} {m[4]} rate after", "", m[5], "%",
                       [(100 - _num(m[6]), 100 + _num(m[6])),
                        (_num(m[7]) - _num(m[6]), _num(m[7]) + _num(m[6]))])),
)
EVENT_RE = re.compile(r"^event (\d+) (\S+): ")

# Time of day at start-up: figure, and the bound its check prints
# (x86/kvmclock_test.c, x86/rtc_test.c, arm/pl031_test.c)
WALLCLOCK = (
    ("kvmclock.wallclock.startup_delay_ms",
     re.compile(r"time of day - host time - uptime is \S+ ms on .*, allowed (\S+) ms to \+(\S+) s"),
     lambda m: [(_num(m[1]), _num(m[2]) * MSEC_PER_SEC)]),
    ("rtc.tod_offset_ms", re.compile(r"allowed above ([+-]?\d+) ms, up to ([+-]?\d+) ms"),
     lambda m: [(_num(m[1]), _num(m[2]))]),
    ("pl031.tod_offset_s", re.compile(r"allowed (-?\d+) to \+(\d+) s"),
     lambda m: [(_num(m[1]), _num(m[2]))]),
)
# the tick schedule's rate: its bound is printed in the check only (common/tick_ref.c)
SCHEDULE_RE = re.compile(r"^(\S+): the schedule runs at hz=\d+ against .*: ([+-]?\d+) ppm "
                         r"\(bound \+-(\d+) ppm\)")


def lifecycle_checks(checks):
    """[(event label, Bounded, passed)] of a lifecycle log's PASS/FAIL lines."""
    out = []
    for tag, msg in checks:
        if tag not in ("PASS", "FAIL", "KFAIL"):
            continue
        for regex, make in LIFECYCLE:
            m = regex.match(msg)
            if m:
                ev = EVENT_RE.match(msg)
                out.append((f"event {ev[1]} {ev[2]}", make(m), tag == "PASS"))
                break
    return out


def wallclock_bound(figure, checks):
    """The bands of a start-up time-of-day figure, from its check's message, or None."""
    for name, regex, bands in WALLCLOCK:
        if name != figure:
            continue
        for tag, msg in checks:
            m = regex.search(msg) if tag in ("PASS", "FAIL", "KFAIL") else None
            if m:
                return bands(m), tag == "PASS"
    return None, None


def schedule_bound(source, checks):
    """(err text, bound ppm, passed) of a tick source's schedule-rate check, or None."""
    for tag, msg in checks:
        m = SCHEDULE_RE.match(msg)
        if m and m[1] == source:
            return m[2], _num(m[3]), tag == "PASS"
    return None
