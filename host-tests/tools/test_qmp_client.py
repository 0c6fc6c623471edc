# SPDX-License-Identifier: GPL-2.0-only
"""scripts/qmp_client.py: connecting to a QEMU's monitor, commands and their answers, events kept for later.

What: the greeting and capabilities negotiation (the "events" migration
capability on), a command's return, an error answer named by its command,
events that arrive before an answer kept for wait_event() in order, event
time stamps in ns, and the failures' messages (QEMU gone before its
socket, no socket, a closed connection). Why: every fact the lifecycle
helper tells the guest comes through this client. How: a fake monitor
(fake_qmp.py) on a UNIX socket in a private directory, in a thread.
"""
import os
import socket
import sys
import tempfile
import threading
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_qmp  # noqa: E402
import qmp_client  # noqa: E402


class Running:
    """A stand-in for a QEMU still running (Popen's poll())."""

    returncode = None

    def poll(self):
        return self.returncode


class Exited(Running):
    returncode = 5


class Client(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.path = os.path.join(self.dir.name, "qmp.sock")
        self.got = []
        # an answer or event that never comes fails a test in seconds, not QMP's minute
        old, qmp_client.QMP_TIMEOUT = qmp_client.QMP_TIMEOUT, 2.0
        self.addCleanup(setattr, qmp_client, "QMP_TIMEOUT", old)

    def monitor(self, answers, greeting=fake_qmp.GREETING):
        """Listen on self.path and serve one client in a thread."""
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        listener.listen(1)
        self.addCleanup(listener.close)

        def run():
            conn, _ = listener.accept()
            fake_qmp.serve(conn, answers, self.got, greeting)
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t

    def test_negotiates_and_turns_migration_events_on(self):
        caps = []
        self.monitor({"migrate-set-capabilities": lambda a: caps.append(a) or [{"return": {}}]})
        q = qmp_client.Qmp(self.path, Running())
        q.close()
        self.assertEqual(self.got[:2], ["qmp_capabilities", "migrate-set-capabilities"])
        self.assertEqual(caps, [{"capabilities": [{"capability": "events", "state": True}]}])

    def test_a_commands_return_and_the_events_before_it(self):
        self.monitor({"stop": lambda _a: [fake_qmp.event("STOP", 10), fake_qmp.event("X", 11),
                                          {"return": {"status": "ok"}}]})
        q = qmp_client.Qmp(self.path, Running())
        self.addCleanup(q.close)
        self.assertEqual(q.command("stop"), {"status": "ok"})
        self.assertEqual(q.wait_event(lambda e: e["event"] == "X")["event"], "X")
        self.assertEqual([e["event"] for e in q.events], ["STOP"])

    def test_wait_event_reads_until_it_comes(self):
        self.monitor({"cont": fake_qmp.ok(), "query": lambda _a: [fake_qmp.event("RESUME", 3), {"return": 1}]})
        q = qmp_client.Qmp(self.path, Running())
        self.addCleanup(q.close)
        q.command("cont")
        q.sock.sendall(b'{"execute": "query"}\n')
        self.assertEqual(qmp_client.event_time(q.wait_event(lambda e: e["event"] == "RESUME")), 3 * 10**9)

    def test_an_error_answer_names_the_command(self):
        self.monitor({"migrate": lambda _a: [{"error": {"class": "GenericError", "desc": "no way"}}]})
        q = qmp_client.Qmp(self.path, Running())
        self.addCleanup(q.close)
        with self.assertRaisesRegex(qmp_client.QmpError, r"^QMP migrate: no way$"):
            q.command("migrate", uri="unix:/x")

    def test_a_closed_connection(self):
        self.monitor({"quit": lambda _a: []})       # QEMU may close before it answers
        q = qmp_client.Qmp(self.path, Running())
        self.addCleanup(q.close)
        with self.assertRaisesRegex(qmp_client.QmpError, r"^QMP: QEMU closed the connection$"):
            q.command("quit")

    def test_not_a_greeting(self):
        self.monitor({}, greeting={"hello": 1})
        with self.assertRaisesRegex(qmp_client.QmpError, r"^QMP greeting expected, got \{'hello': 1\}$"):
            qmp_client.Qmp(self.path, Running())

    def test_qemu_gone_before_its_socket(self):
        with self.assertRaisesRegex(qmp_client.QmpError,
                                    r"^QEMU exited \(status 5\) before its QMP socket was up$"):
            qmp_client.Qmp(self.path, Exited())

    def test_no_socket_in_time(self):
        old, qmp_client.SOCKET_WAIT = qmp_client.SOCKET_WAIT, 0.1
        self.addCleanup(setattr, qmp_client, "SOCKET_WAIT", old)
        with self.assertRaisesRegex(qmp_client.QmpError, r"^no QMP socket after 0 s$"):
            qmp_client.Qmp(self.path, Running())

    def test_event_time_in_ns(self):
        ev = {"event": "STOP", "timestamp": {"seconds": 2, "microseconds": 5}}
        self.assertEqual(qmp_client.event_time(ev), 2 * 10**9 + 5000)


if __name__ == "__main__":
    unittest.main()
