# SPDX-License-Identifier: GPL-2.0-only
"""The host scripts' unit factors are lib/units.h's: the same names, the same values.

What: every name scripts/units.py and scripts/units.bash define is a name of
lib/units.h with the same value, and each defines some.
Why: lib/units.h is the tree's one spelling of each factor (docs/design.md);
the host side needs its own copy (Python and bash cannot include a C header,
and the standalone scripts carry no lib/), which must never drift from it.
How: lib/units.h's #defines are read as text; units.py is imported, and
units.bash sourced by bash, which prints each name it set.
"""
import os
import re
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
sys.path.insert(0, SCRIPTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import units  # noqa: E402  (scripts/units.py)

# "#define NSEC_PER_SEC  1000000000ull"
DEFINE_RE = re.compile(r"^#define\s+([A-Z_]+_PER_[A-Z_]+)\s+(\d+)ull\b", re.M)
# units.bash's assignments, as bash sets them
BASH_NAMES = ('. "$1"; for v in $(compgen -v); do [[ $v == *_PER_* ]] && echo "$v=${!v}"; done; :')


def header():
    with open(os.path.join(TOP, "lib", "units.h"), encoding="utf-8") as f:
        return {name: int(value) for name, value in DEFINE_RE.findall(f.read())}


class Units(unittest.TestCase):
    def check(self, what, got):
        want = header()
        self.assertTrue(got, f"{what} defines no unit factor")
        for name, value in got.items():
            self.assertIn(name, want, f"{what}: {name} is not a name of lib/units.h")
            self.assertEqual(value, want[name], f"{what}: {name} is {value}, lib/units.h says {want[name]}")

    def test_header_is_read(self):
        self.assertEqual(header().get("NSEC_PER_SEC"), 10 ** 9)

    def test_python(self):
        self.check("scripts/units.py", {k: v for k, v in vars(units).items() if "_PER_" in k})

    def test_bash(self):
        out = subprocess.run(["bash", "-c", BASH_NAMES, "units", os.path.join(SCRIPTS, "units.bash")],
                             capture_output=True, text=True, check=True).stdout
        self.check("scripts/units.bash", dict((k, int(v)) for k, v in (ln.split("=") for ln in out.split())))


if __name__ == "__main__":
    unittest.main()
