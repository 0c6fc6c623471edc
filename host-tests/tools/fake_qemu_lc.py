# SPDX-License-Identifier: GPL-2.0-only
"""A fake QEMU for the lifecycle helper's whole-run tests: a QMP monitor, and a guest that asks for events.

What and why: test_lifecycle.py runs scripts/lifecycle.py end to end
without a kernel or QEMU. How: it serves QMP (fake_qmp.py) on the
socket its -qmp option names (stop and cont send STOP and RESUME with the
host's time), prints `LIFECYCLE-REQUEST: R` for each R of FAKE_REQUESTS
(separated by '|'), reads the answer from stdin and prints it as `GOT
answer`, then exits with FAKE_STATUS. With FAKE_NO_QMP set it exits with
that status before creating its socket. Its arguments are echoed as the
first line of output; the guest starts once the helper has negotiated.
"""
import os
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_qmp  # noqa: E402


def now_event(name):
    return lambda _args: [{"return": {}}, fake_qmp.event(name, time.time())]


ANSWERS = {"stop": now_event("STOP"), "cont": now_event("RESUME")}


def monitor(listener, negotiated):
    conn, _ = listener.accept()
    # the guest starts once the helper's last negotiating command has its answer: a fake that
    # exited before sending it made the helper see QMP closed (a make check without KVM)
    fake_qmp.serve(conn, ANSWERS,
                   answered=lambda name: name == "migrate-set-capabilities" and negotiated.set())


def main(argv):
    print("ARGS " + " ".join(argv[1:]), flush=True)
    if os.environ.get("FAKE_NO_QMP"):
        print("fake-qemu: no monitor today", file=sys.stderr, flush=True)
        return int(os.environ["FAKE_NO_QMP"])
    path = argv[argv.index("-qmp") + 1][len("unix:"):].split(",")[0]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    negotiated = threading.Event()
    threading.Thread(target=monitor, args=(listener, negotiated), daemon=True).start()
    negotiated.wait(30)         # as QEMU, which runs on while the helper connects
    for request in filter(None, os.environ.get("FAKE_REQUESTS", "").split("|")):
        print("LIFECYCLE-REQUEST: " + request, flush=True)
        print("GOT " + sys.stdin.readline().strip(), flush=True)
    return int(os.environ.get("FAKE_STATUS", "1"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
