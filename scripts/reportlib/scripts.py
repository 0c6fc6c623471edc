# SPDX-License-Identifier: GPL-2.0-only
"""The report's sibling scripts (results-to-json, bench-compare) loaded as modules: one parser, one set of statistics."""

# load_script(filename, module_name): scripts/vmtick_host.py's, the one loader
# of a script as a module (scripts/report puts scripts/ on the path)
from vmtick_host import load_script  # noqa: F401
