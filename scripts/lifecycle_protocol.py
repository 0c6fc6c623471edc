# SPDX-License-Identifier: GPL-2.0-only
"""The lifecycle guest's event protocol: the cfg's events list, the guest's request lines, the runner's answers.

What and why: a lifecycle kernel (common/lifecycle/lifecycle_proto.c is its side)
asks for each host event on its console and reads the facts of it back on
its serial input; the helper must hold the guest to the cfg's list and
answer in the shape it parses. This file is only that text: no QEMU, no
clock. How: parse_events() reads the cfg's `events` value,
check_request() a request line against the list and the events done so
far, and the *_line() functions write the answers. A line that breaks the
protocol is a ProtocolError whose text says how (docs/lifecycle.md).
"""
import re

REQUEST = 'LIFECYCLE-REQUEST: '
DONE = 'LIFECYCLE-DONE'
EVENT_RE = re.compile(r'^((pause|save)=(\d{1,3}(\.\d{1,3})?)|save|migrate|reset|pingpong=(\d{1,3})|migrate=(\d{1,3}))$')
# A reset request carries what the guest's next life needs back: counter=N tests=N failures=N skipped=N.
REQUEST_RE = re.compile(r'^(pause|save|migrate|reset) ([0-9]{1,4})((?: [a-z_]{1,16}=[0-9]{1,20}){0,8})$')
# The first words of a guest whose events include a reset: it asks whether it is a new life.
BOOT_REQUEST = 'boot 0'
# The guest's last words about an event, after its window after it: what the host did meanwhile.
WINDOW_RE = re.compile(r'^window ([0-9]{1,4})$')
RESET_CARRIED = ('counter', 'tests', 'failures', 'skipped')
PINGPONG_MAX = 100
# migrate=N: one event, a run of N migrations back to back, asked for one by one
# with run=K (the guest's LC_RUN_MAX bounds N: common/lifecycle/lifecycle_state.h)
RUN = 'run'
RUN_MIN, RUN_MAX = 2, 16
SHOWN_CHARS = 60


class ProtocolError(Exception):
    """The cfg's list or a guest's line breaks the protocol; the text says how."""


def parse_events(text):
    """The cfg value as a list of (kind, seconds); pingpong=N is N migrations, migrate=N one
    event ('run', N): N migrations back to back."""
    events = []
    for word in text.split():
        m = EVENT_RE.match(word)
        if not m:
            raise ProtocolError(f"events: bad event '{word}' (pause=SECONDS, save[=SECONDS], migrate, "
                                'reset, pingpong=N, migrate=N)')
        if m.group(2) is not None:
            events.append((m.group(2), float(m.group(3))))
        elif m.group(5) is not None:
            n = int(m.group(5))
            if not 1 <= n <= PINGPONG_MAX:
                raise ProtocolError(f"events: pingpong={n} is not 1..{PINGPONG_MAX}")
            events += [('migrate', 0.0)] * n
        elif m.group(6) is not None:
            n = int(m.group(6))
            if not RUN_MIN <= n <= RUN_MAX:
                raise ProtocolError(f"events: migrate={n} is not {RUN_MIN}..{RUN_MAX}")
            events.append((RUN, float(n)))
        else:
            events.append((word, 0.0))
    if not events:
        raise ProtocolError('events: empty list')
    return events


def _shown(text):
    return ''.join(c if c.isprintable() else '?' for c in text[:SHOWN_CHARS])


def _facts_wanted(want):
    """The facts a request for the cfg's event `want` carries."""
    return set(RESET_CARRIED) if want == 'reset' else {'run'} if want == RUN else set()


def check_request(text, done, events, run_done=0):
    """A request line (after REQUEST) against the cfg's events, `done` of them performed and
    `run_done` migrations of the next one's run: (kind, seconds, facts carried) of the event to
    perform next (a run's migration: 'migrate', N, {'run': K})."""
    m = REQUEST_RE.match(text)
    if not m:
        raise ProtocolError(f"the guest's request '{_shown(text)}' is malformed (want KIND SEQ)")
    kind, seq = m.group(1), int(m.group(2))
    facts = dict(w.split('=') for w in m.group(3).split())
    if seq != done + 1:
        raise ProtocolError(f'the guest asked for event {seq}, the next one is {done + 1}')
    if done >= len(events):
        raise ProtocolError(f"the guest asked for event {seq} ({kind}); the cfg's events list has "
                            f'only {len(events)}')
    want, secs = events[done]
    if kind != ('migrate' if want == RUN else want):
        raise ProtocolError(f"the guest asked for event {seq} '{kind}'; the cfg's event {seq} is '{want}'")
    if set(facts) != _facts_wanted(want):
        raise ProtocolError(f"the guest's request '{text[:80]}' has the wrong facts "
                            f"(a reset carries {', '.join(RESET_CARRIED)}; a migration of a run, run=K; "
                            'nothing else carries any)')
    if want == RUN and int(facts['run']) != run_done + 1:
        raise ProtocolError(f"the guest asked for migration {facts['run']} of event {seq}'s run; the "
                            f'next one is {run_done + 1} of {int(secs)}')
    return kind, secs, facts


def window_seq(text):
    """The event number of a 'window N' line, or None for another line."""
    m = WINDOW_RE.match(text)
    return int(m.group(1)) if m else None


def done_line(kind, seq, facts):
    """The answer to event seq: its facts as key=value words, in the order given."""
    return f'{DONE} {kind} {seq} ' + ' '.join(f'{k}={v}' for k, v in facts.items())


def window_line(seq, after_vcpu, after_any):
    """The answer to 'window seq': the host's waits since event seq was answered (ns)."""
    return f'{DONE} window {seq} after_wait_ns={after_vcpu} after_stamp_wait_ns={after_any}'


def first_life_line(t_boot, now):
    """The answer to a first life's BOOT_REQUEST: no reset came before it."""
    return (f'{DONE} reset 0 duration_ns=0 qmp_downtime_ns=0 total_ns=0 overhead_ns=0 '
            f'host_req_ns={t_boot} host_ns={now}')
