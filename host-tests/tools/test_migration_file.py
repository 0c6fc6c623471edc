# SPDX-License-Identifier: GPL-2.0-only
"""scripts/migration_file.py: a saved state written to a file from QEMU's outgoing migration, and fed back.

What: FileWriter writes every byte one connection sends (more than one
receive's worth) and says when nothing came in time; feed_file() sends a
file whole to a listener and names the socket nobody listened on. Why: a
save/restore whose state is cut short restores a different guest, or
none. How: the test plays QEMU's side on UNIX sockets in a private
directory; the timeouts are shortened.
"""
import os
import socket
import sys
import tempfile
import threading
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import migration_file as mf  # noqa: E402

STATE = bytes(range(256)) * 1000        # 256 kB: several receives


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.sock = os.path.join(self.dir.name, "m.sock")
        self.state = os.path.join(self.dir.name, "state")

    def short(self, name, value):
        old = getattr(mf, name)
        setattr(mf, name, value)
        self.addCleanup(setattr, mf, name, old)

    def test_the_writer_keeps_every_byte(self):
        writer = mf.FileWriter(self.sock, self.state)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as qemu:
            qemu.connect(self.sock)
            qemu.sendall(STATE)
        writer.finish()
        with open(self.state, "rb") as f:
            self.assertEqual(f.read(), STATE)

    def test_the_writer_says_when_nothing_came(self):
        self.short("IO_TIMEOUT", 0.2)
        writer = mf.FileWriter(self.sock, self.state)
        with self.assertRaisesRegex(mf.MigrationFileError, r"^writing the saved state: timed out"):
            writer.finish()

    def test_the_writer_owns_its_socket(self):
        # finish() decides "timed out" from the thread alone and never closes the socket the
        # thread may still be about to accept on (closed under it: EBADF, seen under load)
        self.short("IO_TIMEOUT", 0.2)
        writer = mf.FileWriter(self.sock, self.state)
        self.short("IO_TIMEOUT", 0.01)
        with self.assertRaisesRegex(mf.MigrationFileError, r"^writing the saved state: timed out$"):
            writer.finish()
        self.assertNotEqual(writer.sock.fileno(), -1, "finish() closed the thread's socket")
        writer.thread.join(5)
        self.assertFalse(writer.thread.is_alive())
        self.assertEqual(writer.sock.fileno(), -1, "the thread left its socket open")

    def test_feed_sends_the_file_whole(self):
        with open(self.state, "wb") as f:
            f.write(STATE)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.sock)
        listener.listen(1)
        self.addCleanup(listener.close)
        got = []

        def qemu():
            conn, _ = listener.accept()
            with conn:
                got.append(b"".join(iter(lambda: conn.recv(1 << 16), b"")))
        t = threading.Thread(target=qemu)
        t.start()
        mf.feed_file(self.sock, self.state)
        t.join(10)
        self.assertEqual(got, [STATE])

    def test_feed_names_the_socket_nobody_listened_on(self):
        self.short("SOCKET_WAIT", 0.1)
        with self.assertRaisesRegex(mf.MigrationFileError,
                                    rf"^the restoring QEMU did not listen on {self.sock}$"):
            mf.feed_file(self.sock, self.state)


if __name__ == "__main__":
    unittest.main()
