# SPDX-License-Identifier: GPL-2.0-only
"""Checks of a report page's shape: the overview first, every suite in it with its verdict and QEMU version, the closest figures ordered and linked, no empty section or plot."""
import re
from collections import Counter
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
COUNT_RE = re.compile(r"^(\d+) (\S+)$")
# what makes a section non-empty: a chart, a table, a pair of them side by side
BLOCK_CLASSES = {"block", "blockpair"}


class Shape(HTMLParser):
    """What the checks below need of a page, read with Python's own HTML parser."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []            # (tag, attrs) of the open elements
        self.first = None          # the first <section> or <h2>: (tag, id, class)
        self.ids = Counter()
        self.suite_rows = []       # [anchor, side, worst, counts text, QEMU cell]
        self.closest = []          # (share text, href)
        self.outcomes = {}         # (group anchor, side) -> Counter of its verdicts' outcomes
        self.groups = []           # (anchor, side) of each suite section's sides
        self.qemu = {}             # (anchor, side) -> the QEMU version its section names
        self.parts = []            # [group anchor, title, blocks]
        self.svgs = []             # [title, figures]
        self.text = None           # [what, text] being read

    def inner(self, name):
        """The value of attribute name on the innermost open element that has it."""
        return next((a[name] for _, a in reversed(self.stack) if name in a), None)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        classes = set(a.get("class", "").split())
        if tag in ("section", "h2") and self.first is None:
            self.first = (tag, a.get("id", ""), a.get("class", ""))
        if "id" in a:
            self.ids[a["id"]] += 1
        self.opened(tag, a, classes)
        if tag not in VOID:
            self.stack.append((tag, a))

    def opened(self, tag, a, classes):
        if "data-overview-suite" in a:
            self.suite_rows.append([a["data-overview-suite"], a.get("data-side", ""),
                                    a.get("data-worst", ""), "", None])
        if "data-share" in a:
            self.closest.append([a["data-share"], None])
        if tag == "a" and self.closest and self.closest[-1][1] is None and self.inner("data-share"):
            self.closest[-1][1] = a.get("href", "")
        group = (self.inner("data-suite-key"), a.get("data-side"))
        if "data-suite" in a and group[0] and "data-side" in a and group not in self.groups:
            self.groups.append(group)
            self.qemu[group] = a.get("data-qemu")
        if tag == "td" and "counts" in classes and self.suite_rows:
            self.text = ["counts", ""]
        if tag == "td" and "qemu" in classes and self.suite_rows:
            self.text = ["qemu", ""]
        if tag == "td" and "outcome" in classes and self.inner("data-suite-key"):
            self.text = ["outcome", ""]
        if "part" in classes:
            self.parts.append([self.inner("data-suite-key"), "", 0])
        if tag == "h3" and self.parts and self.in_part():
            self.text = ["part", ""]
        if classes & BLOCK_CLASSES and self.parts and self.in_part():
            self.parts[-1][2] += 1
        if tag == "svg":
            self.svgs.append(["untitled", 0])
        if tag == "title" and self.in_tag("svg"):
            self.text = ["svg", ""]
        if ("data-fig" in a or "data-from" in a) and self.in_tag("svg"):
            self.svgs[-1][1] += 1

    def in_part(self):
        return any("part" in a.get("class", "").split() for _, a in self.stack)

    def in_tag(self, tag):
        return any(t == tag for t, _ in self.stack)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_data(self, data):
        if self.text:
            self.text[1] += data

    def handle_endtag(self, tag):
        if tag in VOID or not self.stack:
            return
        if self.text and tag in ("td", "h3", "title"):
            self.read(*self.text)
            self.text = None
        self.stack.pop()

    def read(self, what, text):
        text = text.strip()
        if what == "counts":
            self.suite_rows[-1][3] = text
        elif what == "qemu":
            self.suite_rows[-1][4] = text
        elif what == "outcome":
            key = (self.inner("data-suite-key"), self.inner("data-side") or "")
            self.outcomes.setdefault(key, Counter())[text] += 1
        elif what == "part":
            self.parts[-1][1] = text
        elif what == "svg" and self.svgs[-1][0] == "untitled":
            self.svgs[-1][0] = text


def parse_counts(text):
    """'1 FAIL, 3 PASS' -> Counter; None when it does not read so."""
    out = Counter()
    for item in text.split(", "):
        m = COUNT_RE.match(item.strip())
        if not m:
            return None
        out[m.group(2)] += int(m.group(1))
    return out


def check_first(shape):
    if shape.first is None or shape.first[1] != "overview":
        what = "nothing" if shape.first is None else \
            f"<{shape.first[0]} id=\"{shape.first[1]}\" class=\"{shape.first[2]}\">"
        return [f"overview: the page opens with {what}, not the overview (section#overview)"]
    return []


def side_name(side):
    return f" (side {side})" if side else ""


def check_suites(shape):
    """Every suite section has its overview row, whose counts and worst outcome are its verdicts'."""
    errors = []
    rows = {(anchor, side): (worst, counts) for anchor, side, worst, counts, _ in shape.suite_rows}
    for key in shape.groups:
        if key not in rows:
            errors.append(f"overview: suite {key[0]}{side_name(key[1])} has a section but no "
                          "row in the overview")
            continue
        worst, text = rows[key]
        want = shape.outcomes.get(key, Counter())
        got = parse_counts(text)
        if got != want:
            listed = ", ".join(f"{n} {o}" for o, n in sorted(want.items()))
            errors.append(f"overview: suite {key[0]}{side_name(key[1])} lists outcomes "
                          f"'{text}', its verdicts table has {listed or 'none'}")
        if worst not in want:
            errors.append(f"overview: suite {key[0]}{side_name(key[1])}'s worst outcome "
                          f"'{worst}' is none of its tests'")
    for anchor, side in rows:
        if (anchor, side) not in shape.groups:
            errors.append(f"overview: row of suite {anchor}{side_name(side)} has no section "
                          "on the page")
    return errors


def check_qemu(shape):
    """Every suite's row names the QEMU version its section names (data-qemu)."""
    errors = []
    for anchor, side, _, _, cell in shape.suite_rows:
        want = shape.qemu.get((anchor, side))
        if want is not None and cell != want:
            errors.append(f"overview: suite {anchor}{side_name(side)} ran under QEMU "
                          f"'{want}' (its section), its row says '{cell}'")
    return errors


def check_closest(shape):
    """The closest figures: ordered by share, largest first; each links to an id on the page."""
    errors, last = [], None
    for i, (share_text, href) in enumerate(shape.closest, 1):
        try:
            share = float(share_text)
        except ValueError:
            errors.append(f"overview: closest figure {i} has share '{share_text}', no number")
            continue
        if last is not None and share > last:
            errors.append(f"overview: closest figures out of order: figure {i} uses {share:.3g} "
                          f"of its bound, figure {i - 1} before it only {last:.3g}")
        last = share
        if not href or not href.startswith("#") or shape.ids[href[1:]] == 0:
            errors.append(f"overview: closest figure {i} links to '{href}', no such id on the page")
    return errors


def check_empty(shape):
    """No section heading without a chart or table under it; no plot without a figure."""
    errors = [f"page: section '{title}' of suite {anchor} holds no chart or table "
              "(an empty section)" for anchor, title, blocks in shape.parts if blocks == 0]
    errors += [f"page: SVG {i} ({title}) holds no figure (an empty plot)"
               for i, (title, figures) in enumerate(shape.svgs, 1) if figures == 0]
    errors += [f"page: id '{i}' used {n} times" for i, n in shape.ids.items() if n > 1]
    return errors


def check_shape(text):
    """Every fault of the page's shape, as messages (an empty list: none)."""
    shape = Shape()
    shape.feed(text)
    shape.close()
    return (check_first(shape) + check_suites(shape) + check_qemu(shape) + check_closest(shape)
            + check_empty(shape))
