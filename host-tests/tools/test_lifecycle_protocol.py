# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lifecycle_protocol.py: the cfg's events list, the guest's requests held to it, the answers' shape.

What: parse_events() on good and bad lists (pingpong=N as N migrations,
seconds kept), check_request() on every way a request can break the
protocol, and the answer lines the guest parses (common/lifecycle/lifecycle_proto.c).
Why: a request that slips past the cfg's list would run an event the
entry never asked for; an answer the guest cannot parse fails it. How:
the module is imported from scripts/ and called with literal text.
"""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(TOP, "scripts"))
import lifecycle_protocol as proto  # noqa: E402

EVENTS = [("pause", 2.0), ("save", 0.0), ("reset", 0.0)]
RESET_FACTS = " counter=1 tests=2 failures=0 skipped=0"

# (cfg value, events) and (cfg value, error message pattern)
GOOD_LISTS = [
    ("pause=2 save migrate", [("pause", 2.0), ("save", 0.0), ("migrate", 0.0)]),
    ("save=1.5 reset", [("save", 1.5), ("reset", 0.0)]),
    ("pingpong=3", [("migrate", 0.0)] * 3),
    ("migrate=10 pause=1", [("run", 10.0), ("pause", 1.0)]),
]
BAD_LISTS = [
    ("pause", r"^events: bad event 'pause' \(pause=SECONDS"),
    ("migrate=1", r"^events: migrate=1 is not 2\.\.16$"),
    ("migrate=17", r"^events: migrate=17 is not 2\.\.16$"),
    ("migrate=x", r"^events: bad event 'migrate=x'"),
    ("pingpong=0", r"^events: pingpong=0 is not 1\.\.100$"),
    ("pingpong=101", r"^events: pingpong=101 is not 1\.\.100$"),
    ("  ", r"^events: empty list$"),
]
# (request, events done, error message pattern)
BAD_REQUESTS = [
    ("pause one", 0, r"^the guest's request 'pause one' is malformed \(want KIND SEQ\)$"),
    ("pause\x011", 0, r"^the guest's request 'pause\?1' is malformed"),
    ("pause 1 counter=1", 0, r"has the wrong facts \(a reset carries counter, tests, failures, skipped"),
    ("reset 3", 2, r"has the wrong facts"),
    ("reset 3 counter=1", 2, r"has the wrong facts"),
    ("pause 2", 0, r"^the guest asked for event 2, the next one is 1$"),
    ("migrate 4", 3, r"^the guest asked for event 4 \(migrate\); the cfg's events list has only 3$"),
    ("migrate 2", 1, r"^the guest asked for event 2 'migrate'; the cfg's event 2 is 'save'$"),
]
RUN_EVENTS = [("run", 3.0), ("pause", 1.0)]
# (request, events done, migrations of the run done, error message pattern)
BAD_RUN_REQUESTS = [
    ("migrate 1", 0, 0, r"has the wrong facts \(.*a migration of a run, run=K"),
    ("migrate 1 run=2", 0, 0, r"^the guest asked for migration 2 of event 1's run; the next one is 1 of 3$"),
    ("migrate 1 run=2", 0, 2, r"^the guest asked for migration 2 of event 1's run; the next one is 3 of 3$"),
    ("pause 1 run=1", 0, 0, r"^the guest asked for event 1 'pause'; the cfg's event 1 is 'run'$"),
    ("pause 2 run=1", 1, 0, r"has the wrong facts"),
]


class EventsList(unittest.TestCase):
    def test_good_lists(self):
        for text, want in GOOD_LISTS:
            self.assertEqual(proto.parse_events(text), want, text)

    def test_bad_lists_say_what_is_wrong(self):
        for text, pattern in BAD_LISTS:
            with self.subTest(text=text), self.assertRaisesRegex(proto.ProtocolError, pattern):
                proto.parse_events(text)


class Requests(unittest.TestCase):
    def test_the_next_event_with_its_seconds(self):
        self.assertEqual(proto.check_request("pause 1", 0, EVENTS), ("pause", 2.0, {}))
        self.assertEqual(proto.check_request("save 2", 1, EVENTS), ("save", 0.0, {}))

    def test_a_reset_carries_the_next_lifes_counts(self):
        kind, _, facts = proto.check_request("reset 3" + RESET_FACTS, 2, EVENTS)
        self.assertEqual((kind, facts), ("reset", {"counter": "1", "tests": "2", "failures": "0",
                                                   "skipped": "0"}))

    def test_bad_requests_say_how_they_break_the_protocol(self):
        for text, done, pattern in BAD_REQUESTS:
            with self.subTest(text=text), self.assertRaisesRegex(proto.ProtocolError, pattern):
                proto.check_request(text, done, EVENTS)

    def test_a_runs_migrations_one_by_one(self):
        for k in (1, 2, 3):
            self.assertEqual(proto.check_request(f"migrate 1 run={k}", 0, RUN_EVENTS, k - 1),
                             ("migrate", 3.0, {"run": str(k)}))

    def test_bad_run_requests_say_how(self):
        for text, done, run_done, pattern in BAD_RUN_REQUESTS:
            with self.subTest(text=text), self.assertRaisesRegex(proto.ProtocolError, pattern):
                proto.check_request(text, done, RUN_EVENTS, run_done)

    def test_window_lines(self):
        self.assertEqual(proto.window_seq("window 12"), 12)
        self.assertIsNone(proto.window_seq("window x"))
        self.assertIsNone(proto.window_seq("pause 1"))


class Answers(unittest.TestCase):
    def test_done_line_keeps_the_facts_order(self):
        self.assertEqual(proto.done_line("pause", 1, {"duration_ns": 5, "host_ns": 7}),
                         "LIFECYCLE-DONE pause 1 duration_ns=5 host_ns=7")

    def test_window_line(self):
        self.assertEqual(proto.window_line(2, 30, 40),
                         "LIFECYCLE-DONE window 2 after_wait_ns=30 after_stamp_wait_ns=40")

    def test_first_life_line(self):
        self.assertEqual(proto.first_life_line(100, 250),
                         "LIFECYCLE-DONE reset 0 duration_ns=0 qmp_downtime_ns=0 total_ns=0 overhead_ns=0 "
                         "host_req_ns=100 host_ns=250")


if __name__ == "__main__":
    unittest.main()
