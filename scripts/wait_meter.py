# SPDX-License-Identifier: GPL-2.0-only
"""The lifecycle helper's wait meter: over a span, how long QEMU's threads and the helper's could not run.

What and why: a vCPU descheduled during a host event, or in the window
after it, shows as a step of every clock it reads or as ticks it missed;
the guest judges its clocks knowing this figure (docs/lifecycle.md, "A busy
host"). How: a daemon thread reads, every WAIT_SAMPLE s, the run_delay of
every thread of every live QEMU (the source and the destination of a
migration) and of this process (scripts/thread_waits.py), and this
machine's steal per CPU at the start and the end. spans() is the
arithmetic alone, a function of the readings, for a host test.
Standard library only.
"""
import os
import threading

from thread_waits import ThreadReader, cpu_steal_ns     # beside this script

WAIT_SAMPLE = 0.02        # seconds between two readings of the threads' waits


def spans(first, last, steal0, steal1):
    """(the vCPUs' wait, any thread's wait) in ns: each the largest growth of one thread's run_delay
    from first to last ({key: (is a vCPU, run_delay)}) plus the largest steal of one CPU."""
    steal = max(0, max((b - a for a, b in zip(steal0, steal1)), default=0))
    growth = [(v[0], v[1] - first[k][1]) for k, v in last.items()]
    vcpu = max((g for is_vcpu, g in growth if is_vcpu), default=0)
    anyone = max((g for _, g in growth), default=0)
    return max(0, vcpu) + steal, max(0, anyone) + steal


class WaitMeter:
    """Over a span (an event, a window): how long the guest's threads and this runner's could not run.

    finish() gives two figures, each the largest growth of one thread's
    run_delay since the meter started (or since the thread appeared) plus
    the largest steal of one CPU: of a vCPU thread (what a vCPU
    descheduled in the span can show as a step of every clock it reads,
    or as ticks it missed), and of any thread (what can delay the host's
    time stamps of the guest's lines: the runner's reader, QEMU's main
    loop). pids() names the processes to read, this one aside."""

    def __init__(self, pids):
        self.pids = pids
        self.reader = ThreadReader(os.getpid())
        self.first = self._read()
        self.last = dict(self.first)
        self.steal0 = cpu_steal_ns()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read(self):
        return self.reader.read(self.pids() + [os.getpid()])

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
        return spans(self.first, self.last, self.steal0, cpu_steal_ns())
