# SPDX-License-Identifier: GPL-2.0-only
"""Figures and the bounds the guests judged them by: figures from RESULT and BOUND lines, bounds from BOUND lines alone."""
import re
from dataclasses import dataclass


# CLOCK.rate.vcpuN.REF.err_ppm, a BOUND line (lib/ratecheck.c)
RATE_RE = re.compile(r"^(?P<clock>.+)\.rate\.vcpu(?P<cpu>\d+)\.(?P<ref>[^.]+)\.err_ppm$")
# per-vCPU warps and stalls: tsc.rdtsc.vcpu0.warps, hpet.warps.vcpu1.stalls, hyperv.page.vcpu0.warps
VCPU_WARP_RE = re.compile(r"^(?P<clock>.+?)(?:\.warps)?\.vcpu(?P<cpu>\d+)\.(?P<what>warps|stalls)$")
# totals where no per-vCPU figures exist: kvmclock.raw.warps
TOTAL_WARP_RE = re.compile(r"^(?P<clock>.+)\.(?P<what>warps|stalls)$")
# timer_tick.SOURCE.late_log2_ns.K (common/tick/tick_checks.c)
BUCKET_RE = re.compile(r"^timer_tick\.(?P<src>[^.]+)\.late_log2_ns\.(?P<k>\d+)$")
TICK_RE = re.compile(r"^timer_tick\.(?P<src>[^.]+)\.ticks_expected$")
# lib/bench rows: exit.ROW with exit.ROW.iterations (docs/bench.md)
STAT_MIN, STAT_MAX, STAT_MAD, STAT_OVH = "min_ns", "max_ns", "mad_ns", "overhead_ns"


@dataclass
class Bound:
    """A bounded check's figure and the bands it had to lie in, from its BOUND line
    (lib/report.h report_bounded): never from the check's sentence."""
    name: str
    value: float
    text: str              # the value as the guest printed it
    unit: str
    bands: list            # [(lo, hi)], an open end -inf or inf
    passed: bool = None    # the check line after it: PASS or not (None: no check line came)


def find(test, name):
    """The first Bound of the test's figure name, or None."""
    return next((b for b in test.bounds if b.name == name), None)


# Time of day at start-up: its figures, each bounded by its check
# (x86/kvmclock_test.c, x86/rtc_test/update.c, arm/pl031_test.c)
WALLCLOCK = ("kvmclock.wallclock.startup_delay_ms", "rtc.tod_offset_ms", "pl031.tod_offset_s")


def lifecycle(test):
    """[(event label, Bound, what)] of a lifecycle log's bounded checks: figures named
    e<seq>.<event>.<what> (common/lifecycle/lifecycle_figure.c)."""
    out = []
    for b in test.bounds:
        seq, _, rest = b.name.partition(".")
        event, _, what = rest.partition(".")
        if seq[:1] == "e" and seq[1:].isdigit() and what:
            out.append((f"event {seq[1:]} {event}", b, what))
    return out
