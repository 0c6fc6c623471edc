# SPDX-License-Identifier: GPL-2.0-only
"""Real x86_64 test kernels for the host-tool tests: one build in a temporary directory, made once per process.

Never the tree's own builds (build/, the in-tree one) unasked: other work
uses those. configure and make take a few seconds (8.5 s here for selftest
and timer-tick); only the kernels asked for are built. make check, which has
just built build/x86_64-gcc from the same sources, names it in
VMTICK_TOOLS_BUILD: the tests then read its kernels and write nothing there.
"""
import atexit
import os
import shutil
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QEMU_X86 = "qemu-system-x86_64"
_built = {}


def missing():
    """Why real kernels cannot run here (for skipTest), or None."""
    for tool in (QEMU_X86, "gcc", "make"):
        if not shutil.which(tool):
            return f"no {tool} on PATH"
    return None


def x86_64_build(*names):
    """A configured x86_64 build directory holding x86/NAME.flat for each name (built on first use)."""
    given = os.environ.get("VMTICK_TOOLS_BUILD")
    if given:
        lacking = [n for n in names if not os.path.exists(os.path.join(given, "x86", f"{n}.flat"))]
        if not os.path.exists(os.path.join(given, "config.mak")) or lacking:
            raise RuntimeError(f"VMTICK_TOOLS_BUILD={given}: not a built x86_64 build "
                               f"(no config.mak, or no x86/NAME.flat for {', '.join(lacking)})")
        return given
    build = _built.get("x86_64")
    if build is None:
        build = tempfile.mkdtemp(prefix="vmtick-tools-build-")
        atexit.register(shutil.rmtree, build, ignore_errors=True)
        subprocess.run([os.path.join(TOP, "configure"), "--arch=x86_64"], cwd=build, check=True,
                       stdout=subprocess.DEVNULL)
        _built["x86_64"] = build
    want = [f"x86/{n}.flat" for n in names if not os.path.exists(os.path.join(build, "x86", f"{n}.flat"))]
    if want:
        subprocess.run(["make", "-s", "-j2", *want], cwd=build, check=True)
    return build
