# SPDX-License-Identifier: GPL-2.0-only
# The runner's replay bundles (scripts/replay.bash): a FAIL under TCG -icount recorded again and replayed byte for byte; sourced by run.sh.
# shellcheck shell=bash

# replay.sh's status was want and its output matches the regex.
replay_said() { # status want output-file regex
	[ "$1" = "$2" ] && grep -qE -- "$4" "$3"
}

# The lines a replay must print again byte for byte: the checks and the verdict.
replay_check_lines() { grep -aE '^(PASS|FAIL|KFAIL|SKIP|BOUND|SUMMARY): ' "$1"; }

# The replay command of a bundle's commands.txt, run by hand in the bundle
# (under a timeout), its console to out.
replay_by_hand() { # bundle out
	local line
	line=$(grep -v '^#' "$1/commands.txt" | sed -n 2p)
	(cd "$1" && eval "exec timeout --kill-after=5 60 $line" </dev/null >"$2" 2>"$2.err")
}

# With the fake QEMU: what a bundle holds and how the runner words it, and a
# FAIL that cannot be replayed saying why.
replay_fake() {
	local d=$WORK/replay-fake st
	make_build "$d/build" x86_64
	# the fake QEMU with a record: a made-up rrfile where -icount asks for one
	# shellcheck disable=SC2016 # the wrapper's own variables
	printf '%s\n' '#!/usr/bin/env bash' \
		'for a; do case $a in *,rr=record,rrfile=*) echo fake >"${a##*rrfile=}" ;; esac; done' \
		"exec $FAKE \"\$@\"" >"$d/rr-qemu"
	chmod +x "$d/rr-qemu"
	printf '%s\n' '[rr]' 'file = fail.flat' 'qemu_params = -icount shift=7,sleep=off' \
		'[plain]' 'file = fail.flat' >"$d/t.cfg"
	cd "$d" || return
	ACCEL=tcg UNITTESTS_CFG=t.cfg QEMU=$d/rr-qemu "$RUNNER" --build build >out.txt 2>&1
	st=$?
	ok "replay fake: both FAIL (exit 1)" equals "$st" 1
	ok "replay fake: the FAIL under -icount names its bundle" has_match out.txt '^FAIL +rr .*\(replay bundle: rr\.replay/\)$'
	ok "replay fake: ... whose record leaves the testdev out and runs the kernel by a relative path" \
		has_match logs/rr.replay/commands.txt "^$d/rr-qemu -machine pc .*-nodefaults -no-reboot -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=4 .*-kernel fail.flat .*-icount shift=7,sleep=off,rr=record,rrfile=record.bin$"
	ok "replay fake: ... and the replay the same with rr=replay" \
		has_match logs/rr.replay/commands.txt "^$d/rr-qemu .*-kernel fail.flat .*-icount shift=7,sleep=off,rr=replay,rrfile=record.bin$"
	ok "replay fake: ... the kernel copied beside them" cmp -s build/x86/fail.flat logs/rr.replay/fail.flat
	ok "replay fake: the log says the bundle replayed once" has_match logs/rr.log \
		'^runner: replay bundle rr\.replay/ \([0-9]+ KiB, [0-9]+\.[0-9]{2} s to record and replay\): the run recorded again \(QEMU status 3, SUMMARY: 2 tests, 1 unexpected failures, 0 skipped\), replayed once: replay: PASS: console byte for byte as recorded \(4 lines, 4 PASS/FAIL/SKIP/KFAIL/BOUND/SUMMARY lines\), QEMU status 3 \(the record.s\)$'
	ok "replay fake: a FAIL without -icount has no bundle, and its log says why" has_line logs/plain.log \
		"runner: no replay bundle: it ran without -icount (guest time followed the host's): QEMU records and replays runs under -icount only"
	ok "replay fake: ... and none is made" not_exists logs/plain.replay
	# a QEMU that writes no record: the bundle is kept, and said to be incomplete
	ACCEL=tcg UNITTESTS_CFG=t.cfg QEMU=$FAKE "$RUNNER" --build build rr >out.txt 2>&1
	ok "replay fake: a record run that wrote no record is named incomplete" has_line logs/rr.log \
		"runner: replay bundle rr.replay/ incomplete: the record run (QEMU status 3) wrote no record.bin"
	ok "replay fake: ... and the last run's bundle was moved to logs.old/ with its logs" \
		test -x logs.old/rr.replay/replay.sh -a -f logs.old/rr.log
	cd "$TOP" || return
}

# Real QEMUs: timer-pit made to FAIL under -icount leaves a bundle whose
# replay prints its check lines again byte for byte and exits 0, moved
# elsewhere and run again (three times: on QEMU 9.1 and later a replay's
# status is a race, which replay.sh must accept); a bundle's damage is caught;
# a PASS has a bundle only with --replay-bundle.
# (--only real_replay: the build RUNNER_TEST_BUILD names, else the source tree)
real_replay() { # [build]
	local q10 build=${1:-${RUNNER_TEST_BUILD:-$TOP}}
	if [ ! -r "$build/x86/timer-tick.flat" ]; then
		echo "# real replay: skipped (no x86/timer-tick.flat in $build)"
		return
	fi
	real_replay_one "$build" 7.2 ""
	if q10=$(SRCDIR=$TOP bash -c '. "$SRCDIR/scripts/arch.bash"; . "$SRCDIR/scripts/qemu.bash"; qemu_pick 10 x86_64 && echo "$QEMU_PICKED"'); then
		real_replay_one "$build" 10 "$q10"
	else
		echo "# real replay: no QEMU 10 here (scripts/install-deps.sh installs it): checked on the system's QEMU only"
	fi
}

real_replay_one() { # build label qemu-binary (empty: the system's)
	local d=$WORK/replay-$2 st i l=$2
	mkdir -p "$d" && cd "$d" || return
	ACCEL=tcg QEMU=$3 UNITTESTS_CFG=$HERE/replay.cfg "$RUNNER" --build "$1" >out.txt 2>&1
	st=$?
	ok "replay $l: rr-fail FAILs, rr-pass passes (exit 1)" equals "$st:$(tail -n 1 out.txt)" "1:1 passed, 1 failed, 0 skipped"
	ok "replay $l: the FAIL line names its bundle" has_match out.txt '^FAIL +rr-fail .*\(replay bundle: rr-fail\.replay/\)$'
	ok "replay $l: the log: recorded again without the agent, FAILing again, replayed once" has_match logs/rr-fail.log \
		'^runner: replay bundle rr-fail\.replay/ \([0-9]+ KiB, [0-9]+\.[0-9]{2} s to record and replay\): the run recorded again without the host-evidence agent \(QEMU status 3, SUMMARY: [0-9]+ tests, [1-9][0-9]* unexpected failures, [0-9]+ skipped\), replayed once: replay: PASS: console byte for byte as recorded '
	ok "replay $l: no bundle for the PASS" not_exists logs/rr-pass.replay
	# freq5 fails the checks against the reference clock alone, which the tick record cannot replay
	ok "replay $l: ... and the FAIL printed no tick record (its failed checks are not the record's)" \
		not grep -q '^TICK-RECORD: ' logs/rr-fail.log
	mv logs/rr-fail.replay moved
	for i in 1 2 3; do
		moved/replay.sh >"r$i.txt" 2>&1
		ok "replay $l: the bundle moved elsewhere replays (run $i): exit 0" \
			replay_said "$?" 0 "r$i.txt" '^replay: PASS: console byte for byte as recorded \(49 lines, 13 PASS/FAIL/SKIP/KFAIL/BOUND/SUMMARY lines\), QEMU status (3|0)'
	done
	replay_by_hand moved "$d/byhand.txt"
	ok "replay $l: commands.txt's replay command by hand prints the check lines byte for byte" \
		cmp -s <(replay_check_lines moved/console.txt) <(replay_check_lines byhand.txt)
	ok "replay $l: ... a FAIL among them" has_match moved/console.txt '^FAIL: pit: the counter runs at '
	# damage: every check of replay.sh seen failing
	cp -r moved f1 && sed -i '3s/^/x/' f1/console.txt
	f1/replay.sh >f1.txt 2>&1
	ok "replay $l: a console not the record's: exit 1 naming the line" \
		replay_said "$?" 1 f1.txt '^replay: FAIL: the console differs from the record.s: line 3: recorded "xINFO: '
	# (from QEMU 9.1 a replay's 0 is allowed whatever the record's status: not here)
	cp -r moved f2 && echo 99 >f2/record-status && sed -i 's/^accept_zero=yes$/accept_zero=no/' f2/replay.sh
	f2/replay.sh >f2.txt 2>&1
	ok "replay $l: a status the record does not allow: exit 1" \
		replay_said "$?" 1 f2.txt "^replay: FAIL: QEMU's status [0-9]+ is not the record's 99\$"
	cp -r moved f3 && head -c 20000 moved/record.bin >f3/record.bin
	f3/replay.sh >f3.txt 2>&1
	ok "replay $l: a record cut short: exit 1 with QEMU's words" \
		replay_said "$?" 1 f3.txt '^replay: FAIL: the console differs from the record.s: the replay stopped before line [0-9]+: .*; QEMU said: '
	rm f3/record.bin
	f3/replay.sh >f3.txt 2>&1
	ok "replay $l: no record: exit 2 naming it" equals "$?:$(cat f3.txt)" "2:replay.sh: the bundle lacks record.bin (in $d/f3)"
	if [ "$l" = 10 ]; then
		ACCEL=tcg QEMU=$3 UNITTESTS_CFG=$HERE/replay.cfg "$RUNNER" --build "$1" --replay-bundle rr-pass >out.txt 2>&1
		ok "replay $l: --replay-bundle: a PASS has a bundle too, which replays" has_match logs/rr-pass.log \
			'^runner: replay bundle rr-pass\.replay/ .*SUMMARY: [0-9]+ tests, 0 unexpected failures, [0-9]+ skipped\), replayed once: replay: PASS: '
	fi
	cd "$TOP" || return
}
