# SPDX-License-Identifier: GPL-2.0-only
"""The pages a newcomer reads: README.md short, its two commands on its first screen, and dated
history kept on one page (docs/history.md), not scattered through the reference pages."""
import glob
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What a newcomer reads in a minute, and a terminal's first screen.
README_MAX_LINES = 150
FIRST_SCREEN_LINES = 40
TWO_COMMANDS = ("scripts/install-deps.sh && make run", "scripts/install-deps.sh --check && make check")
# The one page that keeps the measured history, dated.
HISTORY = "docs/history.md"
# A calendar date; a date inside backticks is data (a guest's RTC value), not a dated line.
DATE = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")
CODE_SPAN = re.compile(r"`[^`]*`")
# A tree named by its commit (a dated thing too): "tree 0db549a", "commit 0ecd792".
TREE_ID = re.compile(r"\b(tree|commit) [0-9a-f]{7,40}\b")


def dated_lines(path):
    """(line number, line) of each line of path that names a date or a tree outside code spans."""
    found, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                fenced = not fenced
            prose = CODE_SPAN.sub("", line)
            if not fenced and not line.startswith("    ") and (DATE.search(prose) or TREE_ID.search(prose)):
                found.append((n, line.rstrip()))
    return found


class Readme(unittest.TestCase):
    def lines(self):
        with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
            return f.read().splitlines()

    def test_short(self):
        n = len(self.lines())
        self.assertLessEqual(n, README_MAX_LINES,
                             f"README.md has {n} lines, at most {README_MAX_LINES}: move detail to docs/")

    def test_two_commands_on_first_screen(self):
        screen = "\n".join(self.lines()[:FIRST_SCREEN_LINES])
        for command in TWO_COMMANDS:
            self.assertIn(command, screen,
                          f"README.md's first {FIRST_SCREEN_LINES} lines do not show '{command}'")


class DatedLines(unittest.TestCase):
    def test_only_history_is_dated(self):
        pages = ["README.md"] + sorted(glob.glob("docs/**/*.md", root_dir=TOP, recursive=True))
        bad = [f"{page}:{n}: {line}" for page in pages if page != HISTORY
               for n, line in dated_lines(os.path.join(TOP, page))]
        self.assertEqual(bad, [], f"dated lines outside {HISTORY} (move them there):\n" + "\n".join(bad))

    def test_finds_a_dated_line(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("Measured (2026-12-07) on a quiet host.\nA guest's `2023-12-31` is data.\n"
                    "    sample 2026-01-01 in a code block\nRun on tree 0db549a.\n")
        try:
            self.assertEqual([n for n, _ in dated_lines(f.name)], [1, 4])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
