# SPDX-License-Identifier: GPL-2.0-only
"""What the two benchmark gates share: reading runs, the statistics, the setup diff and the floors.

scripts/bench-compare (sets of runs taken apart) and scripts/bench-interleave
(pairs of runs taken in alternation) judge the same figures the same way:
both read runs here (results files of scripts/results-to-json or runner
logs), use the same Student's t (on logarithms, Bonferroni over the judged
rows), refuse to judge across a changed setup (`setup_diff`) and flag a row
cheaper than its floor (`floor_problems`). docs/bench.md tells the method.
Import it by path: sys.path.insert(0, <scripts>); sys.dont_write_bytecode =
True (no __pycache__ in the tree); import bench_gate.
"""
import functools
import json
import math
import os
import shlex

from units import HZ_PER_MHZ, NSEC_PER_SEC  # scripts/units.py, beside this module
import vmtick_host  # scripts/vmtick_host.py: load_script

# The units that make a figure a benchmark: a cost, lower is better
# ("x empty" is --relative's: iterations of the row's empty loop).
COST_UNITS = ("ns", "us", "ms", "s", "cycles", "x empty")
DEFAULT_THRESHOLD = 3.0
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_RUNS = 3
# what a setup fact reads when its file exists but cannot be read
UNREADABLE = "unreadable"

# The smallest a real VM exit can cost, in cycles of the CPU: the hardware
# round trip alone (guest -> host -> guest, no handling) was measured at
# 1,344-1,376 cycles on AMD SVM (VMRUN to #VMEXIT, LKML "KVM: SVM: use
# vmsave/vmload for saving/restoring additional host state", 2020-12,
# lkml.iu.edu/hypermail/linux/kernel/2012.2/00527.html); Intel's own
# "Virtualization and Performance: Understanding VM Exits" (2009) puts a
# transition at "hundreds or thousands of cycles". An exit row cheaper than
# this under KVM did not exit.
EXIT_FLOOR_CYCLES = 1000
EXIT_FLOOR_SOURCE = ("AMD SVM round trip 1,344-1,376 cycles, "
                     "lkml.iu.edu/hypermail/linux/kernel/2012.2/00527.html")
# Rows whose operation exits under every KVM (VMX and SVM intercept CPUID,
# port I/O and hypercalls unconditionally; MMIO to an unbacked page faults to
# the host): only these are held to EXIT_FLOOR_CYCLES. rdtsc, MSRs, CR8 and
# the local APIC may be handled without an exit (TSC offsetting, MSR bitmaps,
# TPR shadow, APICv).
EXIT_ROWS = ("cpuid", "vmcall", "pio_kernel", "pio_user", "mmio_user", "pio_pit", "cmos",
             "pmtimer", "pio_kernel_out", "pio_user_out")
# Hosts whose guest code itself runs through an emulator: an empty loop
# iteration costs microseconds there (docs/host-quirks.md), so it is no floor.
EMULATED_GUEST_HOSTS = ("kvm-pvm",)


class InputError(Exception):
    pass


# --- reading runs -------------------------------------------------------------

def results_to_json():
    """scripts/results-to-json as a module: its log parser reads RESULT lines."""
    return vmtick_host.load_script("results-to-json")


def load_doc(path):
    """One run as a results document (a runner log becomes one with its runs only)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e
    if not text.lstrip().startswith("{"):
        return {"runs": [results_to_json().parse_log(path)]}
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InputError(f"{path}: not JSON: {e}") from e
    if not isinstance(doc, dict) or \
            not str(doc.get("format", "")).startswith("vmtick-bench-results/"):
        raise InputError(f"{path}: not a results file of scripts/results-to-json")
    return doc


def row_key(run, name):
    """A row's name across runs: test/name (accel); one cfg entry runs under KVM or TCG."""
    accel = f" ({run['accel']})" if run.get("accel") else ""
    return f"{run.get('test', '?')}/{name}{accel}"


def figures_of(doc, path):
    """{test/name (accel): figure} of one results document."""
    figures = {}
    for run in doc.get("runs", []):
        for name, fig in run.get("benchmarks", {}).items():
            figures[row_key(run, name)] = fig
    if not figures:
        raise InputError(f"{path}: no RESULT figures")
    return figures


def load_run(path):
    """{test/name (accel): figure} of one results file or runner log."""
    return figures_of(load_doc(path), path)


def gather(paths):
    """{name: [figure of each run]} over the runs of one side."""
    side = {}
    for path in paths:
        for name, fig in load_run(path).items():
            side.setdefault(name, []).append(fig)
    return side


# --- statistics ---------------------------------------------------------------

def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def incomplete_beta(x, a, b):
    """The regularized incomplete beta function I_x(a, b): its continued fraction (modified Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        # the fraction converges fast on this side only
        return 1 - incomplete_beta(1 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    f, c, d = tiny, tiny, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + num / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(c * d - 1) < 1e-14:
            break
    return front * f


def t_upper(t, df):
    """P(T > t) for Student's t with df degrees of freedom, t >= 0."""
    return incomplete_beta(df / (df + t * t), df / 2, 0.5) / 2


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """The t with P(T <= t) = p (p > 0.5), by bisection; a run's rows ask for the same few."""
    lo, hi = 0.0, 1.0
    while t_upper(hi, df) > 1 - p:
        lo, hi = hi, hi * 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_upper(mid, df) > 1 - p else (lo, mid)
    return hi


def mean_var(values):
    n = len(values)
    m = sum(values) / n
    return m, sum((v - m) ** 2 for v in values) / (n - 1)


def ratio_interval(old, new, level):
    """
    Ratio of the geometric means new/old and its interval at level:
    Student's t on the logarithms of the runs' figures, with their variance
    pooled. Run-to-run noise here is a proportion of the figure (and
    skewed): in logarithms it is the same on both sides of an unchanged
    build, and of one whose row got uniformly slower.
    """
    la, lb = [math.log(v) for v in old], [math.log(v) for v in new]
    ma, va = mean_var(la)
    mb, vb = mean_var(lb)
    df = len(la) + len(lb) - 2
    pooled = ((len(la) - 1) * va + (len(lb) - 1) * vb) / df
    diff = mb - ma
    half = t_quantile(1 - (1 - level) / 2, df) * math.sqrt(pooled * (1 / len(la) + 1 / len(lb)))
    return math.exp(diff), math.exp(diff - half), math.exp(diff + half)


def paired_interval(pairs, level, trim=0.0):
    """
    For (a, b) figures of adjacent runs: the mean of the logarithms of the
    pair ratios b/a as a ratio, and its interval at level, by Student's t
    on those logarithms (one difference per pair). What drifts slower than
    a pair (the host's load) divides out of each ratio. trim > 0: Yuen's
    trimmed t (the mean of the middle pairs, with trim of them cut from
    each end, its variance from the winsorized logarithms, h - 1 degrees of
    freedom for h pairs kept): a pair that met a burst of other work (one
    log ratio of +-0.55 among 45 of +-0.05 was seen) no longer widens the
    interval of every row. trim 0 is the plain paired t (n - 1 degrees).
    """
    logs = sorted(math.log(b / a) for a, b in pairs)
    n = len(logs)
    g = int(trim * n)
    kept = logs[g:n - g]
    h = len(kept)
    winsorized = [kept[0]] * g + kept + [kept[-1]] * g
    _, wvar = mean_var(winsorized)
    m = sum(kept) / h
    half = t_quantile(1 - (1 - level) / 2, h - 1) * math.sqrt((n - 1) * wvar / (h * (h - 1)))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def verdict_of(lo, hi, threshold):
    """slower / faster when the whole interval lies beyond threshold percent, else same."""
    limit = threshold / 100
    if lo > 1 + limit:
        return "slower"
    if hi < 1 - limit:
        return "faster"
    return "same"


def smallest_flagged(lo, threshold):
    """
    How much slower (percent) the new side would have to be, all scaled
    alike, to be flagged: scaling it by f moves the interval by f. Given
    two sides of one build, the smallest regression detected.
    """
    return max((1 + threshold / 100) / lo - 1, 0) * 100


def bonferroni_level(alpha, judged):
    """The interval's level for judged rows: the chance of any false flag stays under alpha."""
    return 1 - alpha / max(judged, 1)


# --- figures ------------------------------------------------------------------

def values_of(figs):
    """The headline values of runs that measured it (skipped runs left out)."""
    return [f["value"] for f in figs
            if "skipped" not in f and isinstance(f.get("value"), (int, float))]


def unit_problem(figs):
    """None when the figures share one cost unit, else (why not, whether that is an error)."""
    units = {f.get("unit") for f in figs if "skipped" not in f}
    if not units:
        return "skipped in every run", False
    if len(units) > 1:
        return "units differ: " + ", ".join(sorted(str(u) for u in units)), True
    unit = units.pop()
    if unit not in COST_UNITS:
        return f"not a benchmark (unit {unit})", False
    return None


def per_empty_loop(figs):
    """
    --relative: each figure in iterations of its empty loop, when every
    figure of the row has one: lib/bench's per_empty (the median over
    batches of each batch's net time over the empty loop timed right
    before it), else value / overhead_ns of the same run (older runs). The
    empty loop runs in the same moments as the row's batches (docs/
    bench.md), so a host that runs the whole guest slower slows both alike.
    """
    measured = [f for f in figs if "skipped" not in f]

    def has(f, stat):
        return isinstance(f.get(stat), (int, float)) and f[stat] > 0

    if not measured or not all(f.get("unit") in COST_UNITS for f in measured):
        return
    if all(has(f, "per_empty") for f in measured):
        for f in measured:
            f["value"], f["unit"] = f["per_empty"], "x empty"
    elif all(has(f, "overhead_ns") for f in measured):
        for f in measured:
            f["value"], f["unit"] = f["value"] / f["overhead_ns"], "x empty"


def fmt(value):
    if value is None:
        return "-"
    if isinstance(value, float) and abs(value) < 1e6:
        return f"{value:.3f}"
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def print_table(header, rows):
    """Columns as wide as their widest cell: names left, figures right, the verdict last."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        cells += [c.rjust(w) for c, w in zip(r[2:-1], widths[2:-1])]
        print("  ".join(cells + [r[-1]]).rstrip())


# --- the setup: what changes exit costs besides the code -------------------------

# QEMU options whose value is a file of the build under test: per build by
# nature, so only the file's name is compared.
PER_BUILD_FILE_OPTIONS = ("-kernel", "-initrd")
# The kernel's own arguments: the test's input, like its code (slow= goes here).
GUEST_ARGS_OPTION = "-append"


def split_command(command):
    """(QEMU's command with per-build paths reduced to file names, the guest's arguments)."""
    try:
        argv = shlex.split(command or "")
    except ValueError:
        argv = (command or "").split()
    kept, guest_args = [], ""
    i = 0
    while i < len(argv):
        word = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if word in PER_BUILD_FILE_OPTIONS and value is not None:
            kept += [word, os.path.basename(value)]
            i += 2
        elif word == GUEST_ARGS_OPTION and value is not None:
            guest_args = value
            i += 2
        else:
            kept.append(word)
            i += 1
    return " ".join(shlex.quote(w) for w in kept), guest_args


def setup_facts(doc):
    """
    ({key: value} of what changes exit costs besides the code, {key: value}
    of the guest's arguments) for one results document. Host facts come
    from its "setup" (results-to-json); each run adds its QEMU command
    with per-build paths reduced to file names, keyed by test and accel.
    """
    facts, args = {}, {}
    setup = doc.get("setup") or {}
    for key, value in setup.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                facts[f"{key}/{sub}"] = str(v)
        else:
            facts[key] = str(value)
    for run in doc.get("runs", []):
        if not run.get("command"):
            continue
        where = f"{run.get('test', '?')} ({run.get('accel', '?')})"
        facts[f"qemu command of {where}"], args[f"guest arguments of {where}"] = \
            split_command(run["command"])
    return facts, args


def side_facts(docs):
    """{key: set of values} over the documents of one side."""
    facts, args = {}, {}
    for doc in docs:
        f, a = setup_facts(doc)
        for key, value in f.items():
            facts.setdefault(key, set()).add(value)
        for key, value in a.items():
            args.setdefault(key, set()).add(value)
    return facts, args


def differences(old, new):
    """{key: (old values, new values)} for the keys both sides recorded and that differ."""
    return {k: (sorted(old[k]), sorted(new[k])) for k in sorted(set(old) & set(new))
            if old[k] != new[k]}


def setup_diff(old_docs, new_docs):
    """
    (setup differences, guest argument differences) between two sides:
    each {key: (old values, new values)}. A key only one side recorded (an
    older results file, a test run on one side only) is no difference: the
    rows it would concern are not compared either.
    """
    old_facts, old_args = side_facts(old_docs)
    new_facts, new_args = side_facts(new_docs)
    return differences(old_facts, new_facts), differences(old_args, new_args)


def word_change(old, new):
    """For one value a side: the words only old has and only new has ("-x +y"), or None."""
    if len(old) != 1 or len(new) != 1 or " " not in old[0] + new[0]:
        return None
    a, b = old[0].split(), new[0].split()
    gone = [w for w in a if w not in b]
    added = [w for w in b if w not in a]
    return " ".join([f"-{w}" for w in gone] + [f"+{w}" for w in added]) or "the same words, reordered"


def describe_diff(diff):
    """One line per differing key: key: old -> new (a command line: the words that differ)."""
    lines = []
    for k, (a, b) in diff.items():
        change = word_change(a, b)
        lines.append(f"  {k}: {change}" if change else
                     f"  {k}: {' | '.join(a) or '-'} -> {' | '.join(b) or '-'}")
    return lines


# --- floors: a row cheaper than these is no exit ---------------------------------

def row_parts(key):
    """(row name, accel) of a key "test/suite.row (accel)"."""
    name, _, accel = key.partition(" (")
    return name.rsplit(".", 1)[-1], accel.rstrip(")")


def counter_hz_of(doc):
    """{test (accel): the guest's counter frequency} of one document (lib/bench's SUITE.counter_hz)."""
    out = {}
    for run in doc.get("runs", []):
        for name, fig in run.get("benchmarks", {}).items():
            if name.endswith(".counter_hz") and isinstance(fig.get("value"), (int, float)):
                out[f"{run.get('test', '?')} ({run.get('accel', '?')})"] = fig["value"]
    return out


def floor_problem(key, fig, hz, host_kind):
    """
    Why one run's figure of a row is below its floor, or None. The floors:
    the row's empty loop iteration (an operation cheaper than a loop
    iteration did not happen), except on hosts that emulate guest code;
    under KVM, EXIT_FLOOR_CYCLES for rows that always exit.
    """
    if "skipped" in fig or fig.get("unit") != "ns" or not isinstance(fig.get("value"), (int, float)):
        return None
    value, row, accel = fig["value"], *row_parts(key)
    empty = fig.get("overhead_ns")
    if isinstance(empty, (int, float)) and empty > 0 and value < empty and \
            host_kind not in EMULATED_GUEST_HOSTS:
        return (f"{value:.3f} ns is below its empty loop iteration ({empty:.3f} ns, timed in the "
                "same run): no operation took place")
    if accel == "kvm" and row in EXIT_ROWS and hz:
        floor_ns = EXIT_FLOOR_CYCLES * NSEC_PER_SEC / hz
        if value < floor_ns:
            return (f"{value:.3f} ns is below the cheapest real VM exit, {EXIT_FLOOR_CYCLES} "
                    f"cycles = {floor_ns:.3f} ns at the guest's {hz / HZ_PER_MHZ:.0f} MHz counter "
                    f"({EXIT_FLOOR_SOURCE}): it did not exit")
    return None


def side_rows(docs):
    """{row key: ([figures of the runs], [counter Hz of each], host kind)} over one side's runs."""
    rows = {}
    for doc in docs:
        hz_of = counter_hz_of(doc)
        host_kind = (doc.get("host") or {}).get("kvm")
        for run in doc.get("runs", []):
            hz = hz_of.get(f"{run.get('test', '?')} ({run.get('accel', '?')})")
            for name, fig in run.get("benchmarks", {}).items():
                if "skipped" in fig or not isinstance(fig.get("value"), (int, float)):
                    continue
                figs, hzs, _ = rows.setdefault(row_key(run, name), ([], [], host_kind))
                figs.append(fig)
                hzs.extend([hz] if hz else [])
    return rows


def typical(figs):
    """A side's figure of a row: the medians over its runs of the value and the empty loop."""
    fig = {"value": median([f["value"] for f in figs]), "unit": figs[0].get("unit")}
    empties = [f["overhead_ns"] for f in figs if isinstance(f.get("overhead_ns"), (int, float))]
    if len(empties) == len(figs):
        fig["overhead_ns"] = median(empties)
    return fig


def floor_problems(sides):
    """
    {row key: why} for every row whose typical figure on some side (the
    median over that side's runs) is below its floor. One run alone does
    not flag a row: under kvm-pvm one run's pio_kernel came out at 321 ns
    (its empty loop, microseconds there, timed high) where the others
    measured about 1,900 ns.
    """
    out = {}
    for label, docs in sides:
        for key, (figs, hzs, host_kind) in side_rows(docs).items():
            fig = typical(figs)
            why = floor_problem(key, fig, median(hzs) if hzs else None, host_kind)
            if why and key not in out:
                out[key] = f"{label}, median of {len(figs)} runs: {why}"
    return out


# --- what both gates print and decide -------------------------------------------

SETUP_NOTE = "setup changed"
FLAGGED = ("slower", "faster", "below floor")


def setup_gate(prog, old_docs, new_docs, allow, out):
    """
    Print what differs between the two sides' setups and guest arguments.
    Returns (refuse, note): refuse when the setup differs and allow is not
    given (the caller exits 2); note, when it differs and is allowed, is
    what every flagged row is marked with. Errors go to out (stderr).
    """
    setup, guest = setup_diff(old_docs, new_docs)
    if guest:
        print("guest arguments differ (the test's own input, not the setup):")
        print("\n".join(describe_diff(guest)))
    if not setup:
        return False, None
    keys = ", ".join(setup)
    if not allow:
        print(f"{prog}: the setup differs between the two sides ({keys}): what changed "
              "besides the code would be judged as the code; not judged (--allow-setup-change "
              "judges anyway):", file=out)
        print("\n".join(describe_diff(setup)), file=out)
        return True, None
    print(f"judged across a changed setup (--allow-setup-change): {keys}")
    print("\n".join(describe_diff(setup)))
    return False, f"{SETUP_NOTE}: {keys}"


def marked(verdict, floor_why, note):
    """A row's verdict: "below floor" beats the ratio; a flagged one carries the setup note."""
    if floor_why:
        verdict = "below floor"
    if note and verdict in FLAGGED:
        verdict += f" [{SETUP_NOTE}]"
    return verdict


def print_floors(floors, keys):
    """One line per row of keys below its floor: which floor and where it comes from."""
    shown = [k for k in keys if k in floors]
    if shown:
        print("\nbelow floor (not an exit):")
    for k in shown:
        print(f"  {k}: {floors[k]}")
