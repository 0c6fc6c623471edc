# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lifecycle.py with scripts/lifecycle_guest.py: whole runs against a fake QEMU, as the runner makes them.

What: a guest that asks for its events gets each answer on its serial
input and its QEMU's status is the exit status; the console carries a
`lifecycle: qemu 0:` line with the QMP socket and named threads added; a
request the cfg does not list, a guest that passes before its events are
done, a QEMU gone before its QMP socket (with QEMU's own message) and a
bad command line are each `lifecycle: ERROR: why` and ERROR_STATUS; every
private directory is removed; and the standalone scripts embed every part
the helpers import. Why: the runner reads exactly these lines and statuses
(scripts/runner.bash), and a standalone script unpacks only what
scripts/mkstandalone.sh lists. How: /usr/bin/python3 scripts/lifecycle.py
around fake_qemu_lc.py, with TMPDIR private; the imports read with ast.
"""
import ast
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(TOP, "scripts", "lifecycle.py")
FAKE = os.path.join(HERE, "fake_qemu_lc.py")
PYTHON = "/usr/bin/python3"
ERROR_STATUS = 126


class WholeRun(unittest.TestCase):
    def run_lc(self, events, **env):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        full = dict(os.environ, TMPDIR=tmp.name, PYTHONDONTWRITEBYTECODE="1", **env)
        r = subprocess.run([PYTHON, SCRIPT, "--events", events, "--", PYTHON, FAKE, "-smp", "1"],
                           capture_output=True, text=True, env=full, timeout=60)
        self.assertEqual(os.listdir(tmp.name), [], "the private directory is left behind")
        return r

    def test_two_pauses_answered_and_the_guests_status(self):
        r = self.run_lc("pause=0 pause=0.1", FAKE_REQUESTS="pause 1|pause 2", FAKE_STATUS="1")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stdout, r"(?m)^lifecycle: qemu 0: \S+ \S+fake_qemu_lc\.py -smp 1 -qmp "
                                   r"unix:\S+/qmp0\.sock,server=on,wait=off -name vmtick,debug-threads=on$")
        self.assertRegex(r.stdout, r"(?m)^GOT LIFECYCLE-DONE pause 1 duration_ns=\d+ qmp_downtime_ns=0 ")
        self.assertRegex(r.stdout, r"(?m)^lifecycle: event 2 pause: stopped \d+\.\d ms")
        self.assertRegex(r.stdout, r"(?m)^GOT LIFECYCLE-DONE pause 2 ")

    def test_a_request_the_cfg_does_not_list(self):
        r = self.run_lc("pause=0", FAKE_REQUESTS="migrate 1")
        self.assertEqual(r.returncode, ERROR_STATUS)
        self.assertIn("lifecycle: ERROR: the guest asked for event 1 'migrate'; the cfg's event 1 is 'pause'",
                      r.stderr)

    def test_a_guest_that_passes_before_its_events(self):
        r = self.run_lc("pause=0 pause=0", FAKE_REQUESTS="pause 1", FAKE_STATUS="1")
        self.assertEqual(r.returncode, ERROR_STATUS)
        self.assertIn("lifecycle: ERROR: the guest passed after 1 of the cfg's 2 events", r.stderr)

    def test_a_failing_guests_status_passes_through(self):
        r = self.run_lc("pause=0", FAKE_STATUS="3")
        self.assertEqual(r.returncode, 3, r.stderr)

    def test_qemu_gone_before_its_qmp_socket(self):
        r = self.run_lc("pause=0", FAKE_NO_QMP="5")
        self.assertEqual(r.returncode, ERROR_STATUS)
        self.assertIn("lifecycle: ERROR: qemu 0: QEMU exited (status 5) before its QMP socket was up: "
                      "fake-qemu: no monitor today", r.stderr)

    def test_bad_command_lines(self):
        for args in (["--events", "pause=0", "qemu"], ["--events", "pause", "--", "qemu"]):
            r = subprocess.run([PYTHON, SCRIPT] + args, capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, ERROR_STATUS, args)
            self.assertRegex(r.stderr, r"usage: lifecycle\.py --events LIST -- QEMU ARGS|"
                                       r"lifecycle: ERROR: events: bad event 'pause'")


def imported_parts(name, seen):
    """The scripts/NAME.py modules scripts/name.py imports, directly or through them."""
    with open(os.path.join(TOP, "scripts", name + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        for mod in names:
            if mod not in seen and os.path.exists(os.path.join(TOP, "scripts", mod + ".py")):
                seen.add(mod)
                imported_parts(mod, seen)
    return seen


class Standalone(unittest.TestCase):
    def test_every_imported_part_is_embedded(self):
        with open(os.path.join(TOP, "scripts", "mkstandalone.sh"), encoding="utf-8") as f:
            text = f.read()
        parts = {var: set(re.search(rf"^{var}=\(([^)]*)\)$", text, re.M).group(1).split())
                 for var in ("LIFECYCLE_PARTS", "SHARED_PARTS")}
        # an entry with events gets both lists and host_evidence.py; one with evidence alone the shared parts
        embedded = {"lifecycle": parts["LIFECYCLE_PARTS"] | parts["SHARED_PARTS"] | {"host_evidence"},
                    "host_evidence": parts["SHARED_PARTS"]}
        for helper, has in embedded.items():
            missing = imported_parts(helper, set()) - has
            self.assertEqual(missing, set(), f"scripts/{helper}.py imports parts that "
                                             "scripts/mkstandalone.sh does not embed")


if __name__ == "__main__":
    unittest.main()
