# SPDX-License-Identifier: GPL-2.0-only
"""Small functions: no C function in the tree (lib, common, the kernels, the host tests) has a body
over FUNCTION_MAX_LINES lines (the project's style, docs/design.md)."""
import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCTION_MAX_LINES = 60


def long_functions(path, most=FUNCTION_MAX_LINES):
    """(line of its opening brace, body lines, the line before it) of each function in path whose
    body runs over `most` lines. Kernel style: a function's braces stand alone in column 0; an
    initialiser's opening brace ends the line before it with '='."""
    found, start = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("{") and i and not lines[i - 1].rstrip().endswith("="):
            start = i
        elif line.startswith("}") and start is not None:
            if i - start - 1 > most:
                found.append((start + 1, i - start - 1, lines[start - 1].strip()))
            start = None
    return found


def tracked_c_files():
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=TOP, capture_output=True,
                         text=True, check=True).stdout
    return [os.path.join(TOP, p) for p in out.split()]


class FunctionLength(unittest.TestCase):
    def test_no_long_function(self):
        files = tracked_c_files()
        self.assertTrue(files, "git lists no C file: not a checkout?")
        bad = [f"{os.path.relpath(p, TOP)}:{line}: {n} lines: {sig}"
               for p in files for line, n, sig in long_functions(p)]
        self.assertEqual(bad, [], f"functions over {FUNCTION_MAX_LINES} lines (split them):\n"
                         + "\n".join(bad))

    def test_finds_a_long_function(self):
        body = "\n".join(f"\tx += {k};" for k in range(FUNCTION_MAX_LINES + 1))
        table = "\n".join(f"\t{k}," for k in range(FUNCTION_MAX_LINES + 5))
        text = (f"static int t[] =\n{{\n{table}\n}};\n\nint f(int x)\n{{\n{body}\n}}\n\n"
                "int g(void)\n{\n\treturn 0;\n}\n")
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
            f.write(text)
        try:
            self.assertEqual(long_functions(f.name),
                             [(FUNCTION_MAX_LINES + 11, FUNCTION_MAX_LINES + 1, "int f(int x)")])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
