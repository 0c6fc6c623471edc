#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages vmtick needs (only those missing); needs root or sudo.
# --check: also those only make check needs (chromium, which renders the report: docs/report.md).
set -eu

# QEMU for both arches, the cross compilers (not gcc-multilib: it removes
# them), clang/lld/llvm for the clang builds, cmocka/libfdt for host tests,
# and the tools the runner's own tests and the benchmark scripts use.
packages=(
	make gcc gcc-i686-linux-gnu gcc-aarch64-linux-gnu
	clang lld llvm
	qemu-system-x86 qemu-system-arm
	libcmocka-dev libfdt-dev
	libxml2-utils gnuplot-nox strace python3 perl shellcheck
	# pgrep: the runner finds QEMU's processes to measure a busy host (docs/runner.md)
	procps
	# CI glue (docs/ci.md): LAVA's job schema, YAML and JUnit for Debian's python3, rsync for gitlab-ci-local
	lava-common python3-yaml python3-junitparser rsync
)
case ${1:-} in
--check) packages+=(chromium) ;;
"") ;;
*)
	echo "install-deps: unknown argument '$1' (only --check)" >&2
	exit 2
	;;
esac

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi

sudo=
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
		exit 1
	fi
	sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
