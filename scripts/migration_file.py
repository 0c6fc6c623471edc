# SPDX-License-Identifier: GPL-2.0-only
"""The migration-file feeder: a guest's saved state written to a file from QEMU's outgoing migration, and fed back.

What and why: the lifecycle helper's save/restore (scripts/lifecycle.py,
docs/lifecycle.md) keeps the guest's state in a file between two QEMUs, as
`migrate` to `exec:cat > FILE` would, without a shell. How: FileWriter
accepts the one connection of QEMU's `migrate` to a UNIX socket and writes
what it sends to the file; feed_file() connects to the restoring QEMU's
incoming UNIX socket and sends it the file. Failures are MigrationFileError.
Standard library only.
"""
import socket
import threading

import unix_socket          # beside this script

IO_TIMEOUT = 60.0           # seconds for QEMU to connect, or for the state to be written
SOCKET_WAIT = 10.0          # seconds for the restoring QEMU to listen
RECV_BYTES = 1 << 16


class MigrationFileError(Exception):
    """Writing or feeding the saved state failed; the text says what failed."""


class FileWriter:
    """Accept one connection on a UNIX socket and write what it sends to a file."""

    def __init__(self, path, target):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(1)
        self.sock.settimeout(IO_TIMEOUT)
        self.target = target
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        # the thread owns the listening socket and closes it: closed from finish() while this
        # thread was still to reach accept(), it failed with EBADF instead of timing out
        try:
            with self.sock:
                conn, _ = self.sock.accept()
                with conn, open(self.target, 'wb') as f:
                    while True:
                        data = conn.recv(RECV_BYTES)
                        if not data:
                            break
                        f.write(data)
        except OSError as e:
            self.error = e

    def finish(self):
        """Wait for the whole state to be written; MigrationFileError when it was not."""
        self.thread.join(IO_TIMEOUT)
        # still running: timed out, whatever it meets later; ended: its error is final
        if self.thread.is_alive():
            raise MigrationFileError('writing the saved state: timed out')
        if self.error:
            raise MigrationFileError(f'writing the saved state: {self.error}')


def feed_file(path, source):
    """Connect to QEMU's incoming UNIX socket and send it the saved state."""
    try:
        sock = unix_socket.connect(path, SOCKET_WAIT)
    except unix_socket.NotListening:
        raise MigrationFileError(f'the restoring QEMU did not listen on {path}') from None
    with sock, open(source, 'rb') as f:
        sock.sendfile(f)
