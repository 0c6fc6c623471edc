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
"""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import queue

from host_evidence import ThreadReader, cpu_steal_ns     # beside this script

ERROR_STATUS = 126        # the runner reads the ERROR line, not this number
QMP_TIMEOUT = 60.0        # seconds for one QMP answer or awaited event
SOCKET_WAIT = 10.0        # seconds for a QEMU to create its QMP socket
KILL_GRACE = 3.0          # seconds between SIGTERM and SIGKILL
REQUEST = 'LIFECYCLE-REQUEST: '
DONE = 'LIFECYCLE-DONE'
EVENT_RE = re.compile(r'^((pause|save)=(\d{1,3}(\.\d{1,3})?)|save|migrate|reset|pingpong=(\d{1,3}))$')
# A reset request carries what the guest's next life needs back: counter=N tests=N failures=N skipped=N.
REQUEST_RE = re.compile(r'^(pause|save|migrate|reset) ([0-9]{1,4})((?: [a-z_]{1,16}=[0-9]{1,20}){0,8})$')
# The first words of a guest whose events include a reset: it asks whether it is a new life.
BOOT_REQUEST = 'boot 0'
# The guest's last words about an event, after its window after it: what the host did meanwhile.
WINDOW_RE = re.compile(r'^window ([0-9]{1,4})$')
RESET_CARRIED = ('counter', 'tests', 'failures', 'skipped')


WAIT_SAMPLE = 0.02        # seconds between two readings of the vCPU threads' waits


class WaitMeter:
    """Over a span (an event, a window): how long the guest's threads and this runner's could not run.

    Every WAIT_SAMPLE seconds it reads the run_delay of every thread of
    every live QEMU (the source, the destination of a migration) and of
    this script, and this machine's steal per CPU. finish() gives two
    figures, each the largest growth of one thread's run_delay since the
    meter started (or since the thread appeared) plus the largest steal
    of one CPU: of a vCPU thread (what a vCPU descheduled in the span can
    show as a step of every clock it reads, or as ticks it missed), and of
    any thread (what can delay the host's time stamps of the guest's
    lines: the runner's reader, QEMU's main loop) (docs/lifecycle.md, "A
    busy host")."""

    def __init__(self, guest):
        self.guest = guest
        self.reader = ThreadReader(os.getpid())
        self.first = self._read()
        self.last = dict(self.first)
        self.steal0 = cpu_steal_ns()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read(self):
        pids = [p.pid for p in self.guest.procs if p.poll() is None] + [os.getpid()]
        return self.reader.read(pids)

    def _sample(self):
        for k, v in self._read().items():
            # a thread born during the span (the destination's): all its waiting counts
            self.first.setdefault(k, (v[0], 0))
            self.last[k] = v

    def _run(self):
        while not self.stop.wait(WAIT_SAMPLE):
            self._sample()

    def finish(self):
        """Stop; return (the vCPUs' wait, any thread's wait) in ns."""
        self.stop.set()
        self.thread.join()
        self._sample()
        self.reader.close()
        steal = max(0, max((b - a for a, b in zip(self.steal0, cpu_steal_ns())), default=0))
        growth = [(v[0], v[1] - self.first[k][1]) for k, v in self.last.items()]
        vcpu = max((g for is_vcpu, g in growth if is_vcpu), default=0)
        anyone = max((g for _, g in growth), default=0)
        return max(0, vcpu) + steal, max(0, anyone) + steal


class LifecycleError(Exception):
    """A failure that makes the test an ERROR; the text says what failed."""


def parse_events(text):
    """The cfg value as a list of (kind, seconds); pingpong=N is N migrations."""
    events = []
    for word in text.split():
        m = EVENT_RE.match(word)
        if not m:
            raise LifecycleError(f"events: bad event '{word}' (pause=SECONDS, save[=SECONDS], migrate, "
                                 'reset, pingpong=N)')
        if m.group(2) is not None:
            events.append((m.group(2), float(m.group(3))))
        elif m.group(5) is not None:
            n = int(m.group(5))
            if not 1 <= n <= 100:
                raise LifecycleError(f"events: pingpong={n} is not 1..100")
            events += [('migrate', 0.0)] * n
        else:
            events.append((word, 0.0))
    if not events:
        raise LifecycleError('events: empty list')
    return events


def event_time(ev):
    """The host time stamp QEMU put on a QMP event, in ns since the epoch."""
    ts = ev.get('timestamp', {})
    return ts.get('seconds', 0) * 1000000000 + ts.get('microseconds', 0) * 1000


class Qmp:
    """One QMP connection: greeting, capabilities negotiation, commands, events."""

    def __init__(self, path, proc):
        deadline = time.monotonic() + SOCKET_WAIT
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if proc.poll() is not None:
                    raise LifecycleError(f'QEMU exited (status {proc.returncode}) before its QMP socket was up')
                if time.monotonic() > deadline:
                    raise LifecycleError(f'no QMP socket after {SOCKET_WAIT:.0f} s')
                time.sleep(0.02)
        self.sock.settimeout(QMP_TIMEOUT)
        self.file = self.sock.makefile('rb')
        self.events = []
        greeting = self._read()
        if 'QMP' not in greeting:
            raise LifecycleError(f'QMP greeting expected, got {greeting}')
        self.command('qmp_capabilities')
        # MIGRATION events are only sent with the "events" capability on.
        self.command('migrate-set-capabilities',
                     capabilities=[{'capability': 'events', 'state': True}])

    def _read(self):
        try:
            line = self.file.readline()
        except socket.timeout:
            raise LifecycleError(f'QMP: no answer in {QMP_TIMEOUT:.0f} s') from None
        if not line:
            raise LifecycleError('QMP: QEMU closed the connection')
        return json.loads(line)

    def command(self, name, **args):
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self._read()
            if 'event' in reply:
                self.events.append(reply)
            elif 'error' in reply:
                raise LifecycleError(f"QMP {name}: {reply['error'].get('desc', reply['error'])}")
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
        with self.out_lock:
            sys.stdout.buffer.write(f'lifecycle: {text}\n'.encode())
            sys.stdout.buffer.flush()

    def start(self, incoming):
        """Start QEMU number len(procs); incoming: wait for migrate-incoming."""
        n = len(self.procs)
        qmp_path = os.path.join(self.dir, f'qmp{n}.sock')
        cmd = self.cmd + ['-qmp', f'unix:{qmp_path},server=on,wait=off']
        if '-name' not in self.cmd:
            # threads named "CPU n/ACCEL": the vCPUs whose waits WaitMeter reads
            cmd += ['-name', 'vmtick,debug-threads=on']
        if incoming:
            cmd += ['-incoming', 'defer']
        self.say(f'qemu {n}: ' + shlex.join(cmd))
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        proc.errors = []
        self.procs.append(proc)
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()
        threading.Thread(target=self._pump_stderr, args=(proc,), daemon=True).start()
        try:
            return proc, Qmp(qmp_path, proc)
        except LifecycleError as e:
            raise LifecycleError(f'qemu {n}: {e}{self.qemu_says(proc)}') from None

    @staticmethod
    def _pump_stderr(proc):
        """Pass QEMU's own messages on, keeping them for error messages."""
        for raw in proc.stderr:
            sys.stderr.buffer.write(raw)
            sys.stderr.buffer.flush()
            text = raw.decode('utf-8', 'replace').strip()
            if text:
                proc.errors.append(text)

    @staticmethod
    def qemu_says(proc):
        """': QEMU's messages' (waiting briefly for a dying QEMU to say them), or ''."""
        try:
            proc.wait(1.0)
            time.sleep(0.1)
        except subprocess.TimeoutExpired:
            pass
        return ': ' + '; '.join(proc.errors[-3:]) if proc.errors else ''

    def _pump(self, proc):
        """Copy QEMU's stdout (the guest console) out whole; queue request lines."""
        line = b''
        while True:
            chunk = proc.stdout.read1(4096)
            if not chunk:
                break
            with self.out_lock:
                sys.stdout.buffer.write(chunk)
                sys.stdout.buffer.flush()
            line += chunk
            while b'\n' in line:
                first, line = line.split(b'\n', 1)
                text = first.decode('ascii', 'replace').rstrip('\r')
                if text.startswith(REQUEST):
                    self.requests.put((proc, text[len(REQUEST):], time.time_ns()))
        self.requests.put((proc, None, time.time_ns()))

    def tell(self, text):
        """Write one line to the guest's serial input."""
        self.current.stdin.write(text.encode() + b'\n')
        self.current.stdin.flush()

    def stop_all(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + KILL_GRACE
        for proc in self.procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class Events:
    """The events the cfg provides, performed as the guest asks for them."""

    def __init__(self, guest, events):
        self.guest = guest
        self.events = events
        self.done = 0
        self.reset = None       # a reset performed, until the guest's next life asks about it
        self.span = None        # the host's waits since the guest's last answer (WaitMeter)

    def start_span(self):
        """The guest runs on from an answer: measure the host's waits until its next request."""
        if self.span is not None:
            self.span.finish()
        self.span = WaitMeter(self.guest)

    def end_span(self):
        """(the vCPUs' wait, any thread's wait) since start_span()."""
        span, self.span = self.span, None
        return span.finish() if span is not None else (0, 0)

    def next(self, text):
        """Check a request line against the cfg; return the event to perform and its facts."""
        m = REQUEST_RE.match(text)
        if not m:
            shown = ''.join(c if c.isprintable() else '?' for c in text[:60])
            raise LifecycleError(f"the guest's request '{shown}' is malformed (want KIND SEQ)")
        kind, seq = m.group(1), int(m.group(2))
        facts = dict(w.split('=') for w in m.group(3).split())
        if (kind == 'reset') != bool(facts) or (facts and set(facts) != set(RESET_CARRIED)):
            raise LifecycleError(f"the guest's request '{text[:80]}' has the wrong facts "
                                 f"(a reset carries {', '.join(RESET_CARRIED)}; nothing else carries any)")
        if seq != self.done + 1:
            raise LifecycleError(f'the guest asked for event {seq}, the next one is {self.done + 1}')
        if self.done >= len(self.events):
            raise LifecycleError(f"the guest asked for event {seq} ({kind}); the cfg's events list has "
                                 f'only {len(self.events)}')
        want, secs = self.events[self.done]
        if kind != want:
            raise LifecycleError(f"the guest asked for event {seq} '{kind}'; the cfg's event {seq} is '{want}'")
        return kind, secs, facts

    def perform(self, kind, secs, t_req, facts):
        if kind == 'reset':
            self.do_reset(t_req, facts)
            return
        before_vcpu, before_any = self.end_span()
        meter = WaitMeter(self.guest)
        facts = getattr(self, 'do_' + kind)(secs)
        facts['vcpu_wait_ns'], during_any = meter.finish()
        facts['before_wait_ns'] = before_vcpu
        facts['stamp_wait_ns'] = before_any + during_any
        self.done += 1
        self.guest.say(f"event {self.done} {kind}: stopped {facts['duration_ns'] / 1e6:.1f} ms, "
                       f"QMP downtime {facts['qmp_downtime_ns'] / 1e6:.1f} ms, "
                       f"a vCPU waited {facts['vcpu_wait_ns'] / 1e6:.1f} ms for a CPU")
        facts['host_req_ns'] = t_req
        facts['host_ns'] = time.time_ns()       # as close to the write as can be
        facts['total_ns'] = facts['host_ns'] - t_req
        self.guest.tell(f'{DONE} {kind} {self.done} ' + ' '.join(f'{k}={v}' for k, v in facts.items()))
        self.start_span()

    def answer_window(self, text):
        """The guest's last words about the event it was answered last: the host's waits since."""
        seq = int(WINDOW_RE.match(text).group(1))
        if seq != self.done or self.reset is not None:
            raise LifecycleError(f"the guest asked about the window after event {seq}; the last event "
                                 f"answered is {self.done}")
        after_vcpu, after_any = self.end_span()
        self.guest.tell(f'{DONE} window {seq} after_wait_ns={after_vcpu} after_stamp_wait_ns={after_any}')
        self.start_span()

    def do_reset(self, t_req, facts):
        """QMP system_reset; the answer waits for the guest's next life to ask (answer_boot)."""
        qmp = self.guest.qmp
        if self.reset is not None:
            raise LifecycleError('the guest asked for a reset before its last one was answered')
        self.end_span()
        # -no-reboot makes every reset a shutdown, this one too: a reset it is, this once
        qmp.command('set-action', reboot='reset')
        qmp.events.clear()
        meter = WaitMeter(self.guest)
        sent = time.time_ns()
        qmp.command('system_reset')
        qmp.wait_event(lambda e: e['event'] == 'RESET')
        if '-no-reboot' in self.guest.cmd:
            qmp.command('set-action', reboot='shutdown')
        self.done += 1
        self.reset = {'seq': self.done, 't_req': t_req, 'sent': sent, 'meter': meter, 'facts': facts}
        self.guest.say(f'event {self.done} reset: system_reset sent')

    def answer_boot(self, t_boot):
        """A guest life's first request: "reset 0" for the first life, else the reset it follows."""
        r, self.reset = self.reset, None
        if r is None:
            if self.done:
                raise LifecycleError(f'the guest started again after event {self.done} without a reset '
                                     '(a crash and a reboot?)')
            self.guest.tell(f'{DONE} reset 0 duration_ns=0 qmp_downtime_ns=0 total_ns=0 overhead_ns=0 '
                            f'host_req_ns={t_boot} host_ns={time.time_ns()}')
            self.start_span()
            return
        vcpu_wait, _ = r['meter'].finish()
        facts = {'duration_ns': t_boot - r['sent'], 'qmp_downtime_ns': 0, 'total_ns': t_boot - r['t_req'],
                 'overhead_ns': 0, 'host_req_ns': r['t_req'], 'vcpu_wait_ns': vcpu_wait, **r['facts']}
        self.guest.say(f"event {r['seq']} reset: the guest's next life asked {facts['duration_ns'] / 1e6:.1f} ms "
                       f"after system_reset, a vCPU waited {facts['vcpu_wait_ns'] / 1e6:.1f} ms for a CPU")
        facts['host_ns'] = time.time_ns()
        self.guest.tell(f"{DONE} reset {r['seq']} " + ' '.join(f'{k}={v}' for k, v in facts.items()))
        self.start_span()

    def do_pause(self, secs):
        qmp = self.guest.qmp
        qmp.events.clear()
        sent = time.time_ns()
        qmp.command('stop')
        stop = qmp.wait_event(lambda e: e['event'] == 'STOP')
        # QEMU stops the vCPUs, then reads kvmclock, then sends STOP
        overhead = event_time(stop) - sent
        time.sleep(secs)
        sent = time.time_ns()
        qmp.command('cont')
        # it writes kvmclock back and restarts the vCPUs before it answers
        overhead += time.time_ns() - sent
        resume = qmp.wait_event(lambda e: e['event'] == 'RESUME')
        return {'duration_ns': event_time(resume) - event_time(stop), 'qmp_downtime_ns': 0,
                'overhead_ns': max(0, overhead)}

    def _migrate_out(self, uri):
        """Migrate the current QEMU to uri; return (STOP event, query-migrate)."""
        qmp = self.guest.qmp
        qmp.command('migrate', uri=uri)
        ev = qmp.wait_event(lambda e: e['event'] == 'MIGRATION' and
                            e['data']['status'] in ('completed', 'failed', 'cancelled'))
        info = qmp.command('query-migrate')
        if ev['data']['status'] != 'completed':
            why = info.get('error-desc', ev['data']['status'])
            raise LifecycleError(f'migration to {uri} failed: {why}{self.guest.qemu_says(self.guest.current)}')
        stop = qmp.wait_event(lambda e: e['event'] == 'STOP')
        return stop, info

    def _retire_current(self):
        """The source QEMU has handed the guest on: quit it and wait for it."""
        old = self.guest.current
        try:
            self.guest.qmp.command('quit')
        except LifecycleError:
            pass        # QEMU may close the connection before it answers
        self.guest.qmp.close()
        old.wait(QMP_TIMEOUT)

    def _start_incoming(self, uri):
        proc, qmp = self.guest.start(incoming=True)
        qmp.command('migrate-incoming', uri=uri)
        return proc, qmp

    def _adopt(self, proc, qmp):
        """Wait for the incoming QEMU to run the guest; make it the current one."""
        try:
            resume = qmp.wait_event(lambda e: e['event'] == 'RESUME')
            # the incoming migration's own events end with "completed": none may
            # be taken for those of this QEMU's next migration out
            qmp.wait_event(lambda e: e['event'] == 'MIGRATION' and e['data']['status'] == 'completed')
            qmp.events.clear()
        except LifecycleError as e:
            raise LifecycleError(f'incoming QEMU: {e}{self.guest.qemu_says(proc)}') from None
        self.guest.current, self.guest.qmp = proc, qmp
        return resume

    def do_migrate(self, _secs):
        path = os.path.join(self.guest.dir, f'mig{len(self.guest.procs)}.sock')
        proc, qmp = self._start_incoming(f'unix:{path}')
        stop, info = self._migrate_out(f'unix:{path}')
        self._retire_current()
        resume = self._adopt(proc, qmp)
        return {'duration_ns': event_time(resume) - event_time(stop),
                'qmp_downtime_ns': info.get('downtime', 0) * 1000000, 'overhead_ns': 0}

    def do_save(self, secs):
        state = os.path.join(self.guest.dir, 'state')
        out = os.path.join(self.guest.dir, 'save.sock')
        writer = FileWriter(out, state)
        stop, info = self._migrate_out(f'unix:{out}')
        writer.finish()
        self._retire_current()
        time.sleep(secs)
        inp = os.path.join(self.guest.dir, f'restore{len(self.guest.procs)}.sock')
        proc, qmp = self._start_incoming(f'unix:{inp}')
        feed_file(inp, state)
        resume = self._adopt(proc, qmp)
        self.guest.say(f'saved state: {os.path.getsize(state)} bytes')
        os.unlink(state)
        return {'duration_ns': event_time(resume) - event_time(stop),
                'qmp_downtime_ns': info.get('downtime', 0) * 1000000, 'overhead_ns': 0}


class FileWriter:
    """Accept one connection on a UNIX socket and write what it sends to a file."""

    def __init__(self, path, target):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(1)
        self.sock.settimeout(QMP_TIMEOUT)
        self.target = target
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            conn, _ = self.sock.accept()
            with conn, open(self.target, 'wb') as f:
                while True:
                    data = conn.recv(1 << 16)
                    if not data:
                        break
                    f.write(data)
        except OSError as e:
            self.error = e

    def finish(self):
        self.thread.join(QMP_TIMEOUT)
        self.sock.close()
        if self.error or self.thread.is_alive():
            raise LifecycleError(f'writing the saved state: {self.error or "timed out"}')


def feed_file(path, source):
    """Connect to QEMU's incoming UNIX socket and send it the saved state."""
    deadline = time.monotonic() + SOCKET_WAIT
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:
        try:
            sock.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise LifecycleError(f'the restoring QEMU did not listen on {path}') from None
            time.sleep(0.02)
    with sock, open(source, 'rb') as f:
        sock.sendfile(f)


def run(guest, events):
    """Serve the guest's requests until its QEMU exits; return that QEMU's status."""
    guest.current, guest.qmp = guest.start(incoming=False)
    events.start_span()
    while True:
        proc, text, t_req = guest.requests.get()
        if proc is not guest.current:
            continue        # the end of a QEMU the guest has left
        if text is None:
            break
        if text == BOOT_REQUEST:
            events.answer_boot(t_req)
            continue
        if WINDOW_RE.match(text):
            events.answer_window(text)
            continue
        kind, secs, facts = events.next(text)
        events.perform(kind, secs, t_req, facts)
    st = guest.current.wait()
    if st == 1 and events.done < len(events.events):
        raise LifecycleError(f"the guest passed after {events.done} of the cfg's "
                             f'{len(events.events)} events')
    return st if st >= 0 else 128 - st


def main(argv):
    if len(argv) < 4 or argv[1] != '--events' or argv[3] != '--':
        print('usage: lifecycle.py --events LIST -- QEMU ARGS...', file=sys.stderr)
        return ERROR_STATUS
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    workdir = tempfile.mkdtemp(prefix='vmtick-lc.')      # mode 0700
    guest = Guest(argv[4:], workdir)
    try:
        return run(guest, Events(guest, parse_events(argv[2])))
    except (LifecycleError, OSError, subprocess.TimeoutExpired) as e:
        print(f'lifecycle: ERROR: {e}', file=sys.stderr)
        return ERROR_STATUS
    finally:
        guest.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
