#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark: median time from QEMU start to exit for the selftest kernel, per arch, accelerator and firmware.
#
# Usage: scripts/boot-bench.sh [-n RUNS] [BUILD_DIR...]
# Default builds: the in-tree build and build/*-gcc. Each row is one
# configuration, all measured in this one run (the machines are noisy:
# compare rows, not runs). Targets on the development machine: <= 0.25 s
# under KVM with qboot, <= 0.1 s under TCG, <= 64 KiB per .flat.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/arch.bash
. "$top/scripts/arch.bash"

runs=7
if [ "${1:-}" = -n ]; then
	[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "boot-bench: -n wants a positive number" >&2; exit 2; }
	runs=$2
	shift 2
fi
builds=("$@")
if [ "${#builds[@]}" -eq 0 ]; then
	[ -f "$top/config.mak" ] && builds+=("$top")
	for d in "$top"/build/*-gcc; do [ -f "$d/config.mak" ] && builds+=("$d"); done
fi
[ "${#builds[@]}" -gt 0 ] || { echo "boot-bench: no configured build found" >&2; exit 2; }

now_ns() { date +%s%N; }

# One timed boot; prints seconds with 3 decimals, or FAIL when the guest did not pass.
boot_once() { # arch accel kernel
	local t0 t1 status
	arch_qemu_cmd "$1" "$2" 1 "$3" "smp=1"
	t0=$(now_ns)
	timeout 60 "${ARCH_CMD[@]}" >/dev/null 2>&1
	status=$?
	t1=$(now_ns)
	# a passing guest exits through testdev with status (0 << 1) | 1
	if [ "$status" -ne 1 ]; then echo FAIL; return; fi
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }'
}

row() { # arch accel firmware kernel
	local times=() t i
	for ((i = 0; i < runs; i++)); do
		t=$(FIRMWARE=$3 boot_once "$1" "$2" "$4")
		[ "$t" = FAIL ] && { printf '%-8s %-5s %-8s %s\n' "$1" "$2" "$3" "guest did not pass"; return; }
		times+=("$t")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v a="$1" -v c="$2" -v f="$3" -v s="$(stat -c %s "$4")" '
		{ v[NR] = $1 }
		END { printf "%-8s %-5s %-8s %8.3f %8.3f %8.3f %9d\n", a, c, f, v[int((NR + 1) / 2)], v[1], v[NR], s }'
}

printf '%-8s %-5s %-8s %8s %8s %8s %9s\n' arch accel firmware median_s min_s max_s flat_B
for b in "${builds[@]}"; do
	arch=$(arch_config_value "$b" ARCH) || continue
	kernel=$b/$(arch_testdir "$arch")/selftest.flat
	[ -f "$kernel" ] || { echo "boot-bench: $kernel not built" >&2; continue; }
	if [ -z "$(arch_kvm_problem "$arch")" ]; then
		row "$arch" kvm qboot "$kernel"
		row "$arch" kvm default "$kernel"
	fi
	if [ "$arch" = aarch64 ]; then
		row "$arch" tcg none "$kernel"
	else
		row "$arch" tcg qboot "$kernel"
	fi
done
echo "($runs runs each; $(date -u +%FT%TZ); $(nproc) host CPUs)"
