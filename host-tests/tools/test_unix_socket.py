# SPDX-License-Identifier: GPL-2.0-only
"""scripts/unix_socket.py: connecting to a socket a starting QEMU has yet to create.

What: a listener that appears late is reached; a caller's reason not to
wait any longer ends the wait at once with that reason; no listener by
the deadline is 'timed out'. Why: the QMP client and the migration-file
feeder wait this way for every QEMU they start. How: UNIX sockets in a
private directory, one bound from a timer thread.
"""
import os
import socket
import sys
import tempfile
import threading
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import unix_socket  # noqa: E402


class Connect(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.path = os.path.join(self.dir.name, "s.sock")

    def listen(self):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        listener.listen(1)
        self.addCleanup(listener.close)

    def test_a_late_listener_is_reached(self):
        timer = threading.Timer(0.1, self.listen)
        timer.start()
        self.addCleanup(timer.join)
        sock = unix_socket.connect(self.path, 5.0)
        self.addCleanup(sock.close)
        self.assertEqual(sock.getpeername(), self.path)

    def test_a_reason_not_to_wait_ends_it_at_once(self):
        t = time.monotonic()
        with self.assertRaisesRegex(unix_socket.NotListening, r"^QEMU exited$"):
            unix_socket.connect(self.path, 5.0, lambda: "QEMU exited")
        self.assertLess(time.monotonic() - t, 1.0)

    def test_nobody_by_the_deadline(self):
        t = time.monotonic()
        with self.assertRaisesRegex(unix_socket.NotListening, r"^timed out$"):
            unix_socket.connect(self.path, 0.1)
        self.assertGreaterEqual(time.monotonic() - t, 0.1)


if __name__ == "__main__":
    unittest.main()
