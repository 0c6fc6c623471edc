# SPDX-License-Identifier: GPL-2.0-only
# The runner's checks that a CI gate relies on (JUnit for dashboards, nothing selected, signals, interruption, options, build layout); sourced by host-tests/runner/run.sh.
# shellcheck shell=bash

# --- JUnit as a dashboard reads it: a suite per QEMU run, a case per guest check ---
junit_dashboard() { # junit-file (of fake_outcomes)
	local seen=$1.seen
	if ! "$JUNITPARSER" -c 'import junitparser' 2>/dev/null; then
		ok "junit: python3-junitparser installed (scripts/install-deps.sh)" false
		return
	fi
	ok "junit: junitparser reads it, counts agree, properties present" junitparser_reads "$1" "$seen"
	ok "junit: a suite per run, with its outcome and accelerator" \
		has_match "$seen" '^suite fail outcome=FAIL tests=2 failures=1 errors=0 skipped=0 accelerator=(kvm|tcg)$'
	ok "junit: a case per guest check (PASS)" has_line "$seen" 'case fail/one pass'
	ok "junit: a case per guest check (FAIL)" has_line "$seen" 'case fail/two <&> "]]>" #2 failure two <&> "]]>" #2'
	ok "junit: SKIP reason as <skipped message>" has_line "$seen" 'case skip/no widget here skipped no widget here'
	ok "junit: a run that ended badly is an error case" has_match "$seen" '^case hang/run error killed after 2 s'
	ok "junit: an ERROR run names why" has_match "$seen" '^case nokernel/run error kernel .*missing.flat not found'
	ok "junit: QEMU version property" has_match "$1" '<property name="qemu_version" value="QEMU emulator version 0.0.0 \(fake-qemu\)"/>'
	ok "junit: host kernel property" has_match "$1" "<property name=\"host_kernel\" value=\"$(uname -s) "
}

# --- nothing selected is an ERROR that says why ----------------------------------
nothing_selected() {
	local d=$WORK/fake st
	cd "$d" || return
	nothing() { # description expected-message runner-args...
		local what=$1 msg=$2
		rm -f "$d/none-argv.txt"
		shift 2
		UNITTESTS_CFG=t.cfg QEMU=$FAKE FAKE_QEMU_ARGV=$d/none-argv.txt "$RUNNER" --build build "$@" >none.txt 2>none-err.txt
		st=$?
		ok "none: $what: exit 4" equals "$st" 4
		ok "none: $what: says why" has_match none-err.txt "$msg"
		ok "none: $what: nothing started" not_exists "$d/none-argv.txt"
	}
	nothing "unknown group" "no entry of t.cfg is in group 'vmexit' \\(groups there: nodefault slowish\\)" -g vmexit
	nothing "unknown group beside a known one" "group 'vmexit'" -g slowish -g vmexit -a
	nothing "unknown group, -l" "group 'vmexit'" -l -g vmexit
	nothing "other arch" "'armonly' matched armonly, not for x86_64" armonly
	nothing "other arch, -l" "not for x86_64" -l armonly
	nothing "only nodefault" "group 'slowish' matched only 'nodefault' entries \\(extra\\); add -a" -g slowish
	ok "none: counts line" last_line_is none.txt "0 passed, 1 failed, 0 skipped"
	UNITTESTS_CFG=t.cfg "$RUNNER" --build build -g vmexit -t --junit none.xml >none.tap 2>/dev/null
	ok "none: TAP bails out" has_match none.tap "^Bail out! run_tests: no entry of t.cfg is in group 'vmexit'"
	ok "none: JUnit has the error" has_match none.xml '<error type="ERROR" message="run_tests: no entry of t.cfg is in group'
	ok "none: JUnit validates" xsd_valid none.xml
	ok "none: junitparser reads it" junitparser_reads none.xml none.seen
	printf '# nothing here\n' >empty.cfg
	UNITTESTS_CFG=empty.cfg "$RUNNER" --build build >none.txt 2>none-err.txt
	ok "none: empty cfg is exit 4" equals "$?" 4
	ok "none: empty cfg says so" has_match none-err.txt 'nothing to run: empty.cfg has no entries'
	cd "$TOP" || return
}

# --- death by signal is CRASH, whatever the guest printed before ------------------
signal_crash() {
	local d=$WORK/sig sub
	make_build "$d/build" x86_64
	sub=$d/build/x86
	for sig in KILL SEGV TERM BUS; do
		printf '%s\n' 'out PASS: fine' 'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' "signal $sig" >"$sub/$sig.flat"
		printf '[%s]\nfile = %s.flat\n' "$sig" "$sig" >>"$d/s.cfg"
	done
	# PROF is 128 + 27 = 155, the guest's skip status: a skip only when the SUMMARY says so.
	printf '%s\n' 'out PASS: fine' 'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' 'signal PROF' >"$sub/prof.flat"
	# QEMU's own SIGTERM handler exits with status 0 after saying why.
	printf '%s\n' 'out PASS: fine' 'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' \
		'err qemu-system-x86_64: terminating on signal 15 from pid 1 (init)' 'status 0' >"$sub/qterm.flat"
	printf '%s\n' '[prof]' 'file = prof.flat' '[qterm]' 'file = qterm.flat' '[skip]' 'file = skip.flat' \
		'[pass]' 'file = pass.flat' >>"$d/s.cfg"
	cd "$d" || return
	UNITTESTS_CFG=s.cfg QEMU=$FAKE "$RUNNER" --build build >out.txt 2>&1
	ok "signal: exit status 3 (CRASH)" equals "$?" 3
	ok "signal: SIGKILL after a SUMMARY is CRASH" has_match out.txt '^CRASH +KILL .*QEMU killed by SIGKILL \(status 137\) after SUMMARY'
	ok "signal: SIGSEGV after a SUMMARY is CRASH" has_match out.txt '^CRASH +SEGV .*killed by SIGSEGV \(status 139\)'
	ok "signal: SIGTERM after a SUMMARY is CRASH" has_match out.txt '^CRASH +TERM .*killed by SIGTERM \(status 143\)'
	ok "signal: SIGBUS after a SUMMARY is CRASH" has_match out.txt '^CRASH +BUS .*killed by SIGBUS \(status 135\)'
	ok "signal: SIGPROF (status 155) after a passing SUMMARY is CRASH" has_match out.txt '^CRASH +prof .*killed by SIGPROF'
	ok "signal: QEMU's own SIGTERM exit is CRASH" has_match out.txt '^CRASH +qterm .*stopped by a signal: .*terminating on signal 15'
	ok "signal: the guest's skip code is still SKIP" has_match out.txt '^SKIP +skip '
	ok "signal: the guest's pass code is still PASS" has_match out.txt '^PASS +pass '
	ok "signal: counts" last_line_is out.txt "1 passed, 6 failed, 1 skipped"
	ok "signal: no job notices from bash" not has_match out.txt 'line [0-9]+: +[0-9]+ (Killed|Segmentation fault|Bus error)'
	cd "$TOP" || return
}

# --- an interrupted run keeps its reports --------------------------------------------
# Starts the runner in the background (job control on, so that SIGINT is not
# ignored as it is for a non-interactive shell's background jobs, and the
# runner leads its own process group), sends SIG once 'hang' runs, to the
# runner or to its whole group (as a CI job's timeout does), and leaves the
# status in st. The runner gets the signals it traps at their defaults, as
# from a terminal: bash cannot trap a signal ignored when it starts, and a
# make check started from a background job inherits SIGINT ignored, one
# started under nohup SIGHUP. It is launched from a shell that ignores all
# of INTERRUPT_SIGNALS whoever started this test, so that the restoring is
# checked on every run, not only under nohup.
INTERRUPT_SIGNALS=(INT HUP TERM)
interrupt_run() { # signal pid|group
	local pid defaults
	defaults=$(IFS=,; echo "${INTERRUPT_SIGNALS[*]}")
	rm -rf logs logs.old i.xml i.tap
	set -m
	(
		trap '' "${INTERRUPT_SIGNALS[@]}"
		UNITTESTS_CFG=i.cfg QEMU=$FAKE exec env --default-signal="$defaults" "$RUNNER" \
			--build build -j 1 --junit i.xml --tap-file i.tap >out.txt 2>err.txt
	) &
	pid=$!
	set +m
	# a loaded host (make check's other streams) starts it late; its timeout is 60 s
	wait_for logs/hang.log 'INFO: hanging'
	if [ "$2" = group ]; then kill -s "$1" -- "-$pid"; else kill -s "$1" "$pid"; fi
	wait "$pid"
	st=$?
}

interrupted() {
	local d=$WORK/intr st c sig status what
	make_build "$d/build" x86_64
	printf '%s\n' '[pass]' 'file = pass.flat' '[hang]' 'file = hang.flat' 'timeout = 60' '[later]' 'file = pass.flat' >"$d/i.cfg"
	cd "$d" || return
	for c in TERM:143:pid INT:130:pid HUP:129:pid TERM:143:group; do
		IFS=: read -r sig status what <<<"$c"
		interrupt_run "$sig" "$what"
		what="interrupt $sig${what/#pid/}"
		what=${what/%group/ to the group}
		ok "$what: exit status $status" equals "$st" "$status"
		ok "$what: says so" has_match err.txt "interrupted by SIG$sig"
		ok "$what: no QEMU left" no_process "sleep $FAKE_QEMU_SLEEP"
		ok "$what: JUnit written and valid" xsd_valid i.xml
		ok "$what: junitparser reads it" junitparser_reads i.xml i.seen
		ok "$what: the finished test kept" has_match i.seen '^suite pass outcome=PASS tests=1 '
		ok "$what: the running test INTERRUPTED" \
			has_line i.seen "case hang/run error stopped by the runner on SIG$sig before it ended"
		ok "$what: the test not started is counted apart (NOTRUN, a JUnit skip)" \
			has_line i.seen "case later/run skipped not started: the run was interrupted by SIG$sig"
		prove --exec cat i.tap >prove.txt 2>&1
		ok "$what: TAP complete (prove: 3 points, 1 failed)" has_match prove.txt 'i.tap \(Wstat: 0 Tests: 3 Failed: 1\)'
		ok "$what: TAP marks them" has_line i.tap '  outcome: INTERRUPTED'
		ok "$what: counts" last_line_is out.txt "1 passed, 1 failed, 0 skipped"
		ok "$what: the tests never started said apart" has_line out.txt "not started: 1 (the run was interrupted before them)"
	done
	cd "$TOP" || return
}

# --- options, log directories, build layout: bad input is a message and exit 4 ------
options() {
	local d=$WORK/fake
	cd "$d" || return
	bad_option() { # description expected-message [env=value...] -- runner-args...
		local what=$1 msg=$2 envs=()
		rm -f "$d/opt-argv.txt"
		shift 2
		while [ "$1" != -- ]; do envs+=("$1") && shift; done
		shift
		env "${envs[@]}" UNITTESTS_CFG=t.cfg QEMU="$FAKE" FAKE_QEMU_ARGV="$d/opt-argv.txt" "$RUNNER" --build build "$@" >opt.txt 2>opt-err.txt
		ok "options: $what: exit 4" equals "$?" 4
		ok "options: $what: message" has_match opt-err.txt "$msg"
		ok "options: $what: nothing started" not_exists "$d/opt-argv.txt"
	}
	bad_option "unknown option" "unknown option '--frobnicate'" -- --frobnicate pass
	bad_option "-j 0" "-j wants a positive number, not '0'" -- -j 0 pass
	bad_option "-j x" "-j wants a positive number, not 'x'" -- -jx pass
	bad_option "-g without a value" "-g needs a value" -- pass -g
	bad_option "empty -g" "-g needs a value" -- -g '' pass
	bad_option "bad group name" "-g: 'a b' is not a group name" -- -g 'a b'
	bad_option "unknown arch" "--arch: unknown arch 'sparc'" -- --arch sparc pass
	bad_option "arm64 is aarch64" "configured for x86_64, not aarch64" -- --arch arm64 pass
	bad_option "--junit into a missing directory" "--junit $d/no/such/j.xml: cannot write there" -- --junit "$d/no/such/j.xml" pass
	bad_option "--tap-file a directory" "--tap-file $d: is a directory" -- --tap-file "$d" pass
	bad_option "bad ACCEL" "ACCEL must be kvm or tcg, not 'xen'" ACCEL=xen -- pass
	bad_option "bad TIMEOUT" "TIMEOUT must be a positive number of seconds, not '0'" TIMEOUT=0 -- pass
	bad_option "missing FIRMWARE file" "FIRMWARE must be qboot, default or a readable ROM file, not '/no/rom'" FIRMWARE=/no/rom -- pass
	: >afile
	bad_option "LOGDIR under a file" "cannot create the log directory $d/afile/logs" LOGDIR=afile/logs -- pass
	ok "options: LOGDIR error is the counts line" last_line_is opt.txt "0 passed, 1 failed, 0 skipped"
	"$TOP/scripts/mkstandalone.sh" --build >opt.txt 2>opt-err.txt
	ok "options: mkstandalone --build without a value: exit 4" equals "$?" 4
	ok "options: mkstandalone --build without a value: message" has_match opt-err.txt '^mkstandalone: --build needs a value'
	"$TOP/scripts/mkstandalone.sh" --bogus >opt.txt 2>opt-err.txt
	ok "options: mkstandalone unknown option: message" has_match opt-err.txt "^mkstandalone: unknown option '--bogus'"
	cd "$TOP" || return
}

# The one build layout: <source>/build/ARCH-CC, found by --arch (and its
# aliases) and, with no config.mak around, for the host's arch.
build_layout() {
	local d=$WORK/layout native sub=x86
	native=$(uname -m)
	[ "$native" != arm64 ] || native=aarch64
	[ "$native" != aarch64 ] || sub=arm
	mkdir -p "$d/tree" "$d/elsewhere"
	ln -s "$RUNNER" "$d/tree/run_tests.sh"
	ln -s "$TOP/scripts" "$d/tree/scripts"
	make_build "$d/tree/build/i386-gcc" i386
	make_build "$d/tree/build/aarch64-clang" aarch64
	make_build "$d/tree/build/$native-gcc" "$native"
	printf '%s\n' '[pass]' 'file = pass.flat' >"$d/l.cfg"
	cd "$d/elsewhere" || return
	ok "layout: --arch i386 finds build/i386-gcc" has_match <(UNITTESTS_CFG=$d/l.cfg "$d/tree/run_tests.sh" --arch i386 -l -v 2>&1) \
		"-kernel $d/tree/build/i386-gcc/x86/pass.flat"
	ok "layout: --arch i686 is i386" has_match <(UNITTESTS_CFG=$d/l.cfg "$d/tree/run_tests.sh" --arch i686 -l -v 2>&1) \
		"-kernel $d/tree/build/i386-gcc/x86/pass.flat"
	ok "layout: --arch arm64 finds build/aarch64-clang" has_match <(UNITTESTS_CFG=$d/l.cfg "$d/tree/run_tests.sh" --arch arm64 -l -v 2>&1) \
		"-kernel $d/tree/build/aarch64-clang/arm/pass.flat"
	ok "layout: no config.mak around: the host arch's build" has_match <(UNITTESTS_CFG=$d/l.cfg "$d/tree/run_tests.sh" -l -v 2>&1) \
		"-kernel $d/tree/build/$native-gcc/$sub/pass.flat"
	rm -rf "$d/tree/build/i386-gcc"
	UNITTESTS_CFG=$d/l.cfg "$d/tree/run_tests.sh" --arch i386 >out.txt 2>err.txt
	ok "layout: a missing build is exit 4" equals "$?" 4
	ok "layout: a missing build names where it looked" has_match err.txt "looked in: .*$d/tree/build/i386-gcc $d/tree/build/i386-clang"
	(cd "$d/tree" && UNITTESTS_CFG=$d/l.cfg ./run_tests.sh --arch i386 >/dev/null 2>"$d/err-top.txt")
	ok "layout: run from the top, each place it looked once" has_match "$d/err-top.txt" \
		"looked in: $d/tree $d/tree/build/i386-gcc $d/tree/build/i386-clang$"
	cd "$TOP" || return
}
