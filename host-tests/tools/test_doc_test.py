# SPDX-License-Identifier: GPL-2.0-only
"""The doc test's reading of Markdown (host-tests/doc/mdblocks.py): which blocks are commands, their lines, the annotations."""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "host-tests", "doc"))
import mdblocks as pages  # noqa: E402  (host-tests/doc/mdblocks.py)

PAGE = """# A page

Text with `make check` in it, not a block.

    ./run_tests.sh -g timer        # a comment after it
    # a comment line
    qemu-system-x86_64 -machine pc \\
        -kernel x.flat

Output, not commands:

    PASS    selftest-smp1 (0.21 s)
    name               iterations

<!-- doc-test: skip a synopsis -->

    scripts/timer-overhead.py [--arch A]
        [--sources a,b]

<!-- doc-test: exit 1 (QEMU's status for a pass) -->
```
qemu-system-x86_64 -kernel x.flat
```

```c
#include "gic.h"
```

```sh
FOO=1 make -s
```

```text
./run_tests.sh -h
```

<!-- doc-test: sikp typo -->

    make
"""


class Reading(unittest.TestCase):
    def setUp(self):
        self.blocks, self.errors = pages.page_commands("PAGE.md", PAGE, TOP)

    def test_command_blocks_and_lines(self):
        got = [(b.line, b.lines, b.skip, b.exit) for b in self.blocks]
        want = [
            (5, [(5, "./run_tests.sh -g timer        # a comment after it"),
                 (7, "qemu-system-x86_64 -machine pc      -kernel x.flat")], None, 0),
            (17, [(17, "scripts/timer-overhead.py [--arch A]"), (18, "[--sources a,b]")],
             "a synopsis", 0),
            (22, [(22, "qemu-system-x86_64 -kernel x.flat")], None, 1),
            (30, [(30, "FOO=1 make -s")], None, 0),
            (39, [(39, "make")], None, 0),
        ]
        self.assertEqual(got, want)

    def test_bad_annotation_names_its_line(self):
        self.assertEqual(len(self.errors), 1)
        self.assertIn("PAGE.md:37: bad annotation 'sikp typo'", self.errors[0])

    def test_where_names_file_and_line(self):
        self.assertEqual(self.blocks[0].where(7), "PAGE.md:7")

    def test_the_real_pages_parse(self):
        # every annotation in README.md and docs/*.md is well-formed
        for name in ["README.md"] + [os.path.join("docs", f) for f in
                                      sorted(os.listdir(os.path.join(TOP, "docs")))]:
            if not name.endswith(".md"):
                continue
            with open(os.path.join(TOP, name), encoding="utf-8") as f:
                _, errors = pages.page_commands(name, f.read(), TOP)
            self.assertEqual(errors, [], name)


if __name__ == "__main__":
    unittest.main()


class Running(unittest.TestCase):
    """host-tests/doc/run.py on a page of its own: statuses, file:line, skips, repeats."""

    def test_a_failing_command_is_named_by_file_and_line(self):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            page = os.path.join(d, "page.md")
            with open(page, "w", encoding="utf-8") as f:
                f.write("Text.\n\n    true\n    false   # fails\n    true\n\n"
                        "<!-- doc-test: exit 1 (expected) -->\n\n    false\n\n"
                        "<!-- doc-test: skip not here -->\n\n    false\n\n"
                        "<!-- doc-test: expect ^bye$ -->\n    echo hello\n\n"
                        "<!-- doc-test: exit 3 -->\n<!-- doc-test: expect ^hello$ -->\n\n"
                        "    echo hello; exit 3\n")
            r = subprocess.run([sys.executable, os.path.join(TOP, "host-tests", "doc", "run.py"), page],
                               capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(f"FAIL {page}:4: exit 1, want 0: false   # fails", r.stdout)
        self.assertIn(f"ok   {page}:3", r.stdout)
        self.assertIn(f"same {page}:5: as {page}:3", r.stdout)
        self.assertIn(f"ok   {page}:9", r.stdout)
        self.assertIn(f"skip {page}:13: not here", r.stdout)
        self.assertIn(f"FAIL {page}:16: no output line matches '^bye$': echo hello", r.stdout)
        self.assertIn(f"ok   {page}:21", r.stdout)
        self.assertIn("4 of 6 commands passed, 2 failed, 1 blocks skipped", r.stdout)

    def test_export_logs_copies_that_blocks_logs_only(self):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            page, dest = os.path.join(d, "page.md"), os.path.join(d, "out")
            with open(page, "w", encoding="utf-8") as f:
                f.write("<!-- doc-test: export-logs the suite's verdicts -->\n\n"
                        "    mkdir -p logs/r && echo hi > logs/r/f && echo \"log: $PWD/logs/r/f\" > logs/r/t.tap\n"
                        "\nText.\n\n    mkdir -p logs/q\n")
            r = subprocess.run([sys.executable, os.path.join(TOP, "host-tests", "doc", "run.py"),
                                "--export-logs", dest, page], capture_output=True, text=True, check=False)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(dest, "r", "f"), encoding="utf-8") as f:
                self.assertEqual(f.read(), "hi\n")
            self.assertFalse(os.path.exists(os.path.join(dest, "q")), "a later block's logs exported")
            with open(os.path.join(dest, "r", "t.tap"), encoding="utf-8") as f:
                self.assertEqual(f.read(), f"log: {dest}/r/f\n", "a path into the removed copy")

    def test_an_annotation_before_no_block_is_an_error(self):
        _, errors = pages.page_commands("P.md", "<!-- doc-test: skip why -->\n\nText.\n", TOP)
        self.assertEqual(errors, ["P.md:1: annotation 'skip why' before no code block"])
