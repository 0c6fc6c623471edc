# SPDX-License-Identifier: GPL-2.0-only
"""A page rendered by Debian's chromium, headless: its screenshot, and every console message it logged is an error."""
import os
import re
import shutil
import subprocess
import tempfile

BROWSERS = ("chromium", "chromium-browser")
WIDTH = 1400
# the page's height, guessed from its size (a make run's 160 KB page is about
# 8800 px tall), so that the screenshot holds all of it
BYTES_PER_PX = 18
HEIGHT_MIN, HEIGHT_MAX = 2000, 16000
TIMEOUT_S = 120
# chromium's log line for a console message: "[...:INFO:CONSOLE:1] "Uncaught ...", source: ..."
# (older releases: "CONSOLE(1)")
CONSOLE_RE = re.compile(r":CONSOLE[(:]\d*\)?\]? ?(.*)$")
# what chromium logs for a resource it could not load (a page that fetches from elsewhere)
LOAD_RE = re.compile(r"net::ERR_|Failed to load resource")
INSTALL_HINT = ("install it with scripts/install-deps.sh --check (Debian: apt-get install "
                "chromium): make check renders the report in it")


class BrowserError(Exception):
    pass


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise BrowserError(f"no chromium on PATH: {INSTALL_HINT}")


def window_for(page):
    height = os.path.getsize(page) // BYTES_PER_PX
    return f"{WIDTH},{min(max(height, HEIGHT_MIN), HEIGHT_MAX)}"


def render(page, png):
    """Screenshot page (an HTML file) to png; the console messages and load errors it logged."""
    exe = browser()
    window = window_for(page)
    with tempfile.TemporaryDirectory(prefix="vmtick-chromium-") as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}",
               f"--screenshot={os.path.abspath(png)}", f"--window-size={window}",
               "file://" + os.path.abspath(page)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                               check=False, env=dict(os.environ, HOME=profile))
        except subprocess.TimeoutExpired as e:
            raise BrowserError(f"chromium did not finish in {TIMEOUT_S} s") from e
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        raise BrowserError(f"chromium wrote no screenshot (status {r.returncode}): "
                           + r.stderr.strip()[-500:])
    messages = []
    for line in r.stderr.splitlines():
        m = CONSOLE_RE.search(line)
        if m:
            messages.append("console: " + m.group(1))
        elif LOAD_RE.search(line):
            messages.append("load: " + line.strip())
    return messages


def check(page, png):
    """Render page to png; BrowserError when the browser logged anything on the console."""
    messages = render(page, png)
    if messages:
        raise BrowserError(f"{page}: {len(messages)} console message(s) in chromium: "
                           + "; ".join(messages[:5]))
    return png
