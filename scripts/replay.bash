# SPDX-License-Identifier: GPL-2.0-only
# A FAIL that replays: a TCG -icount entry run once more under QEMU's record/replay, kept as a bundle in the logs (docs/runner.md, "Replay bundles").
# shellcheck shell=bash

# What a bundle (LOGDIR/NAME.replay/) holds, and why it is cut this way:
#   KERNEL.flat    the kernel, run from the bundle by a relative path: an x86
#                  kernel boots by multiboot, whose command line QEMU writes
#                  into guest memory as "PATH ARGS", so the record and every
#                  replay must name it alike wherever the bundle is moved
#   record.bin     QEMU's log (-icount ...,rr=record,rrfile=record.bin)
#   console.txt    the record run's console, which a replay must print again
#                  byte for byte; record-status: QEMU's exit status then
#   commands.txt   the exact commands that recorded and that replay, run in
#                  the bundle's folder
#   replay.sh      replays it (under a timeout) and judges: console byte for
#                  byte, QEMU's status one of those the record allows
# The record differs from the entry's run in two ways, each for a reason:
#   - no testdev chardev: the guest writes "<code>q" to COM2, where testdev
#     ends QEMU by exit() inside the character write, before record saves
#     that write; replay then finds the log's end there and fails (QEMU
#     7.2: "Missing character write event in the replay log", status 1;
#     9.0 and later abort in replay_event_name(): qemu-replay-end). Without
#     COM2 the guest's next way out, isa-debug-exit, ends the run: QEMU
#     7.2 to 9.0 exit() there in the record and in the replay alike, 9.1
#     and later record its shutdown request and replay it.
#   - no host-evidence agent (and no fw_cfg flag offering it): under
#     rr=record with sleep=off QEMU queues the console's input as an
#     asynchronous event and hands queued events to the guest only in
#     icount_account_warp_timer(), which returns first when sleep is off:
#     the agent's answer never arrives (seen on 7.2.22 and 10.0.2: "the
#     host's agent did not answer in time"). The guest, told of no agent,
#     judges without the host's evidence, as a run by hand does; a verdict
#     that needed that evidence may then differ from the entry's (the
#     bundle's log line gives the record's SUMMARY).
REPLAY_FORCE=0
REPLAY_SUFFIX=.replay
REPLAY_RRFILE=record.bin
# The QEMU release from which isa-debug-exit requests a (recorded) shutdown
# instead of calling exit(): from it on a replay's status is the record's
# or 0 (replay.sh says why).
REPLAY_SHUTDOWN_QEMU=9.1

replay_force() { REPLAY_FORCE=$1; }

# Whether a folder of the log directory is a replay bundle (main_logs moves
# them to logs.old/ with the run's files): its name and its commands.txt,
# written before anything else is run.
replay_is_bundle() { # dir
	[[ $1 == *"$REPLAY_SUFFIX" ]] && [ -f "$1/commands.txt" ]
}

# Why the entry's run, as RUN_CMD and PREP_* give it, can have no bundle,
# into REPLAY_WHY_NOT (empty: it can).
replay_why_not() { # test
	local events
	REPLAY_WHY_NOT=""
	cfg_value_into events "$1" events
	if [ "$PREP_ACCEL" != tcg ]; then
		REPLAY_WHY_NOT="it ran under $PREP_ACCEL: QEMU records and replays TCG runs with -icount only"
	elif [[ " ${ARCH_CMD[*]} " != *' -icount '* ]]; then
		REPLAY_WHY_NOT="it ran without -icount (guest time followed the host's): QEMU records and replays runs under -icount only"
	elif [[ " ${ARCH_CMD[*]} " == *',rr='* ]]; then
		REPLAY_WHY_NOT="its own -icount already names rr="
	elif [ "$RUN_ARCH" = aarch64 ]; then
		REPLAY_WHY_NOT="aarch64 guests end QEMU through the testdev chardev, whose last write a record never holds (docs/upstream/qemu-replay-end.md); a record without it is not built for arm64 yet"
	elif [ -n "$events" ]; then
		REPLAY_WHY_NOT="its host events (QMP stop, save, migration: events = $events) are outside what QEMU's record/replay replays"
	fi
}

# The entry's QEMU command (ARCH_CMD, without the host-evidence agent) as
# the bundle records it, into REPLAY_CMD: the testdev chardev left out, the
# kernel by the relative path kname, -icount's argument with rr=MODE.
replay_cmd() { # mode kname
	local i n=${#ARCH_CMD[@]} w
	REPLAY_CMD=()
	for ((i = 0; i < n; i++)); do
		w=${ARCH_CMD[i]}
		if [[ $w == -chardev && ${ARCH_CMD[i + 1]:-} == testdev,* ]] ||
			[[ $w == -serial && ${ARCH_CMD[i + 1]:-} == chardev:ctd ]]; then
			i=$((i + 1))
			continue
		fi
		REPLAY_CMD+=("$w")
		((i + 1 < n)) || continue
		case $w in
		-kernel) REPLAY_CMD+=("$2") && i=$((i + 1)) ;;
		-icount) REPLAY_CMD+=("${ARCH_CMD[i + 1]},rr=$1,rrfile=$REPLAY_RRFILE") && i=$((i + 1)) ;;
		esac
	done
}

# Run words in folder dir under the timeout, as run_attempt runs QEMU
# (timeout leads a process group that the job's TERM trap stops): stdout
# and stderr to the files named (one file for both when they are the same);
# its status into REPLAY_STATUS.
replay_run() { # dir out err timeout words...
	local dir=$1 out=$2 err=$3 tmo=$4
	shift 4
	(
		cd -- "$dir" || exit
		# the same file for both: the one stream, in order
		exec >"$out"
		if [ "$err" = "$out" ]; then exec 2>&1; else exec 2>"$err"; fi
		exec timeout --kill-after="$RUN_KILL_AFTER" "$tmo" "$@" </dev/null
	) {RUN_LOCK_FD}>&- &
	RUN_TPID=$!
	echo "$RUN_TPID" >"$RUN_TMP/$T_REPLAY.pgid"
	wait "$RUN_TPID" 2>/dev/null
	REPLAY_STATUS=$?
	RUN_TPID=""
	rm -f "$RUN_TMP/$T_REPLAY.pgid"
}

# After the last attempt: a FAIL (any outcome with --replay-bundle) of an
# entry that can be replayed is recorded once more and kept as a bundle, and
# its replay run once to check it; the log says which, or why there is none.
replay_after_run() { # test log timeout
	local t=$1 log=$2
	[ "$RUN_OUTCOME" = FAIL ] || [ "$REPLAY_FORCE" = 1 ] || return 0
	replay_why_not "$t"
	if [ -n "$REPLAY_WHY_NOT" ]; then
		echo "runner: no replay bundle: $REPLAY_WHY_NOT" >>"$log"
		return 0
	fi
	replay_bundle "$t" "$log" "$3"
}

replay_bundle() { # test log timeout
	local t=$1 log=$2 tmo=$3 dir kname why summary size check recorded agent="" evidence t0 t1 secs
	T_REPLAY=$t dir=$LOGDIR/$t$REPLAY_SUFFIX kname=${PREP_KERNEL##*/}
	rm -rf -- "$dir"
	if ! why=$(mkdir -- "$dir" 2>&1 && cp -- "$PREP_KERNEL" "$dir/$kname" 2>&1); then
		echo "runner: no replay bundle: cannot make $dir: ${why##*: }" >>"$log"
		return 0
	fi
	replay_cmd record "$kname"
	local -a record=("${REPLAY_CMD[@]}")
	replay_cmd replay "$kname"
	replay_write "$dir" "$tmo" "${record[@]}"
	flock -s "$RUN_LOCK_FD"
	run_usec_into t0
	replay_run "$dir" console.txt record-stderr.txt "$tmo" "${record[@]}"
	recorded=$REPLAY_STATUS
	echo "$recorded" >"$dir/record-status"
	[ -s "$dir/record-stderr.txt" ] || rm -f -- "$dir/record-stderr.txt"
	summary=$(grep -a -m 1 '^SUMMARY: ' "$dir/console.txt" | tr -d '\r')
	if [ ! -s "$dir/$REPLAY_RRFILE" ]; then
		flock -u "$RUN_LOCK_FD"
		why=$(run_qemu_message "$dir/record-stderr.txt" 2>/dev/null)
		echo "runner: replay bundle $t$REPLAY_SUFFIX/ incomplete: the record run (QEMU status $recorded) wrote no $REPLAY_RRFILE${why:+: $why}" >>"$log"
		return 0
	fi
	replay_run "$dir" replay-check.txt replay-check.txt $((${tmo%.*} + RUN_KILL_AFTER + 5)) ./replay.sh
	flock -u "$RUN_LOCK_FD"
	run_usec_into t1
	t1=$((t1 - t0))
	printf -v secs '%d.%02d' $((t1 / USEC_PER_SEC)) $((t1 % USEC_PER_SEC * 100 / USEC_PER_SEC))
	check=$(tail -n 1 "$dir/replay-check.txt")
	size=$(du -sk -- "$dir" | cut -f1)
	cfg_value_into evidence "$t" evidence
	# docs/runner.md, "Replay bundles": QEMU never hands the agent's answers to a recording guest
	[ -z "$evidence" ] || agent=" without the host-evidence agent"
	echo "runner: replay bundle $t$REPLAY_SUFFIX/ ($size KiB, $secs s to record and replay): the run recorded again$agent (QEMU status $recorded, ${summary:-no SUMMARY line}), replayed once: ${check:-replay.sh said nothing (status $REPLAY_STATUS)}" >>"$log"
	RUN_MSG+=" (replay bundle: $t$REPLAY_SUFFIX/)"
}

# commands.txt and replay.sh, for the record command given (REPLAY_CMD the replay's).
replay_write() { # dir timeout record-words...
	local dir=$1 tmo=$2 line w accept=""
	shift 2
	arch_quote_into line "$@"
	printf '# run in this folder; the record (already made: record.bin, console.txt):\n%s\n' "$line" >"$dir/commands.txt"
	arch_quote_into line "${REPLAY_CMD[@]}"
	printf '# the replay (replay.sh runs it and judges it):\n%s\n' "$line" >>"$dir/commands.txt"
	accept=no
	if qemu_version_ge "$PREP_QEMU_VERSION" "$REPLAY_SHUTDOWN_QEMU" 2>/dev/null; then accept=yes; fi
	{
		echo '#!/usr/bin/env bash'
		echo "# Replays vmtick's recorded run of '$T_REPLAY' (QEMU $PREP_QEMU_VERSION) and judges it; docs/runner.md, \"Replay bundles\"."
		replay_script_body
		# shellcheck disable=SC2016 # the script's own variable, expanded when it runs
		printf 'qemu_version=%s\naccept_zero=%s\ntmo=${REPLAY_TIMEOUT:-%s}\n# shellcheck disable=SC2054 # commas inside QEMU options\ncmd=(' "$PREP_QEMU_VERSION" "$accept" "$tmo"
		for w in "${REPLAY_CMD[@]}"; do
			arch_quote_into line "$w"
			printf ' %s' "$line"
		done
		printf ' )\nreplay_main "$@"\n'
	} >"$dir/replay.sh"
	chmod +x "$dir/replay.sh"
}

# The replay script's code, the same in every bundle; its data follows it.
replay_script_body() {
	cat <<'BODY'
#
# Usage: ./replay.sh (no arguments; REPLAY_TIMEOUT=SECONDS, REPLAY_QEMU=BINARY
# to replay with another build of the same QEMU). Runs the replay command of
# commands.txt in this folder under a timeout and compares its console with
# the record's (console.txt) byte for byte. Exit status: 0 the replay printed
# the record's console and QEMU ended as the record allows; 1 it did not (the
# last line says how); 2 the bundle or the command line is wrong.
#
# QEMU's status: the record's (record-status) always. On QEMU 9.1 and later 0
# too: there isa-debug-exit's write sets the exit code and asks for a
# shutdown, which record logs as an event (replay_shutdown_request()) before
# it logs the instructions of that write's block. A replay meets the event
# first and asks for the shutdown itself, without a code; whether the vCPU
# thread then carries out the guest's write (the record's status) or the main
# loop ends QEMU first (0) is a race between two threads. The console is
# complete either way: every character the guest wrote is an event before it.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
qpid=""
trap 'if [ -n "$qpid" ]; then kill -TERM "$qpid" 2>/dev/null; fi; exit 143' TERM INT

replay_fail() { echo "replay: FAIL: $*"; exit 1; }

# The first line where two consoles differ, said in words.
replay_first_difference() { # record replay
	awk -v r="$1" -v p="$2" 'BEGIN {
		for (n = 1; ; n++) {
			a = getline x < r; b = getline y < p
			if (a <= 0 && b <= 0) exit
			if (a <= 0) { printf "the replay printed more, line %d: %s\n", n, y; exit }
			if (b <= 0) { printf "the replay stopped before line %d: %s\n", n, x; exit }
			if (x != y) { printf "line %d: recorded \"%s\", replayed \"%s\"\n", n, x, y; exit }
		}
	}' | tr -d '\r'
}

replay_main() {
	local tmp st want checks why diff
	[ $# -eq 0 ] || { echo "replay.sh: takes no arguments (REPLAY_TIMEOUT=, REPLAY_QEMU= in the environment)" >&2; exit 2; }
	for f in record.bin console.txt record-status; do
		[ -r "$here/$f" ] || { echo "replay.sh: the bundle lacks $f (in $here)" >&2; exit 2; }
	done
	[[ $tmo =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "replay.sh: REPLAY_TIMEOUT must be seconds, not '$tmo'" >&2; exit 2; }
	if [ -n "${REPLAY_QEMU:-}" ]; then cmd[0]=$REPLAY_QEMU; fi
	command -v "${cmd[0]}" >/dev/null || { echo "replay.sh: no QEMU '${cmd[0]}' here (QEMU $qemu_version recorded it; REPLAY_QEMU= names another)" >&2; exit 2; }
	want=$(<"$here/record-status")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmtick-replay.XXXXXX") || exit 2
	cd "$here" || exit 2
	timeout --kill-after=5 "$tmo" "${cmd[@]}" </dev/null >"$tmp/console.txt" 2>"$tmp/stderr.txt" &
	qpid=$!
	wait "$qpid"
	st=$?
	qpid=""
	why=$(grep -av 'warning:' "$tmp/stderr.txt" | head -n 3 | paste -sd ' ')
	diff=""
	cmp -s console.txt "$tmp/console.txt" || diff=$(replay_first_difference console.txt "$tmp/console.txt")
	checks=$(grep -acE '^(PASS|FAIL|SKIP|KFAIL|BOUND|SUMMARY): ' console.txt)
	rm -rf -- "$tmp"
	if [ "$st" = 124 ] || [ "$st" = 137 ]; then
		if [ -n "$diff" ]; then diff="the console differs from the record's: $diff"; else diff="it printed the whole console"; fi
		replay_fail "QEMU did not end within $tmo s (status $st); $diff"
	elif [ -n "$diff" ]; then
		replay_fail "the console differs from the record's: $diff${why:+; QEMU said: $why} (QEMU status $st)"
	elif [ -n "$why" ]; then
		replay_fail "QEMU said: $why (status $st)"
	elif [ "$st" != "$want" ] && { [ "$accept_zero" != yes ] || [ "$st" != 0 ]; }; then
		if [ "$accept_zero" = yes ]; then want+=" nor 0"; fi
		replay_fail "QEMU's status $st is not the record's $want"
	fi
	if [ "$st" = "$want" ]; then want="the record's"; else want="not the record's $want but 0: the replayed shutdown came first"; fi
	echo "replay: PASS: console byte for byte as recorded ($(wc -l <console.txt) lines, $checks PASS/FAIL/SKIP/KFAIL/BOUND/SUMMARY lines), QEMU status $st ($want)"
}

BODY
}
