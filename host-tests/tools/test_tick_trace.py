# SPDX-License-Identifier: GPL-2.0-only
"""scripts/tick-trace on a traced kvm-pvm run: the guest's record placed on the host's trace.

The fixture (host-tests/data/kvm-traces/idle-hpet-miss1000: fault=miss
miss_every=1000 on the HPET at rest, QEMU 7.2, kvm-pvm, 2026-12-07; the
trace cut to this QEMU's threads' events) has one expiry muted at the
IOAPIC in the middle of the run: the join must put that masked raise in the
one stretch where the guest lost its slot, and nowhere else. The totals are
checked against counts taken from the trace's text here, not against
figures copied from a run of the tool.
"""
import functools
import gzip
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.dont_write_bytecode = True
import tick_trace  # noqa: E402

RUN = os.path.join(TOP, "host-tests", "data", "kvm-traces", "idle-hpet-miss1000")
TOOL = os.path.join(TOP, "scripts", "tick-trace")


def tool(*args):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


@functools.lru_cache(maxsize=None)
def recorded(*args):
    """tool(*args, RUN): the recorded run's output, joined once for every test that
    compares with it (each join took 1.1 s; six of the tests' 14 were this one)."""
    return tool(*args, RUN)


def masked_stretches(out):
    return [line for line in out.splitlines()
            if line.startswith("  before tick") and not re.search(r"masked 0\b", line)]


class Join(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.status, cls.out, cls.err = recorded("--gaps")

    def test_runs(self):
        self.assertEqual(self.status, 0, self.err)

    def test_the_muted_expiry_is_where_the_guest_lost_its_slot(self):
        found = masked_stretches(self.out)
        self.assertEqual(len(found), 1, found)
        self.assertRegex(found[0], r"^  before tick \d+: 1 lost; .*masked 2\b")

    def test_acceptances_counted_as_the_trace_has_them(self):
        with open(os.path.join(RUN, "threads.txt")) as f:
            pid = next(r.split()[0] for r in f if " qemu" in r)
        with lzma.open(os.path.join(RUN, "trace.txt.xz"), "rt") as f:
            accepts = sum(1 for line in f if "kvm_apic_accept_irq" in line
                          and f"vec {tick_trace.TICK_VECTOR} " in line
                          and re.search(r"-\d+\s+\[", line))
        self.assertIn(f"its LAPIC accepted {accepts},", self.out)
        self.assertIn("the guest counted 1835", self.out)

    def test_timeline_printed_around_the_longest_loss(self):
        self.assertRegex(self.out, r"tick-trace: around tick \d+ \(us from its arrival\)")
        self.assertRegex(self.out, r"  tick \d+ at \+0\.0: .*accept")


class Anchor(unittest.TestCase):
    """A recorded anchor= is used as it is: the estimate's, recorded, joins the same; moved, not."""

    def with_anchor(self, shift_periods):
        est = int(re.search(r"the anchor (\d+) estimated", recorded()[1])[1])
        rec = tick_trace.parse_record(open(os.path.join(RUN, "guest.log")).read())
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name in ("threads.txt", "trace.txt.xz"):
            os.symlink(os.path.join(RUN, name), os.path.join(d, name))
        anchor = est + shift_periods * rec["period"]
        with open(os.path.join(RUN, "guest.log")) as f, \
                open(os.path.join(d, "guest.log"), "w") as g:
            for line in f:
                if line.startswith("TICK-RECORD: 1 "):
                    line = line.rstrip("\n") + f" anchor={anchor}\n"
                g.write(line)
        return tool("--gaps", d)

    def test_recorded(self):
        status, out, err = self.with_anchor(0)
        self.assertEqual(status, 0, err)
        self.assertRegex(out, r"the anchor \d+ recorded")
        self.assertEqual(masked_stretches(out), masked_stretches(recorded("--gaps")[1]))

    def test_moved(self):
        status, out, _ = self.with_anchor(3)
        self.assertEqual(status, 0)
        self.assertNotEqual(masked_stretches(out), masked_stretches(recorded("--gaps")[1]))


class BadInput(unittest.TestCase):
    def test_no_run(self):
        status, _, err = tool("/nonexistent")
        self.assertEqual(status, 2)
        self.assertIn("tick-trace: /nonexistent: no guest.log", err)

    def test_no_record(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name in ("threads.txt", "trace.txt.xz"):
            os.symlink(os.path.join(RUN, name), os.path.join(d, name))
        with open(os.path.join(d, "guest.log"), "w") as f:
            f.write("SUMMARY: 1 tests, 0 unexpected failures, 0 skipped\n")
        status, _, err = tool(d)
        self.assertEqual(status, 2)
        self.assertIn("no TICK-RECORD header (run with record=always)", err)

    def test_oneshot_refused(self):
        with self.assertRaisesRegex(tick_trace.Bad, "only periodic x86 sources"):
            tick_trace.parse_record("TICK-RECORD: 1 source=pit-oneshot kind=oneshot "
                                    "period_counts=1 ratio_fx=1 n=0 expected=1\n")

    def test_op_lines(self):
        head = ("TICK-RECORD: 1 source=pit kind=periodic counter_hz=1000 want_hz=10 expected=3 "
                "period_counts=100 ratio_fx=4294967296 n=3\nTICK-RECORD: at 0 0 0\n")
        rec = tick_trace.parse_record(head + "TICK-RECORD: op 5 6 0\n")
        self.assertEqual(rec["open"], [5, 6, 0])
        self.assertEqual(rec["at"], [100, 200, 300])
        self.assertIsNone(tick_trace.parse_record(head)["open"])
        with self.assertRaisesRegex(tick_trace.Bad, "2 op entries, its header says n=3"):
            tick_trace.parse_record(head + "TICK-RECORD: op 5 6\n")

    def test_timeline_out_of_range(self):
        status, _, err = tool("--timeline", "99999", RUN)
        self.assertEqual(status, 2)
        self.assertIn("--timeline 99999: the run has ticks 0 to 1834", err)

    def test_no_vcpu(self):
        with self.assertRaisesRegex(tick_trace.Bad, "no vCPU thread"):
            tick_trace.parse_threads("1 1 qemu-system-x86\n")

    def test_no_tsc_offset(self):
        rec = {"source": "hpet", "counter_hz": 1}
        with self.assertRaisesRegex(tick_trace.Bad, "no kvm_write_tsc_offset"):
            tick_trace.collect(iter(()), rec, "1", {"1"}, {"2"})


def runner_line(line):
    """A tracefs text line as trace-cmd report -N --raw-ts writes it in the runner's trace."""
    m = tick_trace.EVENT.match(line)
    if not m or line.startswith("#"):
        return None
    return (f"vmtick-trace-ns1-1:  {m['comm']}-{m['tid']} [000]{m['ts']}: "
            f"{m['name']}: {m['args']}\n")


class RunnerLog(unittest.TestCase):
    """The runner's log of a traced entry (docs/runner.md, "The host's trace") as a RUN."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_log(self, guest, trace_lines,
                  line="runner: host trace: t.trace.txt.gz beside this log"):
        with gzip.open(os.path.join(self.dir, "t.trace.txt.gz"), "wt") as f:
            f.writelines(trace_lines)
        log = os.path.join(self.dir, "t.log")
        with open(log, "w") as f:
            f.write(guest + line + "\n")
        return log

    def test_same_join_as_the_folder(self):
        """The fixture rewritten as the runner keeps it, QEMU's threads only from its exec and
        forks: the same join, line for line, as from the folder."""
        with open(os.path.join(RUN, "threads.txt")) as f:
            rows = [r.split(None, 2) for r in f if r.strip()]
        pid = next(r[0] for r in rows if len(r) > 2 and r[2].startswith("qemu"))
        lines = [f"vmtick-trace-ns1-1:  sh-{pid} [000]1: sched_process_exec: "
                 f"filename=/usr/bin/qemu-system-x86_64 pid={pid} old_pid={pid}\n"]
        lines += [f"vmtick-trace-ns1-1:  qemu-system-x86-{pid} [000]1: sched_process_fork: "
                  f"comm=qemu-system-x86 pid={pid} child_comm=qemu-system-x86 child_pid={r[1]}\n"
                  for r in rows if r[0] == pid and r[1] != pid]
        with lzma.open(os.path.join(RUN, "trace.txt.xz"), "rt") as f:
            lines += [x for x in map(runner_line, f) if x]
        with open(os.path.join(RUN, "guest.log")) as f:
            log = self.write_log(f.read(), lines)
        status, out, err = tool("--gaps", log)
        self.assertEqual((status, err), (0, ""))
        _, want, _ = recorded("--gaps")
        # the first line names the run: the folder's name, or the log's
        self.assertEqual(out.split("\n", 1)[1], want.split("\n", 1)[1])
        self.assertIn("tick-trace: t.log: hpet, ", out)

    def test_tcg_run_refused(self):
        lines = ["vmtick-trace-ns1-1:  sh-7 [000]1: sched_process_exec: "
                 "filename=/usr/bin/qemu-system-x86_64 pid=7 old_pid=7\n",
                 "vmtick-trace-ns1-1:  qemu-system-x86-7 [000]2: sched_process_fork: "
                 "comm=qemu-system-x86 pid=7 child_comm=qemu-system-x86 child_pid=9\n",
                 "vmtick-trace-ns1-1:  ALL CPUs/TCG-9 [000]3: sched_switch: "
                 "prev_comm=ALL CPUs/TCG prev_pid=9 prev_prio=120 prev_state=S ==> "
                 "next_comm=swapper/0 next_pid=0 next_prio=120\n"]
        with open(os.path.join(RUN, "guest.log")) as f:
            log = self.write_log(f.read(), lines)
        status, _, err = tool(log)
        self.assertEqual(status, 2)
        self.assertIn("no vCPU thread named CPU N/KVM in the trace (ALL CPUs/TCG: a TCG run", err)

    def test_no_qemu_exec(self):
        log = self.write_log("", ["vmtick-trace-ns1-1:  x-1 [000]1: sched_switch: prev_comm=x "
                                  "prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=y "
                                  "next_pid=2 next_prio=120\n"])
        with self.assertRaisesRegex(tick_trace.Bad, "no exec of qemu-system"):
            tick_trace.threads_from_trace(os.path.join(os.path.dirname(log), "t.trace.txt.gz"))

    def test_no_trace_named(self):
        log = self.write_log("TICK-RECORD: 1 source=hpet\n", [],
                             line="runner: host trace: none: not root (tracefs is root's)")
        status, _, err = tool(log)
        self.assertEqual(status, 2)
        self.assertIn("the log names no host trace (none: not root (tracefs is root's))", err)


if __name__ == "__main__":
    unittest.main()
