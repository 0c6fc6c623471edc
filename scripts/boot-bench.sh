#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark: median time from QEMU start to exit for the selftest kernel, per arch, accelerator and firmware.
#
# Usage: scripts/boot-bench.sh [-n RUNS] [-p] [BUILD_DIR...]
#   -n RUNS    boots per configuration, 1..1000 (default 7); the median is shown
#   -p         print each configuration's QEMU command (arch, accel, firmware,
#              then the command) and boot nothing
#   BUILD_DIR  configured builds (default: the in-tree build and every build/ARCH-CC
#              that make run and make check create)
# Each row is one configuration, all measured in this one run (the machines
# are noisy: compare rows, not runs). A configuration whose guest did not
# pass is a row that says so, and the exit status is then 1. Targets on the
# development machine: <= 0.25 s under KVM with qboot, <= 0.1 s under TCG,
# <= 64 KiB per .flat. The command is the runner's for the selftest with
# one vCPU (arch_qemu_cmd, the arguments of [selftest-smp1]), its status
# decoded by guest_status (scripts/guest.bash). Exit status: 0; 1 when a
# boot did not pass; 2 for bad arguments or a build without its selftest kernel.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/arch.bash
. "$top/scripts/arch.bash"
# shellcheck source=scripts/guest.bash
. "$top/scripts/guest.bash"
# shellcheck source=scripts/units.bash
. "$top/scripts/units.bash"

BOOT_VCPUS=1
BOOT_ARGS="smp=1 mem=256" # the selftest's arguments in unittests.cfg's [selftest-smp1]
BOOT_TIMEOUT_S=60

die() { echo "boot-bench: $*" >&2; exit 2; }

runs=7 print=0
while getopts n:ph opt; do
	case $opt in
	n)
		if ! [[ $OPTARG =~ ^[1-9][0-9]{0,3}$ ]] || [ "$OPTARG" -gt 1000 ]; then
			die "-n wants a number of boots in 1..1000, not '$OPTARG'"
		fi
		runs=$OPTARG
		;;
	p) print=1 ;;
	h) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) die "see -h" ;;
	esac
done
shift $((OPTIND - 1))
builds=()
for b in "$@"; do
	arch_config_value "$b" ARCH >/dev/null || die "$b: not a configured build (no config.mak with ARCH)"
	builds+=("$b")
done
if [ "${#builds[@]}" -eq 0 ]; then
	[ -f "$top/config.mak" ] && builds+=("$top")
	for d in "$top"/build/*-gcc "$top"/build/*-clang; do
		[ -f "$d/config.mak" ] && builds+=("$d")
	done
fi
[ "${#builds[@]}" -gt 0 ] || die "no configured build: run make run, or ./configure && make, or name one"
for b in "${builds[@]}"; do
	arch=$(arch_config_value "$b" ARCH)
	[ -f "$b/$(arch_testdir "$arch")/selftest.flat" ] ||
		die "$b/$(arch_testdir "$arch")/selftest.flat not built (make -C $b)"
done

now_ns() { date +%s%N; }

# One timed boot; prints seconds with 3 decimals, or FAIL when the guest did not pass.
boot_once() { # arch accel kernel
	local t0 t1
	arch_qemu_cmd "$1" "$2" "$BOOT_VCPUS" "$3" "$BOOT_ARGS"
	t0=$(now_ns)
	timeout "$BOOT_TIMEOUT_S" "${ARCH_CMD[@]}" >/dev/null 2>&1
	guest_status $?
	t1=$(now_ns)
	if [ "$GUEST_VERDICT" != PASS ]; then echo FAIL; return; fi
	awk -v d=$((t1 - t0)) -v ns_per_s="$NSEC_PER_SEC" 'BEGIN { printf "%.3f", d / ns_per_s }'
}

# -p: a configuration's command instead of its row.
print_row() { # arch accel firmware kernel
	FIRMWARE=$3 arch_qemu_cmd "$1" "$2" "$BOOT_VCPUS" "$4" "$BOOT_ARGS"
	printf '%s %s %s %s\n' "$1" "$2" "$3" "$(arch_quote_cmd "${ARCH_CMD[@]}")"
}

row() { # arch accel firmware kernel build-label
	local times=() t i
	if ((print)); then print_row "$@"; return; fi
	for ((i = 0; i < runs; i++)); do
		t=$(FIRMWARE=$3 boot_once "$1" "$2" "$4")
		if [ "$t" = FAIL ]; then
			printf '%-8s %-5s %-8s %s\n' "$1" "$2" "$3" "FAIL: the guest did not pass (boot $((i + 1)) of $runs)"
			return 1
		fi
		times+=("$t")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v a="$1" -v c="$2" -v f="$3" -v s="$(stat -c %s "$4")" -v b="$5" '
		{ v[NR] = $1 }
		END { printf "%-8s %-5s %-8s %8.3f %8.3f %8.3f %9d  %s\n", a, c, f, v[int((NR + 1) / 2)], v[1], v[NR], s, b }'
}

((print)) ||
	printf '%-8s %-5s %-8s %8s %8s %8s %9s  %s\n' arch accel firmware median_s min_s max_s flat_B build
failed=0
for b in "${builds[@]}"; do
	arch=$(arch_config_value "$b" ARCH)
	kernel=$b/$(arch_testdir "$arch")/selftest.flat
	label=${b#"$top"/}
	[ "$b" = "$top" ] && label="(in-tree)"
	if [ -z "$(arch_kvm_problem "$arch")" ]; then
		row "$arch" kvm qboot "$kernel" "$label" || failed=1
		row "$arch" kvm default "$kernel" "$label" || failed=1
	fi
	if [ "$arch" = aarch64 ]; then
		row "$arch" tcg none "$kernel" "$label" || failed=1
	else
		row "$arch" tcg qboot "$kernel" "$label" || failed=1
	fi
done
((print)) || echo "($runs runs each; $(date -u +%FT%TZ); $(nproc) host CPUs)"
exit $failed
