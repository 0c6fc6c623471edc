#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Reads a run_tests.sh JUnit file with a third-party consumer (Debian's python3-junitparser) and prints what it sees.

Usage: host-tests/runner/junit-check.py FILE

Prints one line per suite, "suite NAME outcome=O tests=N failures=F errors=E
skipped=S accelerator=A", then one per testcase, "case SUITE/NAME KIND
[message]" (KIND: pass, failure, error, skipped), for host-tests/runner/run.sh to
match. Exits 1, naming the problem, when the counts a suite claims differ
from its testcases or a property a dashboard needs is missing.
"""
import sys

import junitparser

REQUIRED_PROPERTIES = ("outcome", "arch", "accelerator", "qemu_version", "host_kernel")


def case_kind(case):
    for res in case.result:
        if isinstance(res, junitparser.Failure):
            return "failure", res.message
        if isinstance(res, junitparser.Error):
            return "error", res.message
        if isinstance(res, junitparser.Skipped):
            return "skipped", res.message
    return "pass", None


def check_suite(suite):
    props = {p.name: p.value for p in suite.properties()}
    problems = [f"suite {suite.name}: no property {name}"
                for name in REQUIRED_PROPERTIES if name not in props]
    kinds = {"failure": 0, "error": 0, "skipped": 0, "pass": 0}
    lines = []
    for case in suite:
        kind, message = case_kind(case)
        kinds[kind] += 1
        lines.append(f"case {suite.name}/{case.name} {kind}" + (f" {message}" if message else ""))
    claimed = (suite.tests, suite.failures, suite.errors, suite.skipped)
    counted = (sum(kinds.values()), kinds["failure"], kinds["error"], kinds["skipped"])
    if claimed != counted:
        problems.append(f"suite {suite.name}: claims host-tests/failures/errors/skipped {claimed}, has {counted}")
    head = (f"suite {suite.name} outcome={props.get('outcome')} tests={suite.tests} "
            f"failures={suite.failures} errors={suite.errors} skipped={suite.skipped} "
            f"accelerator={props.get('accelerator')}")
    return [head] + lines, problems


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    xml = junitparser.JUnitXml.fromfile(sys.argv[1])
    problems = []
    total = 0
    for suite in xml:
        lines, bad = check_suite(suite)
        print("\n".join(lines))
        problems += bad
        total += suite.tests
    if xml.tests != total:
        problems.append(f"testsuites claims {xml.tests} tests, its suites have {total}")
    for p in problems:
        print(f"junit-check: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
