# SPDX-License-Identifier: GPL-2.0-only
"""A fake QEMU monitor for the lifecycle helper's host tests: greets, answers commands by a table, sends events.

What and why: scripts/qmp_client.py and scripts/lifecycle.py are tested
without QEMU; this plays QEMU's side of QMP on a UNIX socket. How:
serve(conn, answers) greets, then answers each command with
answers[name](arguments), a list of replies (events first, then the
return or error), until the client closes; it records the commands it got.
fake_qemu_lc.py is a fake QEMU around it. Standard library only.
"""
import json


def event(name, seconds, data=None):
    """A QMP event with QEMU's time stamp."""
    us = round(seconds * 10**6)
    ev = {"event": name, "timestamp": {"seconds": us // 10**6, "microseconds": us % 10**6}}
    if data is not None:
        ev["data"] = data
    return ev


def ok(*events):
    """An answer: the events, then an empty return."""
    return lambda _args: list(events) + [{"return": {}}]


GREETING = {"QMP": {"version": {"qemu": {"major": 7, "minor": 2, "micro": 0}}, "capabilities": []}}


def serve(conn, answers, got=None, greeting=GREETING, answered=None):
    """Play QEMU's monitor on conn until the client closes; append each command's name to got;
    call answered(name) once a command's replies are sent."""
    f = conn.makefile("rwb")

    def send(msg):
        f.write(json.dumps(msg).encode() + b"\n")
        f.flush()
    try:
        _serve(f, send, answers, got, greeting, answered)
    except (OSError, ValueError):
        pass        # the client went away
    try:
        f.close()   # flushes what is left: a client gone is a broken pipe here too
    except OSError:
        pass
    conn.close()


def _serve(f, send, answers, got, greeting, answered):
    send(greeting)
    for line in f:
        msg = json.loads(line)
        name = msg["execute"]
        if got is not None:
            got.append(name)
        for reply in answers.get(name, ok())(msg.get("arguments", {})):
            send(reply)
        if answered is not None:
            answered(name)
        if name == "quit":
            break
