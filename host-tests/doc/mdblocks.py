# SPDX-License-Identifier: GPL-2.0-only
"""Finding the commands a Markdown page shows, by the convention host-tests/doc/run.py documents; no side effects."""
import os
import re
import shutil

# <!-- doc-test: skip REASON -->, <!-- doc-test: exit N -->, <!-- doc-test: expect REGEX -->,
# <!-- doc-test: export-logs WHY -->
ANNOTATION_RE = re.compile(r"^\s*<!--\s*doc-test:\s*(\S+)\s*(.*?)\s*-->\s*$")
FENCE_RE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
# fenced blocks in these languages (or none) may hold commands; others never do
SHELL_LANGUAGES = ("", "sh", "shell", "bash", "console")
ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
# shell words that start a command without being a program
SHELL_KEYWORDS = ("cd", "for", "if", "while", "(")


class Block:
    """A code block: where it starts, its logical lines, and what its annotation says."""

    def __init__(self, path, line, lines, language):
        self.path = path
        self.line = line          # 1-based line of its first line
        self.lines = lines        # [(line number, text)] with continuations joined
        self.language = language  # fenced: the info string; indented: None
        self.skip = None          # the reason, when annotated skip
        self.exit = 0             # the status every command must end with
        self.expect = None        # a regular expression each command's output must match
        self.export = None        # why its logs/ go to run.py --export-logs DIR, when annotated so
        self.needs_kvm = None     # why it needs KVM, when annotated needs-kvm
        self.error = None         # a bad annotation

    def where(self, line=None):
        return f"{self.path}:{line or self.line}"


def logical_lines(numbered):
    """Join lines that end with a backslash; drop blank and comment-only lines."""
    out, pending, start = [], "", None
    for no, text in numbered:
        if start is None:
            start = no
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        full = (pending + text).strip()
        pending = ""
        if full and not full.startswith("#"):
            out.append((start, full))
        start = None
    if pending.strip():
        out.append((start, pending.strip()))
    return out


def split_blocks(path, text):
    """Every fenced and indented code block of a page, with the annotation before it."""
    lines = text.splitlines()
    errors = []
    blocks, annotation, i = [], [], 0
    prev_blank = True
    while i < len(lines):
        line = lines[i]
        m = ANNOTATION_RE.match(line)
        if m:
            annotation.append((i + 1, m.group(1), m.group(2)))
            i += 1
            continue
        f = FENCE_RE.match(line)
        if f:
            fence, body, j = f.group(2), [], i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                body.append((j + 1, lines[j][len(f.group(1)):]))
                j += 1
            blocks.append((Block(path, i + 2, logical_lines(body), f.group(3)), annotation))
            annotation, i, prev_blank = [], j + 1, False
            continue
        if prev_blank and line.startswith("    ") and line.strip():
            body, j = [], i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                body.append((j + 1, lines[j][4:]))
                j += 1
            blocks.append((Block(path, i + 1, logical_lines(body), None), annotation))
            annotation, i = [], j
            continue
        if line.strip():
            # an annotation belongs to the block right after it (blank lines allowed)
            for no, verb, rest in annotation:
                errors.append(f"{path}:{no}: annotation '{verb} {rest}' before no code block")
            annotation = []
        prev_blank = not line.strip()
        i += 1
    out = []
    for block, anns in blocks:
        for ann in anns:
            apply_annotation(block, *ann)
        out.append(block)
    return out, errors


def apply_annotation(block, line, verb, rest):
    if verb == "skip" and rest:
        block.skip = rest
    elif verb == "exit" and re.fullmatch(r"\d{1,3}( .*)?", rest):
        block.exit = int(rest.split()[0])
    elif verb == "expect" and rest:
        try:
            block.expect = re.compile(rest, re.M)
        except re.error as e:
            block.error = f"{block.path}:{line}: expect: bad regular expression: {e}"
    elif verb == "export-logs" and rest:
        block.export = rest
    elif verb == "needs-kvm" and rest:
        block.needs_kvm = rest
    else:
        block.error = (f"{block.path}:{line}: bad annotation '{f'{verb} {rest}'.rstrip()}'" +
                       ": want <!-- doc-test: skip REASON -->, <!-- doc-test: exit N -->, "
                       "<!-- doc-test: expect REGEX -->, <!-- doc-test: export-logs WHY --> "
                       "or <!-- doc-test: needs-kvm WHY -->")


def first_word(command):
    """The program a command line starts with, after VAR=value assignments."""
    for word in command.split():
        if not ASSIGNMENT_RE.match(word):
            return word
    return ""


def is_command(word, top):
    """A program of this tree (./x, scripts/x), one on PATH, or a shell keyword."""
    if word in SHELL_KEYWORDS:
        return True
    if "/" in word:
        path = os.path.join(top, word)
        return os.path.isfile(path) and os.access(path, os.X_OK)
    return shutil.which(word) is not None


def command_block(block, top):
    """A block holds commands when its first line starts with one (and its language allows)."""
    if block.language is not None and block.language.lower() not in SHELL_LANGUAGES:
        return False
    return bool(block.lines) and is_command(first_word(block.lines[0][1]), top)


def page_commands(path, text, top):
    """(command blocks, annotation errors) of one page."""
    blocks, errors = split_blocks(path, text)
    errors += [b.error for b in blocks if b.error]
    return [b for b in blocks if command_block(b, top) or b.skip or b.exit or b.expect or b.export], errors
