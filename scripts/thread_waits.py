# SPDX-License-Identifier: GPL-2.0-only
"""How long threads and CPUs could not run: each thread's run_delay and each CPU's steal, read from /proc.

What and why: the host-evidence agent (scripts/host_evidence.py) and the
lifecycle helper's wait meter (scripts/wait_meter.py) both explain what a
guest saw by how long the host kept QEMU's threads from a CPU; they read
it here, one way. How: a thread's run_delay is the second figure of
/proc/PID/task/TID/schedstat (ns), whether it runs a vCPU is read from its
name (QEMU with debug-threads=on names them "CPU n/KVM"), and a CPU's steal
is the eighth figure of its line in /proc/stat (clock ticks). Standard
library only.
"""
import os
import re

from units import NSEC_PER_SEC  # beside this script

PROC = '/proc'
COMM_READS = 3              # QEMU names a thread from inside it, just after it starts: read its name thrice
# QEMU's vCPU threads: "CPU 0/KVM", "CPU 1/TCG"; TCG's single thread for all of them (-icount) "ALL CPUs/TCG"
VCPU_PREFIXES = ('CPU ', 'ALL CPUs/')
STEAL_FIELD = 8             # /proc/stat: cpuN user nice system idle iowait irq softirq steal ...
CPU_LINE = re.compile(r'cpu\d+')


def parse_steal(text, tick_ns):
    """[ns stolen from each CPU] of /proc/stat's text; tick_ns: ns per clock tick."""
    out = []
    for line in text.splitlines():
        w = line.split()
        if w and CPU_LINE.fullmatch(w[0]) and len(w) > STEAL_FIELD:
            out.append(int(w[STEAL_FIELD]) * tick_ns)
    return out


def tick_ns():
    """ns per clock tick of /proc/stat (SC_CLK_TCK)."""
    return NSEC_PER_SEC // os.sysconf('SC_CLK_TCK')


def cpu_steal_ns():
    """[ns this machine's own hypervisor stole from each CPU]; [] when /proc/stat cannot be read."""
    try:
        with open(os.path.join(PROC, 'stat')) as f:
            return parse_steal(f.read(), tick_ns())
    except (OSError, ValueError):
        return []


class StealReader:
    """cpu_steal_ns() for a sampler: /proc/stat stays open and is re-read with pread."""

    def __init__(self):
        self.fd = os.open(os.path.join(PROC, 'stat'), os.O_RDONLY)
        self.tick_ns = tick_ns()

    def read(self):
        return parse_steal(os.pread(self.fd, 1 << 16, 0).decode('ascii', 'replace'), self.tick_ns)


def find_pit_thread(qemu_pid):
    """The pid of KVM's in-kernel PIT kthread of this QEMU (comm "kvm-pit/<qemu pid>"), or None."""
    want = f'kvm-pit/{qemu_pid}'
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(PROC, name, 'comm')) as f:
                if f.read().strip() == want:
                    return int(name)
        except OSError:
            continue
    return None


class ThreadReader:
    """Every thread's run_delay, cheaply, for the agent's sampler and the lifecycle helper's WaitMeter:
    two opens per thread at every sample cost 0.9 ms a sample for 11 threads here (17 % of a
    CPU at 200 samples a second); each schedstat here stays open and is re-read with pread,
    and a thread's name is read only when it is new. The caller's own threads (own_pid) are
    never vCPUs."""

    def __init__(self, own_pid):
        self.own = own_pid
        self.threads = {}       # (pid, tid) -> [schedstat fd, is a vCPU, name reads left]

    def _read_one(self, key, path):
        entry = self.threads.get(key)
        if entry is None:
            entry = self.threads[key] = [os.open(os.path.join(path, 'schedstat'), os.O_RDONLY), False, COMM_READS]
        if entry[2] and key[0] != self.own:
            entry[2] -= 1
            with open(os.path.join(path, 'comm')) as f:
                entry[1] = f.read().startswith(VCPU_PREFIXES)
        return entry[1], int(os.pread(entry[0], 256, 0).split()[1])

    def read(self, pids):
        """{(pid, tid): (is a vCPU, run_delay ns)} for every live thread of pids."""
        out = {}
        for pid in pids:
            task = os.path.join(PROC, str(pid), 'task')
            try:
                tids = os.listdir(task)
            except OSError:
                continue
            for tid in tids:
                try:
                    out[(pid, tid)] = self._read_one((pid, tid), os.path.join(task, tid))
                except (OSError, ValueError, IndexError):
                    self._close((pid, tid))    # ended, or its id taken by a new thread: open it afresh
        for key in set(self.threads) - set(out):
            self._close(key)
        return out

    def _close(self, key):
        entry = self.threads.pop(key, None)
        if entry is not None:
            os.close(entry[0])

    def close(self):
        """Close every thread's schedstat."""
        for key in list(self.threads):
            self._close(key)
