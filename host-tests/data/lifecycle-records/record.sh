#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Record the lifecycle runs host-tests/test_lifecycle_replay.c judges again
# (index.h lists them), after a change to what a lifecycle check prints.
#
#   host-tests/data/lifecycle-records/record.sh [FIXTURE...]
#
# Runs the lifecycle entries of unittests.cfg with record=always appended
# (and the faults' entries below) through ./run_tests.sh under TCG, at rest
# and beside two busy loops, on QEMU 7.2 and 10, under the timing lock
# (/tmp/vmtick-timing.lock), and copies each log to its fixture's name.
# Without FIXTURE, every one this script makes; tcg-idle-x86-migrate10-hpet-late.log
# is a run from before a rule changed and is never made again. Needs the
# x86_64-gcc and aarch64-gcc builds. Took 3 min 26 s here (2026-12-05). A clean fixture
# whose run failed, or a faulted one that passed, is reported and not kept.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
die() { echo "record.sh: $*" >&2; exit 2; }
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
	sed -n '3,15s/^# \{0,1\}//p' "$0"
	exit 0
fi

# fixture: load qemu build entry want (pass: no FAIL line; fail: one at least)
FIXTURES="
tcg-idle-x86-pause.log rest 7.2 x86_64-gcc lifecycle-pause pass
tcg-idle-x86-save.log rest 7.2 x86_64-gcc lifecycle-save pass
tcg-idle-x86-migrate10.log rest 7.2 x86_64-gcc lifecycle-migrate pass
tcg-busy-x86-pause.log busy 7.2 x86_64-gcc lifecycle-pause pass
tcg-busy-x86-save.log busy 7.2 x86_64-gcc lifecycle-save pass
tcg-busy-x86-migrate10.log busy 7.2 x86_64-gcc lifecycle-migrate pass
q10-idle-x86-migrate10.log rest 10 x86_64-gcc lifecycle-migrate pass
tcg-idle-x86-save-fault-jump.log rest 7.2 x86_64-gcc lifecycle-save-fault-jump fail
q10-idle-x86-pause-fault-rate5.log rest 10 x86_64-gcc lifecycle-pause-fault-rate5 fail
tcg-idle-arm-pause.log rest 7.2 aarch64-gcc arm-lifecycle-pause pass
tcg-idle-arm-save.log rest 7.2 aarch64-gcc arm-lifecycle-save pass
tcg-idle-arm-migrate10.log rest 7.2 aarch64-gcc arm-lifecycle-migrate pass
tcg-busy-arm-pause.log busy 7.2 aarch64-gcc arm-lifecycle-pause pass
tcg-busy-arm-migrate10.log busy 7.2 aarch64-gcc arm-lifecycle-migrate pass
q10-idle-arm-pause.log rest 10 aarch64-gcc arm-lifecycle-pause fail
q10-idle-arm-migrate10.log rest 10 aarch64-gcc arm-lifecycle-migrate fail
tcg-idle-arm-migrate10-fault-run-twice.log rest 7.2 aarch64-gcc arm-lifecycle-migrate-fault-run-twice fail
"

# The faults' entries: each an entry of unittests.cfg with fault= added.
FAULTS="
lifecycle-save-fault-jump lifecycle-save fault=jump
lifecycle-pause-fault-rate5 lifecycle-pause fault=rate5
arm-lifecycle-migrate-fault-run-twice arm-lifecycle-migrate fault=run_twice
"

wanted() { # fixture: whether it was asked for
	[ -z "$SELECTED" ] && return 0
	case " $SELECTED " in *" $1 "*) return 0 ;; esac
	return 1
}

# The scratch cfg: every entry the fixtures name, record=always appended to its test_args.
write_cfg() { # out
	local name base fault
	awk '/^\[/ { keep = ($0 ~ /^\[(arm-)?lifecycle-(pause|save|migrate)\]$/) } keep' \
		"$top/unittests.cfg" | sed -E 's/^(test_args = .*)$/\1 record=always/' >"$1"
	while read -r name base fault; do
		[ -n "$name" ] || continue
		awk -v want="[$base]" -v name="[$name]" -v fault="$fault" '
			/^\[/ { keep = ($0 == want); if (keep) { print ""; print name; next } }
			keep && /^test_args = / { print $0 " " fault " record=always"; next }
			keep' "$top/unittests.cfg" >>"$1"
	done <<<"$FAULTS"
}

busy_pids=()
start_busy() { for _ in 1 2; do (while :; do :; done) & busy_pids+=($!); done; }
stop_busy() { [ ${#busy_pids[@]} -eq 0 ] || kill "${busy_pids[@]}" 2>/dev/null || true; busy_pids=(); }
trap stop_busy EXIT

# run load qemu build entry: the entry's log, in $work/LOAD-QEMU-BUILD/
run_entry() {
	local dir="$work/$1-$2-$3"
	[ -f "$dir/$4.log" ] && return 0
	[ "$1" = busy ] && start_busy
	(cd "$top/build/$3" && UNITTESTS_CFG="$work/unittests.cfg" LOGDIR="$dir" ACCEL=tcg \
		"$top/run_tests.sh" --qemu "$2" "$4" | grep -v '^vmtick') || true
	stop_busy
}

SELECTED="$*"
for b in x86_64-gcc aarch64-gcc; do
	[ -f "$top/build/$b/config.mak" ] || die "no build in build/$b (configure and build it first)"
done
for f in $SELECTED; do
	grep -q "^$f " <<<"$FIXTURES" || die "$f: not a fixture this script makes (see FIXTURES in $0)"
done
work=$(mktemp -d /tmp/vmtick-lc-records.XXXXXX)
write_cfg "$work/unittests.cfg"
status=0
exec 9>/tmp/vmtick-timing.lock
flock 9
while read -r fixture load qemu build entry want; do
	if [ -z "$fixture" ] || ! wanted "$fixture"; then continue; fi
	run_entry "$load" "$qemu" "$build" "$entry"
	log="$work/$load-$qemu-$build/$entry.log"
	if ! grep -q 'LC-RECORD: end' "$log" 2>/dev/null; then
		echo "record.sh: $fixture: no record in $log" >&2
		status=1
		continue
	fi
	if { [ "$want" = pass ] && grep -q '^FAIL: ' "$log"; } ||
		{ [ "$want" = fail ] && ! grep -q '^FAIL: ' "$log"; }; then
		echo "record.sh: $fixture: want $want, the run did not ($log): not kept" >&2
		status=1
		continue
	fi
	cp "$log" "$here/$fixture"
	echo "recorded $fixture"
done <<<"$FIXTURES"
echo "logs in $work"
exit "$status"
