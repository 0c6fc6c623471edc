# SPDX-License-Identifier: GPL-2.0-only
"""A QMP client: one connection to a QEMU's monitor, its greeting, commands and their answers, and its events.

What and why: the lifecycle helper (scripts/lifecycle.py) stops, saves,
migrates and resets a guest through QEMU's QMP; what QEMU answers and the
events it sends (with QEMU's own time stamps) are the facts it reports to
the guest. How: JSON lines on a UNIX socket; events that arrive while a
command waits for its answer are kept for wait_event(). Every failure is a
QmpError whose text says what failed. Standard library only.
"""
import json
import socket

import unix_socket          # beside this script
from units import NSEC_PER_SEC, NSEC_PER_USEC

QMP_TIMEOUT = 60.0          # seconds for one QMP answer or awaited event
SOCKET_WAIT = 10.0          # seconds for a QEMU to create its QMP socket


class QmpError(Exception):
    """A QMP failure; the text says what failed."""


def event_time(ev):
    """The host time stamp QEMU put on a QMP event, in ns since the epoch."""
    ts = ev.get('timestamp', {})
    return ts.get('seconds', 0) * NSEC_PER_SEC + ts.get('microseconds', 0) * NSEC_PER_USEC


def _qemu_gone(proc):
    """still_worth() for unix_socket.connect: why not to wait for a QEMU that has exited."""
    if proc.poll() is not None:
        return f'QEMU exited (status {proc.returncode}) before its QMP socket was up'
    return None


class Qmp:
    """One QMP connection: greeting, capabilities negotiation, commands, events."""

    def __init__(self, path, proc):
        try:
            self.sock = unix_socket.connect(path, SOCKET_WAIT, lambda: _qemu_gone(proc))
        except unix_socket.NotListening as e:
            raise QmpError(f'no QMP socket after {SOCKET_WAIT:.0f} s' if str(e) == 'timed out' else str(e)) from None
        self.sock.settimeout(QMP_TIMEOUT)
        self.file = self.sock.makefile('rb')
        self.events = []
        greeting = self._read()
        if 'QMP' not in greeting:
            raise QmpError(f'QMP greeting expected, got {greeting}')
        self.command('qmp_capabilities')
        # MIGRATION events are only sent with the "events" capability on.
        self.command('migrate-set-capabilities',
                     capabilities=[{'capability': 'events', 'state': True}])

    def _read(self):
        try:
            line = self.file.readline()
        except socket.timeout:
            raise QmpError(f'QMP: no answer in {QMP_TIMEOUT:.0f} s') from None
        if not line:
            raise QmpError('QMP: QEMU closed the connection')
        return json.loads(line)

    def command(self, name, **args):
        """Send a command; its 'return' value, keeping events that come first."""
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self._read()
            if 'event' in reply:
                self.events.append(reply)
            elif 'error' in reply:
                raise QmpError(f"QMP {name}: {reply['error'].get('desc', reply['error'])}")
            elif 'return' in reply:
                return reply['return']

    def wait_event(self, match):
        """The first event (seen or to come) for which match(event) is true."""
        while True:
            for i, ev in enumerate(self.events):
                if match(ev):
                    return self.events.pop(i)
            self.events.append(self._read())

    def close(self):
        self.sock.close()
