#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark: kvmclock read cost per mode at 1, 2, 4, ... N vCPUs, as a table and a gnuplot plot.
#
# Usage: scripts/kvmclock-sweep.sh [-n MAX_VCPUS] [-l LOOPS] [-o OUTDIR] [-f png|svg] [KERNEL]
#   -n  largest vCPU count; the sweep doubles from 1 and ends with it (default 16)
#   -l  reads per vCPU per mode (default 200; every read traps or worse under nested KVM)
#   -o  where sweep.tsv, sweep.gp and the plot go (default ./kvmclock-sweep)
#   -f  plot format (default png)
#   KERNEL  x86_64 kvmclock_test.flat (default: x86/kvmclock_test.flat of the in-tree build)
# Environment: QEMU (qemu-system-x86_64), QEMU_CPU (host,-arch-capabilities),
# TIMEOUT per run in seconds (300).
#
# Each row is one boot running only the test's performance phase
# (phases=perf): cycles and ns per read of bare rdtsc, raw, stable-aware and
# forced-adjusted kvmclock, averaged over the vCPUs, all reading at once;
# and the forced-adjusted/raw ratio the original kvmclock work quoted (about
# 10-15x at 4 vCPUs, 50x at 64). Rows with more vCPUs than host CPUs are
# marked: there a per-read figure includes the time a vCPU waited for a
# host CPU. The machines are shared: compare rows of one run, not runs.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
max=16
loops=200
out=kvmclock-sweep
format=png
qemu=${QEMU:-qemu-system-x86_64}
cpu=${QEMU_CPU:-host,-arch-capabilities}
timeout_s=${TIMEOUT:-300}
firmware=/usr/share/qemu/qboot.rom

die() { echo "kvmclock-sweep: $*" >&2; exit 2; }
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 wants a positive number, not '$2'"; }

while getopts n:l:o:f:h opt; do
	case $opt in
	n) positive -n "$OPTARG"; max=$OPTARG ;;
	l) positive -l "$OPTARG"; loops=$OPTARG ;;
	o) out=$OPTARG ;;
	f) [[ $OPTARG =~ ^(png|svg)$ ]] || die "-f wants png or svg"; format=$OPTARG ;;
	h) sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "see -h" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || die "one kernel at most (see -h)"
kernel=${1:-$top/x86/kvmclock_test.flat}
[ -f "$kernel" ] || die "$kernel not built (./configure --arch=x86_64 && make)"
[ -w /dev/kvm ] || die "/dev/kvm not usable: kvmclock needs KVM"
command -v gnuplot >/dev/null || die "gnuplot not installed (apt-get install gnuplot-nox)"
[ "$max" -le 255 ] || die "-n: the test supports at most 255 vCPUs"
mkdir -p "$out" || die "cannot create $out"

counts=()
for ((n = 1; n < max; n *= 2)); do counts+=("$n"); done
counts+=("$max")
host_cpus=$(nproc)

# One boot; prints "name value" for each RESULT line of the perf phase, or fails with the log.
run_once() { # vcpus
	local log=$out/smp$1.log status
	timeout "$timeout_s" "$qemu" -machine pc -accel kvm -cpu "$cpu" -m 256 -smp "$1" \
		-display none -vga none -nodefaults -no-reboot -bios "$firmware" \
		-serial stdio -chardev testdev,id=ctd -serial chardev:ctd \
		-kernel "$kernel" -append "phases=perf loops=$loops" >"$log" 2>&1
	status=$?
	# testdev exit: (code << 1) | 1, so 1 is a pass and 155 a skip
	case $status in
	1) ;;
	155) die "the test skipped: $(grep -m1 '^SKIP' "$log")" ;;
	124) die "-smp $1 timed out after $timeout_s s (log: $log)" ;;
	*) tail -5 "$log" >&2; die "-smp $1 did not pass (status $status, log: $log)" ;;
	esac
	awk '/^RESULT: kvmclock\.perf\./ { sub(/^kvmclock\.perf\./, "", $2); print $2, $3 }' "$log"
}

tsv=$out/sweep.tsv
printf '# kvmclock read cost per read, mean over vCPUs; %s reads per vCPU per mode; host CPUs %s; %s\n' \
	"$loops" "$host_cpus" "$(date -u +%Y-%m-%dT%H:%MZ)" >"$tsv"
printf '# vcpus\trdtsc_cyc\traw_cyc\tstable_cyc\tadjusted_cyc\traw_ns\tadjusted_ns\tadj_over_raw\tstable_over_raw\n' >>"$tsv"
printf '%6s %11s %11s %11s %11s %10s %10s %8s %8s\n' vcpus rdtsc_cyc raw_cyc stable_cyc \
	adjusted_cyc raw_ns adj_ns adj/raw st/raw
for n in "${counts[@]}"; do
	results=$(run_once "$n") || exit 2
	row=$(awk -v n="$n" '
		{ v[$1] = $2 }
		END {
			printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n,
				v["rdtsc.cycles_per_read"], v["raw.cycles_per_read"],
				v["stable_aware.cycles_per_read"], v["adjusted.cycles_per_read"],
				v["raw.ns_per_read"], v["adjusted.ns_per_read"],
				v["adjusted_over_raw"], v["stable_aware_over_raw"]
		}' <<<"$results")
	printf '%s\n' "$row" >>"$tsv"
	# shellcheck disable=SC2086 # row is tab-separated numbers
	printf '%6s %11s %11s %11s %11s %10s %10s %7sx %7sx%s\n' $row \
		"$([ "$n" -gt "$host_cpus" ] && echo "  (overcommitted)")"
done

plot=$out/kvmclock-sweep.$format
terminal="pngcairo size 900,560"
[ "$format" = svg ] && terminal="svg size 900,560"
gnuplot 2>"$out/gnuplot.err" <<EOF || die "gnuplot failed: $(cat "$out/gnuplot.err")"
set terminal $terminal
set output "$plot"
set title "kvmclock read cost vs vCPUs ($loops reads per vCPU per mode, $host_cpus host CPUs)"
set xlabel "vCPUs"
set ylabel "TSC cycles per read"
set y2label "forced-adjusted / raw"
set logscale x 2
set logscale y
set y2range [0:*]
set ytics nomirror
set y2tics
set key left top
set grid
plot "$tsv" using 1:2 with linespoints title "bare rdtsc (floor)", \
     "" using 1:3 with linespoints title "raw", \
     "" using 1:4 with linespoints title "stable-aware", \
     "" using 1:5 with linespoints title "forced-adjusted", \
     "" using 1:8 axes x1y2 with linespoints dashtype 2 title "adjusted/raw (right axis)"
EOF
echo "table: $tsv"
echo "plot:  $plot"
