# SPDX-License-Identifier: GPL-2.0-only
"""The report's sibling scripts (results-to-json, bench-compare) loaded as modules: one parser, one set of statistics."""

import importlib.machinery
import importlib.util
import os

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(filename, module_name):
    """scripts/FILENAME (a script without .py) as the module MODULE_NAME."""
    path = os.path.join(SCRIPTS, filename)
    loader = importlib.machinery.SourceFileLoader(module_name, path)
    spec = importlib.util.spec_from_loader(module_name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
