# SPDX-License-Identifier: GPL-2.0-only
"""Runs one QEMU guest through host events (pause, save/restore, live migration, reset) it asks for, over QMP.

Used by the runner for unittests.cfg entries with an `events` key
(docs/lifecycle.md). Standard library only; run with /usr/bin/python3.

    lifecycle.py --events 'pause=2 save migrate' -- QEMU ARGS...

The guest's console (QEMU's stdout, one log across every QEMU process)
goes to stdout, with a `lifecycle: qemu N: COMMAND` line for each QEMU
started; QEMU's stderr and this script's messages go to stderr. The exit
status is the last QEMU's, or ERROR_STATUS after a line
`lifecycle: ERROR: why` on stderr. Whatever happens, every QEMU started
is stopped and the private directory (mode 0700) that holds the QMP and
migration sockets and the saved state is removed before the exit.

This file is the entry and the loop that serves the guest; its parts, one
job each, are beside it (docs/design.md, "Where each concept lives"):
lifecycle_protocol.py (the guest's request and answer lines),
lifecycle_guest.py (the guest's QEMUs and console), lifecycle_events.py
(each event through QMP), qmp_client.py, qemu_proc.py, wait_meter.py,
thread_waits.py, migration_file.py and unix_socket.py.
"""
import shutil
import signal
import subprocess
import sys
import tempfile

import lifecycle_protocol as proto      # beside this script
from lifecycle_events import Events, LifecycleError
from lifecycle_guest import Guest
from migration_file import MigrationFileError
from qemu_proc import exit_status
from qmp_client import QmpError

ERROR_STATUS = 126        # the runner reads the ERROR line, not this number
GUEST_PASS = 1            # QEMU's status when the guest passed (scripts/guest.bash)
ERRORS = (proto.ProtocolError, LifecycleError, QmpError, MigrationFileError, OSError, subprocess.TimeoutExpired)


def serve(guest, events):
    """Answer the guest's requests until its current QEMU's console ends."""
    while True:
        proc, text, t_req = guest.requests.get()
        if proc is not guest.current:
            continue        # the end of a QEMU the guest has left
        if text is None:
            return
        if text == proto.BOOT_REQUEST:
            events.answer_boot(t_req)
            continue
        seq = proto.window_seq(text)
        if seq is not None:
            events.answer_window(seq)
            continue
        kind, secs, facts = events.next(text)
        events.perform(kind, secs, t_req, facts)


def run(guest, events):
    """Serve the guest's requests until its QEMU exits; return that QEMU's status."""
    guest.current, guest.qmp = guest.start(incoming=False)
    events.start_span()
    serve(guest, events)
    st = guest.current.wait()
    if st == GUEST_PASS and events.done < len(events.events):
        raise LifecycleError(f"the guest passed after {events.done} of the cfg's "
                             f'{len(events.events)} events')
    return exit_status(st)


def main(argv):
    if len(argv) < 4 or argv[1] != '--events' or argv[3] != '--':
        print('usage: lifecycle.py --events LIST -- QEMU ARGS...', file=sys.stderr)
        return ERROR_STATUS
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    workdir = tempfile.mkdtemp(prefix='vmtick-lc.')      # mode 0700
    guest = Guest(argv[4:], workdir)
    try:
        return run(guest, Events(guest, proto.parse_events(argv[2])))
    except ERRORS as e:
        print(f'lifecycle: ERROR: {e}', file=sys.stderr)
        return ERROR_STATUS
    finally:
        guest.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
