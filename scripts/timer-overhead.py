#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host CPU time and system calls a guest's timer tick costs QEMU, per timer source, against an idle baseline.

Runs the timer-tick kernel once per source (and source=none, the idle
baseline) for a fixed time, --runs times, under the chosen accelerator.
The guest prints "phase start" and "phase end" around its ticking; at each
marker this script reads QEMU's utime and stime (/proc/PID/stat fields 14
and 15, in clock ticks), so boot, calibration and the guest's reporting
are left out. QEMU then exits by itself through the testdev chardev: the
readings were taken before that, while it was still running.

Host CPU % is QEMU's CPU time over the guest's ticking time (the phase
length the guest reports), as a percentage of one host CPU; "above" is that
minus the baseline's. The spread is half the range over the runs.

--strace adds one more run per source with `strace -c -f -p PID` attached
at "phase start" and detached at "phase end": system calls by kind, per
guest second. strace stops QEMU at every system call, so those runs are
not used for the CPU figures, and the guest's timing checks in them are
shown but not judged: a FAIL under strace is strace's delay, not the
source's (a run that crashes or times out under strace still counts).

Output: a table on stdout, OUT/timer-overhead.json, OUT/timer-overhead.png
(gnuplot) and every run's guest log in OUT: by default logs/timer-overhead
(LOGDIR/timer-overhead when LOGDIR is set), beside the runner's logs, never
in the source tree (the next ./run_tests.sh moves logs/ to logs.old/, this
too). Exit status: 0 when every run ended PASS or SKIP (runs under strace:
PASS, SKIP or FAIL), 1 otherwise, 2 for bad usage. A FAIL is printed with
the guest's first FAIL line. --print shows each run's QEMU command and runs
nothing.

The QEMU command, the accelerator, QEMU's status and the RESULT lines are
the runner's (scripts/vmtick_host.py): run-kernel prints the same command
for the same kernel and arguments.
"""

import argparse
import atexit
import json
import os
import re
import selectors
import signal
import statistics
import subprocess
import sys
import time

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from units import NSEC_PER_USEC, USEC_PER_SEC  # noqa: E402
import gnuplot_chart  # noqa: E402  (scripts/gnuplot_chart.py: gnuplot found, its terminal, run)
import vmtick_host  # noqa: E402  (scripts/vmtick_host.py: the runner's QEMU command, status and RESULT lines)

SOURCES = {
    "x86_64": ["lapic-periodic", "lapic-oneshot", "tsc-deadline", "hpet", "pit", "pit-oneshot"],
    "i386": ["lapic-periodic", "lapic-oneshot", "tsc-deadline", "hpet", "pit", "pit-oneshot"],
    "aarch64": ["vtimer", "ptimer"],
}
BASELINE = "none"
# Seconds a run may take beyond its ticking: boot, calibration, reporting.
RUN_SLACK_S = 60
# The guest verdict a run under strace may end with without failing the tool: timing checks only.
STRACE_NOT_JUDGED = "FAIL"
# The guest's own verdicts of vmtick_host.guest_status; any other status is a CRASH.
GUEST_VERDICTS = ("PASS", "FAIL", "SKIP")
TOP_SYSCALLS = 3
# The tick engine's RESULT names: timer_tick.SOURCE.NAME (common/tick/tick_checks.c)
RESULT_PREFIX = "timer_tick."
VCPUS = 1
# the chart's size in pixels (OUT/timer-overhead.png)
CHART_WIDTH_PX, CHART_HEIGHT_PX = 900, 500

live = []  # every process started and not yet reaped


def cleanup():
    """Stop every process this script started, by its own id."""
    for p in list(live):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        live.remove(p)


def on_signal(signum, _frame):
    cleanup()
    sys.exit(128 + signum)


def start(argv, **kw):
    p = subprocess.Popen(argv, **kw)
    live.append(p)
    return p


def reap(p):
    p.wait()
    if p in live:
        live.remove(p)


def qemu_argv(args, source):
    """The runner's QEMU command (arch_qemu_cmd) for one run of the tick kernel."""
    return vmtick_host.qemu_argv(args.arch, args.accel, VCPUS, args.kernel, guest_args(args, source))


def guest_args(args, source):
    return f"source={source} hz={args.hz} seconds={args.seconds}"


def cpu_ticks(pid):
    """utime + stime and each, in clock ticks: fields 14 and 15, counted after the ')' of the name."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state)
    return int(fields[11]), int(fields[12])


def parse_strace(path):
    calls = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return calls
    for line in lines:
        t = line.split()
        # "% time seconds usecs/call calls [errors] syscall"; the total line has no usecs/call
        if len(t) >= 5 and re.match(r"^[\d.]+$", t[0]) and t[-1] != "total" and t[3].isdigit():
            calls[t[-1]] = int(t[3])
    return calls


class Run:
    """One QEMU run of the tick kernel, read line by line, with readings at the phase markers."""

    def __init__(self, args, source, index, use_strace):
        self.source, self.index, self.use_strace = source, index, use_strace
        tag = f"{source}.{'strace' if use_strace else index}"
        self.log_path = os.path.join(args.out, f"{tag}.log")
        self.strace_path = os.path.join(args.out, f"{tag}.strace")
        self.argv = qemu_argv(args, source)
        self.timeout = args.seconds + RUN_SLACK_S
        self.results, self.marks, self.status = {}, {}, "CRASH"
        self.first_fail = None
        self.strace = None

    def mark(self, name, pid):
        self.marks[name] = {"wall": time.monotonic(), "cpu": cpu_ticks(pid)}

    def on_line(self, line, qemu):
        if self.first_fail is None and line.startswith("FAIL"):
            self.first_fail = line
        key, value = self.own_result(line)
        if key:
            self.results[key] = value
        elif line.endswith("phase start"):
            if self.use_strace:
                self.strace = start(["strace", "-c", "-f", "-o", self.strace_path, "-p", str(qemu.pid)],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            self.mark("start", qemu.pid)
        elif line.endswith("phase end"):
            self.mark("end", qemu.pid)
            if self.strace:
                self.strace.send_signal(signal.SIGINT)
                reap(self.strace)

    def own_result(self, line):
        """(NAME, value) of a RESULT line timer_tick.SOURCE.NAME of this run's source, else (None, None)."""
        result = vmtick_host.parse_result(line)
        prefix = f"{RESULT_PREFIX}{self.source}."
        if not result or not result[0].startswith(prefix) or "." in result[0][len(prefix):]:
            return None, None
        try:
            return result[0][len(prefix):], float(result[1])
        except ValueError:
            return None, None

    def execute(self):
        with open(self.log_path, "w", encoding="utf-8") as log:
            log.write("# " + " ".join(self.argv) + "\n")
            log.flush()
            qemu = start(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log)
            sel = selectors.DefaultSelector()
            sel.register(qemu.stdout, selectors.EVENT_READ)
            deadline, buf = time.monotonic() + self.timeout, b""
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.status = "TIMEOUT"
                    break
                if not sel.select(timeout=left):
                    continue
                chunk = os.read(qemu.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace").rstrip("\r")
                    log.write(line + "\n")
                    self.on_line(line, qemu)
            sel.close()
            if self.status == "TIMEOUT":
                cleanup()
            else:
                reap(qemu)
                verdict = vmtick_host.guest_status(qemu.returncode)[0]
                self.status = verdict if verdict in GUEST_VERDICTS else "CRASH"
            log.write(f"# status {self.status} (QEMU exit {qemu.returncode})\n")
        return self

    def verdict(self):
        """The status, with the guest's first FAIL line when there is one."""
        return f"{self.status} ({self.first_fail})" if self.first_fail else self.status

    def measured(self):
        return "start" in self.marks and "end" in self.marks and self.results.get("phase", 0) > 0

    def cpu(self, clk_tck):
        """CPU % of one host CPU per guest second: total, user, system."""
        guest_s = self.results["phase"] / USEC_PER_SEC
        (u0, s0), (u1, s1) = self.marks["start"]["cpu"], self.marks["end"]["cpu"]
        user, system = (u1 - u0) / clk_tck, (s1 - s0) / clk_tck
        return {"cpu_pct": 100 * (user + system) / guest_s, "user_pct": 100 * user / guest_s,
                "sys_pct": 100 * system / guest_s, "guest_s": guest_s,
                "wall_s": self.marks["end"]["wall"] - self.marks["start"]["wall"]}


def median_spread(values):
    if not values:
        return None, None
    return statistics.median(values), (max(values) - min(values)) / 2


def summarise(name, runs, traced, clk_tck):
    ok = [r for r in runs if r.status in ("PASS", "FAIL") and r.measured()]
    entry = {"status": sorted({r.status for r in runs}), "runs": []}
    for r in runs:
        item = {"status": r.status, "log": os.path.basename(r.log_path), "results": r.results}
        if r in ok:
            item.update(r.cpu(clk_tck))
        entry["runs"].append(item)
    entry["cpu_pct"], entry["cpu_spread"] = median_spread([r.cpu(clk_tck)["cpu_pct"] for r in ok])
    for key in ("ticks_per_s", "late_median", "late_p99"):
        entry[key] = median_spread([r.results[key] for r in ok if key in r.results])[0]
    if traced and traced.measured():
        secs = traced.results["phase"] / USEC_PER_SEC
        calls = parse_strace(traced.strace_path)
        entry["syscalls_per_s"] = {k: v / secs for k, v in sorted(calls.items(), key=lambda kv: -kv[1])}
        entry["strace_status"] = traced.status
    return entry


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


def table(report, order):
    base = report["sources"].get(BASELINE, {}).get("cpu_pct")
    head = ("source", "host CPU %", "above base", "top syscalls/s (strace)", "ticks/s", "late med us", "late p99 us",
            "status")
    rows = [head]
    for name in order:
        e = report["sources"][name]
        above = None if e["cpu_pct"] is None or base is None else e["cpu_pct"] - base
        e["above_baseline_pct"] = above
        top = ", ".join(f"{k} {v:.0f}" for k, v in list(e.get("syscalls_per_s", {}).items())[:TOP_SYSCALLS])
        cpu = "-" if e["cpu_pct"] is None else f"{e['cpu_pct']:.1f} +-{e['cpu_spread']:.1f}"
        rows.append((name, cpu, fmt(above, "+.1f"),
                     top or "-", fmt(e["ticks_per_s"], ".1f"),
                     fmt(None if e["late_median"] is None else e["late_median"] / NSEC_PER_USEC, ".1f"),
                     fmt(None if e["late_p99"] is None else e["late_p99"] / NSEC_PER_USEC, ".1f"), "/".join(e["status"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def plot(report, order, out):
    dat, png = os.path.join(out, "timer-overhead.dat"), os.path.join(out, "timer-overhead.png")
    with open(dat, "w", encoding="utf-8") as f:
        for name in order:
            e = report["sources"][name]
            if e["cpu_pct"] is not None:
                f.write(f'"{name}" {e["cpu_pct"]:.3f} {e["cpu_spread"]:.3f}\n')
    m = report["meta"]
    gp = "\n".join([
        f"set title 'QEMU host CPU per guest second, {m['arch']} {m['accel']}, hz={m['hz']}, "
        f"{m['seconds']} s x {m['runs']} runs'",
        "set ylabel 'host CPU % (one CPU)'", "set yrange [0:*]", "set grid ytics",
        "set style data histogram", "set style histogram errorbars gap 1 lw 1",
        "set style fill solid 0.6 border -1", "set boxwidth 0.8", "unset key", "set xtics rotate by -20",
        f"plot {gnuplot_chart.quote(dat)} using 2:3:xtic(1)"])
    try:
        gnuplot_chart.draw(png, gp, CHART_WIDTH_PX, CHART_HEIGHT_PX)
    except gnuplot_chart.ChartError as e:
        print(f"timer-overhead: no chart: {e}", file=sys.stderr)
        return None
    return png


def config_arch(d):
    """The arch d is configured for, or None where it is no configured build."""
    return vmtick_host.config_value(d, "ARCH") or None


# What the guest takes (x86/timer-tick.c, common/tick/timer_tick.c): hz=1..10000, seconds=1..600.
HZ_RANGE = (1, 10000)
SECONDS_RANGE = (1, 600)
# configure's names for the arches
ARCH_ALIASES = {"arm64": "aarch64", "i686": "i386", "x86-64": "x86_64"}


def in_range(name, lo, hi):
    """An argparse type: an integer in lo..hi, or a message naming the option."""
    def check(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is not in {lo}..{hi}")
        return value
    check.__name__ = name
    return check


def default_build(arch):
    """The top directory when it is configured for arch, else build/ARCH-gcc, else build/ARCH-clang."""
    if config_arch(SRCDIR) == arch:
        return SRCDIR
    for cc in ("gcc", "clang"):
        d = os.path.join(SRCDIR, "build", f"{arch}-{cc}")
        if config_arch(d) == arch:
            return d
    return os.path.join(SRCDIR, "build", f"{arch}-gcc")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--arch", default=None,
                    help="x86_64 (default: the top build's), i386, aarch64 (or arm64)")
    ap.add_argument("--build", help="configured build directory "
                    "(default: top, else build/ARCH-gcc, else build/ARCH-clang)")
    ap.add_argument("--accel", choices=["kvm", "tcg"], help="default: ACCEL, else kvm when usable, else tcg")
    ap.add_argument("--sources", help="comma-separated (default: every source of the arch)")
    ap.add_argument("--hz", type=in_range("--hz", *HZ_RANGE), default=1000,
                    help="ticks per second, %d..%d (default 1000)" % HZ_RANGE)
    ap.add_argument("--seconds", type=in_range("--seconds", *SECONDS_RANGE), default=5,
                    help="ticking time per run, %d..%d (default 5)" % SECONDS_RANGE)
    ap.add_argument("--runs", type=in_range("--runs", 1, 100), default=3,
                    help="runs per source for the CPU figures, 1..100 (default 3)")
    ap.add_argument("--strace", action="store_true", help="one more run per source under strace -c -f")
    ap.add_argument("--print", action="store_true",
                    help="print each source's QEMU command (the source, then the command) and run nothing")
    ap.add_argument("--out", default=os.path.join(os.environ.get("LOGDIR") or "logs", "timer-overhead"),
                    help="directory for JSON, chart and logs (default: logs/timer-overhead, "
                    "or LOGDIR/timer-overhead, where the runner's logs go)")
    args = ap.parse_args()
    args.arch = ARCH_ALIASES.get(args.arch, args.arch) or config_arch(SRCDIR) or "x86_64"
    if args.arch not in SOURCES:
        ap.error(f"--arch {args.arch}: want one of {', '.join(sorted(SOURCES))}")
    # before anything boots: every source must be one the arch has
    if args.sources is not None:
        wanted = args.sources.split(",")
        known = [BASELINE] + SOURCES[args.arch]
        bad = [w for w in wanted if w not in known]
        if bad:
            ap.error(f"--sources: {', '.join(repr(b) for b in bad)} not a timer source of "
                     f"{args.arch} (known: {', '.join(known)})")
        args.sources = wanted
    else:
        args.sources = SOURCES[args.arch]
    if args.build and config_arch(args.build) is None:
        ap.error(f"--build {args.build}: no configured build there (no config.mak with ARCH)")
    if args.build and config_arch(args.build) != args.arch:
        ap.error(f"--build {args.build} is configured for {config_arch(args.build)}, not {args.arch}")
    args.build = args.build or default_build(args.arch)
    args.kernel = os.path.join(args.build, "arm" if args.arch == "aarch64" else "x86", "timer-tick.flat")
    if not os.path.isfile(args.kernel):
        ap.error(f"no kernel {args.kernel}: configure and make for {args.arch} first")
    problem = vmtick_host.kvm_problem(args.arch)
    args.accel, refused = vmtick_host.decide_accel(["kvm", "tcg"], args.accel or os.environ.get("ACCEL"), problem)
    if refused == "kvm-unusable":
        ap.error(f"--accel kvm: KVM cannot run {args.arch} here: {problem}")
    if refused:
        ap.error(f"ACCEL={os.environ.get('ACCEL')}: want kvm or tcg")
    if args.print:
        return args
    if args.strace and subprocess.run(["which", "strace"], capture_output=True, check=False).returncode:
        ap.error("--strace: strace is not installed")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        ap.error(f"--out {args.out}: cannot create it: {e.strerror}")
    if not os.access(args.out, os.W_OK):
        ap.error(f"--out {args.out}: not writable")
    return args


def print_commands(args):
    for s in [BASELINE] + [s for s in args.sources if s != BASELINE]:
        print(s, vmtick_host.quote_cmd(qemu_argv(args, s)))
    return 0


def main():
    args = parse_args()
    if args.print:
        return print_commands(args)
    atexit.register(cleanup)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    clk_tck = os.sysconf("SC_CLK_TCK")
    order = [BASELINE] + [s for s in args.sources if s != BASELINE]
    runs = {s: [] for s in order}
    # runs interleaved across sources, so that a burst of load from elsewhere hits them alike
    for i in range(args.runs):
        for s in order:
            r = Run(args, s, i, False).execute()
            runs[s].append(r)
            print(f"  {s} run {i + 1}/{args.runs}: {r.verdict()}", file=sys.stderr)
    traced = {}
    if args.strace:
        for s in order:
            traced[s] = Run(args, s, 0, True).execute()
            note = ", not judged: strace delays QEMU" if traced[s].status == "FAIL" else ""
            print(f"  {s} under strace: {traced[s].verdict()}{note}", file=sys.stderr)
    cmd = " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
    report = {"meta": {"command": cmd, "arch": args.arch, "accel": args.accel, "hz": args.hz,
                       "seconds": args.seconds, "runs": args.runs, "clk_tck": clk_tck,
                       "qemu": vmtick_host.qemu_argv(args.arch, args.accel, VCPUS, args.kernel, "...")[0],
                       "host_cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                       "loadavg": os.getloadavg()},
              "sources": {s: summarise(s, runs[s], traced.get(s), clk_tck) for s in order}}
    text = table(report, order)
    with open(os.path.join(args.out, "timer-overhead.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    png = plot(report, order, args.out)
    print(f"# {cmd}\n# {args.arch} {args.accel}, hz={args.hz}, {args.seconds} s x {args.runs} runs, "
          f"host CPU % of one CPU per guest second (median +- half range)")
    print(text)
    print(f"# {os.path.join(args.out, 'timer-overhead.json')}" + (f", {png}" if png else ""))
    bad = [r for rs in runs.values() for r in rs if r.status not in ("PASS", "SKIP")]
    bad += [r for r in traced.values() if r.status not in ("PASS", "SKIP", STRACE_NOT_JUDGED)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
