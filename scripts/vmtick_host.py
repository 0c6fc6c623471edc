# SPDX-License-Identifier: GPL-2.0-only
"""The host vocabulary for vmtick's Python tools: the runner's own bash functions, the RESULT line parser, and a sibling script loaded as a module.

What QEMU's exit status means, whether KVM is usable, which accelerator a
run gets and the QEMU command line have one implementation each, in bash
(scripts/arch.bash, scripts/guest.bash, docs/design.md "The host
vocabulary"): the functions here call them, so a Python tool can never
disagree with the runner. RESULT lines ("RESULT: name value unit",
lib/report.h) are parsed here for Python as scripts/guest.bash parses them
for bash, BOUND lines (a bounded check's figure and its bands) and the
SUMMARY line's counts, and config.mak is read by the runner's reader. A script without .py (results-to-json, bench-compare) is loaded
as a module by load_script, the one loader. Import it by path: sys.path.insert(0, <scripts>);
sys.dont_write_bytecode = True (no __pycache__ in the tree); import vmtick_host.
"""
import errno
import importlib.machinery
import importlib.util
import os
import re
import subprocess
from collections import namedtuple

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(SCRIPTS)
# "RESULT: name value unit" (lib/report.h)
RESULT_RE = re.compile(r"^RESULT: (\S+) (\S+) (\S+)\s*$")
# "BOUND: name value unit lo..hi[ lo..hi]" (lib/report.h report_bounded), before its PASS/FAIL line
BOUND_RE = re.compile(r"^BOUND: (\S+) (\S+) (\S+)((?: \S+\.\.\S+)+)\s*$")
# "SUMMARY: N tests, F unexpected failures, S skipped[, K known failures]" (lib/report.c report_summary)
SUMMARY_LINE = "SUMMARY: "
SUMMARY_COUNTS_RE = re.compile(r"(\d+) tests, (\d+) unexpected failures, (\d+) skipped"
                               r"(?:, (\d+) known failures)?")
# the status bash gives for death by signal n: SIGNAL_BASE + n (Python gives -n)
SIGNAL_BASE = 128
# The runner's header (run_header, scripts/runner.bash: a log's first lines,
# and each entry's lines in run_tests.sh -l -v): the QEMU command, then the
# runner's lines, among them its record of the accelerator it chose.
RUNNER_LINE = "runner: "
ACCEL_RECORD = "runner: accelerator "
# ... and of QEMU, after it: its version ("unknown" when QEMU did not say), then
# its binary as the command names it ("runner: qemu 10.0.2 qemu-system-x86_64";
# a runner before 2026-12 wrote the version alone)
QEMU_RECORD = "runner: qemu "


# Source the host vocabulary, call a function, then print each variable
# named before the call: its words NUL-terminated, then RECORD_END.
RECORD_END = "\x1e"
_CALL = """SRCDIR=$1; . "$SRCDIR/scripts/arch.bash"; . "$SRCDIR/scripts/guest.bash"
n=$2; shift 2; names=("${@:1:n}"); shift "$n"
"$@" || exit
for name in "${names[@]}"; do declare -n ref=$name; printf '%s\\0' "${ref[@]}"; printf '\\036'; unset -n ref; done"""


def bash(func, *args, names=()):
    """Run a function of scripts/arch.bash or scripts/guest.bash with args; its CompletedProcess
    (stdout ends with the words of the variables named, see bash_vars)."""
    return subprocess.run(["bash", "-c", _CALL, "vmtick_host", SRCDIR, str(len(names)), *names, func, *args],
                          capture_output=True, text=True, check=False)


def bash_vars(names, func, *args):
    """The words of each named variable (a list per name) after a bash function call."""
    out = bash(func, *args, names=names).stdout
    records = out.split(RECORD_END)[-len(names) - 1:-1]
    if len(records) != len(names):
        raise RuntimeError(f"{func} {' '.join(args)}: failed")
    return [r.split("\0")[:-1] for r in records]


def bash_scalars(names, func, *args):
    """The value of each named scalar variable after a bash function call."""
    return [" ".join(words) for words in bash_vars(names, func, *args)]


def kvm_problem(arch):
    """arch_kvm_problem: why KVM cannot run guests of arch here; empty when it can."""
    return bash("arch_kvm_problem", arch).stdout.strip()


def host_kvm_problem():
    """arch_kvm_problem for the guests of this host's own arch (check.sh asks the same)."""
    r = bash("eval", 'arch_kvm_problem "$(arch_canonical "$(uname -m)" || uname -m)"')
    return r.stdout.strip()


def decide_accel(allowed, forced, problem):
    """arch_decide_accel: (accel, refused): the accelerator, or "" and why none
    (not-listed, kvm-unusable, needs-kvm); allowed is a list, forced may be ""."""
    accel, refused = bash_scalars(["ARCH_ACCEL", "ARCH_ACCEL_REFUSED"], "arch_decide_accel",
                                  " ".join(allowed), forced or "", problem)
    return accel, refused


def qemu_argv(arch, accel, smp, kernel, append, params=()):
    """arch_qemu_cmd: the runner's QEMU command for a kernel, as a list of words."""
    return bash_vars(["ARCH_CMD"], "arch_qemu_cmd", arch, accel, str(smp), kernel, append, *params)[0]


def quote_cmd(argv):
    """arch_quote_cmd: a command as the runner prints it."""
    return bash("arch_quote_cmd", *argv).stdout.rstrip("\n")


def guest_status(returncode):
    """guest_status: QEMU's exit status (a Popen returncode: -n for signal n) as
    (verdict, guest code or None); verdict is PASS, FAIL, SKIP, GUEST, SIGNAL,
    TIMEOUT, NOSTART, EXITED or STATUS (scripts/guest.bash)."""
    status = returncode if returncode >= 0 else SIGNAL_BASE - returncode
    verdict, code = bash_scalars(["GUEST_VERDICT", "GUEST_CODE"], "guest_status", str(status))
    return verdict, (int(code) if code else None)


def recorded_accel(header):
    """The accelerator the runner recorded in a header (its lines, the command first), or None."""
    for line in header[1:]:
        if not line.startswith(RUNNER_LINE):
            break
        if line.startswith(ACCEL_RECORD):
            return line[len(ACCEL_RECORD):]
    return None


def _qemu_record(header):
    """(version, binary) of the runner's QEMU record in a header, each None where it names none."""
    for line in header[1:]:
        if not line.startswith(RUNNER_LINE):
            break
        if line.startswith(QEMU_RECORD):
            version, _, binary = line[len(QEMU_RECORD):].strip().partition(" ")
            return (None if version in ("", "unknown") else version), (binary or None)
    return None, None


def recorded_qemu(header):
    """QEMU's version the runner recorded in a header (its lines, the command first), or None."""
    return _qemu_record(header)[0]


def recorded_qemu_binary(header):
    """The QEMU binary the runner recorded in a header, or None (no record, or one without it):
    the command's first word is an agent's where one runs QEMU (scripts/host_evidence.py)."""
    return _qemu_record(header)[1]


def parse_result(line):
    """(name, value, unit) of a RESULT line, the value as text; None for any other line."""
    m = RESULT_RE.match(line.rstrip("\r\n"))
    return m.groups() if m else None


def parse_bound(line):
    """(name, value text, unit, [(lo, hi), ...]) of a BOUND line, an open end as -inf or inf;
    None for any other line (or a band that is no number)."""
    m = BOUND_RE.match(line.rstrip("\r\n"))
    if not m:
        return None
    bands = []
    for band in m.group(4).split():
        lo, sep, hi = band.partition("..")
        try:
            bands.append((float(lo), float(hi)))
        except ValueError:
            return None
    return m.group(1), m.group(2), m.group(3), bands


Summary = namedtuple("Summary", "tests failures skipped known")


def summary_text(line):
    """What a SUMMARY line says after "SUMMARY: "; None for any other line."""
    line = line.rstrip("\r\n")
    return line[len(SUMMARY_LINE):] if line.startswith(SUMMARY_LINE) else None


def parse_summary(text):
    """The counts a SUMMARY line's text holds (summary_text, or the line itself), as a Summary
    (known 0 where the guest printed none); None where they are not there (a cut log)."""
    m = SUMMARY_COUNTS_RE.search(text or "")
    return Summary(*(int(n or 0) for n in m.groups())) if m else None


def config_value(build, key):
    """arch_config_value: KEY's value in BUILD/config.mak ("KEY := value"), or None (no file,
    no KEY): configure's record read as the runner reads it."""
    r = bash("arch_config_value", build, key)
    return r.stdout.rstrip("\n") if r.returncode == 0 else None


def load_script(path, module_name=None):
    """A script (a file without .py; a path, or a name under scripts/) executed as a module, named
    module_name or its file name with - as _ (so its functions can be called without running its main)."""
    path = os.path.join(SCRIPTS, path)
    if not os.path.isfile(path):
        raise FileNotFoundError(errno.ENOENT, "no script to load as a module", path)
    name = module_name or os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module
