# SPDX-License-Identifier: GPL-2.0-only
"""Checks of a report page (scripts/report): real parsers for its HTML and SVG, its shape (overviewcheck), its figures against results.json."""
import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import defectscheck
import overviewcheck

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
# SVG elements written self-closed (<rect/>): the HTML parser reports them as start and end
SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)
SVG_TITLE_RE = re.compile(r"<title>(.*?)</title>", re.S)
REMOTE_RE = re.compile(r"^(?:[a-z]+:)?//", re.I)
CSS_FETCH_RE = re.compile(r"@import|url\(", re.I)
# a figure of results.json that lib/bench attaches to its row (scripts/results-to-json)
STATS = ("min_ns", "max_ns", "mean_ns", "mad_ns", "overhead_ns", "iterations", "batches")


class PageError(Exception):
    pass


class Page(HTMLParser):
    """The page's structure: tags balanced, nothing fetched, no script; every tagged figure's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.figures = [], [], []
        self.suite = []            # (data-suite, data-logdir) of the enclosing blocks
        self.capture = None        # [ref, text, suite, depth] of the figure being read

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        line = self.getpos()[0]
        if tag == "script":
            self.errors.append(f"line {line}: a <script>: the page must hold none")
        for name in ("src", "href"):
            if a.get(name) and REMOTE_RE.match(a[name]):
                self.errors.append(f"line {line}: <{tag} {name}=\"{a[name]}\"> fetches from "
                                   "elsewhere")
        if tag == "link":
            self.errors.append(f"line {line}: a <link>: styles must be inline")
        if tag in VOID:
            return
        self.stack.append((tag, line, "data-suite" in a))
        if "data-suite" in a:
            self.suite.append((a["data-suite"], a.get("data-logdir", "")))
        if "data-fig" in a:
            if self.capture:
                self.errors.append(f"line {line}: a figure inside figure {self.capture[0]}")
            self.capture = [a["data-fig"], "", self.suite[-1] if self.suite else None,
                            len(self.stack)]

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        line = self.getpos()[0]
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append(f"line {line}: </{tag}> closes nothing")
            return
        open_tag, open_line, is_suite = self.stack.pop()
        if open_tag != tag:
            self.errors.append(f"line {line}: </{tag}> closes <{open_tag}> of line {open_line}")
        if is_suite:
            self.suite.pop()
        if self.capture and len(self.stack) < self.capture[3]:
            self.figures.append(tuple(self.capture[:3]))
            self.capture = None

    def handle_data(self, data):
        if self.capture:
            self.capture[1] += data
        if self.stack and self.stack[-1][0] == "style" and CSS_FETCH_RE.search(data):
            self.errors.append("the style fetches from elsewhere (@import or url())")

    def close(self):
        super().close()
        for tag, line, _ in self.stack:
            self.errors.append(f"<{tag}> of line {line} is never closed")


def parse_html(text):
    """The parsed page; PageError naming every fault the HTML parser's walk found."""
    p = Page()
    p.feed(text)
    p.close()
    if p.errors:
        raise PageError("HTML: " + "; ".join(p.errors[:5]))
    if "<!DOCTYPE html>" not in text[:100]:
        raise PageError("HTML: no <!DOCTYPE html> at the top")
    return p


def parse_svgs(text):
    """How many SVGs; PageError for the first the XML parser refuses, with its title."""
    svgs = SVG_RE.findall(text)
    for i, svg in enumerate(svgs):
        try:
            root = ET.fromstring(svg)
        except ET.ParseError as e:
            title = SVG_TITLE_RE.search(svg)
            raise PageError(f"SVG {i + 1} ({title.group(1) if title else 'untitled'}): not "
                            f"XML: {e}") from e
        if root.tag != "{http://www.w3.org/2000/svg}svg":
            raise PageError(f"SVG {i + 1}: root is {root.tag}, not an SVG element")
    return len(svgs)


def results_value(doc, test, name):
    """The figure of results.json: a run's benchmark, or a statistic attached to its row."""
    for run in doc.get("runs", []):
        if run.get("test") != test:
            continue
        b = run.get("benchmarks", {})
        if name in b and "value" in b[name]:
            return b[name]["value"]
        parent, _, stat = name.rpartition(".")
        if stat in STATS and parent in b and stat in b[parent]:
            return b[parent][stat]
    raise KeyError(f"{test}/{name}")


def load_results(logdir, suite, cache):
    path = os.path.normpath(os.path.join(logdir, suite, "results.json"))
    if path not in cache:
        try:
            with open(path, encoding="utf-8") as f:
                cache[path] = json.load(f)
        except (OSError, ValueError) as e:
            raise PageError(f"{path}: {e}") from e
    return path, cache[path]


def check_figures(page):
    """Every figure on the page equals results.json's; returns how many were compared."""
    cache, wrong = {}, []
    for ref, text, suite in page.figures:
        if suite is None:
            wrong.append(f"figure {ref} is outside any suite's block")
            continue
        test, _, name = ref.partition("|")
        path, doc = load_results(suite[1], suite[0], cache)
        try:
            want = results_value(doc, test, name)
        except KeyError:
            wrong.append(f"figure {test}/{name} on the page is not in {path}")
            continue
        try:
            got = float(text.strip())
        except ValueError:
            wrong.append(f"figure {test}/{name} on the page reads '{text}', no number")
            continue
        if not isinstance(want, (int, float)) or got != float(want):
            wrong.append(f"figure {test}/{name} on the page is {text.strip()}, {path} has "
                         f"{want}")
    if wrong:
        raise PageError(f"{len(wrong)} of {len(page.figures)} figures differ from results.json: "
                        + "; ".join(wrong[:5]))
    return len(page.figures)


def check_page(path):
    """(figures compared, SVGs parsed) of a report page; PageError for the first fault."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = parse_html(text)
    svgs = parse_svgs(text)
    faults = overviewcheck.check_shape(text) + defectscheck.check(text)
    if faults:
        raise PageError(f"{len(faults)} fault(s) of the page's shape: " + "; ".join(faults[:5]))
    return check_figures(page), svgs
