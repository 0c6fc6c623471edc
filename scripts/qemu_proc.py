# SPDX-License-Identifier: GPL-2.0-only
"""One QEMU process under a host helper: started with pipes, its console passed on, its messages kept, stopped.

What and why: the lifecycle helper (scripts/lifecycle.py, one QEMU per
migration) and the host-evidence agent (scripts/host_evidence.py) both run
QEMU with its serial console on pipes, copy the console out whole, pick
the guest's lines to them out of it as they come, and must leave no QEMU
behind; they do it here, one way. How: start() gives a Popen whose stdin
and stdout are pipes; copy_console() copies stdout in chunks and hands
each complete line with a prefix, and the time its chunk was read, to a
callback; keep_messages() passes stderr on and keeps its last lines for an
error message; stop() sends SIGTERM, then SIGKILL after KILL_GRACE.
Standard library only.
"""
import subprocess
import sys
import time

KILL_GRACE = 3.0            # seconds between SIGTERM and SIGKILL
SIGNAL_BASE = 128           # the status for death by signal n: SIGNAL_BASE + n
CHUNK = 4096                # bytes of console read at once
MAX_LINE = 1 << 16          # bytes of one console line kept to recognise it
MESSAGES_SHOWN = 3          # QEMU's last messages an error message quotes
DYING_WAIT = 1.0            # seconds a failed QEMU may take to exit and say why


def start(cmd, stderr=None):
    """Popen of cmd with stdin and stdout as pipes (stderr: None to share ours, or subprocess.PIPE);
    OSError when it cannot be started. proc.errors will hold what keep_messages() keeps."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
    proc.errors = []
    return proc


def copy_console(src, write, prefix, on_line, clock=time.monotonic_ns):
    """Copy src (QEMU's stdout) with write(chunk) as it comes; on_line(stamp, text) for each line
    that starts with prefix (text: after it, ASCII, no CR; stamp: clock() when its chunk was read),
    after the chunk was written. Returns at the end of src."""
    pending = b''
    raw_prefix = prefix.encode()
    while True:
        chunk = src.read1(CHUNK)
        stamp = clock()
        if not chunk:
            return
        write(chunk)
        *complete, pending = (pending + chunk).split(b'\n')
        pending = pending[:MAX_LINE]
        for raw in complete:
            if raw.startswith(raw_prefix):
                on_line(stamp, raw[len(raw_prefix):].decode('ascii', 'replace').rstrip('\r'))


def keep_messages(proc, out=None):
    """Pass QEMU's stderr on to out (default: ours), keeping its non-empty lines in proc.errors."""
    out = out or sys.stderr.buffer
    for raw in proc.stderr:
        out.write(raw)
        out.flush()
        text = raw.decode('utf-8', 'replace').strip()
        if text:
            proc.errors.append(text)


def qemu_says(proc):
    """': QEMU's last messages' (waiting briefly for a dying QEMU to say them), or ''."""
    try:
        proc.wait(DYING_WAIT)
        time.sleep(0.1)
    except subprocess.TimeoutExpired:
        pass
    return ': ' + '; '.join(proc.errors[-MESSAGES_SHOWN:]) if proc.errors else ''


def stop(procs, grace=KILL_GRACE):
    """SIGTERM every QEMU still running, then SIGKILL those still there grace s later; wait for all."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def exit_status(returncode):
    """A Popen returncode as a shell status: -n (signal n) is SIGNAL_BASE + n."""
    return returncode if returncode >= 0 else SIGNAL_BASE - returncode
