# SPDX-License-Identifier: GPL-2.0-only
"""scripts/qemu_proc.py: a QEMU's console copied whole with the guest's lines picked out, its messages kept, its stop.

What: copy_console() writes every byte through in order and hands on each
complete line with the prefix (across chunk boundaries, CR dropped, the
read's stamp, after its chunk was written); keep_messages() passes stderr
on and keeps the non-empty lines; qemu_says() quotes the last three;
stop() ends a process that ignores SIGTERM; exit_status() maps a signal
to 128 + n. Why: the lifecycle helper and the host-evidence agent both
serve the guest through these, and a QEMU left behind holds the machine.
How: literal chunks through a stand-in stream; real child processes
(sh) for stop().
"""
import io
import os
import signal
import subprocess
import sys
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import qemu_proc  # noqa: E402


class Chunks:
    """A stream whose read1() returns the given chunks, then b''."""

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def read1(self, _n):
        return self.chunks.pop(0) if self.chunks else b""


class Console(unittest.TestCase):
    def copy(self, chunks, prefix="REQ: "):
        out, lines, seen = [], [], []
        ticks = iter(range(100, 200))

        def on_line(stamp, text):
            lines.append((stamp, text))
            seen.append(b"".join(out))      # what was written when the line was handed on
        qemu_proc.copy_console(Chunks(chunks), out.append, prefix, on_line, clock=lambda: next(ticks))
        return b"".join(out), lines, seen

    def test_every_byte_passes_in_order(self):
        chunks = [b"boot\r\nREQ: pa", b"use 1\r\nmore\n", b"tail without newline"]
        out, _, _ = self.copy(chunks)
        self.assertEqual(out, b"".join(chunks))

    def test_prefixed_lines_across_chunks_with_the_stamp_of_their_last_chunk(self):
        _, lines, _ = self.copy([b"boot\r\nREQ: pa", b"use 1\r\nREQ: x\nno REQ: y\n", b"REQ: z"])
        self.assertEqual(lines, [(101, "pause 1"), (101, "x")])

    def test_a_line_is_handed_on_after_its_chunk_is_written(self):
        _, _, seen = self.copy([b"REQ: a\n"])
        self.assertEqual(seen, [b"REQ: a\n"])

    def test_non_ascii_is_replaced(self):
        _, lines, _ = self.copy([b"REQ: \xff\n"])
        self.assertEqual(lines, [(100, "\ufffd")])


class Messages(unittest.TestCase):
    def test_kept_and_passed_on(self):
        proc = subprocess.Popen(["sh", "-c", "echo one >&2; echo >&2; echo two >&2; echo three >&2; "
                                 "echo four >&2"], stderr=subprocess.PIPE)
        proc.errors = []
        out = io.BytesIO()
        qemu_proc.keep_messages(proc, out)
        proc.wait()
        self.assertEqual(out.getvalue(), b"one\n\ntwo\nthree\nfour\n")
        self.assertEqual(proc.errors, ["one", "two", "three", "four"])
        self.assertEqual(qemu_proc.qemu_says(proc), ": two; three; four")

    def test_nothing_said(self):
        proc = subprocess.Popen(["true"])
        proc.errors = []
        self.assertEqual(qemu_proc.qemu_says(proc), "")


class Stop(unittest.TestCase):
    def test_sigterm_then_sigkill(self):
        polite = qemu_proc.start(["sh", "-c", "sleep 30"])
        # "ready" once its SIGTERM trap is set: it ignores SIGTERM, as a hung QEMU may
        stubborn = qemu_proc.start(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"])
        self.assertEqual(stubborn.stdout.readline(), b"ready\n")
        t = time.monotonic()
        qemu_proc.stop([polite, stubborn], grace=0.3)
        self.assertLess(time.monotonic() - t, 5)
        self.assertEqual(polite.returncode, -signal.SIGTERM)
        self.assertEqual(stubborn.returncode, -signal.SIGKILL)
        for p in (polite, stubborn):
            p.stdin.close()
            p.stdout.close()

    def test_start_gives_pipes_and_an_error_list(self):
        p = qemu_proc.start(["cat"])
        p.stdin.write(b"hello\n")
        p.stdin.close()
        self.assertEqual(p.stdout.read(), b"hello\n")
        p.stdout.close()
        self.assertEqual((p.wait(), p.errors), (0, []))

    def test_exit_status(self):
        self.assertEqual([qemu_proc.exit_status(st) for st in (0, 1, 3, -9, -15)], [0, 1, 3, 137, 143])


if __name__ == "__main__":
    unittest.main()
