#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of run_tests.sh itself: outcomes, cfg errors, selection, -j, TAP, JUnit, standalone; fake and real QEMU.
#
# Usage: host-tests/runner/run.sh [--fake-only | --real-only | --only GROUP...]
# Output is TAP (plan last). The checks a CI gate relies on live in gate.sh.
# The real-kernel part runs when x86/selftest.flat is built: in the source tree,
# or in the build named by RUNNER_TEST_BUILD (scripts/check.sh passes build/x86_64-gcc).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
RUNNER=$TOP/run_tests.sh
FAKE=$HERE/fake-qemu
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vmtick-runner-test.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT
PASSED=0 FAILED=0
# How long a hanging fake QEMU sleeps: a number of this run's own, so that
# looking for leftover processes never sees another run's.
export FAKE_QEMU_SLEEP=1000.$$
# No host trace unless a check asks for one (host-trace.sh): the others' logs stay as they were.
export VMTICK_HOST_TRACE=0

ok() { # description command...
	local what=$1
	shift
	if "$@"; then
		PASSED=$((PASSED + 1))
		echo "ok - $what"
	else
		FAILED=$((FAILED + 1))
		echo "not ok - $what"
	fi
}

has_line() { grep -qxF -- "$2" "$1"; }
has_match() { grep -qE -- "$2" "$1"; }
last_line_is() { [ "$(tail -n 1 "$1")" = "$2" ]; }
equals() { [ "$1" = "$2" ]; }
no_process() { ! pgrep -f "$1" >/dev/null; }
not_exists() { [ ! -e "$1" ]; }
not() { ! "$@"; }
xsd_valid() { xmllint --noout --schema "$HERE/junit.xsd" "$1" 2>/dev/null; }
# Debian's python3-junitparser, a consumer CI dashboards resemble (not the python3 of a venv on PATH).
JUNITPARSER=/usr/bin/python3
junitparser_reads() { # junit-file output-file
	"$JUNITPARSER" "$HERE/junit-check.py" "$1" >"$2" 2>"$2.err"
}

# A fake build: config.mak plus "kernels" that tell fake-qemu what to do.
make_build() { # dir arch
	local d=$1 sub=x86
	[ "$2" != aarch64 ] || sub=arm
	mkdir -p "$d/$sub"
	printf 'ARCH := %s\n' "$2" >"$d/config.mak"
	printf '%s\n' 'out PASS: one' 'out INFO: a # sign' args 'out RESULT: fake.figure 42 ns' \
		'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' 'exit 0' >"$d/$sub/pass.flat"
	printf '%s\n' 'out PASS: one' 'out BOUND: fake.two 7.5 ms 0.0..5.0' 'out FAIL: two <&> "]]>" #2' \
		'out SUMMARY: 2 tests, 1 unexpected failures, 0 skipped' 'exit 1' >"$d/$sub/fail.flat"
	printf '%s\n' 'out SKIP: no widget here' 'out SUMMARY: 1 tests, 0 unexpected failures, 1 skipped' \
		'exit 77' >"$d/$sub/skip.flat"
	printf '%s\n' "out INFO: hanging ($WORK)" hang >"$d/$sub/hang.flat"
	printf '%s\n' 'out INFO: about to triple fault' 'status 0' >"$d/$sub/crash.flat"
	printf '%s\n' 'out INFO: bye' 'signal SEGV' >"$d/$sub/segv.flat"
	printf '%s\n' 'out PASS: slow' 'pause 1' 'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' \
		'exit 0' >"$d/$sub/slow.flat"
}

# The checks of what a CI gate relies on: JUnit for dashboards, selection
# errors, signals, interrupted runs, option errors, the build layout.
# shellcheck source=host-tests/runner/gate.sh
. "$HERE/gate.sh"
# The runner's replay bundles (scripts/replay.bash): replay_fake, real_replay.
# shellcheck source=host-tests/runner/replay.sh
. "$HERE/replay.sh"
# shellcheck source=host-tests/runner/host-trace.sh
. "$HERE/host-trace.sh"

# --- outcomes with the fake QEMU ----------------------------------------------
fake_outcomes() {
	local d=$WORK/fake st
	make_build "$d/build" x86_64
	cat >"$d/t.cfg" <<'CFG'
[pass]
file = pass.flat
test_args = 10000 {host_time} s={host_time_s} ns={host_time_ns} cpus={host_cpus}
[fail]
file = fail.flat
smp = 2
[skip]
file = skip.flat
[hang]
file = hang.flat
timeout = 2
[crash]
file = crash.flat
[segv]
file = segv.flat
[badopt]
file = pass.flat
qemu_params = -bogus 'with space'
[nokernel]
file = missing.flat
[armonly]
file = pass.flat
arch = aarch64
[extra]
file = pass.flat
groups = nodefault slowish
CFG
	cd "$d" || return
	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build -j 2 --junit junit.xml >out.txt 2>err.txt
	st=$?
	ok "fake: exit status 4 (worst outcome ERROR)" equals "$st" 4
	ok "fake: PASS line" has_match out.txt '^PASS +pass \([0-9.]+ s\) 1 tests, 0 unexpected failures, 0 skipped$'
	ok "fake: FAIL line names the failure" has_match out.txt '^FAIL +fail .*first FAIL: two'
	ok "fake: SKIP line with the guest's reason" has_match out.txt '^SKIP +skip .*no widget here$'
	# the run lasts the 2 s timeout plus QEMU's start and the kill: more on a loaded host
	ok "fake: TIMEOUT" has_match out.txt '^TIMEOUT +hang \([2-9]\.[0-9]+ s\) killed after 2 s'
	ok "fake: reset is CRASH" has_match out.txt '^CRASH +crash '
	ok "fake: signal is CRASH" has_match out.txt '^CRASH +segv .*SIGSEGV'
	ok "fake: bad option is ERROR with QEMU's message" has_match out.txt '^ERROR +badopt .*-bogus: invalid option'
	ok "fake: missing kernel is ERROR" has_match out.txt '^ERROR +nokernel .*missing.flat not found'
	ok "fake: other arch not run" not has_match out.txt armonly
	ok "fake: nodefault not run" not has_match out.txt extra
	ok "fake: last line is the counts" last_line_is out.txt "1 passed, 6 failed, 1 skipped"
	ok "fake: log starts with the command line" has_match logs/pass.log "^$FAKE -machine pc .*-append '10000 [0-9]+\.[0-9]{9} s=[0-9]+ ns=[0-9]{19} cpus=[0-9]+'$"
	ok "fake: log has QEMU's stderr" has_match logs/badopt.log 'invalid option'
	ok "fake: RESULT lines collected" has_line logs/results.txt "pass fake.figure 42 ns"
	ok "fake: a BOUND line's figure collected" has_line logs/results.txt "fail fake.two 7.5 ms"
	ok "fake: no QEMU child left after a timeout" no_process "sleep $FAKE_QEMU_SLEEP"
	ok "fake: JUnit is well-formed" xmllint --noout junit.xml
	ok "fake: JUnit matches the CI schema" xsd_valid junit.xml
	ok "fake: JUnit counts (guest checks plus the runs that ended badly)" \
		has_match junit.xml '<testsuites name="vmtick.x86_64" tests="9" failures="1" errors="5" skipped="1"'
	ok "fake: JUnit log as system-out, ]]> split" has_match junit.xml 'FAIL: two <&> "]]]]><!\[CDATA\[>"'
	ok "fake: JUnit a bound property per BOUND line, no testcase of its own" \
		has_line junit.xml '      <property name="bound" value="fake.two 7.5 ms 0.0..5.0"/>'
	junit_dashboard junit.xml

	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build -t -j 2 >tap.txt 2>tap-err.txt
	prove --exec cat tap.txt >prove.txt 2>&1
	ok "fake: prove reads the TAP (8 points, 6 failed)" has_match prove.txt 'tap.txt \(Wstat: 0 Tests: 8 Failed: 6\)'
	ok "fake: prove sees no parse errors" not has_match prove.txt 'Parse errors'
	ok "fake: TAP subtests from guest lines, a # in them escaped (else a directive)" \
		has_line tap.txt '    not ok 2 - two <&> "]]>" \#2'
	ok "fake: TAP keeps INFO lines as comments" has_line tap.txt '    # INFO: a # sign'
	ok "fake: TAP runner-level error" has_match tap.txt '^not ok [0-9]+ - nokernel$'
	mkdir -p logs/x86_64-gcc logs/reports && echo kept >logs/reports/suite.xml
	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build pass >/dev/null 2>&1
	ok "fake: previous logs kept once" has_match logs.old/pass.log '^/'
	ok "fake: other runs' directories (make run's suites, reports) stay in place" has_line logs/reports/suite.xml kept
	ok "fake: plain counts on stderr with -t" last_line_is tap-err.txt "1 passed, 6 failed, 1 skipped"

	ok "select: -l lists the default set" equals "$(UNITTESTS_CFG=t.cfg "$RUNNER" --build build -l | tr '\n' ' ')" \
		"pass fail skip hang crash segv badopt nokernel "
	ok "select: -a adds nodefault" has_match <(UNITTESTS_CFG=t.cfg "$RUNNER" --build build -l -a) '^extra$'
	ok "select: -g nodefault" equals "$(UNITTESTS_CFG=t.cfg "$RUNNER" --build build -l -g nodefault)" extra
	ok "select: glob names" equals "$(UNITTESTS_CFG=t.cfg "$RUNNER" --build build -l 's*' | tr '\n' ' ')" "skip segv "
	ok "select: -l -v shows the QEMU command" has_match <(UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build -l -v pass) \
		'^    .*fake-qemu -machine pc -accel (kvm|tcg) .*-kernel .*/pass.flat'
	UNITTESTS_CFG=t.cfg "$RUNNER" --build build nosuch >nosuch.txt 2>&1
	ok "select: unknown name is an error" equals "$?" 4
	cd "$TOP" || return
}

# --- unittests.cfg errors: reported with file and line, nothing started --------
cfg_errors() {
	local d=$WORK/cfg st
	make_build "$d/build" x86_64
	cd "$d" || return
	check_cfg() { # description expected-regex cfg-text
		printf '%s\n' "$3" >bad.cfg
		: >argv.txt
		UNITTESTS_CFG=bad.cfg QEMU=$FAKE FAKE_QEMU_ARGV=$d/argv.txt "$RUNNER" --build build >out.txt 2>err.txt
		st=$?
		ok "cfg: $1: exit 4" equals "$st" 4
		ok "cfg: $1: message" has_match err.txt "$2"
		ok "cfg: $1: nothing started" not has_match argv.txt .
	}
	check_cfg "unknown key" '^bad\.cfg:3: unknown key .tiemout.' $'[ok]\nfile = pass.flat\ntiemout = 5'
	check_cfg "malformed line" '^bad\.cfg:2: malformed line' $'[ok]\nfile pass.flat'
	check_cfg "missing file" '^bad\.cfg:1: \[nofile\] has no .file. key' $'[nofile]\nsmp = 2\n[ok]\nfile = pass.flat'
	check_cfg "bad arch" '^bad\.cfg:3: arch: unknown arch .sparc.' $'[a]\nfile = pass.flat\narch = x86_64 sparc'
	check_cfg "unbalanced quote" '^bad\.cfg:3: qemu_params: unterminated' $'[a]\nfile = pass.flat\nqemu_params = -cpu \'max'
	check_cfg "unknown placeholder" '^bad\.cfg:3: test_args: unknown placeholder .host_tim.' $'[a]\nfile = pass.flat\ntest_args = {host_tim}'
	check_cfg "bad event" '^bad\.cfg:3: events: bad event .exec:cat.' $'[a]\nfile = pass.flat\nevents = pause=1 exec:cat'
	check_cfg "empty events" '^bad\.cfg:3: events: empty list' $'[a]\nfile = pass.flat\nevents ='
	check_cfg "bad evidence" '^bad\.cfg:3: \[a\] evidence: .guest. is not a kind of evidence \(known: host\)' \
		$'[a]\nfile = pass.flat\nevidence = guest'
	check_cfg "bad accel" '^bad\.cfg:3: accel: .xen. is neither kvm nor tcg' $'[a]\nfile = pass.flat\naccel = kvm xen'
	check_cfg "accel twice" '^bad\.cfg:3: accel: .tcg. named twice' $'[a]\nfile = pass.flat\naccel = tcg tcg'
	check_cfg "params for an accel it does not run under" \
		'^bad\.cfg:1: \[a\] sets tcg_params or tcg_args but does not run under tcg \(accel = kvm\)' \
		$'[a]\nfile = pass.flat\naccel = kvm\ntcg_params = -icount 7'
	check_cfg "unbalanced quote in kvm_params" '^bad\.cfg:3: kvm_params: unterminated' $'[a]\nfile = pass.flat\nkvm_params = -cpu \'max'
	check_cfg "duplicate section" '^bad\.cfg:3: \[a\] already defined at bad\.cfg:1' $'[a]\nfile = pass.flat\n[a]\nfile = pass.flat'
	ok "cfg: counts line after an error" last_line_is out.txt "0 passed, 1 failed, 0 skipped"
	UNITTESTS_CFG=bad.cfg "$RUNNER" --build build -t >tap.txt 2>/dev/null
	ok "cfg: TAP bails out" has_match tap.txt '^Bail out! bad\.cfg:3:'
	# Shell syntax in values is data: nothing gets evaluated.
	printf '%s\n' '[a]' 'file = pass.flat' "test_args = \$(touch $d/pwned) \`touch $d/pwned\`" \
		"qemu_params = -name \"\$(touch $d/pwned)\"" >eval.cfg
	UNITTESTS_CFG=eval.cfg QEMU=$FAKE "$RUNNER" --build build >/dev/null 2>&1
	ok "cfg: values are never evaluated" not_exists "$d/pwned"
	cd "$TOP" || return
}

# --- evidence = host: QEMU under scripts/host_evidence.py, which answers the guest
# (the QEMU it wraps named in the log and results.json: for Debian's 7.2 and for 10)
evidence_agent() {
	local version
	for version in 7.2.22 10.0.2; do
		evidence_agent_under "$version"
	done
}

evidence_agent_under() { # fake QEMU's version
	local d=$WORK/evidence-$1 st
	make_build "$d/build" x86_64
	printf '%s\n' 'out HOST-EVIDENCE: mark 0' 'pause 0.1' 'out HOST-EVIDENCE: mark 1' \
		'out HOST-EVIDENCE: request 0 1 2' answer 'out PASS: asked' 'out RESULT: evid.figure 1 ns' \
		'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' 'exit 0' >"$d/build/x86/evidence.flat"
	printf '%s\n' '[evid]' 'file = evidence.flat' 'evidence = host' '[plain]' 'file = skip.flat' >"$d/t.cfg"
	cd "$d" || return
	FAKE_QEMU_VERSION=$1 UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build >out.txt 2>&1
	st=$?
	ok "evidence ($1): the entry passes through the agent: exit status 0" equals "$st" 0
	ok "evidence ($1): ... and a PASS line" has_match out.txt '^PASS +evid '
	ok "evidence ($1): the log's command is the agent's around QEMU's" has_match logs/evid.log \
		"^/usr/bin/python3 $TOP/scripts/host_evidence.py -- $FAKE -machine pc "
	ok "evidence ($1): the guest got the agent's answer" has_match logs/evid.log \
		'^ANSWER: HOST-EVIDENCE-DONE parts=2 span_us=[0-9]+ stamp_us=[0-9]+ vcpu=[0-9]+,[0-9]+ other=[0-9]+,[0-9]+ steal=[0-9]+,[0-9]+$'
	ok "evidence ($1): the log's header names the QEMU under the agent and its version" \
		equals "$(sed -n 3p logs/evid.log)" "runner: qemu $1 $FAKE"
	ok "evidence ($1): results.json names that QEMU and its version for the run, not the agent" \
		equals "$(results_qemu logs/results.json evid)" "$FAKE $1"
	ok "evidence ($1): ... and setup.qemu_version names no other binary" \
		equals "$(results_qemu logs/results.json)" "$FAKE"
	ok "evidence ($1): results.json names the QEMU of a run without figures too" \
		equals "$(results_qemu logs/results.json plain)" "$FAKE $1"
	cd "$TOP" || return
}

# What scripts/results-to-json wrote of a run's QEMU: the binary of test's run
# and that binary's version in setup.qemu_version; without test, the binaries
# setup.qemu_version names.
results_qemu() { # results.json [test]
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
versions = doc["setup"]["qemu_version"]
if len(sys.argv) < 3:
    print(" ".join(sorted(versions)))
for run in doc["runs"]:
    if run["test"] in sys.argv[2:]:
        print(run["qemu"], versions.get(run["qemu"]))
PY
}

# --- -j: a test takes min(smp, N) slots ------------------------------------------
# Whether two runs overlapped, from the spans fake-qemu wrote: load can only
# stretch them, never make them overlap or stop overlapping.
spans() { # span-file want: overlap or apart; false unless there were exactly two whole runs
	awk -v want="$2" '$2 == "start" { s[$1] = $3 } $2 == "end" { e[$1] = $3 }
		END { n = 0; for (p in s) { if (!(p in e)) exit 1; st[n] = s[p]; en[n] = e[p]; n++ }
			if (n != 2) exit 1
			both = st[0] < en[1] && st[1] < en[0]
			exit !(want == "overlap" ? both : !both) }' "$1"
}

jobs_slots() {
	local d=$WORK/jobs
	make_build "$d/build" x86_64
	cd "$d" || return
	printf '%s\n' "span $d/spans" 'out PASS: span' 'pause 0.5' \
		'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' 'exit 0' >build/x86/span.flat
	printf '%s\n' '[a]' 'file = span.flat' '[b]' 'file = span.flat' '[c]' 'file = span.flat' 'smp = 2' \
		'[d]' 'file = span.flat' 'smp = 4' >j.cfg
	UNITTESTS_CFG=j.cfg QEMU=$FAKE "$RUNNER" --build build -j 2 a b >/dev/null
	ok "jobs: two smp=1 tests share -j 2 (their runs overlap)" spans spans overlap
	rm -f spans
	UNITTESTS_CFG=j.cfg QEMU=$FAKE "$RUNNER" --build build -j 2 c d >out.txt
	ok "jobs: smp=2 and smp=4 each fill -j 2 (their runs do not overlap)" not spans spans overlap
	ok "jobs: both passed" last_line_is out.txt "2 passed, 0 failed, 0 skipped"
	cd "$TOP" || return
}

# --- accelerator: KVM cannot run an aarch64 guest on this x86 host ------------------
accel() {
	local d=$WORK/accel
	[ "$(uname -m)" != aarch64 ] || return 0
	make_build "$d/build" aarch64
	cd "$d" || return
	cat >a.cfg <<'CFG'
[kvmonly]
file = pass.flat
accel = kvm
[any]
file = pass.flat
qemu_params = -name any
test_args = a=1
kvm_params = -name kvm-only
tcg_params = -icount shift=7,sleep=off
kvm_args = k=1
tcg_args = t=1
[tcgonly]
file = pass.flat
accel = tcg
CFG
	UNITTESTS_CFG=a.cfg QEMU=$FAKE "$RUNNER" --build build >out.txt
	ok "accel: accel=kvm test SKIPs without KVM, naming why" \
		has_match out.txt '^SKIP +kvmonly .*needs KVM \(accel=kvm\), which is not usable here: host is'
	ok "accel: others fall back to TCG" has_match logs/any.log ' -accel tcg -cpu max '
	ok "accel: TCG's own QEMU options after qemu_params, not KVM's" \
		has_match logs/any.log ' -name any -icount shift=7,sleep=off$'
	ok "accel: TCG's own arguments after test_args, not KVM's" has_match logs/any.log " -append 'a=1 t=1' "
	ok "accel: aarch64 command" has_match logs/any.log ' -machine virt,gic-version=3 .*-device virtconsole,chardev=ctd -chardev testdev,id=ctd '
	accel_record
	ACCEL=kvm UNITTESTS_CFG=a.cfg QEMU=$FAKE "$RUNNER" --build build any >out.txt
	ok "accel: ACCEL=kvm without KVM is ERROR" has_match out.txt '^ERROR +any .*ACCEL=kvm but KVM is not usable'
	ACCEL=tcg UNITTESTS_CFG=a.cfg QEMU=$FAKE "$RUNNER" --build build kvmonly >out.txt
	ok "accel: ACCEL=tcg SKIPs an accel=kvm test" has_match out.txt '^SKIP +kvmonly .*runs under accel=kvm only, ACCEL=tcg was forced'
	ACCEL=tcg UNITTESTS_CFG=a.cfg QEMU=$FAKE "$RUNNER" --build build -l -v any tcgonly >out.txt
	ok "accel: -l -v prints the accelerator's command" has_match out.txt "-accel tcg .* -append 'a=1 t=1' -name any -icount shift=7,sleep=off$"
	ok "accel: -l -v prints the log's header: the command, then the accelerator's record" \
		equals "$(sed -n 3p out.txt)" "    runner: accelerator tcg"
	ok "accel: accel=tcg entry runs under TCG" has_match out.txt '^    .* -accel tcg .*/pass\.flat$'
	cd "$TOP" || return
}

# --- standalone scripts, run from another directory --------------------------------
standalone() {
	local d=$WORK/sa t st
	make_build "$d/build" x86_64
	printf '%s\n' '[pass]' 'file = pass.flat' 'test_args = a b' '[fail]' 'file = fail.flat' \
		'[skip]' 'file = skip.flat' '[hang]' 'file = hang.flat' 'timeout = 1' '[crash]' 'file = crash.flat' \
		'[badopt]' 'file = pass.flat' 'qemu_params = -bogus' '[slow]' 'file = slow.flat' 'groups = nodefault' >"$d/s.cfg"
	"$TOP/scripts/mkstandalone.sh" --build "$d/build" --cfg "$d/s.cfg" >/dev/null
	mkdir -p "$d/elsewhere"
	cd "$d/elsewhere" || return
	for t in pass:0:PASS fail:1:FAIL skip:0:SKIP hang:2:TIMEOUT crash:3:CRASH badopt:4:ERROR slow:0:PASS; do
		QEMU=$FAKE "$d/build/standalone/${t%%:*}" >out.txt 2>&1
		st=$?
		ok "standalone: ${t%%:*} exits ${t#*:}" equals "$st:$(awk 'NR == 1 { print $1 }' out.txt)" "${t#*:}"
	done
	ok "standalone: log written beside the script" has_match "$d/build/standalone/logs/pass.log" "-append 'a b'"
	ok "standalone: no logs/ in the current directory" not_exists logs
	LOGDIR=$d/elsewhere/mine QEMU=$FAKE "$d/build/standalone/pass" >/dev/null 2>&1
	ok "standalone: LOGDIR honoured" has_match "$d/elsewhere/mine/pass.log" "-append 'a b'"
	: >afile
	LOGDIR=afile/logs QEMU=$FAKE "$d/build/standalone/pass" >out.txt 2>err.txt
	st=$?
	ok "standalone: unwritable LOGDIR: exit 4" equals "$st" 4
	ok "standalone: unwritable LOGDIR: names it" has_match err.txt "^pass: cannot create the log directory $d/elsewhere/afile/logs: Not a directory$"
	ok "standalone: unwritable LOGDIR: no QEMU diagnosis" not has_match out.txt "QEMU exited"
	QEMU=$FAKE "$d/build/standalone/pass" --arch x86_64 >out.txt 2>err.txt
	ok "standalone: --arch rejected" has_match err.txt "^pass: --arch means nothing to a standalone test"
	ok "standalone: shellcheck clean (warnings)" shellcheck -S warning "$d/build/standalone/pass"
	cd "$TOP" || return
}

# --- the real selftest kernel ----------------------------------------------------
# A real QEMU stopped from outside: SIGKILL is a CRASH, the runner's SIGTERM an
# interrupted run with its reports. The kernel is copied to a path of this
# test's own, so that only its QEMU is looked up and killed.
wait_for() { # file pattern: up to 30 s (a loaded host starts a run late), false if it never came
	local i
	for ((i = 0; i < 300; i++)); do
		grep -qs -- "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

real_signals() { # build
	local d=$WORK/realsig pid st qemu
	mkdir -p "$d/rb/x86"
	cp "$1/config.mak" "$d/rb/" && cp "$1/x86/selftest.flat" "$d/rb/x86/"
	printf '%s\n' '[mode-pass]' 'file = selftest.flat' '[mode-hang]' 'file = selftest.flat' 'test_args = mode=hang' \
		'timeout = 60' '[later]' 'file = selftest.flat' >"$d/r.cfg"
	cd "$d" || return
	UNITTESTS_CFG=r.cfg "$RUNNER" --build rb -j 1 mode-hang >out.txt 2>&1 &
	pid=$!
	wait_for logs/mode-hang.log 'hanging on purpose'
	qemu=$(pgrep -f "^qemu-system-x86_64 .*-kernel $d/rb/x86/selftest.flat")
	[ -z "$qemu" ] || kill -KILL "$qemu"
	wait "$pid"
	st=$?
	ok "real: QEMU killed by SIGKILL is CRASH (exit 3)" equals "$st" 3
	ok "real: QEMU killed by SIGKILL says so" has_match out.txt '^CRASH +mode-hang .*QEMU killed by SIGKILL \(status 137\)'
	rm -rf logs
	set -m
	UNITTESTS_CFG=r.cfg "$RUNNER" --build rb -j 1 --junit i.xml --tap-file i.tap >out.txt 2>&1 &
	pid=$!
	set +m
	wait_for logs/mode-hang.log 'hanging on purpose'
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	ok "real: SIGTERM: exit 143" equals "$st" 143
	ok "real: SIGTERM: no QEMU left" not pgrep -f "^qemu-system-x86_64 .*-kernel $d/rb/x86/selftest.flat"
	ok "real: SIGTERM: JUnit valid" xsd_valid i.xml
	ok "real: SIGTERM: junitparser reads it" junitparser_reads i.xml i.seen
	ok "real: SIGTERM: finished test kept" has_match i.seen '^suite mode-pass outcome=PASS '
	ok "real: SIGTERM: running test INTERRUPTED" has_match i.seen '^suite mode-hang outcome=INTERRUPTED '
	ok "real: SIGTERM: test not started NOTRUN" has_match i.seen '^suite later outcome=NOTRUN '
	prove --exec cat i.tap >prove.txt 2>&1
	ok "real: SIGTERM: prove reads the TAP (3 points, 1 failed, the one not started a skip)" has_match prove.txt 'Tests: 3 Failed: 1\)'
	cd "$TOP" || return
}

real_kernels() {
	local d=$WORK/real st t build=${RUNNER_TEST_BUILD:-$TOP}
	case $build in /*) ;; *) build=$TOP/$build ;; esac
	if [ ! -r "$build/x86/selftest.flat" ] || ! command -v qemu-system-x86_64 >/dev/null; then
		echo "# real kernels: skipped (no x86/selftest.flat or no qemu-system-x86_64)"
		return
	fi
	mkdir -p "$d"
	cd "$d" || return
	UNITTESTS_CFG=$HERE/selftest-modes.cfg "$RUNNER" --build "$build" -t --junit junit.xml >tap.txt 2>err.txt
	st=$?
	ok "real: exit status 4 (ERROR is the worst)" equals "$st" 4
	ok "real: mode-pass PASS" has_match tap.txt '^ok [0-9]+ - mode-pass$'
	ok "real: mode-fail FAIL" has_match tap.txt '^not ok [0-9]+ - mode-fail$' 
	ok "real: mode-fail outcome" has_match tap.txt "message: '.*mode=fail"
	ok "real: mode-skip SKIP" has_match tap.txt '^ok [0-9]+ - mode-skip # SKIP mode=skip'
	ok "real: mode-hang TIMEOUT" has_match err.txt 'TIMEOUT'
	ok "real: mode-crash CRASH" has_match junit.xml '<error type="CRASH"'
	ok "real: bad QEMU option ERROR" has_match junit.xml '<error type="ERROR" message="qemu-system-x86_64: -device no-such-device'
	ok "real: nothing left running" no_process "$build/x86/selftest.flat"
	ok "real: counts" last_line_is err.txt "1 passed, 4 failed, 1 skipped"
	prove --exec cat tap.txt >prove.txt 2>&1
	ok "real: prove accepts the TAP" has_match prove.txt 'Tests: 6 Failed: 4\)'
	ok "real: JUnit validates" xsd_valid junit.xml
	ok "real: junitparser reads the JUnit" junitparser_reads junit.xml junit.seen
	ok "real: JUnit case per guest check (FAIL)" has_line junit.seen \
		'case mode-fail/mode=fail: a check that fails on purpose failure mode=fail: a check that fails on purpose'
	ok "real: JUnit SKIP reason" has_line junit.seen \
		'case mode-skip/mode=skip: nothing to check on purpose skipped mode=skip: nothing to check on purpose'
	ok "real: JUnit run outcome on the suite" has_match junit.seen '^suite mode-hang outcome=TIMEOUT .*accelerator=(kvm|tcg)$'
	ok "real: JUnit QEMU version" has_match junit.xml '<property name="qemu_version" value="QEMU emulator version [0-9]'
	UNITTESTS_CFG=$HERE/selftest-modes.cfg "$RUNNER" --build "$build" -g vmexit >out.txt 2>err.txt
	ok "real: unknown group is exit 4" equals "$?" 4
	"$TOP/scripts/mkstandalone.sh" --build "$build" --cfg "$HERE/selftest-modes.cfg" --out "$d/sa" >/dev/null
	mkdir -p other && cd other || return
	for t in mode-pass:0:PASS mode-fail:1:FAIL mode-skip:0:SKIP mode-hang:2:TIMEOUT mode-crash:3:CRASH bad-qemu-option:4:ERROR; do
		"$d/sa/${t%%:*}" >out.txt 2>&1
		st=$?
		ok "real standalone: ${t%%:*} ${t#*:}" equals "$st:$(awk 'NR == 1 { print $1 }' out.txt)" "${t#*:}"
	done
	ok "real standalone: logs beside the scripts" has_match "$d/sa/logs/mode-pass.log" '^qemu-system-x86_64 '
	ok "real standalone: no logs/ where it ran" not_exists logs
	real_signals "$build"
	real_lifecycle "$build"
	real_replay "$build"
}

# Host events (docs/lifecycle.md) with the real x86 lifecycle kernel (KVM
# where usable, else TCG): a refused migration and an unexpected request are
# ERRORs with the reason, and neither leaves a QEMU or the private directory
# behind. The refused migration needs KVM: +invtsc blocks migration there only.
real_lifecycle() { # build
	local d=$WORK/lc st kvm=1
	if [ ! -r "$1/x86/lifecycle.flat" ]; then
		echo "# real lifecycle: skipped (no x86/lifecycle.flat in $1)"
		return
	fi
	if [ -n "$(SRCDIR=$TOP bash -c '. "$SRCDIR/scripts/arch.bash"; arch_kvm_problem x86_64')" ]; then
		kvm=0
		echo "# real lifecycle: no KVM here: the refused migration (invtsc, KVM only) and the checks that need the guest to pass are not checked"
	fi
	mkdir -p "$d/tmp" && cd "$d" || return
	TMPDIR=$d/tmp UNITTESTS_CFG=$HERE/lifecycle.cfg "$RUNNER" --build "$1" >out.txt 2>err.txt
	st=$?
	ok "real lifecycle: exit status 4" equals "$st" 4
	ok "real lifecycle: unexpected request is an ERROR naming it" has_match out.txt \
		"^ERROR +lc-unexpected \\([0-9.]+ s\\) the guest asked for event 1 'save'; the cfg's event 1 is 'pause'$"
	((kvm == 0)) || ok "real lifecycle: refused migration is an ERROR with QEMU's message" has_match out.txt \
		'^ERROR +lc-blocked \([0-9.]+ s\) QMP migrate: State blocked by non-migratable CPU device \(invtsc flag\)$'
	# the next two need the guest to pass: under TCG its timing checks run
	# beside make check's builds and may fail, so they are KVM-only here
	((kvm == 0)) || ok "real lifecycle: events the guest never asked for are an ERROR" has_match out.txt \
		"^ERROR +lc-unused \\([0-9.]+ s\\) the guest passed after 1 of the cfg's 2 events$"
	((kvm == 0)) || ok "real lifecycle: a pause passes" has_match out.txt '^PASS +lc-pause '
	((kvm == 0)) || ok "real lifecycle: the log keeps both QEMU command lines" has_match logs/lc-blocked.log \
		'^lifecycle: qemu 1: qemu-system-x86_64 .* -incoming defer$'
	ok "real lifecycle: no QEMU left" no_process "$1/x86/lifecycle.flat"
	ok "real lifecycle: private directories removed" equals "$(ls "$d/tmp")" ""
	"$TOP/scripts/mkstandalone.sh" --build "$1" --cfg "$HERE/lifecycle.cfg" --out "$d/sa" lc-pause lc-blocked >/dev/null
	"$d/sa/lc-pause" >sa.txt 2>&1
	st=$?
	((kvm == 0)) || ok "real lifecycle standalone: pause passes" equals "$st:$(awk 'NR == 1 { print $1 }' sa.txt)" 0:PASS
	TMPDIR=$d/tmp "$d/sa/lc-blocked" >sa.txt 2>&1
	st=$?
	((kvm == 0)) || ok "real lifecycle standalone: refused migration ERROR" equals "$st:$(awk 'NR == 1 { print $1 }' sa.txt)" 4:ERROR
	ok "real lifecycle standalone: nothing left" equals "$(ls "$d/tmp")" ""
	cd "$TOP" || return
}

# --- known host defects: KFAIL is not a failure, and never hides one -----------
known_failures() {
	local d=$WORK/kfail st kind=none
	make_build "$d/build" x86_64
	[ ! -d /sys/module/kvm_pvm ] || kind="kvm-pvm"
	printf '%s\n' args 'out PASS: one' 'out KFAIL: two (known defect of this host: kvm-pvm/x)' \
		'out SUMMARY: 2 tests, 0 unexpected failures, 0 skipped, 1 known failures' 'exit 0' >"$d/build/x86/kfail.flat"
	printf '%s\n' 'out KFAIL: two (known defect of this host: kvm-pvm/x)' 'out FAIL: three' \
		'out SUMMARY: 2 tests, 1 unexpected failures, 0 skipped, 1 known failures' 'exit 1' >"$d/build/x86/kfailfail.flat"
	cat >"$d/t.cfg" <<'CFG'
[kfail]
file = kfail.flat
test_args = host={host_kind}
[kfailfail]
file = kfailfail.flat
[pass]
file = pass.flat
CFG
	cd "$d" || return
	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build --junit junit.xml >out.txt 2>err.txt
	st=$?
	ok "kfail: a FAIL beside a KFAIL still fails the run" equals "$st" 1
	ok "kfail: KFAIL line" has_match out.txt '^KFAIL +kfail .*1 known failures$'
	ok "kfail: FAIL beside a KFAIL is FAIL" has_match out.txt '^FAIL +kfailfail .*first FAIL: three'
	ok "kfail: its own line before the counts" has_line out.txt "known host defects: 1 KFAIL (passed apart from them)"
	ok "kfail: counts line unchanged" last_line_is out.txt "1 passed, 1 failed, 0 skipped"
	ok "kfail: {host_kind} expands" has_line logs/kfail.log "ARGS: host=$kind"
	ok "kfail: JUnit skipped of type KFAIL" has_match junit.xml '<skipped type="KFAIL" message="known host defect: '
	ok "kfail: JUnit matches the CI schema" xsd_valid junit.xml
	ok "kfail: results.json lists it" has_match logs/results.json '"KFAIL|two \(known defect of this host: kvm-pvm/x\)"'
	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build -t kfail pass >tap.txt 2>tap-err.txt
	ok "kfail: alone, exit status 0" equals "$?" 0
	ok "kfail: TAP point is a TODO" has_match tap.txt '^not ok 1 - kfail # TODO known host defect: '
	ok "kfail: TAP subtest is a TODO" has_line tap.txt '    not ok 2 - two (known defect of this host: kvm-pvm/x) # TODO known host defect'
	prove --exec cat tap.txt >prove.txt 2>&1
	ok "kfail: prove passes it" has_match prove.txt '^Result: PASS'
	cd "$TOP" || return
}

# --- QEMU versions: --qemu, the version recorded, known defects by version ----------
qemu_versions() {
	local d=$WORK/qemuv st
	make_build "$d/build" x86_64
	mkdir -p "$d/q10/usr/bin"
	printf '#!/bin/sh\nFAKE_QEMU_VERSION=10.0.2 exec %s "$@"\n' "$FAKE" >"$d/q10/usr/bin/qemu-system-x86_64"
	chmod +x "$d/q10/usr/bin/qemu-system-x86_64"
	printf '%s\n' 'out BOUND: timer_tick.hpet.early 1999 ticks 0..0' \
		'out FAIL: hpet: no tick early beyond the error: 1999 early, the worst by 9 ns' \
		'out BOUND: timer_tick.hpet.count_off 999.9 ticks -2.017..0.017' \
		'out FAIL: hpet: the interrupts that came ran at 1999.9 Hz: 999.9 tick(s) over (at most 0.017)' \
		'out SUMMARY: 6 tests, 2 unexpected failures, 0 skipped' 'exit 1' >"$d/build/x86/hpet2x.flat"
	# the same checks failing the other way (short, not over) or without their BOUND line
	printf '%s\n' 'out BOUND: timer_tick.hpet.early 1999 ticks 0..0' \
		'out FAIL: hpet: no tick early beyond the error: 1999 early, the worst by 9 ns' \
		'out BOUND: timer_tick.hpet.count_off -999.9 ticks -2.017..0.017' \
		'out FAIL: hpet: the interrupts that came ran at 0.1 Hz: 999.9 tick(s) short' \
		'out SUMMARY: 6 tests, 2 unexpected failures, 0 skipped' 'exit 1' >"$d/build/x86/hpetshort.flat"
	printf '%s\n' 'out BOUND: timer_tick.hpet.early 1999 ticks 0..0' \
		'out FAIL: hpet: no tick early beyond the error: 1999 early, the worst by 9 ns' \
		'out FAIL: hpet: the interrupts that came ran at 1999.9 Hz: 999.9 tick(s) over (at most 0.017)' \
		'out SUMMARY: 6 tests, 2 unexpected failures, 0 skipped' 'exit 1' >"$d/build/x86/hpetother.flat"
	printf '%s\n' 'err qemu-system-x86_64: Bad icount read' 'status 1' >"$d/build/x86/abort.flat"
	cat >"$d/t.cfg" <<'CFG'
[timer-hpet]
file = hpet2x.flat
tcg_params = -icount shift=7,sleep=off
[timer-hpet-routed]
file = hpetother.flat
tcg_params = -icount shift=7,sleep=off
[timer-x2apic]
file = abort.flat
tcg_params = -cpu max,+x2apic -icount shift=7,sleep=off
[qemu-hpet-periodic-twice]
file = hpet2x.flat
accel = tcg
tcg_params = -icount shift=7,sleep=off
[qemu-x2apic-icount]
file = pass.flat
accel = tcg
tcg_params = -icount shift=7,sleep=off
[hpet-short]
file = hpetshort.flat
tcg_params = -icount shift=7,sleep=off
[timer-pit]
file = pass.flat
tcg_params = -icount shift=7,sleep=off
[new-machine]
file = pass.flat
qemu_min = 9.0
[mute]
file = mute.flat
tcg_params = -icount shift=7,sleep=off
CFG
	printf '%s\n' 'status 1' >"$d/build/x86/mute.flat"
	cd "$d" || return
	ACCEL=tcg UNITTESTS_CFG=t.cfg "$RUNNER" --build build --qemu q10 --junit j.xml --tap-file t.tap >out.txt 2>err.txt
	st=$?
	ok "qemu: --qemu FOLDER runs its usr/bin binary" has_match logs/timer-pit.log "^$d/q10/usr/bin/qemu-system-x86_64 "
	ok "qemu: the log's header records the version and the binary" \
		equals "$(sed -n 3p logs/timer-pit.log)" "runner: qemu 10.0.2 $d/q10/usr/bin/qemu-system-x86_64"
	ok "qemu: JUnit names the version" has_match j.xml '<property name="qemu_version" value="QEMU emulator version 10.0.2'
	ok "qemu: a failure only by a known defect of this version is KFAIL, naming it" \
		has_match out.txt '^KFAIL +timer-hpet .*known QEMU defect qemu-hpet-periodic-twice of QEMU 9.1 to 11.0 \(this is 10.0.2'
	ok "qemu: ... run once (a defect is no busy host)" not test -e logs/timer-hpet.log.1
	ok "qemu: ... its checks are KFAIL in JUnit" equals "$(grep -c 'skipped type="KFAIL"' j.xml)" 5
	ok "qemu: ... and TODO in TAP" has_match t.tap '^    not ok 2 - hpet: the interrupts that came .* # TODO known host defect$'
	ok "qemu: a FAIL line with no BOUND line before it is no defect's evidence: a FAIL" \
		has_match out.txt '^FAIL +timer-hpet-routed '
	ok "qemu: the defect's BOUND checks failing the other way (below their bands) keep it a FAIL" \
		has_match out.txt '^FAIL +hpet-short '
	ok "qemu: a defect's reproducer showing it in its range is KFAIL" has_match out.txt '^KFAIL +qemu-hpet-periodic-twice '
	ok "qemu: the closing lines hold the defects table" has_line out.txt 'QEMU defects (docs/upstream/):'
	ok "qemu: ... a defect this QEMU has, in range" \
		has_match out.txt '^  qemu-hpet-periodic-twice +9\.1 to 11\.0 +10\.0\.2 +KFAIL: has it, within its known range$'
	ok "qemu: ... a defect it does not have" \
		has_match out.txt '^  qemu-x2apic-icount +9\.0 to 11\.0 +10\.0\.2 +PASS: does not have it$'
	ok "qemu: ... only the reproducers" not grep -q '^  timer-hpet ' out.txt
	ok "qemu: QEMU's own abort, a known defect, is KFAIL with QEMU's words" \
		has_match out.txt "^KFAIL +timer-x2apic .*qemu-x2apic-icount.*ERROR: qemu-system-x86_64: Bad icount read$"
	ok "qemu: an entry under -icount naming no CPU avoids the x2APIC defect, and says so" \
		has_match logs/timer-pit.log "^runner: runs with -cpu max,-x2apic: QEMU 10.0.2 exits with 'Bad icount read'"
	ok "qemu: ... on its command line" has_match logs/timer-pit.log ' -icount shift=7,sleep=off -cpu max,-x2apic$'
	ok "qemu: a QEMU without a data folder of its own gets no -L" not grep -q -- ' -L ' logs/timer-pit.log
	mkdir -p q10/usr/share/qemu && : >q10/usr/share/qemu/qboot.rom
	UNITTESTS_CFG=t.cfg "$RUNNER" --build build --qemu q10 -l -v timer-pit >outl.txt 2>&1
	ok "qemu: a QEMU in a folder of its own runs with that folder's firmware (-L) and qboot" \
		has_match outl.txt "qemu-system-x86_64 -L $d/q10/usr/share/qemu .* -bios $d/q10/usr/share/qemu/qboot.rom "
	ok "qemu: qemu_min met runs" has_match out.txt '^PASS +new-machine '
	ok "qemu: the runner's note of an avoided defect is not the guest speaking" \
		has_match out.txt '^ERROR +mute .*QEMU exited with status 1 before the guest printed anything'
	ok "qemu: exit status 4 (an ERROR beside a FAIL)" equals "$st" 4
	FAKE_QEMU_VERSION=11.1.0 ACCEL=tcg UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build timer-hpet timer-x2apic >out2.txt 2>&1
	ok "qemu: the same failure on a version past the defect's is a FAIL" has_match out2.txt '^FAIL +timer-hpet '
	ok "qemu: ... naming the defect seen outside its range" \
		has_match out2.txt '^FAIL +timer-hpet .*QEMU defect qemu-hpet-periodic-twice seen outside its known range: QEMU 11\.1\.0, known in 9\.1 to 11\.0'
	ok "qemu: ... and its log says so" \
		has_match logs/timer-hpet.log '^runner: QEMU defect qemu-hpet-periodic-twice seen outside its known range \(QEMU 9\.1 to 11\.0, this is 11\.1\.0\)'
	ok "qemu: ... and the abort an ERROR" has_match out2.txt '^ERROR +timer-x2apic .*Bad icount read'
	ok "qemu: ... no avoiding option there" not grep -q -- '-x2apic' logs/timer-hpet.log
	FAKE_QEMU_VERSION=9.0.2 ACCEL=tcg UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build qemu-hpet-periodic-twice >out7.txt 2>&1
	ok "qemu: a reproducer showing its defect before its range (fake 9.0.2) is a FAIL" \
		has_match out7.txt '^FAIL +qemu-hpet-periodic-twice .*seen outside its known range: QEMU 9\.0\.2, known in 9\.1 to 11\.0'
	ok "qemu: ... its row in the table says so" \
		has_match out7.txt '^  qemu-hpet-periodic-twice +9\.1 to 11\.0 +9\.0\.2 +FAIL: has it, outside its known range$'
	ok "qemu: ... and the run fails (1)" has_match out7.txt '^0 passed, 1 failed, 0 skipped$'
	FAKE_QEMU_VERSION=8.2.0 ACCEL=tcg UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build new-machine >out3.txt 2>&1
	ok "qemu: qemu_min unmet is a SKIP naming both versions" \
		has_match out3.txt '^SKIP +new-machine .*needs QEMU 9.0 or later \(qemu_min\), this is 8.2.0'
	UNITTESTS_CFG=t.cfg "$RUNNER" --build build --qemu 3.1 -l >out4.txt 2>&1
	ok "qemu: --qemu VERSION not found is a usage error (4)" equals "$?" 4
	ok "qemu: ... naming what it found" has_match out4.txt '^run_tests.sh: --qemu 3.1: no qemu-system-x86_64 of that version here \(found: '
	UNITTESTS_CFG=t.cfg "$RUNNER" --build build --qemu 'x y' -l >out5.txt 2>&1
	ok "qemu: --qemu neither folder nor version is a usage error" has_match out5.txt "'x y' is neither a folder nor a version"
	UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build --qemu 10 -l >out6.txt 2>&1
	ok "qemu: --qemu and QEMU= together is a usage error" has_match out6.txt 'both name a QEMU: give one'
	printf '[x]\nfile = pass.flat\nqemu_min = ten\n' >bad.cfg
	UNITTESTS_CFG=bad.cfg QEMU=$FAKE "$RUNNER" --build build -l >out7.txt 2>&1
	ok "qemu: a bad qemu_min is a cfg error" has_match out7.txt "qemu_min: 'ten' is not a QEMU version such as 9.0"
	cd "$TOP" || return
}

# --- a busy host: a FAIL is run again only when the host held QEMU back ------------
busy_host() {
	local d=$WORK/busy st
	make_build "$d/build" x86_64
	printf '%s\n' 'busy 2000' 'pause 0.5' "flaky $d/runs-busy" >"$d/build/x86/flaky-busy.flat"
	printf '%s\n' "flaky $d/runs-quiet" >"$d/build/x86/flaky-quiet.flat"
	printf '%s\n' 'selfbusy 2000' 'pause 0.5' "flaky $d/runs-self" >"$d/build/x86/flaky-self.flat"
	printf '%s\n' 'busy 2000' 'pause 0.5' "out FAIL: always" 'out SUMMARY: 1 tests, 1 unexpected failures, 0 skipped' \
		'exit 1' >"$d/build/x86/fail-busy.flat"
	printf '%s\n' 'busy 2000' 'pause 0.5' "flaky $d/runs-evid" >"$d/build/x86/flaky-evid.flat"
	printf '[flaky-busy]\nfile = flaky-busy.flat\n[flaky-quiet]\nfile = flaky-quiet.flat\n[fail-busy]\nfile = fail-busy.flat\n[flaky-self]\nfile = flaky-self.flat\n[flaky-evid]\nfile = flaky-evid.flat\nevidence = host\n' >"$d/t.cfg"
	mkdir -p "$d/proc"
	cd "$d" || return
	RUN_PROC=$d/proc UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build --junit junit.xml \
		--tap-file tap.txt >out.txt 2>err.txt
	st=$?
	ok "busy: a FAIL while the host was busy runs again and passes" \
		has_match out.txt '^PASS +flaky-busy .*\(attempt 2 of 3; attempt 1 FAIL: flaky: late while QEMU.s threads waited 2000 ms for a CPU in [0-9]+ ms'
	ok "busy: ... two attempts" equals "$(wc -l <runs-busy)" 2
	ok "busy: ... the first attempt's log kept" has_line logs/flaky-busy.log.1 'FAIL: flaky: late'
	ok "busy: ... the log says why it ran again" has_match logs/flaky-busy.log '^runner: attempt 1 FAIL while .* run again, alone \(its log: flaky-busy.log.1\)$'
	ok "busy: ... only the last attempt's checks are reported" has_match junit.xml '<testsuite name="flaky-busy" tests="1" failures="0" '
	ok "busy: a FAIL on a quiet host is final, with the evidence" has_match out.txt '^FAIL +flaky-quiet .*first FAIL: flaky: late \(a FAIL on a quiet host, not run again: QEMU.s threads waited [0-9]+ ms for a CPU in [0-9]+ ms, other processes ran [0-9]+ ms, the host.s hypervisor stole 0 ms\)$'
	ok "busy: QEMU's threads waiting on each other (nothing else ran) is a quiet host" \
		has_match out.txt '^FAIL +flaky-self .*first FAIL: flaky: late \(a FAIL on a quiet host, not run again: QEMU.s threads waited 2000 ms for a CPU in [0-9]+ ms, other processes ran 0 ms'
	ok "busy: ... one attempt" equals "$(wc -l <runs-self)" 1
	ok "busy: ... one attempt" equals "$(wc -l <runs-quiet)" 1
	ok "busy: a FAIL judged with the host's evidence is final on a busy host too" \
		has_match out.txt '^FAIL +flaky-evid .*first FAIL: flaky: late \(judged with the host.s evidence, not run again: QEMU.s threads waited 2000 ms for a CPU in [0-9]+ ms, other processes ran [0-9]+ ms'
	ok "busy: ... one attempt" equals "$(wc -l <runs-evid)" 1
	ok "busy: a FAIL in every attempt is a FAIL" has_match out.txt '^FAIL +fail-busy .*\(attempt 3 of 3; attempt 1 FAIL: always while .*; attempt 2 FAIL: always while '
	ok "busy: ... every attempt's log kept" test -s logs/fail-busy.log.2
	ok "busy: ... exit status 1" equals "$st" 1
	ok "busy: the closing lines name what ran again" has_line out.txt 'run again on a busy host: flaky-busy fail-busy (see their lines and logs)'
	ok "busy: JUnit shows a pass on a later attempt as flaky (Surefire's flakyFailure)" \
		has_match junit.xml '^      <flakyFailure type="FAIL" message="flaky: late while QEMU.s threads waited 2000 ms'
	ok "busy: ... and counts the attempts" has_match junit.xml '<property name="attempts" value="2"/>'
	ok "busy: ... the JUnit still passes the schema" xsd_valid junit.xml
	ok "busy: ... no flakyFailure for a test that failed every time" \
		equals "$(grep -c '<flakyFailure' junit.xml)" 1
	ok "busy: TAP says a pass came on a later attempt" has_line tap.txt '# retried: flaky-busy PASS on attempt 2 of 3'
	ok "busy: ... with each earlier attempt" has_match tap.txt '^# retried: flaky-busy attempt 1 FAIL: flaky: late while .*\(its log: flaky-busy.log.1\)$'
	ok "busy: ... and the attempts in its YAML" has_line tap.txt '  attempts: 2'
	ok "busy: results.json counts the attempts" results_attempts logs/flaky-busy.log 2
	ok "busy: ... one for a test run once" results_attempts logs/flaky-quiet.log 1
	ok "busy: the log's last line says what the host took" has_match logs/flaky-quiet.log "^runner: QEMU's threads waited [0-9]+ ms for a CPU in [0-9]+ ms, other processes ran [0-9]+ ms, the host's hypervisor stole [0-9]+ ms$"
	cd "$TOP" || return
}

# The attempts scripts/results-to-json reads from a runner log (run with
# Debian's Python, as the runner runs it: main_results_json).
results_attempts() { # log want
	[ "$(/usr/bin/python3 "$TOP/scripts/results-to-json" "$1" 2>/dev/null | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["runs"][0]["attempts"])')" = "$2" ]
}

# Whether a test's second run (the retry) kept clear of every run in another
# span file: load can stretch runs, never make them stop overlapping.
retry_alone() { # retried-span-file other-span-file
	awk 'FNR == 1 { f++ } $2 == "start" { n[f]++; if (f == 1 && n[f] == 2) rp = $1; if (f == 2) s[$1] = $3 }
		$2 == "start" && f == 1 && $1 == rp { rs = $3 } $2 == "end" && f == 1 && $1 == rp { re = $3 }
		$2 == "end" && f == 2 { e[$1] = $3 }
		END { if (n[1] != 2 || re == "") exit 1
			for (p in s) if (!(p in e) || (s[p] < re && rs < e[p])) exit 1 }' "$1" "$2"
}

# A retry waits for what runs beside it and holds the other -j slots back.
busy_retry_alone() {
	local d=$WORK/busy-alone
	make_build "$d/build" x86_64
	printf '%s\n' "span $d/flaky.spans" 'busy 2000' 'pause 0.5' "flaky $d/runs" >"$d/build/x86/flaky.flat"
	printf '%s\n' "span $d/other.spans" 'pause 1.5' 'out PASS: other' \
		'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' 'exit 0' >"$d/build/x86/other.flat"
	printf '%s\n' '[flaky]' 'file = flaky.flat' '[other]' 'file = other.flat' '[third]' 'file = other.flat' >"$d/t.cfg"
	mkdir -p "$d/proc"
	cd "$d" || return
	RUN_PROC=$d/proc UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build -j 2 >out.txt 2>err.txt
	ok "busy: a retry runs alone (clear of the tests beside it under -j 2)" retry_alone flaky.spans other.spans
	ok "busy: ... all three passed" last_line_is out.txt "3 passed, 0 failed, 0 skipped"
	cd "$TOP" || return
}

# --fake-only: the fake-QEMU checks (no guest: make check runs them beside other
# host-side steps); --real-only: the real kernels (timing: run alone).
# The pieces runner-lib.bash loads, in order, and the names it gives mkstandalone.sh.
# shellcheck disable=SC2016 # a literal $SRCDIR in the pattern
lib_loads() { sed -n 's|^\. "\$SRCDIR/scripts/\(.*\)\.bash"$|\1|p' "$TOP/scripts/runner-lib.bash"; }
lib_names() { eval "$(grep '^runner_lib_names()' "$TOP/scripts/runner-lib.bash")" && runner_lib_names; }

# The accelerator the runner chose, recorded once in the log's header, is
# what JUnit and results.json report; neither reads it off a command line.
accel_record() {
	UNITTESTS_CFG=a.cfg QEMU=$FAKE "$RUNNER" --build build --junit j.xml any >/dev/null
	ok "accel: the log's header records the accelerator after the command" \
		equals "$(sed -n 2p logs/any.log)" "runner: accelerator tcg"
	ok "accel: JUnit reports the record" has_line j.xml '      <property name="accelerator" value="tcg"/>'
	ok "accel: results.json reports the record" equals "$(results_accel logs/any.log)" tcg
	printf '%s\n' 'qemu-system-x86_64 -accel tcg -kernel x.flat' 'runner: accelerator kvm' 'RESULT: a 1 ns' >kvm.log
	ok "accel: results.json takes the record, not the command line" equals "$(results_accel kvm.log)" kvm
	printf '%s\n' 'qemu-system-x86_64 -accel tcg -kernel x.flat' 'RESULT: a 1 ns' >none.log
	ok "accel: ... and no record is unknown" equals "$(results_accel none.log)" unknown
}

# The known-defect table: rows well formed, and evidence of several kinds (';'): each failure
# explained by one of them, none by none (the arm64 lifecycle's one-shots, bounded or not).
defect_table() {
	local q=$TOP/scripts/qemu.bash run bound check other
	ok "qemu: the known-defect table's rows are well formed" \
		equals "$(bash -c ". '$q'; qemu_defects_check")" ""
	ok "qemu: a malformed row is named" grep -q "^x: evidence 'nope:x' is not one of" \
		<(bash -c ". '$q'; QEMU_DEFECTS+=('x|9.0|9.1|tcg|e|any|d|bound:e*;nope:x'); qemu_defects_check")
	run=". '$q'; qemu_known_defect 10.0.2 tcg arm-lifecycle-migrate '' \"\$@\" && echo \"\${QEMU_DEFECT%%|*}\""
	bound='bound e1.migrate.vtimer.cpu0.run_oneshot_not_ok 5 count 0..0'
	fired='bound e1.pause.vtimer.cpu0.oneshot_fired 0 count 1..1'
	check='check event 1 pause: vCPU 0 vtimer one-shot armed before the event fired (not within 780 ms of the answer)'
	other='check event 1 pause: vCPU 0 ptimer catch-up: 90 ticks'
	ok "qemu: a bounded one-shot failure is the arm64 lifecycle's known defect" \
		equals "$(bash -c "$run" _ "$bound")" qemu-cntvoff-wrap
	ok "qemu: ... and so is a one-shot that never fired, and both in one run" \
		equals "$(bash -c "$run" _ "$fired" "$bound")" qemu-cntvoff-wrap
	ok "qemu: ... but a failure with no BOUND line is matched by no row: figures, not sentences" \
		equals "$(bash -c "$run" _ "$check")" ""
	ok "qemu: ... but not beside a failure it does not explain" \
		equals "$(bash -c "$run" _ "$bound" "$other")" ""
	ok "qemu: ... nor a bounded figure inside its band" \
		equals "$(bash -c "$run" _ 'bound e1.migrate.vtimer.cpu0.run_oneshot_not_ok 0 count 0..0')" ""
}

# Rewording a check's sentence changes no figure and no known defect: results.json reads BOUND and
# RESULT lines, the known-defect table figures' names and bands (issue 49).
reworded() {
	local q=$TOP/scripts/qemu.bash log=$TOP/host-tests/data/tick-records/kvm-idle-hpet-drop10.log
	local console defect d=$WORK/reword
	mkdir -p "$d"
	reword <"$log" >"$d/kvm-idle-hpet-drop10.log"
	ok "reworded: the recorded run's figures and bounds in results.json unchanged" \
		equals "$(json_run_figures "$log")" "$(json_run_figures "$d/kvm-idle-hpet-drop10.log")"
	ok "reworded: ... and the rewording did change its check lines" \
		not cmp -s "$log" "$d/kvm-idle-hpet-drop10.log"
	console=$(printf '%s\n' 'BOUND: e1.pause.vtimer.cpu0.oneshot_fired 0 count 1..1' \
		'FAIL: event 1 pause: vCPU 0 vtimer one-shot armed before the event fired (not within 780 ms of the answer)' \
		'BOUND: e1.pause.vtimer.cpu1.oneshot_late 900.000000 ms -inf..600.000000' \
		'FAIL: event 1 pause: vCPU 1 vtimer one-shot fired 900 ms after its deadline' \
		'PASS: event 1 pause: every clock went on')
	defect=". '$q'; mapfile -t f < <(qemu_guest_failures); qemu_known_defect 10.0.2 tcg arm-lifecycle-pause '' \"\${f[@]}\" && echo \"\${QEMU_DEFECT%%|*}\""
	ok "reworded: a run failing only by a known defect's figures is that defect" \
		equals "$(bash -c "$defect" <<<"$console")" qemu-cntvoff-wrap
	ok "reworded: ... and so it is with every sentence reworded" \
		equals "$(bash -c "$defect" < <(reword <<<"$console"))" qemu-cntvoff-wrap
}

# A log with every check's sentence replaced, its BOUND and RESULT lines kept.
reword() {
	sed -E 's/^(PASS|FAIL|KFAIL|SKIP): .*/\1: reworded, nothing of the sentence left/'
}

# results-to-json's run of a log without its name and path: its figures, bounds and outcome.
json_run_figures() { # log
	/usr/bin/python3 "$TOP/scripts/results-to-json" "$1" 2>/dev/null | /usr/bin/python3 -c 'import json, sys
run = json.load(sys.stdin)["runs"][0]
run.pop("test"); run.pop("log")
print(json.dumps(run, sort_keys=True))'
}

# The accelerator scripts/results-to-json reads from a runner log (Debian's Python, as the runner's).
results_accel() { # log
	/usr/bin/python3 "$TOP/scripts/results-to-json" "$1" 2>/dev/null | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["runs"][0]["accel"])'
}

fake_checks() {
	ok "shellcheck: runner clean" shellcheck -S style -x -a "$RUNNER" "$TOP/scripts/mkstandalone.sh" "$FAKE" "$HERE/run.sh"
	ok "runner-lib: what standalone scripts embed is what run_tests.sh loads, in order" \
		equals "$(lib_names | tr '\n' ' ')" "$(lib_loads | tr '\n' ' ')"
	fake_outcomes
	nothing_selected
	signal_crash
	interrupted
	options
	build_layout
	cfg_errors
	evidence_agent
	replay_fake
	jobs_slots
	accel
	standalone
	known_failures
	qemu_versions
	defect_table
	reworded
	busy_host
	busy_retry_alone
	host_trace
}

case ${1:-} in
--fake-only) fake_checks ;;
--only)
	# a developer's shortcut: the named groups of checks alone (e.g. --only busy_host qemu_versions)
	shift
	for f in "$@"; do
		[[ $(type -t "$f") == function ]] || { echo "host-tests/runner/run.sh: --only: no group '$f'" >&2; exit 2; }
		"$f"
	done
	;;
--real-only) real_kernels ;;
"")
	fake_checks
	real_kernels
	;;
*) echo "host-tests/runner/run.sh: unknown argument '$1' (--fake-only or --real-only)" >&2; exit 2 ;;
esac
echo "1..$((PASSED + FAILED))"
echo "# $PASSED passed, $FAILED failed"
((FAILED == 0))
