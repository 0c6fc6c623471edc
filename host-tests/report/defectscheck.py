# SPDX-License-Identifier: GPL-2.0-only
"""Checks of a report page's known QEMU defects table: a column per QEMU of the run, a cell per defect and column, each defect once."""
import re
from collections import Counter
from html.parser import HTMLParser

# a suite's QEMU cell in the overview naming one version ("10.0.2"), not several or none
ONE_VERSION_RE = re.compile(r"^\d+\.\d+(?:\.\d+)?$")


class Table(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.section = False       # inside section#defects
        self.columns = []          # the header's QEMU versions, in order
        self.rows = []             # [defect id, [cell's QEMU version]]
        self.suite_qemu = []       # the overview's QEMU cells
        self.cell = None           # the overview's QEMU cell being read

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "section":
            self.section = a.get("id") == "defects"
        if tag == "td" and "qemu" in a.get("class", "").split():
            self.cell = ""
        if not self.section:
            return
        if tag == "th" and "data-qemu" in a:
            self.columns.append(a["data-qemu"])
        if tag == "tr" and "data-defect" in a:
            self.rows.append([a["data-defect"], []])
        if tag == "td" and "data-qemu" in a and self.rows:
            self.rows[-1][1].append(a["data-qemu"])

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.suite_qemu.append(self.cell.strip())
            self.cell = None


def check(text):
    """Every fault of the defects table, as messages (none when the page has no such section)."""
    if 'id="defects"' not in text:
        return []
    t = Table()
    t.feed(text)
    t.close()
    errors = [f"defects: QEMU {v}, a suite's in the overview, has no column"
              for v in sorted(set(t.suite_qemu)) if ONE_VERSION_RE.match(v) and v not in t.columns]
    errors += [f"defects: column QEMU {v} given {n} times" for v, n in Counter(t.columns).items()
               if n > 1]
    for name, cells in t.rows:
        if cells != t.columns:
            errors.append(f"defects: row {name} has cells for QEMU {', '.join(cells) or 'none'}, "
                          f"the columns are {', '.join(t.columns)}")
    errors += [f"defects: defect {name} has {n} rows" for name, n in
               Counter(name for name, _ in t.rows).items() if n > 1]
    return errors
