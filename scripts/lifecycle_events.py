# SPDX-License-Identifier: GPL-2.0-only
"""The host events a lifecycle guest asks for, performed through QMP: pause, save/restore, migrate, reset.

What and why: the lifecycle kernels check their clocks and timers across
each event (docs/lifecycle.md); the facts of what the host did (how long
the guest was stopped by QEMU's time stamps, QEMU's downtime, how long a
vCPU waited for a CPU) are their evidence. How: perform() measures the
host's waits before and during the event (scripts/wait_meter.py), runs
the event's do_KIND through QMP (scripts/qmp_client.py) on the guest's
QEMUs (scripts/lifecycle_guest.py), and answers the guest in the
protocol's words (scripts/lifecycle_protocol.py). A save keeps the state
in a file (scripts/migration_file.py). Standard library only.
"""
import os
import time

import lifecycle_protocol as proto      # beside this script
from migration_file import FileWriter, feed_file
from qmp_client import QMP_TIMEOUT, QmpError, event_time
from qemu_proc import qemu_says
from units import NSEC_PER_MSEC
from wait_meter import WaitMeter



class LifecycleError(Exception):
    """An event that could not be performed as the guest asked; the text says why."""


def _ms(ns):
    return f'{ns / NSEC_PER_MSEC:.1f} ms'


class Events:
    """The events the cfg provides, performed as the guest asks for them."""

    def __init__(self, guest, events):
        self.guest = guest
        self.events = events
        self.done = 0
        self.run_done = 0       # migrations of the next event's run performed (events=migrate=N)
        self.reset = None       # a reset performed, until the guest's next life asks about it
        self.span = None        # the host's waits since the guest's last answer (WaitMeter)

    def meter(self):
        return WaitMeter(self.guest.live_pids)

    def start_span(self):
        """The guest runs on from an answer: measure the host's waits until its next request."""
        if self.span is not None:
            self.span.finish()
        self.span = self.meter()

    def end_span(self):
        """(the vCPUs' wait, any thread's wait) since start_span()."""
        span, self.span = self.span, None
        return span.finish() if span is not None else (0, 0)

    def next(self, text):
        """Check a request line against the cfg; return the event to perform and its facts."""
        return proto.check_request(text, self.done, self.events, self.run_done)

    def perform(self, kind, secs, t_req, facts):
        if kind == 'reset':
            self.do_reset(t_req, facts)
            return
        run = facts.get('run')
        before_vcpu, before_any = self.end_span()
        meter = self.meter()
        facts = getattr(self, 'do_' + kind)(secs)
        facts['vcpu_wait_ns'], during_any = meter.finish()
        facts['before_wait_ns'] = before_vcpu
        facts['stamp_wait_ns'] = before_any + during_any
        seq = self.done + 1
        what = kind
        if run is not None:
            # a migration of a run: the event is done with its last one
            facts['run'] = run
            what = f'{kind} {run} of {int(secs)}'
            self.run_done = 0 if int(run) == int(secs) else int(run)
        if not self.run_done:
            self.done += 1
        self.guest.say(f"event {seq} {what}: stopped {_ms(facts['duration_ns'])}, "
                       f"QMP downtime {_ms(facts['qmp_downtime_ns'])}, "
                       f"a vCPU waited {_ms(facts['vcpu_wait_ns'])} for a CPU")
        facts['host_req_ns'] = t_req
        facts['host_ns'] = time.time_ns()       # as close to the write as can be
        facts['total_ns'] = facts['host_ns'] - t_req
        self.guest.tell(proto.done_line(kind, seq, facts))
        self.start_span()

    def answer_window(self, seq):
        """The guest's last words about the event it was answered last: the host's waits since."""
        if seq != self.done or self.reset is not None:
            raise LifecycleError(f"the guest asked about the window after event {seq}; the last event "
                                 f"answered is {self.done}")
        after_vcpu, after_any = self.end_span()
        self.guest.tell(proto.window_line(seq, after_vcpu, after_any))
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
        meter = self.meter()
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
            self.guest.tell(proto.first_life_line(t_boot, time.time_ns()))
            self.start_span()
            return
        vcpu_wait, _ = r['meter'].finish()
        facts = {'duration_ns': t_boot - r['sent'], 'qmp_downtime_ns': 0, 'total_ns': t_boot - r['t_req'],
                 'overhead_ns': 0, 'host_req_ns': r['t_req'], 'vcpu_wait_ns': vcpu_wait, **r['facts']}
        self.guest.say(f"event {r['seq']} reset: the guest's next life asked {_ms(facts['duration_ns'])} "
                       f"after system_reset, a vCPU waited {_ms(facts['vcpu_wait_ns'])} for a CPU")
        facts['host_ns'] = time.time_ns()
        self.guest.tell(proto.done_line('reset', r['seq'], facts))
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
            raise LifecycleError(f'migration to {uri} failed: {why}{qemu_says(self.guest.current)}')
        stop = qmp.wait_event(lambda e: e['event'] == 'STOP')
        return stop, info

    def _retire_current(self):
        """The source QEMU has handed the guest on: quit it and wait for it."""
        old = self.guest.current
        try:
            self.guest.qmp.command('quit')
        except QmpError:
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
        except QmpError as e:
            raise LifecycleError(f'incoming QEMU: {e}{qemu_says(proc)}') from None
        self.guest.current, self.guest.qmp = proc, qmp
        return resume

    def _moved(self, stop, resume, info):
        """The facts of a migration or a restore: stopped from the source's STOP to the destination's RESUME."""
        return {'duration_ns': event_time(resume) - event_time(stop),
                # QMP's downtime is in ms; the guest reads ns
                'qmp_downtime_ns': info.get('downtime', 0) * NSEC_PER_MSEC, 'overhead_ns': 0}

    def do_migrate(self, _secs):
        path = os.path.join(self.guest.dir, f'mig{len(self.guest.procs)}.sock')
        proc, qmp = self._start_incoming(f'unix:{path}')
        stop, info = self._migrate_out(f'unix:{path}')
        self._retire_current()
        return self._moved(stop, self._adopt(proc, qmp), info)

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
        return self._moved(stop, resume, info)
