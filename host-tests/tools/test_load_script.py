# SPDX-License-Identifier: GPL-2.0-only
"""scripts/vmtick_host.py's load_script: a script without .py loaded as a module, and a missing one named.

What: a script file without .py, given by path or by its name under
scripts/, comes back as a module whose top level ran but whose main did
not; its module name is its file name with - as _ unless one is given; a
path with no file is a FileNotFoundError that names the path.
Why: the report, the benchmark gates and their tests call the functions of
results-to-json, bench-compare, bench-interleave and tick-miss-sweep
through this one loader (docs/design.md, "The host vocabulary").
How: a small script written to a temporary folder, and results-to-json.
"""
import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vmtick_host  # noqa: E402  (scripts/vmtick_host.py)

SCRIPT = """#!/usr/bin/env python3
VALUE = 42


def twice(x):
    return 2 * x


if __name__ == "__main__":
    raise SystemExit("the script's main ran")
"""


class LoadScript(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, "my-tool")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(SCRIPT)

    def test_script_without_py_is_a_module(self):
        module = vmtick_host.load_script(self.path)
        self.assertEqual(getattr(module, "VALUE", None), 42,
                         f"{self.path}: its top level did not run (no VALUE in the module)")
        self.assertEqual(module.twice(21), 42)
        self.assertEqual(module.__name__, "my_tool", "the module name: the file name with - as _")

    def test_module_name_given(self):
        self.assertEqual(vmtick_host.load_script(self.path, "other").__name__, "other")

    def test_name_under_scripts(self):
        module = vmtick_host.load_script("results-to-json")
        self.assertEqual(module.__file__, os.path.join(SCRIPTS, "results-to-json"))
        self.assertTrue(callable(getattr(module, "parse_log", None)),
                        "scripts/results-to-json loaded without its parse_log")

    def test_missing_file_named(self):
        missing = os.path.join(self.tmp.name, "nonesuch-tool")
        with self.assertRaises(FileNotFoundError) as cm:
            vmtick_host.load_script(missing)
        self.assertIn(missing, str(cm.exception), "the error does not name the missing path")


if __name__ == "__main__":
    unittest.main()
