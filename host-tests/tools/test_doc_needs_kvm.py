# SPDX-License-Identifier: GPL-2.0-only
"""The doc test's needs-kvm annotation: run where KVM is usable, skipped with the reason where it is not (scripts/without-kvm)."""
import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(TOP, "host-tests", "doc", "run.py")

PAGE = """# A page

<!-- doc-test: needs-kvm it names -accel kvm -->

    true --accel kvm

Another block:

    true anywhere
"""


def kvm_problem():
    script = 'SRCDIR="$1"; . "$SRCDIR/scripts/arch.bash"; arch_kvm_problem x86_64'
    return subprocess.run(["bash", "-c", script, "kvm", TOP], capture_output=True,
                          text=True).stdout.strip()


class NeedsKvm(unittest.TestCase):
    def listing(self, *wrap):
        with tempfile.NamedTemporaryFile("w", suffix=".md", dir=TOP, delete=False) as f:
            f.write(PAGE)
        try:
            page = os.path.relpath(f.name, TOP)
            out = subprocess.run([*wrap, RUN, "--list", page], capture_output=True, text=True,
                                 cwd=TOP)
        finally:
            os.unlink(f.name)
        return page, out

    def test_bad_annotation_names_needs_kvm(self):
        with tempfile.NamedTemporaryFile("w", suffix=".md", dir=TOP, delete=False) as f:
            f.write("<!-- doc-test: needs-kvm -->\n\n    true\n")
        try:
            out = subprocess.run([RUN, "--list", os.path.relpath(f.name, TOP)],
                                 capture_output=True, text=True, cwd=TOP)
        finally:
            os.unlink(f.name)
        self.assertEqual(out.returncode, 2)
        self.assertIn("bad annotation 'needs-kvm'", out.stderr)

    @unittest.skipIf(kvm_problem(), "KVM is not usable here: the block is skipped, tested below")
    def test_runs_where_kvm_is_usable(self):
        page, out = self.listing()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn(f"run  {page}:5: true --accel kvm", out.stdout)

    def test_skipped_without_kvm_naming_why(self):
        wrap = [] if kvm_problem() else [os.path.join(TOP, "scripts", "without-kvm")]
        if wrap and os.geteuid() != 0:
            self.skipTest("hiding /dev/kvm here needs root")
        page, out = self.listing(*wrap)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, rf"skip {page}:5: needs KVM, not usable here \(.+\): "
                                     "it names -accel kvm")
        self.assertIn(f"run  {page}:9: true anywhere", out.stdout)


if __name__ == "__main__":
    unittest.main()
