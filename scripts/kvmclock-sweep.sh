#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark: kvmclock read cost per mode at 1, 2, 4, ... N vCPUs, as a table and a gnuplot plot.
#
# Usage: scripts/kvmclock-sweep.sh [-n MAX_VCPUS] [-l LOOPS] [-o OUTDIR] [-f png|svg] [KERNEL]
#   -n  largest vCPU count; the sweep doubles from 1 and ends with it (default 16)
#   -l  reads per vCPU per mode (default 200; every read traps or worse under nested KVM)
#   -o  where sweep.tsv, sweep.gp (the gnuplot script: edit and rerun it),
#       the plot (drawn by scripts/gnuplot_chart.py) and each boot's log go
#       (default ./kvmclock-sweep)
#   -f  plot format: png or svg (default png)
#   KERNEL  x86_64 kvmclock_test.flat (default: the in-tree build's, else build/x86_64-gcc's)
# Environment: QEMU (qemu-system-x86_64), QEMU_CPU (default: the runner's
# CPU model under KVM, host,-arch-capabilities), FIRMWARE (as for the runner),
# TIMEOUT per run in seconds (300).
#
# Each row is one boot running only the test's performance phase
# (phases=perf): cycles and ns per read of bare rdtsc, raw, stable-aware and
# forced-adjusted kvmclock, averaged over the vCPUs, all reading at once;
# and the forced-adjusted/raw ratio the original kvmclock work quoted (about
# 10-15x at 4 vCPUs, 50x at 64). Rows with more vCPUs than host CPUs are
# marked: there a per-read figure includes the time a vCPU waited for a
# host CPU. A boot whose guest did not pass is a FAIL row in the table (its
# status and log named) and a FAIL label in the plot; the sweep goes on and
# exits 1. The machines are shared: compare rows of one run, not runs.
# Each boot's command is the runner's (arch_qemu_cmd under KVM), its status
# decoded by guest_status and its RESULT lines read by guest_result
# (scripts/guest.bash). Exit status: 0; 1 when a boot failed; 2 for bad
# arguments, a missing kernel, KVM or gnuplot, or when the test skips.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/arch.bash
. "$top/scripts/arch.bash"
# shellcheck source=scripts/guest.bash
. "$top/scripts/guest.bash"

SWEEP_ARCH=x86_64
SWEEP_RESULT_PREFIX=kvmclock.perf. # the perf phase's RESULT names (x86/kvmclock_test.c)
PLOT_SIZE=900x560                  # pixels
chart=$top/scripts/gnuplot_chart.py
max=16
loops=200
out=kvmclock-sweep
format=png
cpu_opts=()
[ -z "${QEMU_CPU:-}" ] || cpu_opts=(-cpu "$QEMU_CPU")
timeout_s=${TIMEOUT:-300}

die() { echo "kvmclock-sweep: $*" >&2; exit 2; }
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 wants a positive number, not '$2'"; }

while getopts n:l:o:f:h opt; do
	case $opt in
	n) positive -n "$OPTARG"; max=$OPTARG ;;
	l) positive -l "$OPTARG"; loops=$OPTARG ;;
	o) out=$OPTARG ;;
	f) [[ $OPTARG =~ ^(png|svg)$ ]] || die "-f wants png or svg"; format=$OPTARG ;;
	h) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) die "see -h" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || die "one kernel at most (see -h)"
if [ $# -eq 1 ]; then
	kernel=$1
elif [ -f "$top/x86/kvmclock_test.flat" ] && [ "$(arch_config_value "$top" ARCH)" = "$SWEEP_ARCH" ]; then
	kernel=$top/x86/kvmclock_test.flat
else
	kernel=$top/build/x86_64-gcc/x86/kvmclock_test.flat
fi
[ -f "$kernel" ] || die "$kernel not built (make run, or ./configure --arch=x86_64 && make)"
[ "$max" -le 255 ] || die "-n: the test supports at most 255 vCPUs"
mkdir -p "$out" 2>/dev/null || die "-o $out: cannot create it"
[ -w "$out" ] || die "-o $out: not writable"
# the arguments first, then what the host lacks: a bad option is named on any host
kvm_problem=$(arch_kvm_problem "$SWEEP_ARCH")
arch_decide_accel kvm "" "$kvm_problem"
[ -n "$ARCH_ACCEL" ] || die "$kvm_problem: kvmclock needs KVM"
why=$("$chart" --check 2>&1) || die "$why"

counts=()
for ((n = 1; n < max; n *= 2)); do counts+=("$n"); done
counts+=("$max")
host_cpus=$(nproc)

# One boot: "name value" for each RESULT line of the perf phase; status 1,
# with why in fail_note, when the guest did not pass.
run_once() { # vcpus
	local log=$out/smp$1.log status line name value
	arch_qemu_cmd "$SWEEP_ARCH" "$ARCH_ACCEL" "$1" "$kernel" "phases=perf loops=$loops" "${cpu_opts[@]}"
	timeout "$timeout_s" "${ARCH_CMD[@]}" >"$log" 2>&1
	status=$?
	guest_status "$status"
	case $GUEST_VERDICT in
	PASS) ;;
	SKIP) die "the test skipped: $(grep -m1 '^SKIP' "$log")" ;;
	TIMEOUT) echo "timed out after $timeout_s s, log $log" >"$out/.fail"; return 1 ;;
	*) echo "status $status, log $log" >"$out/.fail"; return 1 ;;
	esac
	while IFS= read -r line; do
		guest_result "$line" || continue
		read -r name value _ <<<"$GUEST_RESULT"
		[[ $name == "$SWEEP_RESULT_PREFIX"* ]] && echo "${name#"$SWEEP_RESULT_PREFIX"} $value"
	done <"$log"
	return 0
}

tsv=$out/sweep.tsv
printf '# kvmclock read cost per read, mean over vCPUs; %s reads per vCPU per mode; host CPUs %s; %s\n' \
	"$loops" "$host_cpus" "$(date -u +%Y-%m-%dT%H:%MZ)" >"$tsv"
printf '# vcpus\trdtsc_cyc\traw_cyc\tstable_cyc\tadjusted_cyc\traw_ns\tadjusted_ns\tadj_over_raw\tstable_over_raw\tstatus\n' >>"$tsv"
printf '%6s %11s %11s %11s %11s %10s %10s %8s %8s\n' vcpus rdtsc_cyc raw_cyc stable_cyc \
	adjusted_cyc raw_ns adj_ns adj/raw st/raw
failed=()
for n in "${counts[@]}"; do
	rm -f "$out/.fail"
	if ! results=$(run_once "$n"); then
		# no note: run_once died (the test skipped), and said why
		[ -f "$out/.fail" ] || exit 2
		failed+=("$n")
		printf '%d\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\tFAIL\n' "$n" >>"$tsv"
		printf '%6s FAIL: the guest did not pass (%s)\n' "$n" "$(cat "$out/.fail")"
		rm -f "$out/.fail"
		continue
	fi
	row=$(awk -v n="$n" '
		{ v[$1] = $2 }
		END {
			printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n,
				v["rdtsc.cycles_per_read"], v["raw.cycles_per_read"],
				v["stable_aware.cycles_per_read"], v["adjusted.cycles_per_read"],
				v["raw.ns_per_read"], v["adjusted.ns_per_read"],
				v["adjusted_over_raw"], v["stable_aware_over_raw"]
		}' <<<"$results")
	printf '%s\tPASS\n' "$row" >>"$tsv"
	# shellcheck disable=SC2086 # row is tab-separated numbers
	printf '%6s %11s %11s %11s %11s %10s %10s %7sx %7sx%s\n' $row \
		"$([ "$n" -gt "$host_cpus" ] && echo "  (overcommitted)")"
done

# The plot's commands; scripts/gnuplot_chart.py, the one chart writer, puts
# the terminal for -f's format before them, draws the plot and keeps the
# whole script in sweep.gp so it can be edited and rerun (from $out).
plot_commands() {
	echo "# kvmclock-sweep.sh's plot: run 'gnuplot sweep.gp' in this directory to redraw it"
	echo "set title \"kvmclock read cost vs vCPUs ($loops reads per vCPU per mode, $host_cpus host CPUs)\""
	echo 'set xlabel "vCPUs"'
	echo 'set ylabel "TSC cycles per read"'
	echo 'set y2label "forced-adjusted / raw"'
	echo 'set logscale x 2'
	echo 'set logscale y'
	echo 'set y2range [0:*]'
	echo 'set ytics nomirror'
	echo 'set y2tics'
	echo 'set key left top'
	echo 'set grid'
	for n in "${failed[@]}"; do
		echo "set label \"FAIL\" at first $n, graph 0.05 center textcolor rgb \"red\""
	done
	cat <<'GNUPLOT'
plot "sweep.tsv" using 1:2 with linespoints title "bare rdtsc (floor)", \
     "" using 1:3 with linespoints title "raw", \
     "" using 1:4 with linespoints title "stable-aware", \
     "" using 1:5 with linespoints title "forced-adjusted", \
     "" using 1:8 axes x1y2 with linespoints dashtype 2 title "adjusted/raw (right axis)"
GNUPLOT
}

plot=kvmclock-sweep.$format
echo "table: $tsv"
if [ "${#failed[@]}" -eq "${#counts[@]}" ]; then
	echo "kvmclock-sweep: every boot failed: nothing to plot" >&2
else
	plot_commands | (cd "$out" && "$chart" --size "$PLOT_SIZE" --keep sweep.gp "$plot") ||
		die "the plot failed (above)"
	echo "gnuplot script: $out/sweep.gp"
	echo "plot:  $out/$plot"
fi
if [ "${#failed[@]}" -gt 0 ]; then
	echo "kvmclock-sweep: FAIL at ${failed[*]} vCPUs (logs in $out)" >&2
	exit 1
fi
