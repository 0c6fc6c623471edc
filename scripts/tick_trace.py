#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A periodic timer-tick run joined with the host's trace: what the host did between ticks.

The guest's record (TICK-RECORD lines: its schedule and each tick's
arrival) and the host's trace of the run (tracefs text, trace_clock
x86-tsc: KVM's and the scheduler's events) meet through the TSC offset KVM
traces (kvm_write_tsc_offset: the guest's TSC is the host's plus it) and the
record's anchor=. For each stretch from one tick to the next the tool
lists the source's raises (KVM's hrtimer expiry for the LAPIC timer, the
edge on its IOAPIC pin for the others, marked where the pin was masked or
the edge coalesced), the LAPIC's acceptances of the tick's vector, and how
long the vCPU thread and QEMU's main loop were off a CPU and, where the
record has op lines, how long the guest kept interrupts off after the tick
before; the stretches
where the guest lost slots (by the judgment's own walk) are counted and
listed, and the ticks around one are printed as a timeline.

It states facts, not a verdict: the causes of a lost tick cannot be told
from the host's events alone under kvm-pvm, where the guest's handler runs
emulated with interrupts off for up to a period, so that an accepted
interrupt waits with the vCPU on a CPU (docs/timers.md, "The host's
trace"); the record's op lines say when the guest let interrupts in again,
which a rule needs, and no traced run has them yet. Where the record has no anchor= (older runs) the run is placed by
its arrivals against the acceptances, and says so.

A run is a folder (guest.log, threads.txt, the tracefs text) or the
runner's log of an entry (logs/NAME.log, docs/runner.md "The host's
trace"): the record from the log, the trace from the file its "runner: host
trace:" line names (trace-cmd report's text, gzipped), QEMU's threads from
the trace's own exec and fork events.
"""
import argparse
import bisect
import gzip
import lzma
import os
import re
import sys

TICK_VECTOR = 96  # TIMER_TICK_VECTOR, common/tick/x86/tick.h
PERIODIC_SOURCES = ("lapic-periodic", "hpet", "hpet-routed", "pit", "rtc")
U64 = 1 << 64
# Without anchor=: the first this many acceptances and ticks are tried against each other
ESTIMATE_TRIES = 30

# tracefs's text ("  COMM-TID [CPU] FLAGS TS: EVENT: ARGS") or trace-cmd report's
# ("INSTANCE:  COMM-TID [CPU]TS: EVENT: ARGS", with -N --raw-ts, as the runner keeps it)
EVENT = re.compile(r"^(?:\S+:\s+)?\s*(?P<comm>.+?)-(?P<tid>\d+)\s+\[\d+\]\s*(?:\S+\s+)?"
                   r"(?P<ts>\d+): (?P<name>\w+): (?P<args>.*)$")
RUNNER_TRACE = re.compile(r"^runner: host trace: (\S+) beside this log", re.M)
RUNNER_NONE = re.compile(r"^runner: host trace: none: (.*)$", re.M)


class Bad(Exception):
    """Input this tool cannot read: the message says what."""


def parse_record(text):
    """The TICK-RECORD header as a dict and the ticks' arrivals after the anchor."""
    head, at, opened = None, [], []
    for line in text.splitlines():
        if not line.startswith("TICK-RECORD: "):
            continue
        body = line[len("TICK-RECORD: "):]
        if body[:1].isdigit() and "source=" in body:
            head = dict(f.split("=", 1) for f in body.split()[1:] if "=" in f)
        elif body.startswith("at "):
            at.extend(int(v) for v in body.split()[1:])
        elif body.startswith("op "):
            opened.extend(int(v) for v in body.split()[1:])
    if head is None:
        raise Bad("no TICK-RECORD header (run with record=always)")
    for key in ("source", "kind", "period_counts", "ratio_fx", "n", "expected"):
        if key not in head:
            raise Bad(f"the record's header has no {key}=")
    rec = {k: (v if k in ("source", "kind") else int(v)) for k, v in head.items()}
    if rec["kind"] != "periodic" or rec["source"] not in PERIODIC_SOURCES:
        raise Bad(f"source {rec['source']} ({rec['kind']}): only periodic x86 sources "
                  f"({', '.join(PERIODIC_SOURCES)}) are joined")
    if len(at) != rec["n"]:
        raise Bad(f"the record holds {len(at)} ticks, its header says n={rec['n']}")
    period = max((rec["period_counts"] * rec["ratio_fx"]) >> 32, 1)
    prev, ticks = 0, []
    for d in at:
        prev = prev + period + d
        ticks.append(prev)
    if opened and len(opened) != rec["n"]:
        raise Bad(f"the record holds {len(opened)} op entries, its header says n={rec['n']}")
    # each tick's interrupts-off stretch after its arrival (None: an older record)
    rec["period"], rec["at"], rec["open"] = period, ticks, opened or None
    return rec


def slot(rec, i):
    """Slot i of the schedule, counter ticks after the anchor (tick_rec_slot)."""
    return ((i + 1) * rec["period_counts"] * rec["ratio_fx"]) >> 32


def parse_threads(text):
    """QEMU's process id, its threads' ids, its vCPU threads' ids."""
    rows = [line.split(None, 2) for line in text.splitlines() if line.strip()]
    rows = [r + [""] * (3 - len(r)) for r in rows]
    qemu = [r for r in rows if r[2].startswith("qemu")]
    if not qemu:
        raise Bad("threads.txt names no qemu thread")
    pid = qemu[0][0]
    tids = {r[1] for r in rows if r[0] == pid}
    vcpus = {r[1] for r in rows if r[0] == pid and "/KVM" in r[2]}
    if not vcpus:
        raise Bad("threads.txt names no vCPU thread (CPU N/KVM)")
    return pid, tids, vcpus


def read_events(path, pid, tids):
    """The events of this QEMU's threads (and its PIT kthread), and the hrtimer ones."""
    opener = lzma.open if path.endswith(".xz") else gzip.open if path.endswith(".gz") else open
    pit_comm = f"kvm-pit/{pid}"
    with opener(path, "rt") as f:
        for line in f:
            m = EVENT.match(line)
            if not m:
                continue
            ours = m["tid"] in tids or m["comm"] == pit_comm
            if ours or m["name"].startswith("hrtimer") or m["name"] == "sched_switch":
                yield int(m["ts"]), m["tid"], m["comm"], m["name"], m["args"], ours


class Trace:
    """What the host did for one run, on its TSC timeline."""

    def __init__(self):
        self.offset = None
        self.raises = []    # (ts, masked, coalesced_at_ioapic)
        self.accepts = []   # ts
        self.off_cpu = {}   # tid -> [(from, to)]
        self.timer_late = []  # KVM's timers: (ts, how late its expiry was, counter ticks)


def collect(events, rec, pid, tids, vcpus):
    t = Trace()
    source, hz = rec["source"], rec["counter_hz"]
    timers, left, expires = set(), {}, {}
    want_fn = "apic_timer_fn" if source == "lapic-periodic" else None
    # KVM's own timers: whose expiries say how late the host's timer ran
    kvm_fn = {"lapic-periodic": "apic_timer_fn", "pit": "pit_timer_fn"}.get(source)
    last_set = {}
    for ts, tid, comm, name, args, ours in events:
        if name == "sched_switch":
            prev = re.search(r"prev_pid=(\d+)", args)
            nxt = re.search(r"next_pid=(\d+)", args)
            if prev and prev[1] in tids:
                left[prev[1]] = ts
            if nxt and nxt[1] in left:
                t.off_cpu.setdefault(nxt[1], []).append((left.pop(nxt[1]), ts))
            continue
        if name == "hrtimer_start" and kvm_fn and kvm_fn in args:
            m = re.search(r"hrtimer=(\w+) .*expires=(\d+)", args)
            if ours or m[1] in timers:
                timers.add(m[1])
                expires[m[1]] = int(m[2])
            continue
        if name == "hrtimer_expire_entry" and kvm_fn and kvm_fn in args:
            m = re.search(r"hrtimer=(\w+) .*now=(\d+)", args)
            if m and m[1] in timers:
                late_ns = max(0, int(m[2]) - expires.get(m[1], int(m[2])))
                t.timer_late.append((ts, late_ns * hz // 10**9))
                if want_fn:
                    t.raises.append((ts, False, False))
            continue
        if not ours:
            continue
        if name == "kvm_write_tsc_offset" and tid in vcpus:
            t.offset = int(re.search(r"next=(\d+)", args)[1])
        elif name == "kvm_set_irq":
            last_set[tid] = ts if "level 1" in args else None
        elif name == "kvm_ioapic_set_irq" and f"vec {TICK_VECTOR} " in args:
            # the IOAPIC's event ends its kvm_set_irq (same thread): a raising edge, at that time
            raised = last_set.pop(tid, None)
            if raised is not None and not want_fn:
                t.raises.append((raised, "masked" in args, "(coalesced)" in args))
        elif name == "kvm_apic_accept_irq" and f"vec {TICK_VECTOR} " in args:
            t.accepts.append(ts)
    for tid, since in left.items():
        t.off_cpu.setdefault(tid, []).append((since, None))
    if t.offset is None:
        raise Bad("the trace has no kvm_write_tsc_offset for the vCPU: no way onto the "
                  "guest's timeline")
    return t


def off_within(spans, a, b):
    """How long the spans cover of [a, b)."""
    total = 0
    for s, e in spans:
        e = b if e is None else e
        total += max(0, min(e, b) - max(s, a))
    return total


class Join:
    """The record placed on the host's timeline and each slot's account."""

    def __init__(self, rec, tr, vcpus, raiser):
        self.rec, self.tr, self.raiser = rec, tr, raiser
        self.vcpu_off = [s for v in vcpus for s in tr.off_cpu.get(v, [])]
        self.raiser_off = tr.off_cpu.get(raiser, []) if raiser else []
        anchor = rec.get("anchor", 0)
        self.anchor_how = f"{anchor} recorded"
        if not anchor:
            anchor = self.estimate_anchor()
            self.anchor_how = f"{anchor} estimated (no anchor= in the record)"
        self.base = (anchor - tr.offset) % U64  # the anchor on the host's TSC
        self.arrivals = [self.base + a for a in rec["at"]]

    def estimate_anchor(self):
        """
        Without anchor=: the placement that puts the most arrivals within a
        quarter period after an acceptance (each arrival follows the one that
        delivered it), tried from the first ticks against the first
        acceptances; the anchor on the guest's TSC.
        """
        tr, at, p = self.tr, self.rec["at"], self.rec["period"]
        if not tr.accepts or not at:
            raise Bad("no acceptance of the tick's vector in the trace to place the run by")
        window = p // 4
        sample = at[::max(1, len(at) // 200)]
        best, best_score = None, -1
        for k in range(min(ESTIMATE_TRIES, len(tr.accepts))):
            for j in range(min(ESTIMATE_TRIES, len(at))):
                base = tr.accepts[k] - at[j]
                score = sum(1 for a in sample if self.accepted_within(base + a, window))
                if score > best_score:
                    best, best_score = base, score
        # then no arrival before the acceptance that delivered it: the quickest takes none
        lat = [best + a - tr.accepts[bisect.bisect_right(tr.accepts, best + a + window) - 1]
               for a in sample]
        lat = [x for x in lat if -window <= x <= window]
        if lat:
            best -= min(lat)
        return (best + tr.offset) % U64

    def accepted_within(self, ts, window):
        """Whether an acceptance came in the window before ts."""
        i = bisect.bisect_right(self.tr.accepts, ts)
        return i > 0 and ts - self.tr.accepts[i - 1] <= window

    def slot_at(self, i):
        return self.base + slot(self.rec, i)

    def gaps(self):
        """
        The guest's lost slots, gap by gap, by the judgment's own walk (guest
        time only): (tick closing the gap, slots lost in it), and the ticks that
        came with no new slot passed, which make up for an earlier loss (a
        source that re-injects what it owed: KVM's PIT).
        """
        rec, tol = self.rec, self.rec.get("err_ppb", 0)
        nxt, out, extra = 0, [], []
        for j, a in enumerate(rec["at"]):
            before = nxt
            # passed: due by now within the calibration's error (tick_judge.c step_periodic)
            while nxt < rec["expected"] and a + slot(rec, nxt) * tol // 10**9 + 1 >= slot(rec, nxt):
                nxt += 1
            if nxt > before + 1:
                out.append((j, nxt - before - 1))
            elif nxt == before:
                extra.append(j)
        return out, extra, nxt

    def window(self, j):
        """The host's stretch from the guest's tick before j to tick j."""
        return (self.arrivals[j - 1] if j else self.base), self.arrivals[j]

    def facts(self, j):
        """What the host did between tick j-1 and tick j."""
        lo, hi = self.window(j)
        raises = [r for r in self.tr.raises if lo < r[0] <= hi]
        return {
            "raised": len(raises),
            "masked": sum(1 for r in raises if r[1]),
            "coalesced": sum(1 for r in raises if r[2]),
            "accepted": sum(1 for a in self.tr.accepts if lo < a <= hi),
            "vcpu_off_us": self.us(off_within(self.vcpu_off, lo, hi)),
            "main_off_us": self.us(off_within(self.raiser_off, lo, hi)),
            "timer_late_us": self.us(max((late for ts, late in self.tr.timer_late
                                          if lo < ts <= hi), default=0)),
            "span_us": self.us(hi - lo),
            # the guest's interrupts off after the tick before (from its record: op lines)
            "guest_off_us": self.us(self.rec["open"][j - 1]) if self.rec["open"] and j else 0,
        }

    def us(self, ticks):
        return ticks * 1_000_000 // self.rec["counter_hz"]


def raiser_tid(source, pid):
    """The thread whose delay leaves the source unraised: QEMU's main loop for QEMU's devices."""
    if source in ("hpet", "hpet-routed", "rtc"):
        return pid
    return None  # KVM's own timers (LAPIC, PIT): an hrtimer, late only as the host's timer is


FACTS = ("span_us", "raised", "masked", "coalesced", "accepted", "vcpu_off_us", "main_off_us",
         "timer_late_us", "guest_off_us")


def report(run, rec, tr, join, out):
    """The run's totals, and its stretches with lost slots summed."""
    gaps, extra, passed = join.gaps()
    out.write(f"tick-trace: {run}: {rec['source']}, {rec['expected']} slots, {passed} passed, "
              f"{rec['n']} ticks; the anchor {join.anchor_how}; TSC offset {tr.offset}\n")
    out.write(f"tick-trace: the host raised {len(tr.raises)} (masked at the pin "
              f"{sum(r[1] for r in tr.raises)}, coalesced there {sum(r[2] for r in tr.raises)}), "
              f"its LAPIC accepted {len(tr.accepts)}, the guest counted {rec['n']}\n")
    total = {k: 0 for k in FACTS}
    for j, _ in gaps:
        for k, v in join.facts(j).items():
            total[k] += v
    out.write(f"tick-trace: {sum(n for _, n in gaps)} slots lost in {len(gaps)} stretches "
              f"({len(extra)} ticks came with no slot passed); over those stretches: "
              + ", ".join(f"{k} {total[k]}" for k in FACTS) + "\n")
    return gaps


def list_gaps(join, gaps, out):
    for j, n in gaps:
        f = join.facts(j)
        out.write(f"  before tick {j}: {n} lost; " + ", ".join(f"{k} {f[k]}" for k in FACTS)
                  + "\n")


def timeline(join, around, out, width=5):
    """The ticks around tick `around`: the host's events between each and the one before (us)."""
    if not 0 <= around < len(join.arrivals):
        raise Bad(f"--timeline {around}: the run has ticks 0 to {len(join.arrivals) - 1}")
    base = join.arrivals[around]

    def us(ts):
        return f"{(ts - base) * 1_000_000 / join.rec['counter_hz']:+.1f}"

    out.write(f"tick-trace: around tick {around} (us from its arrival)\n")
    for j in range(max(0, around - width), min(len(join.arrivals), around + width + 1)):
        lo, hi = join.window(j)
        ev = [(r[0], "raise" + (" masked" if r[1] else "") + (" coalesced" if r[2] else ""))
              for r in join.tr.raises if lo < r[0] <= hi]
        ev += [(a, "accept") for a in join.tr.accepts if lo < a <= hi]
        ev += [(s, f"vCPU off {join.us((e or hi) - s)} us") for s, e in join.vcpu_off
               if lo < s <= hi]
        if join.rec["open"] and j and join.rec["open"][j - 1]:
            ev.append((lo + join.rec["open"][j - 1], "guest's interrupts on"))
        out.write(f"  tick {j} at {us(hi)}: " + ", ".join(f"{w} {us(t)}" for t, w in sorted(ev))
                  + "\n")


def threads_from_trace(path):
    """QEMU's pid, its threads' ids, its vCPU threads' ids, from the runner's trace: the exec of
    qemu-system-*, the forks from it and from its threads, the names its threads switch under."""
    opener = gzip.open if path.endswith(".gz") else open
    pid, tids, names = None, set(), {}
    with opener(path, "rt") as f:
        for line in f:
            m = EVENT.match(line)
            if not m:
                continue
            a = m["args"]
            if m["name"] == "sched_process_exec" and pid is None and "/qemu-system-" in a:
                pid = re.search(r"\bpid=(\d+)", a)[1]
                tids = {pid}
            elif m["name"] == "sched_process_fork" and pid is not None:
                f2 = re.search(r"\bpid=(\d+) child_comm=.* child_pid=(\d+)", a)
                if f2 and f2[1] in tids:
                    tids.add(f2[2])
            elif m["name"] == "sched_switch":
                # every name a thread ran under (QEMU names its threads after it makes them)
                s = re.search(r"prev_comm=(.*) prev_pid=(\d+) ", a)
                if s:
                    names.setdefault(s[2], set()).add(s[1])
    if pid is None:
        raise Bad("the trace holds no exec of qemu-system-*: no way to tell QEMU's threads")
    vcpus = {t for t in tids if any("/KVM" in n for n in names.get(t, ()))}
    if not vcpus:
        tcg = sorted(n for t in tids for n in names.get(t, ()) if "/TCG" in n)
        raise Bad("no vCPU thread named CPU N/KVM in the trace" + (
            f" ({', '.join(tcg)}: a TCG run, whose guest TSC is QEMU's count, not the host's; "
            "nothing places its ticks on the host's timeline)" if tcg else ""))
    return pid, tids, vcpus


def run_log(path, args, out):
    """A run the runner logged: its record and the trace its log names."""
    with open(path, errors="replace") as f:
        text = f.read()
    m = RUNNER_TRACE.search(text)
    if not m:
        none = RUNNER_NONE.search(text)
        raise Bad("the log names no host trace" + (f" (none: {none[1]})" if none else
                                                   " (no 'runner: host trace:' line)"))
    trace = os.path.join(os.path.dirname(path), m[1])
    rec = parse_record(text)
    pid, tids, vcpus = threads_from_trace(trace)
    join_and_report(os.path.basename(path), rec, trace, pid, tids, vcpus, args, out)


def join_and_report(run, rec, trace, pid, tids, vcpus, args, out):
    tr = collect(read_events(trace, pid, tids), rec, pid, tids, vcpus)
    join = Join(rec, tr, vcpus, raiser_tid(rec["source"], pid))
    gaps = report(run, rec, tr, join, out)
    if args.gaps:
        list_gaps(join, gaps, out)
    if args.timeline is not None:
        timeline(join, args.timeline, out)
    elif gaps:
        timeline(join, max(gaps, key=lambda g: g[1])[0], out)


def run_dir(d, args, out):
    for name in ("guest.log", "threads.txt"):
        if not os.path.isfile(os.path.join(d, name)):
            raise Bad(f"no {name}")
    trace = next((os.path.join(d, n) for n in ("trace.txt", "trace.txt.xz")
                  if os.path.isfile(os.path.join(d, n))), None)
    if not trace:
        raise Bad("no trace.txt or trace.txt.xz")
    with open(os.path.join(d, "guest.log"), errors="replace") as f:
        rec = parse_record(f.read())
    with open(os.path.join(d, "threads.txt")) as f:
        pid, tids, vcpus = parse_threads(f.read())
    join_and_report(os.path.basename(os.path.normpath(d)), rec, trace, pid, tids, vcpus, args, out)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="tick-trace", description="Join a periodic timer-tick run with the host's trace: "
        "what the host did between ticks. RUN is a folder with guest.log (the guest's log with "
        "its record, record=always), threads.txt (pid tid comm of QEMU's threads) and "
        "trace.txt[.xz] (tracefs text, trace_clock x86-tsc), or the runner's log of a traced "
        "entry (logs/NAME.log, its record with record=always). Exit 0, or 2 on bad input.")
    p.add_argument("runs", nargs="+", metavar="RUN")
    p.add_argument("--gaps", action="store_true", help="list every stretch with lost slots")
    p.add_argument("--timeline", type=int, metavar="TICK",
                   help="print the ticks around TICK (by default around the longest loss)")
    args = p.parse_args(argv)
    status = 0
    for d in args.runs:
        try:
            if os.path.isfile(d):
                run_log(d, args, sys.stdout)
            else:
                run_dir(d, args, sys.stdout)
        except (Bad, OSError, lzma.LZMAError, EOFError, ValueError) as e:
            print(f"tick-trace: {d}: {e}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
