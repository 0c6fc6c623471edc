# SPDX-License-Identifier: GPL-2.0-only
"""Connecting to a UNIX socket that a starting QEMU has yet to create: retried until it listens or a deadline.

What and why: QEMU creates its QMP socket and its incoming-migration
socket some time after it starts, so the QMP client (scripts/qmp_client.py)
and the migration-file feeder (scripts/migration_file.py) both try again
until it listens. How: connect every RETRY_S until the deadline; a caller's
still_worth() may give a reason to stop early (QEMU has exited).
Standard library only.
"""
import socket
import time

RETRY_S = 0.02              # seconds between two connection attempts


class NotListening(Exception):
    """Nobody listened in time; the text is still_worth()'s reason or 'timed out'."""


def connect(path, timeout, still_worth=lambda: None):
    """A socket connected to path; raises NotListening after timeout s, or as soon as still_worth()
    returns a reason (text) not to wait any longer."""
    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:
        try:
            sock.connect(path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            why = still_worth()
            if why is None and time.monotonic() > deadline:
                why = 'timed out'
            if why is not None:
                sock.close()
                raise NotListening(why) from None
            time.sleep(RETRY_S)
