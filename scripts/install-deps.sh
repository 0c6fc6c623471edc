#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian packages vmtick needs (only those missing), and today's QEMU beside Debian's.
# --check: also those only make check needs (chromium, which renders the report: docs/report.md).
#
# Debian's packages need root or sudo. Today's QEMU (10, from bookworm-backports)
# goes into a folder of its own, ${VMTICK_QEMU_ROOT:-/opt/vmtick-qemu}/VERSION/
# (usr/bin/qemu-system-x86_64, ...), never over Debian's 7.2: make check runs
# the x86_64 and aarch64 suites under both (the runner's --qemu 10 picks it,
# docs/runner.md). It takes the Debian mirror from this machine's own apt
# sources, fetches the packages with a private package list (the system's
# lists and sources stay as they are), and unpacks them with dpkg -x; it
# runs on the libraries Debian's 7.2 brought. A folder whose emulators
# already say version 10 is kept as it is.
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
	# trace-cmd: the runner records the host's trace of each entry's QEMU (docs/runner.md, "The host's trace")
	trace-cmd
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

qemu_root=${VMTICK_QEMU_ROOT:-/opt/vmtick-qemu}
qemu_major=10
qemu_suite=bookworm-backports
# both arches' emulators, their shared files (qemu-pr-helper, ...) and firmware (qboot, option ROMs)
qemu_packages=(qemu-system-x86 qemu-system-arm qemu-system-common qemu-system-data)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# sudo when not root; says what it was for when there is none.
sudo_for() { # what
	[ "$(id -u)" -ne 0 ] || return 0
	command -v sudo >/dev/null 2>&1 && return 0
	echo "install-deps: $1 needs root: run as root or install sudo" >&2
	exit 1
}

install_packages() {
	local p sudo=
	local -a missing=()
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		echo "install-deps: all packages present"
		return
	fi
	sudo_for "installing ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "install-deps: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The version an emulator reports ("10.0.2"), or nothing.
emulator_version() { # binary
	[ -x "$1" ] || return 0
	"$1" --version 2>/dev/null | sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p'
}

# A folder under qemu_root whose x86_64 and aarch64 emulators both start and say version 10.
qemu10_installed() {
	local d v a
	for d in "$qemu_root"/*/; do
		v=$(emulator_version "${d}usr/bin/qemu-system-x86_64")
		a=$(emulator_version "${d}usr/bin/qemu-system-aarch64")
		if [[ $v == "$qemu_major".* && $a == "$v" ]]; then
			echo "${d%/}"
			return 0
		fi
	done
	return 1
}

# The URI of this machine's Debian bookworm entry: deb822 sources first, then sources.list.
debian_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = "" }
		{
			types = ""; uris = ""; suites = ""; enabled = "yes"
			n = split($0, line, "\n")
			for (i = 1; i <= n; i++) {
				if (line[i] ~ /^#/) continue
				field = tolower(line[i]); sub(/:.*/, "", field)
				value = line[i]; sub(/^[^:]*:[ \t]*/, "", value)
				if (field == "types") types = " " value " "
				else if (field == "uris") uris = value
				else if (field == "suites") suites = " " value " "
				else if (field == "enabled") enabled = tolower(value)
			}
			if (enabled != "no" && types ~ / deb / && suites ~ /[ \t]bookworm[ \t]/) {
				split(uris, u, /[ \t]+/); print u[1]; exit
			}
		}' "$f"
	done
	[ -f /etc/apt/sources.list ] &&
		sed -n -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+bookworm[[:space:]].*/\2/p' \
			/etc/apt/sources.list
	return 0
}

qemu_fail() { # why
	echo "install-deps: QEMU $qemu_major from $qemu_suite not installed: $1" >&2
	exit 1
}

# The last lines of a step's output, indented, when it failed.
show_tail() { # file
	tail -n 5 "$1" | sed 's/^/    /' >&2
}

install_qemu10() {
	local have mirror tmp deb version dest parent sudo=
	if have=$(qemu10_installed); then
		echo "install-deps: QEMU $(emulator_version "$have/usr/bin/qemu-system-x86_64") present in $have"
		return
	fi
	# a Debian newer than bookworm: its own QEMU is today's (--qemu 10 finds it on PATH)
	version=$(emulator_version "$(command -v qemu-system-x86_64 || echo /nonexistent)")
	if [[ $version == "$qemu_major".* ]]; then
		echo "install-deps: QEMU $version is the system's own"
		return
	fi
	mirror=$(debian_mirror | head -n 1)
	[ -n "$mirror" ] || qemu_fail "no Debian bookworm entry in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list to take the mirror from"
	[ -r "$keyring" ] || qemu_fail "no $keyring (Debian's archive keys, debian-archive-keyring)"
	# sudo only where the folder cannot be written otherwise (VMTICK_QEMU_ROOT=/tmp/vq needs none)
	parent=$qemu_root
	while [ ! -e "$parent" ]; do parent=$(dirname "$parent"); done
	if [ ! -w "$parent" ]; then
		sudo_for "writing $qemu_root"
		[ "$(id -u)" -eq 0 ] || sudo=sudo
	fi
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # the folder is known now
	trap "rm -rf -- '$tmp'" EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/debs" "$tmp/tree"
	echo "deb [signed-by=$keyring] $mirror $qemu_suite main" >"$tmp/sources.list"
	# a private sources list, package lists and no cache: the system's apt state is left alone
	local -a apt=(apt-get -q -o Dir::Etc::sourcelist="$tmp/sources.list" -o Dir::Etc::sourceparts=/dev/null
		-o Dir::State::Lists="$tmp/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
	# root's apt would hand the download to the _apt user, who cannot write into mktemp's folder
	[ "$(id -u)" -ne 0 ] || apt+=(-o APT::Sandbox::User=root)
	echo "install-deps: fetching ${qemu_packages[*]} from $mirror $qemu_suite"
	"${apt[@]}" --error-on=any update >"$tmp/apt.out" 2>&1 ||
		{ show_tail "$tmp/apt.out"; qemu_fail "apt-get update of $mirror $qemu_suite failed"; }
	(cd "$tmp/debs" && "${apt[@]}" download "${qemu_packages[@]/%//$qemu_suite}") >"$tmp/apt.out" 2>&1 ||
		{ show_tail "$tmp/apt.out"; qemu_fail "apt-get download failed"; }
	for deb in "$tmp"/debs/*.deb; do
		dpkg -x "$deb" "$tmp/tree" || qemu_fail "dpkg -x $(basename "$deb") failed"
	done
	version=$(emulator_version "$tmp/tree/usr/bin/qemu-system-x86_64")
	[[ $version == "$qemu_major".* ]] ||
		qemu_fail "the unpacked qemu-system-x86_64 says version '${version:-none}' ($("$tmp/tree/usr/bin/qemu-system-x86_64" --version 2>&1 | head -n 1))"
	[ "$(emulator_version "$tmp/tree/usr/bin/qemu-system-aarch64")" = "$version" ] ||
		qemu_fail "the unpacked qemu-system-aarch64 does not say version $version"
	dest=$qemu_root/$version
	# next to its place first, then renamed into it: no half-copied folder under its name
	$sudo mkdir -p "$qemu_root"
	$sudo rm -rf -- "$dest.new"
	$sudo cp -R --preserve=mode,timestamps "$tmp/tree" "$dest.new" || qemu_fail "copying it into $dest.new failed"
	# a folder of that version whose emulators do not work (an earlier, broken unpacking)
	$sudo rm -rf -- "$dest"
	$sudo mv -T -- "$dest.new" "$dest" || qemu_fail "renaming $dest.new to $dest failed"
	echo "install-deps: QEMU $version installed in $dest (Debian's QEMU stays the default)"
}

install_packages
install_qemu10
