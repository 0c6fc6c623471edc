#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Stress: the timer group (or other groups, or the default suite), run N times beside M busy loops, per build; pass/fail per entry, worst unexplained loss and lateness.
#
# Usage: scripts/timer-stress.sh [-n RUNS] [-m BUSY] [-g GROUP]... [-s] [BUILD_DIR...]
#   -n RUNS   runs per build (default 10)
#   -m BUSY   busy loops (shell `while :; do :; done`) beside each run (default 2; 0: an idle host)
#   -g GROUP  run this group instead of timer (repeatable: -g timer -g lifecycle)
#   -s        run the whole default suite instead
#   BUILD_DIR configured builds (default: build/*-gcc and build/*-clang, one per arch)
# The runner's environment applies: ACCEL=tcg runs every entry under TCG, and
# scripts/without-kvm scripts/timer-stress.sh ... as a host without KVM would.
#
# The busy loops start before each run and are killed (by their PID) after
# it, whatever way the script ends. Per entry it prints how many runs ended
# PASS, FAIL and SKIP, how many of them the runner ran more than once (a
# FAIL while the host held QEMU back, docs/runner.md "A busy host"; the
# worst figures are the last attempts'), and the worst lost_unexplained (ticks) and
# late_unexplained_max (us) of its RESULT lines: what steal time did not
# explain (docs/timers.md). Run it alone on the machine, under the timing
# lock if others share it: it is the load. Exit status 0 when no run of any
# entry failed, 1 otherwise, 2 for bad usage or a run that ran nothing.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/arch.bash
. "$top/scripts/arch.bash"
# shellcheck source=scripts/units.bash
. "$top/scripts/units.bash"
runs=10
busy=2
groups=()
suite=0

usage() {
	echo "usage: scripts/timer-stress.sh [-n RUNS] [-m BUSY] [-g GROUP]... [-s] [BUILD_DIR...]" >&2
	exit 2
}

while getopts n:m:g:sh opt; do
	case $opt in
	n) [[ $OPTARG =~ ^[1-9][0-9]*$ ]] || { echo "timer-stress: -n wants a positive number, not '$OPTARG'" >&2; exit 2; }
	   runs=$OPTARG ;;
	m) [[ $OPTARG =~ ^[0-9]+$ ]] || { echo "timer-stress: -m wants a number, not '$OPTARG'" >&2; exit 2; }
	   busy=$OPTARG ;;
	g) [[ $OPTARG =~ ^[A-Za-z0-9_.+-]+$ ]] || { echo "timer-stress: -g wants a group name, not '$OPTARG'" >&2; exit 2; }
	   groups+=(-g "$OPTARG") ;;
	s) suite=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if ((suite)) && ((${#groups[@]})); then
	echo "timer-stress: -s (the default suite) and -g GROUP exclude each other" >&2
	exit 2
fi
if ((!suite)) && ((${#groups[@]} == 0)); then groups=(-g timer); fi
what="the ${groups[*]:-default suite}"

builds=("$@")
if [ "${#builds[@]}" -eq 0 ]; then
	declare -A seen=()
	for d in "$top"/build/*-gcc "$top"/build/*-clang; do
		[ -f "$d/config.mak" ] || continue
		a=$(arch_config_value "$d" ARCH)
		[ -n "${seen[$a]:-}" ] && continue
		seen[$a]=1
		builds+=("$d")
	done
fi
[ "${#builds[@]}" -gt 0 ] || { echo "timer-stress: no configured build found" >&2; exit 2; }
for d in "${builds[@]}"; do
	[ -f "$d/config.mak" ] || { echo "timer-stress: '$d' is not a configured build (no config.mak)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/timer-stress.XXXXXX)
pids=()
stop_busy() {
	[ "${#pids[@]}" -gt 0 ] && kill "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
	pids=()
}
trap 'stop_busy; exit 130' INT TERM HUP
trap 'stop_busy' EXIT

start_busy() {
	for ((i = 0; i < busy; i++)); do
		(while :; do :; done) &
		pids+=($!)
	done
}

# One run of the groups: outcome lines to $1/outcomes, RESULT lines in $1/results.txt.
run_once() {
	local build=$1 out=$2

	mkdir -p "$out"
	start_busy
	LOGDIR=$out NO_COLOR=1 "$top/run_tests.sh" --build "$build" "${groups[@]}" >"$out/outcomes" 2>&1
	stop_busy
}

status=0
for build in "${builds[@]}"; do
	name=$(basename "$build")
	for ((r = 1; r <= runs; r++)); do
		run_once "$build" "$work/$name/$r"
	done
	echo "# $name: $runs run(s) of $what beside $busy busy loop(s)${ACCEL:+, ACCEL=$ACCEL}"
	# outcome lines: "PASS    entry (1.2 s) ..."; RESULT lines: "entry name value unit"
	cat "$work/$name"/*/outcomes | awk '
		$1 ~ /^(PASS|FAIL|SKIP|KFAIL|TIMEOUT|CRASH|ERROR)$/ { n[$2 " " $1]++; e[$2] = 1 }
		$1 ~ /^(PASS|FAIL)$/ && / \(attempt [2-9] of / { n[$2 " again"]++ }
		END { for (k in e) printf "%s %d %d %d %d\n", k, n[k " PASS"] + n[k " KFAIL"], n[k " FAIL"] + n[k " TIMEOUT"] + n[k " CRASH"] + n[k " ERROR"], n[k " SKIP"], n[k " again"] }' |
		sort >"$work/$name.counts"
	cat "$work/$name"/*/results.txt 2>/dev/null | awk -v ns_per_us="$NSEC_PER_USEC" '
		$2 ~ /\.lost_unexplained$/ { if ($3 + 0 > lost[$1]) lost[$1] = $3 + 0; seen[$1] = 1 }
		$2 ~ /\.late_unexplained_max$/ { if ($3 / ns_per_us > late[$1]) late[$1] = $3 / ns_per_us; seen[$1] = 1 }
		END { for (k in seen) printf "%s %d %d\n", k, lost[k], late[k] }' |
		sort >"$work/$name.worst"
	if [ ! -s "$work/$name.counts" ]; then
		# nothing selected is an error, never an empty table that reads as a pass
		echo "timer-stress: $name: the runner ran no entry of $what; it said:" >&2
		sed 's/^/  /' "$work/$name/1/outcomes" >&2
		status=2
		continue
	fi
	printf '%-30s %5s %5s %5s %7s %14s %14s\n' entry pass fail skip retried "worst lost" "worst late us"
	join -a 1 "$work/$name.counts" "$work/$name.worst" | while read -r e p f s a l t; do
		printf '%-30s %5d %5d %5d %7d %14s %14s\n' "$e" "$p" "$f" "$s" "$a" "${l:--}" "${t:--}"
	done
	if grep -q . <(awk '$3 > 0' "$work/$name.counts"); then
		status=1
		echo "# FAILs: see the logs under $work/$name/RUN/"
		grep -h '^FAIL' "$work/$name"/*/outcomes | sort | uniq -c | sed 's/^/#   /'
	fi
done
echo "# logs: $work"
exit $status
