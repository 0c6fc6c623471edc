# SPDX-License-Identifier: GPL-2.0-only
"""Wraps one QEMU and tells its guest what the host did to QEMU's threads between two of the guest's marks.

What and why: a timer guest loses or sees late ticks when the host keeps
QEMU's threads from a CPU; instead of fixed allowances it asks this agent,
at the end of its run, and judges by the host's evidence. Standard library
only; run with /usr/bin/python3 (docs/runner.md, "Host evidence for the
guest", has the protocol in full):

    host_evidence.py -- QEMU ARGS...

How: QEMU starts with stdin and stdout as pipes, `-fw_cfg
name=opt/vmtick/host-evidence,string=1` (the guest's sign that an agent
answers) and, unless -name is given, `-name vmtick,debug-threads=on`
(vCPU threads named "CPU n/KVM"); QEMU is started, its console copied
and QEMU stopped by scripts/qemu_proc.py. A Sampler reads, every SAMPLE_S,
the run_delay of every thread of QEMU, of KVM's PIT kthread and of this
agent, and each CPU's steal (scripts/thread_waits.py). The console goes to stdout unchanged;
`HOST-EVIDENCE: mark K` is stamped as the reader reads it, and
`HOST-EVIDENCE: request A B N` answered on QEMU's stdin with one
`HOST-EVIDENCE-DONE parts=N span_us= stamp_us= vcpu=.. other=.. steal=..`
line (the most one thread or CPU lost in each of N parts, bracketed by
the samples around the part: never under-stated) or `HOST-EVIDENCE-ERROR
why`. Exit status: QEMU's (128+n after signal n); 143 on SIGTERM, QEMU
stopped first; ERROR_STATUS after `host-evidence: ERROR: why` on stderr.
"""

import array
import bisect
import os
import queue
import re
import signal
import sys
import threading
import time

import qemu_proc            # beside this script
from thread_waits import StealReader, ThreadReader, find_pit_thread
from units import NSEC_PER_SEC, NSEC_PER_USEC

SAMPLE_S = 0.005            # seconds between two samples
SAMPLE_NS = int(SAMPLE_S * NSEC_PER_SEC)
KEEP_NS = 15 * 60 * NSEC_PER_SEC   # samples older than this are dropped (a timer run lasts seconds)
PRUNE_EVERY = 1000          # samples between two drops of old ones
PIT_LOOKUP_S = 1.0          # seconds between two looks for the kvm-pit kthread, until found
SAMPLE_WAIT_S = 5.0         # seconds a request waits for the sample after its second mark
POLL_S = 0.1                # seconds between two looks at whether QEMU has exited
DRAIN_S = 1.0               # seconds the console may take to end after QEMU has exited
ERROR_STATUS = 126          # as scripts/lifecycle.py's; the runner reads the ERROR line
PREFIX = 'HOST-EVIDENCE: '
DONE = 'HOST-EVIDENCE-DONE'
ERROR = 'HOST-EVIDENCE-ERROR'
FW_CFG = ['-fw_cfg', 'name=opt/vmtick/host-evidence,string=1']
NAME = ['-name', 'vmtick,debug-threads=on']
MAX_PARTS = 1000
MAX_WINDOWS = 64            # windows one request line may ask about
# How late a stamp is beyond what the threads' waits around it show: the
# main loop's write and this reader's wake-up on an idle host. A chosen
# floor, not a measured one.
STAMP_FLOOR_NS = 200_000
MARK_RE = re.compile(r'mark (\d{1,2})')
REQUEST_RE = re.compile(r'request (\d{1,2}) (\d{1,2}) (\d{1,4})')
WINDOWS_RE = re.compile(r'windows (\d{1,2}) (\d{1,2}) (\d{1,12})((?: \d{1,12}:\d{1,12})+)')


class EvidenceError(Exception):
    """What was wrong with a request: the text of its HOST-EVIDENCE-ERROR line."""


class AgentError(Exception):
    """A failure of the agent itself: host-evidence: ERROR, exit ERROR_STATUS."""


class Series:
    """Samples in time order: when each was read (from t0 to t1, ns), each thread's run_delay, each CPU's steal.

    A thread is a column (-1 in a row: not alive then); vcpu[column]
    says whether it runs a vCPU."""

    def __init__(self):
        self.t0, self.t1, self.rows, self.steals = [], [], [], []
        self.index = {}
        self.vcpu = []
        self.agent = []         # agent[column]: a thread of this agent's (own_pid's)
        self.own_pid = None

    def _column(self, key, vcpu):
        col = self.index.get(key)
        if col is None:
            col = self.index[key] = len(self.vcpu)
            self.vcpu.append(vcpu)
            self.agent.append(isinstance(key, tuple) and key[0] == self.own_pid)
        self.vcpu[col] = vcpu
        return col

    def add(self, t0, delays, steal, t1=None):
        """One sample; delays: {thread key: (is a vCPU, run_delay ns)}, steal: [ns per CPU]."""
        cols = [(self._column(key, vcpu), d) for key, (vcpu, d) in delays.items()]
        row = array.array('q', [-1]) * len(self.vcpu)
        for col, d in cols:
            row[col] = d
        self.t0.append(t0)
        self.t1.append(t0 if t1 is None else t1)
        self.rows.append(row)
        self.steals.append(array.array('q', steal))

    def prune(self, before):
        """Drop the samples read before this time."""
        n = bisect.bisect_left(self.t1, before)
        for seq in (self.t0, self.t1, self.rows, self.steals):
            del seq[:n]

    def bracket(self, start, end):
        """(the last sample read at or before start, the first read at or after end), as indices."""
        a = bisect.bisect_right(self.t1, start) - 1
        b = bisect.bisect_left(self.t0, end)
        if a < 0:
            raise EvidenceError('a mark is older than the samples kept')
        if b >= len(self.t0):
            raise EvidenceError('no host sample after the second mark')
        return a, b

    def window(self, start, end):
        """A Series of the samples from bracket(start, end)'s first to its last."""
        a, b = self.bracket(start, end)
        out = Series()
        out.t0, out.t1 = self.t0[a:b + 1], self.t1[a:b + 1]
        out.rows, out.steals = self.rows[a:b + 1], self.steals[a:b + 1]
        out.index, out.vcpu, out.agent = dict(self.index), list(self.vcpu), list(self.agent)
        return out

    def _delay(self, k, col):
        row = self.rows[k]
        return row[col] if col < len(row) else -1

    def growth(self, col, a, b):
        """How much a thread's run_delay grew from sample a to sample b (all of it when born after a)."""
        base = max(0, self._delay(a, col))
        for k in range(b, a - 1, -1):       # a thread that ended: its last figure
            d = self._delay(k, col)
            if d >= 0:
                return max(0, d - base)
        return 0

    def largest(self, a, b, agent=False):
        """(one vCPU thread's, one other thread's, one CPU's steal) largest growth from sample a to b.

        The agent's own threads count only with agent=True (how late it stamped a mark): they
        deliver no interrupt, so their waits explain no tick."""
        most = {True: 0, False: 0}
        for col, vcpu in enumerate(self.vcpu):
            if agent or not self.agent[col]:
                most[vcpu] = max(most[vcpu], self.growth(col, a, b))
        steal = max((y - x for x, y in zip(self.steals[a], self.steals[b])), default=0)
        return most[True], most[False], max(0, steal)


def evidence(series, t_a, t_b, parts):
    """What the host did between stamps t_a < t_b (ns) in `parts` equal parts: the answer's figures in ns."""
    span = t_b - t_a
    figures = [series.largest(*series.bracket(t_a + span * i // parts, t_a + span * (i + 1) // parts))
               for i in range(parts)]
    return {'parts': parts, 'span': span, 'stamp': stamp_slack(series, t_a, t_b), 'vcpu': [f[0] for f in figures],
            'other': [f[1] for f in figures], 'steal': [f[2] for f in figures]}


def stamp_slack(series, t_a, t_b):
    """How late either stamp may be: the other threads' (the main loop's, the reader's) waits around it."""
    return max(series.largest(*series.bracket(t, t), agent=True)[1] for t in (t_a, t_b)) + STAMP_FLOOR_NS


def window_evidence(series, t_a, t_b, span_us, windows, steal_quantum):
    """What the host did over each window (us after mark A in the guest's time, span_us to mark B),
    mapped onto the stamps t_a, t_b and widened by the stamps' slack; figures in ns. /proc/stat
    counts steal in whole clock ticks: a window's steal is counted one tick short (a tick may have
    ended anywhere in it), so that a tick's worth landing in a short window explains nothing."""
    slack = stamp_slack(series, t_a, t_b)
    scale = (t_b - t_a) / max(span_us, 1)
    figures = []
    for a, b in windows:
        lo = t_a + int(a * scale) - slack
        hi = t_a + int(b * scale) + slack
        vcpu, other, steal = series.largest(*series.bracket(max(lo, series.t0[0]), hi))
        figures.append((vcpu, other, max(0, steal - steal_quantum)))
    return {'windows': len(windows), 'stamp': slack, 'vcpu': [f[0] for f in figures],
            'other': [f[1] for f in figures], 'steal': [f[2] for f in figures]}


def ceil_us(ns):
    return -(-ns // NSEC_PER_USEC)


def answer_lists(ev):
    return ' '.join(f'{key}=' + ','.join(str(ceil_us(v)) for v in ev[key]) for key in ('vcpu', 'other', 'steal'))


def answer_line(ev):
    """The HOST-EVIDENCE-DONE line of evidence()'s figures; waits rounded up to whole us."""
    return (f"{DONE} parts={ev['parts']} span_us={ev['span'] // NSEC_PER_USEC} stamp_us={ceil_us(ev['stamp'])} "
            f"{answer_lists(ev)}")


def windows_answer_line(ev):
    """The HOST-EVIDENCE-DONE line of window_evidence()'s figures."""
    return f"{DONE} windows={ev['windows']} stamp_us={ceil_us(ev['stamp'])} {answer_lists(ev)}"


def parse_windows(text, marks):
    """(stamp of A, stamp of B, span_us, [(a, b) us]) of 'windows A B SPAN a:b ...'."""
    m = WINDOWS_RE.fullmatch(text)
    if not m:
        raise EvidenceError(f"malformed request '{shown(text)}' (want 'windows A B SPAN_US a:b ...': "
                            'us after mark A)')
    a, b, span = int(m.group(1)), int(m.group(2)), int(m.group(3))
    windows = [tuple(int(x) for x in w.split(':')) for w in m.group(4).split()]
    if len(windows) > MAX_WINDOWS:
        raise EvidenceError(f'windows {a} {b}: {len(windows)} windows, at most {MAX_WINDOWS} a line')
    if any(lo > hi for lo, hi in windows):
        raise EvidenceError(f'windows {a} {b}: a window that ends before it starts')
    for k in (a, b):
        if k not in marks:
            raise EvidenceError(f'windows {a} {b}: mark {k} was never stamped')
    if marks[a] >= marks[b] or not span:
        raise EvidenceError(f'windows {a} {b}: mark {a} was not stamped before mark {b}')
    return marks[a], marks[b], span, windows


def shown(text):
    """A guest's text fit for one line of an answer or a message."""
    return ''.join(c if c.isprintable() else '?' for c in text[:80])


def parse_request(text, marks):
    """(stamp of A, stamp of B, N) of 'request A B N' (text after the prefix); marks: {K: stamp ns}."""
    m = REQUEST_RE.fullmatch(text)
    if not m:
        raise EvidenceError(f"malformed request '{shown(text)}' (want 'request A B N': marks A, B 0..99, "
                            f'N 1..{MAX_PARTS} parts)')
    a, b, parts = (int(g) for g in m.groups())
    if not 1 <= parts <= MAX_PARTS:
        raise EvidenceError(f'request {a} {b} {parts}: {parts} parts is not 1..{MAX_PARTS}')
    for k in (a, b):
        if k not in marks:
            raise EvidenceError(f'request {a} {b} {parts}: mark {k} was never stamped')
    if marks[a] >= marks[b]:
        raise EvidenceError(f'request {a} {b} {parts}: mark {a} was not stamped before mark {b}')
    return marks[a], marks[b], parts


class Sampler:
    """A daemon thread that adds a sample to a Series every SAMPLE_S (drift-free), from QEMU's
    threads, the kvm-pit kthread's, this agent's and /proc/stat's steal."""

    def __init__(self, qemu_pid):
        self.qemu_pid = qemu_pid
        self.pit_pid, self.pit_looked = None, float('-inf')
        self.series = Series()
        self.series.own_pid = os.getpid()
        self.reader = ThreadReader(os.getpid())
        self.steal = StealReader()
        self.tick_ns = self.steal.tick_ns
        self.cond = threading.Condition()
        self.error = None
        self.count = 0
        self.sample()
        threading.Thread(target=self._run, name='sampler', daemon=True).start()

    def _pids(self):
        now = time.monotonic()
        if self.pit_pid is None and now - self.pit_looked >= PIT_LOOKUP_S:
            self.pit_looked = now
            self.pit_pid = find_pit_thread(self.qemu_pid)
        return [self.qemu_pid, os.getpid()] + ([self.pit_pid] if self.pit_pid else [])

    def sample(self):
        pids = self._pids()
        t0 = time.monotonic_ns()
        steal = self.steal.read()
        delays = self.reader.read(pids)
        t1 = time.monotonic_ns()
        with self.cond:
            self.series.add(t0, delays, steal, t1)
            self.count += 1
            if self.count % PRUNE_EVERY == 0:
                self.series.prune(t1 - KEEP_NS)
            self.cond.notify_all()

    def _run(self):
        due = time.monotonic()
        try:
            while True:
                due = max(due + SAMPLE_S, time.monotonic())
                time.sleep(max(0.0, due - time.monotonic()))
                self.sample()
        except Exception as e:      # reported to the request that waits for a sample
            with self.cond:
                self.error = f'{type(e).__name__}: {e}'
                self.cond.notify_all()

    def _after(self, t_b):
        """Wait for a sample read at or after t_b (with self.cond held)."""
        if not self.cond.wait_for(lambda: self.error or self.series.t0[-1] >= t_b, SAMPLE_WAIT_S):
            raise EvidenceError(f'no host sample after the second mark in {SAMPLE_WAIT_S:g} s')
        if self.error:
            raise AgentError(f'the sampler failed: {self.error}')

    def evidence(self, t_a, t_b, parts):
        """evidence() once a sample read at or after t_b exists."""
        with self.cond:
            self._after(t_b)
            window = self.series.window(t_a, t_b)
        return evidence(window, t_a, t_b, parts)

    def windows(self, t_a, t_b, span_us, windows):
        """window_evidence() once a sample read at or after t_b, widened by the stamps' slack
        as the windows are, exists (a window may end at mark B: asked at once, its widened
        end had no sample yet)."""
        with self.cond:
            self._after(t_b)
            self._after(t_b + stamp_slack(self.series, t_a, t_b))
            return window_evidence(self.series, t_a, t_b, span_us, windows, self.tick_ns)


def console(src, lines):
    """Copy QEMU's stdout to ours as it comes; queue (time read, text) of each HOST-EVIDENCE line, then None."""
    out = sys.stdout.buffer

    def write(chunk):
        out.write(chunk)
        out.flush()
    try:
        qemu_proc.copy_console(src, write, PREFIX, lambda stamp, text: lines.put((stamp, text)))
    finally:
        lines.put(None)


def tell(proc, text):
    """One line on the guest's serial input; a QEMU that has gone cannot read it."""
    try:
        proc.stdin.write(text.encode() + b'\n')
        proc.stdin.flush()
    except OSError:
        pass


# A request's word: how it is parsed, the Sampler method that answers it, the answer's line.
REQUESTS = {
    'request': (parse_request, 'evidence', answer_line),
    'windows': (parse_windows, 'windows', windows_answer_line),
}


def handle(proc, sampler, marks, stamp, text):
    """One HOST-EVIDENCE line: stamp a mark, answer a request, or warn on stderr."""
    word = text.split(' ', 1)[0]
    if word == 'mark' and MARK_RE.fullmatch(text):
        marks[int(text.split()[1])] = stamp
    elif word in REQUESTS:
        parse, ask, line = REQUESTS[word]
        try:
            request = parse(text, marks)
            tell(proc, line(getattr(sampler, ask)(*request)))
        except EvidenceError as e:
            tell(proc, f'{ERROR} {e}')
    else:
        print(f"host-evidence: warning: ignored '{PREFIX}{shown(text)}' (want mark K with K 0..99, "
              'request A B N or windows A B SPAN_US a:b ...)', file=sys.stderr, flush=True)


def serve(proc, sampler):
    """Pass the console on and answer the guest until QEMU has exited and its output has ended."""
    lines = queue.Queue()
    reader = threading.Thread(target=console, args=(proc.stdout, lines), name='console', daemon=True)
    reader.start()
    marks, gone = {}, None
    while True:
        try:
            item = lines.get(timeout=POLL_S)
        except queue.Empty:
            if proc.poll() is not None:
                gone = gone or time.monotonic()
                if not reader.is_alive() or time.monotonic() - gone > DRAIN_S:
                    return
            continue
        if item is None:
            return
        handle(proc, sampler, marks, *item)


def qemu_command(args):
    """QEMU's command with the agent's fw_cfg flag and, unless the caller named it, named threads."""
    return list(args) + FW_CFG + ([] if '-name' in args else NAME)


def on_sigterm(signum, _frame):
    """Leave through main's finally (which stops QEMU) once, whatever more signals come."""
    signal.signal(signum, signal.SIG_IGN)
    sys.exit(qemu_proc.SIGNAL_BASE + signum)


def main(argv):
    if len(argv) < 3 or argv[1] != '--':
        print('host-evidence: ERROR: usage: host_evidence.py -- QEMU ARGS...', file=sys.stderr)
        return ERROR_STATUS
    signal.signal(signal.SIGTERM, on_sigterm)
    proc = None
    try:
        try:
            proc = qemu_proc.start(qemu_command(argv[2:]))
        except OSError as e:
            raise AgentError(f'cannot start {argv[2]}: {e.strerror or e}') from None
        serve(proc, Sampler(proc.pid))
        return qemu_proc.exit_status(proc.wait())
    except (AgentError, OSError) as e:
        print(f'host-evidence: ERROR: {e}', file=sys.stderr)
        return ERROR_STATUS
    except Exception as e:      # a fault of this script's: still an ERROR the runner reports
        print(f'host-evidence: ERROR: {type(e).__name__}: {e}', file=sys.stderr)
        return ERROR_STATUS
    finally:
        if proc is not None:
            qemu_proc.stop([proc])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
