#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The doc test: runs every command README.md and docs/*.md show, in a fresh copy of the tree, and fails naming file:line.

Usage: host-tests/doc/run.py [--list] [--keep] [--timeout S] [--export-logs DIR] [--seed-builds] [PAGE.md...]

The convention (also in README.md, "Commands in these pages"):
- A code block is a fenced block (```) or a block indented by four spaces.
  It holds commands when its first line starts with a program: one of this
  tree (./run_tests.sh, scripts/bench-compare), one on PATH (make,
  qemu-system-x86_64) or cd/for/if/while. Fenced blocks in another language
  than sh/shell/bash/console (```c, ```text, ```ini) never do: output,
  code and synopses go there, or in a block whose first word is none.
- Every line of a command block is a command (a trailing backslash
  continues it; `#` starts a comment) and must exit with status 0.
- An HTML comment right before the block (blank lines between allowed)
  changes that:
      <!-- doc-test: skip REASON -->   the block is not run; the test lists it
                                       with REASON (for what cannot run in CI:
                                       make check itself, minutes-long sweeps,
                                       synopses with placeholders)
      <!-- doc-test: exit N -->        every command of the block exits with N
                                       (e.g. 1: QEMU's status for a guest that
                                       passed through the testdev chardev)
      <!-- doc-test: expect REGEX -->  the output of every command of the block
                                       matches REGEX (Python, a line anchored by
                                       ^ and $): QEMU's own errors exit with 1
                                       too, so a raw QEMU block says what a pass
                                       prints
      <!-- doc-test: export-logs WHY -->
                                       with --export-logs DIR, the copy's
                                       logs/ are copied into DIR after each
                                       command of the block, pass or fail
                                       (make check takes the default suites'
                                       verdicts, JUnit and TAP from the
                                       README's make run this way, rather
                                       than running them a second time)
      <!-- doc-test: needs-kvm WHY --> the block runs only where KVM can run
                                       x86_64 guests (scripts/arch.bash's
                                       arch_kvm_problem); elsewhere it is
                                       skipped, the test naming why KVM is
                                       not usable and WHY the block needs it
  Several annotations may precede one block.
- Commands run one by one in bash (pipefail) from the top of a fresh copy
  of the tree (the files git knows, as they are in the work tree), README.md
  first, then docs/*.md by name; the copy is kept between commands, so a
  build one command makes serves the next, as for a reader. Commands in
  running text (`like this`) are not run: show a command a reader should
  type in a block. A command already run with the same text (comments
  aside) and the same expected status is not run again: "same ... as
  FILE:LINE".

Without PAGE arguments: README.md, docs/*.md and docs/upstream/*.md. --list prints what would
run and what is skipped, running nothing. Exit status: 0 when every command
ended as the page says, 1 otherwise (each failure as FILE:LINE: status,
command, the runner's non-pass outcome lines and the end of its output; the
copy's logs/ kept in logs/doc-test/FILE_LINE/), 2 for bad usage or a bad
annotation.
Run it under the timing lock (flock /tmp/vmtick-timing.lock): the pages'
commands boot guests whose checks depend on timing.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdblocks as pages  # noqa: E402  (host-tests/doc/mdblocks.py)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_TIMEOUT = 600
OUTPUT_TAIL = 25


def default_pages():
    """README.md, then docs/*.md and docs/upstream/*.md (the QEMU defect reports), each by name."""
    return ["README.md"] + [os.path.relpath(p, TOP) for folder in ("docs", "docs/upstream")
                            for p in sorted(glob.glob(f"{TOP}/{folder}/*.md"))]


def fresh_copy(dest):
    """The files git knows (tracked, and new ones not ignored), as they are in the work tree."""
    names = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "-co", "--exclude-standard"],
                           capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, names):
        rel = name.decode()
        src = os.path.join(TOP, rel)
        if not os.path.isfile(src):
            continue  # deleted in the work tree
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, rel))


# A shell reports a command killed by signal N as status 128 + N (QEMU's abort: 134).
SHELL_SIGNAL_STATUS_BASE = 128


def run_command(command, cwd, timeout):
    """(status, output) of one command line in bash; a command killed by a signal
    has the status a shell shows for it (bash runs a lone command in its own
    process, so Python would see the signal instead)."""
    try:
        r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, timeout=timeout,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           start_new_session=True)
        status = r.returncode
        if status < 0:
            status = SHELL_SIGNAL_STATUS_BASE - status
        return status, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


# A runner's outcome line that is not a pass: shown even when the output's end is further down.
VERDICT = re.compile(r"^(FAIL|TIMEOUT|CRASH|ERROR|INTERRUPTED|failed:) ")
# Where the copy's logs go when a command fails: they outlive the copy.
KEPT_LOGS = os.path.join(TOP, "logs", "doc-test")


def kvm_problem():
    """Why KVM cannot run x86_64 guests here (the runner's own answer); empty when it can."""
    script = 'SRCDIR="$1"; . "$SRCDIR/scripts/arch.bash"; arch_kvm_problem x86_64'
    return subprocess.run(["bash", "-c", script, "kvm", TOP], capture_output=True,
                          text=True).stdout.strip()


def keep_logs(tree, where):
    """Copy the copy's log directories (logs/, logs.old/) to KEPT_LOGS/FILE:LINE."""
    dest = os.path.join(KEPT_LOGS, where.replace("/", "_"))
    for name in ("logs", "logs.old"):
        src = os.path.join(tree, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, name), dirs_exist_ok=True)
    if os.path.isdir(dest):
        print(f"     | (its logs: {os.path.relpath(dest, TOP)}/)")


# Exported files whose text names logs by path: those paths are made to name the export.
PATH_BEARING = (".xml", ".tap", ".json", ".txt")


def host_build():
    """build/ARCH-gcc for this host's arch: what an in-tree `./configure && make` makes."""
    arch = {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(os.uname().machine)
    return os.path.join(TOP, "build", f"{arch}-gcc") if arch else None


def seed_builds(tree):
    """Copy this tree's build/ directories into the copy (--seed-builds), and the
    host arch's gcc build's objects and kernels beside the copy's sources too, for
    README.md's in-tree build (it took 9 s of the doc test, building them again), and the
    host tools scripts/lifecycle-judge and tick-judge build (host-tests/build: tool_* and
    host/; scripts/lifecycle-judge took 6.2 s building them)."""
    src = os.path.join(TOP, "build")
    if os.path.isdir(src):
        shutil.copytree(src, os.path.join(tree, "build"), symlinks=True)
    tools = os.path.join(TOP, "host-tests", "build")
    if os.path.isdir(os.path.join(tools, "host")):
        shutil.copytree(os.path.join(tools, "host"), os.path.join(tree, "host-tests", "build", "host"),
                        symlinks=True)
        for name in os.listdir(tools):
            if name.startswith("tool_"):
                shutil.copy2(os.path.join(tools, name), os.path.join(tree, "host-tests", "build", name))
    in_tree = host_build()
    if in_tree and os.path.isdir(in_tree):
        for sub in sorted(os.listdir(in_tree)):
            if os.path.isdir(os.path.join(in_tree, sub)):
                shutil.copytree(os.path.join(in_tree, sub), os.path.join(tree, sub),
                                symlinks=True, dirs_exist_ok=True)


def export_logs(tree, dest):
    """Copy the copy's logs/ into dest (merging), for a block annotated export-logs;
    paths into the copy's logs/ in reports (JUnit, TAP, JSON) then name dest, since
    the copy is removed."""
    src = os.path.join(tree, "logs")
    if not os.path.isdir(src):
        return
    shutil.copytree(src, dest, dirs_exist_ok=True)
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(PATH_BEARING):
                continue
            out = os.path.join(dest, os.path.relpath(os.path.join(root, name), src))
            with open(out, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            if src in text:
                with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text.replace(src, dest))


def strip_comment(cmd):
    """The command without a trailing comment (two spaces, then #), to spot repeats."""
    return re.split(r"\s{2,}#", cmd, maxsplit=1)[0].strip()


def collect(paths):
    """Every page's command blocks; annotation errors."""
    blocks, errors = [], []
    for path in paths:
        try:
            with open(os.path.join(TOP, path), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            errors.append(f"{path}: {e.strerror}")
            continue
        b, e = pages.page_commands(path, text, TOP)
        blocks += b
        errors += e
    return blocks, errors


def main():
    ap = argparse.ArgumentParser(prog="host-tests/doc/run.py", description=__doc__.splitlines()[0],
                                 epilog="The convention: the top of this file, and README.md.")
    ap.add_argument("pages", nargs="*", metavar="PAGE.md",
                    help="pages to test, relative to the top (default: README.md docs/*.md)")
    ap.add_argument("--list", action="store_true", help="print the commands and skips; run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the copy the commands ran in")
    ap.add_argument("--seed-builds", action="store_true",
                    help="start the copy with this tree's build/, the host arch's gcc build's "
                         "objects beside the sources too (make check: it has just built "
                         "them from the same sources, so the pages' build commands, in-tree ones "
                         "too, configure and find nothing to rebuild)")
    ap.add_argument("--export-logs", metavar="DIR",
                    help="copy the copy's logs/ into DIR after blocks annotated export-logs")
    ap.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, metavar="S",
                    help="seconds per command (default %(default)s)")
    args = ap.parse_args()
    if args.export_logs:
        args.export_logs = os.path.abspath(args.export_logs)
    if args.timeout < 1:
        ap.error(f"--timeout {args.timeout}: want at least 1")
    blocks, errors = collect(args.pages or default_pages())
    for e in errors:
        print(f"doc-test: {e}", file=sys.stderr)
    if errors:
        return 2

    problem = kvm_problem()
    for b in blocks:
        if b.needs_kvm and problem and not b.skip:
            b.skip = f"needs KVM, not usable here ({problem}): {b.needs_kvm}"
    skipped = [b for b in blocks if b.skip]
    for b in skipped:
        print(f"skip {b.where()}: {b.skip}")
    runnable = [(b, no, cmd) for b in blocks if not b.skip for no, cmd in b.lines]
    if args.list:
        for b, no, cmd in runnable:
            print(f"run  {b.where(no)}: {cmd}" + (f"  (exit {b.exit})" if b.exit else ""))
        return 0

    shutil.rmtree(KEPT_LOGS, ignore_errors=True)
    work = tempfile.mkdtemp(prefix="vmtick-doc-test.")
    tree = os.path.join(work, "vmtick")
    failed = 0
    try:
        fresh_copy(tree)
        if args.seed_builds:
            seed_builds(tree)
        print(f"doc-test: {len(runnable)} commands in {tree}", flush=True)
        done = {}
        for b, no, cmd in runnable:
            key = (strip_comment(cmd), b.exit, b.expect and b.expect.pattern)
            if key in done:
                first, passed = done[key]
                print(f"same {b.where(no)}: as {first}" + ("" if passed else " (which FAILED)"),
                      flush=True)
                failed += not passed
                continue
            t0 = time.monotonic()
            status, out = run_command(cmd, tree, args.timeout)
            took = time.monotonic() - t0
            if b.export and args.export_logs:
                export_logs(tree, args.export_logs)
            good = status == b.exit and (b.expect is None or b.expect.search(out))
            done[key] = (b.where(no), good)
            if good:
                print(f"ok   {b.where(no)} ({took:.1f} s): {cmd}", flush=True)
                continue
            failed += 1
            if status is None:
                what = f"timed out after {args.timeout} s"
            elif status != b.exit:
                what = f"exit {status}, want {b.exit}"
            else:
                what = f"no output line matches '{b.expect.pattern}'"
            print(f"FAIL {b.where(no)}: {what}: {cmd}")
            lines = out.splitlines()
            verdicts = [ln for ln in lines[:-OUTPUT_TAIL] if VERDICT.match(ln)]
            if verdicts:
                print("     | (the runner's verdicts above the end of the output:)")
            for line in verdicts + lines[-OUTPUT_TAIL:]:
                print(f"     | {line}")
            keep_logs(tree, b.where(no))
            sys.stdout.flush()
    finally:
        if args.keep:
            print(f"doc-test: the copy is kept in {tree}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"doc-test: {len(runnable) - failed} of {len(runnable)} commands passed, "
          f"{failed} failed, {len(skipped)} blocks skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
