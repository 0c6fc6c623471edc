# SPDX-License-Identifier: GPL-2.0-only
"""The QEMU processes one lifecycle guest lives in (a new one per migration or restore), its console and its requests.

What and why: across a migration the guest moves from one QEMU to the
next; the runner must see one console log across all of them and every
QEMU must be stopped at the end (scripts/lifecycle.py). How: start() runs
the cfg's QEMU command with a QMP socket in the helper's private
directory, named threads (whose waits scripts/wait_meter.py reads) and,
for a destination, `-incoming defer`, and logs it as `lifecycle: qemu N:
COMMAND`; scripts/qemu_proc.py copies each QEMU's console out and queues
the guest's request lines (qemu, text, host time ns), then (qemu, None,
time) at its end. Standard library only.
"""
import os
import queue
import shlex
import subprocess
import sys
import threading
import time

import qemu_proc            # beside this script
from lifecycle_protocol import REQUEST
from qmp_client import Qmp, QmpError

NAME = ['-name', 'vmtick,debug-threads=on']


class Guest:
    """The QEMU processes one guest lives in, and its console."""

    def __init__(self, cmd, workdir):
        self.cmd = cmd
        self.dir = workdir
        self.procs = []
        self.requests = queue.Queue()
        self.out_lock = threading.Lock()
        self.current = None
        self.qmp = None

    def say(self, text):
        """A `lifecycle: text` line in the console log."""
        self._write(f'lifecycle: {text}\n'.encode())

    def _write(self, data):
        with self.out_lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def live_pids(self):
        """The pids of the QEMUs still running."""
        return [p.pid for p in self.procs if p.poll() is None]

    def start(self, incoming):
        """Start QEMU number len(procs); incoming: wait for migrate-incoming. (Popen, Qmp)."""
        n = len(self.procs)
        qmp_path = os.path.join(self.dir, f'qmp{n}.sock')
        cmd = self.cmd + ['-qmp', f'unix:{qmp_path},server=on,wait=off']
        if '-name' not in self.cmd:
            # threads named "CPU n/ACCEL": the vCPUs whose waits WaitMeter reads
            cmd += NAME
        if incoming:
            cmd += ['-incoming', 'defer']
        self.say(f'qemu {n}: ' + shlex.join(cmd))
        proc = qemu_proc.start(cmd, stderr=subprocess.PIPE)
        self.procs.append(proc)
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()
        threading.Thread(target=qemu_proc.keep_messages, args=(proc,), daemon=True).start()
        try:
            return proc, Qmp(qmp_path, proc)
        except QmpError as e:
            raise QmpError(f'qemu {n}: {e}{qemu_proc.qemu_says(proc)}') from None

    def _pump(self, proc):
        """Copy QEMU's stdout (the guest console) out whole; queue request lines, then the end."""
        qemu_proc.copy_console(proc.stdout, self._write, REQUEST,
                               lambda stamp, text: self.requests.put((proc, text, stamp)), clock=time.time_ns)
        self.requests.put((proc, None, time.time_ns()))

    def tell(self, text):
        """Write one line to the guest's serial input."""
        self.current.stdin.write(text.encode() + b'\n')
        self.current.stdin.flush()

    def stop_all(self):
        """Stop every QEMU started (SIGTERM, then SIGKILL)."""
        qemu_proc.stop(self.procs)
