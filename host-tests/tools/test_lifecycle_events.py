# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lifecycle_events.py: each host event performed through QMP, and the facts told to the guest.

What: a pause's facts from QEMU's STOP and RESUME time stamps and its
answer line (every fact, in the order the guest reads them, after a
`lifecycle: event N` line), a reset's QMP commands (a reset once under
-no-reboot, then shutdown again) and its answer in the next life, the
first life's answer, a failed migration named with QEMU's reason, and
the errors for a window or a life out of turn. Why: these facts are the
lifecycle kernels' evidence; a wrong duration fails or passes a clock
check by itself. How: a fake guest (what it says and tells kept in lists)
and a fake QMP connection whose commands queue the events QEMU would
send; the wait meters read this process only.
"""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import lifecycle_events as le  # noqa: E402
import qmp_client  # noqa: E402

S = 10**9
FACT_ORDER = ["duration_ns", "qmp_downtime_ns", "overhead_ns", "vcpu_wait_ns", "before_wait_ns",
              "stamp_wait_ns", "host_req_ns", "host_ns", "total_ns"]


def event(name, seconds, data=None):
    return {"event": name, "timestamp": {"seconds": seconds, "microseconds": 0}, "data": data or {}}


class FakeQmp:
    """QMP as a table: a command's name -> (the events it makes QEMU send, its return)."""

    def __init__(self, answers):
        self.answers, self.events, self.sent = answers, [], []

    def command(self, name, **args):
        self.sent.append((name, args))
        evs, ret = self.answers.get(name, ([], {}))
        self.events += evs
        return ret

    def wait_event(self, match):
        for i, ev in enumerate(self.events):
            if match(ev):
                return self.events.pop(i)
        raise qmp_client.QmpError("QMP: no answer in 0 s")


class FakeProc:
    errors = ["qemu: the destination said no"]

    def wait(self, _timeout=None):
        return 0


class FakeGuest:
    def __init__(self, qmp, cmd=("qemu",)):
        self.qmp, self.cmd, self.dir, self.procs = qmp, list(cmd), "/nonexistent", []
        self.current = FakeProc()
        self.said, self.told = [], []

    def say(self, text):
        self.said.append(text)

    def tell(self, text):
        self.told.append(text)

    def live_pids(self):
        return []


def facts_of(line):
    words = line.split()
    return words[:3], dict(w.split("=") for w in words[3:])


class Pause(unittest.TestCase):
    def setUp(self):
        self.qmp = FakeQmp({"stop": ([event("STOP", 10)], {}), "cont": ([event("RESUME", 12)], {})})
        self.guest = FakeGuest(self.qmp)
        self.events = le.Events(self.guest, [("pause", 0.0)])

    def test_facts_from_qemus_time_stamps(self):
        facts = self.events.do_pause(0.0)
        self.assertEqual((facts["duration_ns"], facts["qmp_downtime_ns"]), (2 * S, 0))
        self.assertEqual([name for name, _ in self.qmp.sent], ["stop", "cont"])

    def test_the_answer_line_carries_every_fact_in_order(self):
        kind, secs, facts = self.events.next("pause 1")
        self.events.start_span()
        self.events.perform(kind, secs, 5 * S, facts)
        head, facts = facts_of(self.guest.told[-1])
        self.assertEqual(head, ["LIFECYCLE-DONE", "pause", "1"])
        self.assertEqual(list(facts), FACT_ORDER)
        self.assertEqual((facts["duration_ns"], facts["host_req_ns"]), (str(2 * S), str(5 * S)))
        self.assertEqual(int(facts["total_ns"]), int(facts["host_ns"]) - 5 * S)
        self.assertRegex(self.guest.said[-1], r"^event 1 pause: stopped 2000\.0 ms, QMP downtime 0\.0 ms, "
                                              r"a vCPU waited [0-9.]+ ms for a CPU$")
        self.assertEqual(self.events.done, 1)
        self.events.end_span()

    def test_a_window_out_of_turn(self):
        with self.assertRaisesRegex(le.LifecycleError, r"^the guest asked about the window after event 2; "
                                                       r"the last event answered is 0$"):
            self.events.answer_window(2)


class Reset(unittest.TestCase):
    def setUp(self):
        self.qmp = FakeQmp({"system_reset": ([event("RESET", 20)], {})})
        self.guest = FakeGuest(self.qmp, cmd=["qemu", "-no-reboot"])
        self.events = le.Events(self.guest, [("reset", 0.0)])

    def test_first_life(self):
        self.events.answer_boot(7)
        self.assertRegex(self.guest.told[-1], r"^LIFECYCLE-DONE reset 0 duration_ns=0 .* host_req_ns=7 host_ns=\d+$")
        self.events.end_span()

    def test_a_reset_once_then_shutdown_again_and_its_answer_in_the_next_life(self):
        carried = {"counter": "1", "tests": "4", "failures": "0", "skipped": "0"}
        self.events.perform("reset", 0.0, 3 * S, carried)
        self.assertEqual(self.qmp.sent, [("set-action", {"reboot": "reset"}), ("system_reset", {}),
                                         ("set-action", {"reboot": "shutdown"})])
        self.assertEqual(self.guest.told, [])
        self.events.answer_boot(self.events.reset["sent"] + 50 * 10**6)
        head, facts = facts_of(self.guest.told[-1])
        self.assertEqual(head, ["LIFECYCLE-DONE", "reset", "1"])
        self.assertEqual(facts["duration_ns"], str(50 * 10**6))
        self.assertEqual({k: facts[k] for k in carried}, carried)
        self.events.end_span()

    def test_a_new_life_without_a_reset(self):
        self.events.done = 1
        with self.assertRaisesRegex(le.LifecycleError, r"^the guest started again after event 1 without a reset"):
            self.events.answer_boot(0)


class Migrate(unittest.TestCase):
    def test_a_failed_migration_names_qemus_reason(self):
        qmp = FakeQmp({"migrate": ([event("MIGRATION", 1, {"status": "failed"})], {}),
                       "query-migrate": ([], {"error-desc": "invtsc blocks it"})})
        guest = FakeGuest(qmp)
        with self.assertRaisesRegex(le.LifecycleError, r"^migration to unix:/x failed: invtsc blocks it: "
                                                       r"qemu: the destination said no$"):
            le.Events(guest, [])._migrate_out("unix:/x")

    def test_facts_of_a_move(self):
        facts = le.Events(FakeGuest(None), [])._moved(event("STOP", 1), event("RESUME", 3), {"downtime": 7})
        self.assertEqual(facts, {"duration_ns": 2 * S, "qmp_downtime_ns": 7 * 10**6, "overhead_ns": 0})


if __name__ == "__main__":
    unittest.main()
