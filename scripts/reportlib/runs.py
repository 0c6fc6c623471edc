# SPDX-License-Identifier: GPL-2.0-only
"""A run's logs folder read into suites of tests: outcomes, figures, checks, the host's disturbance."""
import glob
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from .bounds import Bound
from vmtick_host import load_script, parse_summary  # noqa: E402  scripts/vmtick_host.py: the one loader and SUMMARY reader (scripts/report puts scripts/ on the path)

# The runner's last line of a log (docs/runner.md, "A busy host")
# the runner's last line (scripts/runner.bash); "other processes ran N ms" since 2026-12-05's
# runner, older logs without it
DISTURB_RE = re.compile(r"^runner: QEMU's threads waited (?P<waited>\d+) ms for a CPU in (?P<run>\d+) ms, "
                        r"(?:other processes ran \d+ ms, )?the host's hypervisor stole (?P<stolen>\d+) ms")
CHECK_RE = re.compile(r"^(PASS|FAIL|SKIP|KFAIL|INFO): (.*)$")
NOT_STARTED = "not started: "
# ARCH-CC, the build layout's label (docs/runner.md, "Build layout")
LABEL_RE = re.compile(r"^(x86_64|i386|aarch64)-(gcc|clang)")
KERNEL_ARCH_RE = re.compile(r"/build/(x86_64|i386|aarch64)-[a-z]+/")
QEMU_ARCH = {"qemu-system-aarch64": "aarch64", "qemu-system-x86_64": "x86_64",
             "qemu-system-i386": "i386"}
# folders of a logs folder that hold no suite's logs
NOT_SUITES = ("reports", "logs.old")
# QEMU's version in its --version line, as the JUnit's qemu_version holds it
QEMU_VERSION_RE = re.compile(r"version (\d+\.\d+(?:\.\d+)?)")
# The runner's line of a failure a known QEMU defect explains (run_known_defect,
# scripts/runner.bash), in the log and at the head of its message (the JUnit's)
DEFECT_LINE_RE = {"known": re.compile(r"^runner: known QEMU defect (\S+) \("),
                  "outside": re.compile(r"^runner: QEMU defect (\S+) seen outside its known range \(")}
DEFECT_MSG_RE = {"known": re.compile(r"^known QEMU defect (\S+) of QEMU "),
                 "outside": re.compile(r"^QEMU defect (\S+) seen outside its known range: ")}


def _results_to_json():
    """scripts/results-to-json as a module: the one parser of RESULT lines."""
    return load_script("results-to-json", "results_to_json")


R2J = _results_to_json()


@dataclass
class Figure:
    value: object   # int or float, as results-to-json reads it
    unit: str
    text: str       # as the guest printed it: what the page shows


@dataclass
class Test:
    name: str
    log: str
    outcome: str = "?"
    source: str = "log"          # where the outcome comes from: JUnit or the log
    message: str = ""
    attempts: int = 1
    accel: str = "unknown"
    arch: str = "unknown"
    figures: dict = field(default_factory=dict)      # name -> Figure
    checks: list = field(default_factory=list)       # (PASS|FAIL|SKIP|KFAIL|INFO, message)
    bounds: list = field(default_factory=list)       # bounds.Bound of each BOUND line, in order
    summary: str = ""
    disturb: tuple = None        # (waited ms, run ms, stolen ms)
    earlier: list = field(default_factory=list)      # earlier attempts' log names
    problems: list = field(default_factory=list)     # what is missing or odd in its files
    log_not_started: str = ""    # the reason of a test the runner never started
    qemu: str = ""               # QEMU's version ("10.0.2"): "" when nothing recorded it
    qemu_from: str = ""          # where that came from: the log, results.json, JUnit
    defect_lines: list = field(default_factory=list)  # ("known"|"outside", id, the runner's line)

    def first(self, tag):
        return next((m for t, m in self.checks if t == tag), "")

    def fig(self, name):
        return self.figures.get(name)


@dataclass
class Suite:
    path: str            # the folder of its logs
    rel: str             # that folder relative to the logs folder given ("." for itself)
    label: str
    tests: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    host: dict = field(default_factory=dict)    # results.json's "host": {} when not recorded


def find_suite_dirs(logdir):
    """The folders under logdir (itself included, two levels down) that hold runner logs."""
    found = []
    for depth in ("", "*", os.path.join("*", "*")):
        for d in sorted(glob.glob(os.path.join(logdir, depth))):
            if not os.path.isdir(d) or os.path.basename(d) in NOT_SUITES:
                continue
            if glob.glob(os.path.join(d, "*.log")) and d not in found:
                found.append(d)
    return found


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\r\n") for line in f]


def _arch_of(command, label):
    m = KERNEL_ARCH_RE.search(command)
    if m:
        return m.group(1)
    m = LABEL_RE.match(label)
    if m:
        return m.group(1)
    first = command.split(" ", 1)[0]
    return QEMU_ARCH.get(os.path.basename(first), "unknown")


def recorded_qemu(lines):
    """QEMU's version the runner recorded in a log's header (the command first), or ""."""
    return R2J.vmtick_host.recorded_qemu(lines) or ""


def set_qemu(test, version, source):
    """The first source that names a version wins: the log's header, results.json, the JUnit."""
    if version and version != "unknown" and not test.qemu:
        test.qemu, test.qemu_from = version, source


def defects_named(test):
    """[("known"|"outside", defect id)]: the runner's lines in the log, else its message's head."""
    if test.defect_lines:
        return [(kind, name) for kind, name, _ in test.defect_lines]
    for kind, pat in DEFECT_MSG_RE.items():
        m = pat.match(test.message)
        if m:
            return [(kind, m.group(1))]
    return []


def outcome_from_log(test, ended):
    """
    The outcome when no JUnit says it: from the SUMMARY line, as the runner
    decides it; a failure the runner's line puts down to a known QEMU
    defect of this version is KFAIL, its message that line's, then why.
    """
    outcome, why = _outcome_of_summary(test, ended)
    known = [line for kind, _, line in test.defect_lines if kind == "known"]
    if known and outcome in ("FAIL", "CRASH", "ERROR"):
        fail = test.first("FAIL")
        return "KFAIL", (f"{known[0][len('runner: '):]}; {outcome}: {why}"
                         + (f"; first FAIL: {fail}" if fail else ""))
    return outcome, why


def _outcome_of_summary(test, ended):
    if test.log_not_started:
        return "SKIP" if "needs" in test.log_not_started else "ERROR", test.log_not_started
    counts = parse_summary(test.summary)
    if not counts:
        why = "no SUMMARY line: the guest crashed, hung or its log was cut short"
        return ("CRASH" if ended else "?"), why
    if counts.failures:
        return "FAIL", test.summary
    if counts.tests and counts.skipped == counts.tests:
        return "SKIP", test.first("SKIP") or test.summary
    if counts.known:
        return "KFAIL", test.summary
    return "PASS", test.summary


def parse_test(path, label):
    """One runner log: its figures (as results-to-json reads them), checks and the host's share."""
    name = os.path.basename(path)[: -len(".log")]
    test = Test(name=name, log=path)
    lines = read_lines(path)
    if not lines:
        test.problems.append("empty log")
        test.outcome, test.message = "?", "empty log"
        return test
    if lines[0].startswith(NOT_STARTED):
        test.log_not_started = lines[0][len(NOT_STARTED):]
    run = R2J.parse_log(path)
    test.accel = run["accel"] if not test.log_not_started else "unknown"
    test.summary = run["summary"] or ""
    test.attempts = run["attempts"]
    test.arch = _arch_of(lines[0], label)
    set_qemu(test, recorded_qemu(lines), "log")
    pending = None
    for line in lines[1:]:
        result = R2J.vmtick_host.parse_result(line)
        if result:
            name, value, unit = result
            test.figures[name] = Figure(R2J.number(value), unit, value)
            continue
        bound = R2J.vmtick_host.parse_bound(line)
        if bound:
            # the figure (a BOUND line is its RESULT) and its bands; passed: the check line after it
            name, value, unit, bands = bound
            test.figures[name] = Figure(R2J.number(value), unit, value)
            pending = Bound(name, float(R2J.number(value)), value, unit, bands, None)
            test.bounds.append(pending)
            continue
        m = CHECK_RE.match(line)
        if m:
            test.checks.append((m.group(1), m.group(2)))
            if pending:
                pending.passed = m.group(1) == "PASS"
                pending = None
            continue
        m = DISTURB_RE.match(line)
        if m:
            test.disturb = (int(m["waited"]), int(m["run"]), int(m["stolen"]))
            continue
        for kind, pat in DEFECT_LINE_RE.items():
            m = pat.match(line)
            if m:
                test.defect_lines.append((kind, m.group(1), line))
    test.earlier = sorted(os.path.basename(p) for p in glob.glob(path + ".[0-9]*"))
    ended = test.disturb is not None
    if not ended and not test.log_not_started:
        test.problems.append("the log ends early: no runner line after QEMU (cut short?)")
    test.outcome, test.message = outcome_from_log(test, ended)
    return test


def _junit_files(logdir, suite_dir):
    """JUnit files that may describe the suite: make run's reports/, a GitLab job's, LAVA's."""
    pats = [os.path.join(logdir, "reports", "*.xml"), os.path.join(logdir, "*.xml"),
            os.path.join(suite_dir, "*.xml"), os.path.join(os.path.dirname(logdir.rstrip("/")),
                                                          "vmtick-junit.xml")]
    seen = []
    for p in pats:
        for f in sorted(glob.glob(p)):
            if f not in seen:
                seen.append(f)
    return seen


def junit_verdicts(files, problems):
    """{(folder name of the log, test): properties} of every testsuite in the JUnit files."""
    out = {}
    for f in files:
        try:
            root = ET.parse(f).getroot()
        except (ET.ParseError, OSError) as e:
            problems.append(f"{os.path.basename(f)}: not readable JUnit ({e})")
            continue
        for ts in root.iter("testsuite"):
            props = {p.get("name"): p.get("value", "") for p in ts.iter("property")}
            if "outcome" not in props:
                continue
            folder = os.path.basename(os.path.dirname(props.get("log", "")))
            out[(folder, ts.get("name"))] = props
    return out


def apply_junit(test, props):
    test.source = "JUnit"
    test.outcome = props.get("outcome", test.outcome)
    test.message = props.get("message", test.message)
    try:
        test.attempts = max(int(props.get("attempts", "1")), test.attempts)
    except ValueError:
        pass
    if props.get("arch"):
        test.arch = props["arch"]
    accel = props.get("accelerator", "")
    if accel in ("kvm", "tcg", "hvf", "xen"):
        test.accel = accel
    m = QEMU_VERSION_RE.search(props.get("qemu_version", ""))
    set_qemu(test, m.group(1) if m else "", "JUnit")


def load_suite(logdir, suite_dir):
    rel = os.path.relpath(suite_dir, logdir)
    label = os.path.basename(os.path.abspath(suite_dir))
    suite = Suite(path=suite_dir, rel=rel, label=label)
    verdicts = junit_verdicts(_junit_files(logdir, suite_dir), suite.problems)
    results = os.path.join(suite_dir, "results.json")
    doc = read_results(results, suite.problems) if os.path.exists(results) else {}
    versions = qemu_versions(doc)
    for path in sorted(glob.glob(os.path.join(suite_dir, "*.log"))):
        try:
            test = parse_test(path, label)
        except OSError as e:
            suite.problems.append(f"{os.path.basename(path)}: {e.strerror}")
            continue
        set_qemu(test, versions.get(test.name, ""), "results.json")
        props = verdicts.pop((label, test.name), None)
        if props:
            apply_junit(test, props)
        suite.tests.append(test)
    for (folder, name), props in verdicts.items():
        if folder == label:
            # the JUnit names a test whose log is not here
            test = Test(name=name, log=os.path.join(suite_dir, name + ".log"))
            apply_junit(test, props)
            test.problems.append("its log is missing")
            suite.tests.append(test)
    host = doc.get("host")
    suite.host = host if isinstance(host, dict) else {}
    if not os.path.exists(results) and any(t.figures for t in suite.tests):
        suite.problems.append("no results.json in the folder (figures read from the logs)")
    return suite


def read_results(path, problems):
    """results.json (scripts/results-to-json) as a dict; {} when unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"results.json: not readable ({e})")
        return {}
    if not isinstance(doc, dict):
        problems.append("results.json: not readable (no JSON object)")
        return {}
    return doc


def qemu_versions(doc):
    """
    {test: QEMU's version} from results.json: each run's QEMU binary, and
    setup.qemu_version's version of that binary (asked by results-to-json
    on the host that ran the suite).
    """
    setup = doc.get("setup")
    known = setup.get("qemu_version") if isinstance(setup, dict) else None
    if not isinstance(known, dict):
        known = doc.get("qemu") if isinstance(doc.get("qemu"), dict) else {}
    out = {}
    for run in doc.get("runs") or []:
        binary = run.get("qemu") if isinstance(run, dict) else None
        if isinstance(binary, str) and isinstance(known.get(binary), str):
            out[run.get("test")] = known[binary]
    return out


def load_logdir(logdir):
    """(suites, problems) of one logs folder; problems name what could not be read."""
    if not os.path.exists(logdir):
        return [], [f"{logdir}: no such folder"]
    if not os.path.isdir(logdir):
        return [], [f"{logdir}: not a folder"]
    dirs = find_suite_dirs(logdir)
    if not dirs:
        return [], [f"{logdir}: no runner logs (NAME.log) in it or its subfolders"]
    return [load_suite(logdir, d) for d in dirs], []
