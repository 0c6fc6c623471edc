# SPDX-License-Identifier: GPL-2.0-only
# Per-arch knowledge: where a configured build lives, whether KVM is usable, the accelerator and the QEMU command line.
# shellcheck shell=bash

ARCH_QBOOT=/usr/share/qemu/qboot.rom
# QEMU 7.2 under nested KVM aborts with "failed to set MSR 0x10a" for a plain
# -cpu host; hiding IA32_ARCH_CAPABILITIES avoids it and no test reads it.
ARCH_X86_KVM_CPU="host,-arch-capabilities"
# PVM, a KVM that virtualises without VMX/SVM, runs only 64-bit guests.
ARCH_KVM_PVM=/sys/module/kvm_pvm

# The host kind whose known defects a guest may report as KFAIL rather than
# FAIL (the {host_kind} placeholder; docs/clocks.md lists the defects).
arch_host_kind() {
	if [ -d "$ARCH_KVM_PVM" ]; then echo kvm-pvm; else echo none; fi
}

# Value of KEY in DIR/config.mak ("KEY := value"), read as data.
arch_config_value() { # dir key
	local line re="^$2[[:blank:]]*:?=[[:blank:]]*(.*)$"
	[ -r "$1/config.mak" ] || return 1
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			echo "${BASH_REMATCH[1]}"
			return 0
		fi
	done <"$1/config.mak"
	return 1
}

# The one build layout (docs/runner.md, "Build layout"): <source>/build/ARCH-CC,
# CC gcc or clang, as make run and make check create them; an in-tree
# ./configure build is the source tree itself. Other scripts source this file
# for arch_canonical and arch_build_dir.
ARCH_CCS=(gcc clang)

# The arch name configure uses for NAME (it also accepts arm64 and i686).
arch_canonical() { # name
	case $1 in
	x86_64 | i386 | aarch64) echo "$1" ;;
	i686) echo i386 ;;
	arm64) echo aarch64 ;;
	*) return 1 ;;
	esac
}

arch_build_dir() { # arch cc
	echo "${SRCDIR:?}/build/$1-$2"
}

# The directories where a build for ARCH may be, in the order they are tried.
# Each directory once: run from the top, $PWD is $SRCDIR.
arch_build_candidates() { # arch
	local cc d
	local -a cands=("$PWD" "$SRCDIR")
	local -A seen=()
	for cc in "${ARCH_CCS[@]}"; do cands+=("$(arch_build_dir "$1" "$cc")"); done
	for d in "${cands[@]}"; do
		[ -z "${seen[$d]:-}" ] || continue
		seen[$d]=1
		echo "$d"
	done
}

# The first candidate configured for ARCH, made absolute in the variable named build-var.
arch_pick_build() { # arch build-var
	local d
	while IFS= read -r d; do
		if [ "$(arch_config_value "$d" ARCH)" = "$1" ]; then
			printf -v "$2" '%s' "$(cd "$d" && pwd)"
			return 0
		fi
	done < <(arch_build_candidates "$1")
	return 1
}

# Pick the build directory: the one asked for (--build/BUILD_DIR); else the
# build for the arch asked for (--arch); else the current or top directory's
# config.mak; else the host arch's build/ARCH-gcc or -clang. Sets the
# variables named build-var (absolute) and arch-var, the caller's own; on
# failure returns 1 with the reasons in ARCH_ERRORS.
arch_find_build() { # requested-build requested-arch (either may be empty) build-var arch-var
	local d a want req_build=$1 req_arch=$2
	ARCH_ERRORS=()
	if [ -n "$req_build" ]; then
		if ! a=$(arch_config_value "$req_build" ARCH); then
			ARCH_ERRORS+=("run_tests: no config.mak with ARCH in '$req_build' (run configure there)")
			return 1
		fi
		if [ -n "$req_arch" ] && [ "$a" != "$req_arch" ]; then
			ARCH_ERRORS+=("run_tests: '$req_build' is configured for $a, not $req_arch")
			return 1
		fi
		printf -v "$3" '%s' "$(cd "$req_build" && pwd)" && printf -v "$4" '%s' "$a"
		return
	fi
	if [ -z "$req_arch" ]; then
		for d in "$PWD" "$SRCDIR"; do
			if a=$(arch_config_value "$d" ARCH); then
				printf -v "$3" '%s' "$(cd "$d" && pwd)" && printf -v "$4" '%s' "$a"
				return
			fi
		done
	fi
	want=${req_arch:-$(arch_canonical "$(uname -m)")} || want=""
	if [ -n "$want" ] && arch_pick_build "$want" "$3"; then
		printf -v "$4" '%s' "$want"
		return
	fi
	if [ -z "$want" ]; then
		ARCH_ERRORS+=("run_tests: no configured build here or in $SRCDIR, and no vmtick arch is native to $(uname -m): pass --arch or --build")
		return 1
	fi
	ARCH_ERRORS+=("run_tests: no build configured for $want; looked in: $(arch_build_candidates "$want" | paste -sd ' ')")
	ARCH_ERRORS+=("run_tests: make one: mkdir -p build/$want-gcc && cd build/$want-gcc && ../../configure --arch=$want && make (make run and make check do this)")
	return 1
}

arch_testdir() { # arch
	local d
	arch_testdir_into d "$1"
	echo "$d"
}

# arch_testdir into the variable named var, without a subshell.
arch_testdir_into() { # var arch
	local -n _td_out=$1
	case $2 in
	aarch64) _td_out=arm ;;
	*) _td_out=x86 ;;
	esac
}

arch_default_qemu() { # arch
	local q
	arch_default_qemu_into q "$1"
	echo "$q"
}

# arch_default_qemu into the variable named var, without a subshell.
arch_default_qemu_into() { # var arch
	local -n _dq_out=$1
	case $2 in
	aarch64) _dq_out='qemu-system-aarch64' ;;
	*) _dq_out='qemu-system-x86_64' ;;
	esac
}

# Why KVM cannot run guests of this arch here; empty when it can.
arch_kvm_problem() { # arch
	local host
	host=$(uname -m)
	case "$1:$host" in
	x86_64:x86_64 | i386:x86_64 | i386:i?86 | aarch64:aarch64) ;;
	*)
		echo "host is $host, guest is $1"
		return
		;;
	esac
	if [ ! -e /dev/kvm ]; then
		echo "/dev/kvm does not exist"
	elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "/dev/kvm is not readable and writable by $(id -un 2>/dev/null || echo this user)"
	elif [ "$1" = i386 ] && [ -d "$ARCH_KVM_PVM" ]; then
		# seen here: a 32-bit kernel triple-faults the moment it enables paging
		echo "the host's KVM is kvm-pvm, which runs 64-bit guests only"
	fi
}

# The one accelerator decision (the runner's, run-kernel's, the tools'):
# for the accelerators a run allows (a list, "kvm tcg" for any), one forced
# by the user (empty: none) and this host's arch_kvm_problem (empty: KVM is
# usable): the forced one when allowed and usable, else KVM where allowed
# and usable, else TCG where allowed. Sets ARCH_ACCEL and ARCH_ACCEL_WHY (why
# not KVM, when it falls back to TCG); or, when nothing can run, ARCH_ACCEL
# empty and ARCH_ACCEL_REFUSED: not-listed (the forced one is not allowed),
# kvm-unusable (KVM forced, not usable), needs-kvm (only KVM allowed, not
# usable). Callers word these in their own terms.
# ARCH_ACCEL, ARCH_ACCEL_WHY and ARCH_ACCEL_REFUSED are its outputs: the
# scripts that source this file read them (runner.bash, run-kernel,
# kvmclock-sweep.sh, vmtick_host.py), which the linter sees only when it
# follows them from there (host-tests/runner/run.sh's lint does).
# shellcheck disable=SC2034
arch_decide_accel() { # allowed-list forced kvm-problem
	local list=" $1 " forced=$2 problem=$3
	ARCH_ACCEL="" ARCH_ACCEL_WHY="" ARCH_ACCEL_REFUSED=""
	if [ -n "$forced" ]; then
		if [[ $list != *" $forced "* ]]; then
			ARCH_ACCEL_REFUSED=not-listed
		elif [ "$forced" = kvm ] && [ -n "$problem" ]; then
			ARCH_ACCEL_REFUSED=kvm-unusable
		else
			ARCH_ACCEL=$forced
		fi
	elif [[ $list == *" kvm "* ]] && [ -z "$problem" ]; then
		ARCH_ACCEL=kvm
	elif [[ $list == *" tcg "* ]]; then
		ARCH_ACCEL=tcg
		if [[ $list == *" kvm "* ]]; then ARCH_ACCEL_WHY="no KVM: $problem"; fi
	else
		ARCH_ACCEL_REFUSED=needs-kvm
	fi
}

arch_has_option() { # option-name words...
	local opt=$1 w
	shift
	for w in "$@"; do
		case $w in
		"-$opt" | "--$opt") return 0 ;;
		esac
	done
	return 1
}

# The firmware arguments for x86: qboot boots ~10x faster than SeaBIOS under
# nested KVM. FIRMWARE=default keeps QEMU's own BIOS, FIRMWARE=FILE uses FILE.
# A QEMU unpacked in a folder of its own takes the folder's qboot.
arch_x86_firmware() { # datadir
	local qboot=$ARCH_QBOOT
	if [ -n "$1" ] && [ -r "$1/qboot.rom" ]; then qboot=$1/qboot.rom; fi
	case ${FIRMWARE:-qboot} in
	default | seabios) ;;
	qboot) if [ -r "$qboot" ]; then ARCH_CMD+=(-bios "$qboot"); fi ;;
	*) ARCH_CMD+=(-bios "$FIRMWARE") ;;
	esac
}

# The data folder (firmware, option ROMs, keymaps) of a QEMU unpacked in a
# folder of its own (scripts/install-deps.sh: FOLDER/usr/bin/qemu-system-*
# beside FOLDER/usr/share/qemu), into the variable named var; empty for the
# system's QEMU. Debian's QEMU looks only in /usr/share/qemu, so without -L
# a QEMU 10 from a folder would load 7.2's multiboot and firmware ROMs.
# Found once per binary (ARCH_DATADIR_CACHE): it costs two subshells.
declare -gA ARCH_DATADIR_CACHE=()
arch_qemu_datadir() { # var qemu
	local -n _qd_out=$1
	local d
	_qd_out=""
	[[ $2 == */* ]] || return 0
	if [ -n "${ARCH_DATADIR_CACHE[$2]+set}" ]; then
		_qd_out=${ARCH_DATADIR_CACHE[$2]}
		return 0
	fi
	if d=$(cd "${2%/*}/../share/qemu" 2>/dev/null && pwd -P) &&
		[ "$d" != "$(cd /usr/share/qemu 2>/dev/null && pwd -P)" ]; then
		_qd_out=$d
	fi
	ARCH_DATADIR_CACHE[$2]=$_qd_out
}

# Build the QEMU command in ARCH_CMD. params are the already split and
# expanded qemu_params words; they go last so they can add to anything.
arch_qemu_cmd() { # arch accel smp kernel append params...
	local arch=$1 accel=$2 smp=$3 kernel=$4 append=$5
	shift 5
	local qemu=${QEMU:-} datadir
	[ -n "$qemu" ] || arch_default_qemu_into qemu "$arch"
	arch_qemu_datadir datadir "$qemu"
	ARCH_CMD=("$qemu")
	[ -z "$datadir" ] || ARCH_CMD+=(-L "$datadir")
	case $arch in
	aarch64)
		arch_has_option machine "$@" || arch_has_option M "$@" ||
			ARCH_CMD+=(-machine "virt,gic-version=3")
		ARCH_CMD+=(-accel "$accel")
		if ! arch_has_option cpu "$@"; then
			if [ "$accel" = kvm ]; then ARCH_CMD+=(-cpu host); else ARCH_CMD+=(-cpu max); fi
		fi
		arch_has_option m "$@" || ARCH_CMD+=(-m 256)
		ARCH_CMD+=(-smp "$smp" -display none -nodefaults -no-reboot -serial stdio
			-device virtio-serial-device -device "virtconsole,chardev=ctd"
			-chardev "testdev,id=ctd")
		;;
	*)
		arch_has_option machine "$@" || arch_has_option M "$@" || ARCH_CMD+=(-machine pc)
		ARCH_CMD+=(-accel "$accel")
		if ! arch_has_option cpu "$@"; then
			if [ "$accel" = kvm ]; then ARCH_CMD+=(-cpu "$ARCH_X86_KVM_CPU"); else ARCH_CMD+=(-cpu max); fi
		fi
		arch_has_option m "$@" || ARCH_CMD+=(-m 256)
		# -nodefaults makes the first -serial COM1 (the console) and the
		# second COM2, where the guest writes "<code>q" to exit.
		ARCH_CMD+=(-smp "$smp" -display none -vga none -nodefaults -no-reboot
			-serial stdio -chardev "testdev,id=ctd" -serial chardev:ctd
			-device "isa-debug-exit,iobase=0xf4,iosize=4")
		arch_has_option bios "$@" || arch_x86_firmware "$datadir"
		;;
	esac
	ARCH_CMD+=(-kernel "$kernel")
	if [ -n "$append" ]; then ARCH_CMD+=(-append "$append"); fi
	ARCH_CMD+=("$@")
}

# A command as one line a POSIX shell reads back as the same words: words
# with other characters than these single-quoted. The runner's logs and -l -v,
# run-kernel and boot-bench.sh -p print commands this way.
arch_quote_cmd() { # words...
	local out
	arch_quote_into out "$@"
	echo "$out"
}

# arch_quote_cmd into the variable named var, without a subshell (scripts
# that quote word by word, scripts/lava-jobs, would fork one per word).
arch_quote_into() { # var words...
	# names of its own: a nameref to a caller's "q" must not see a local "q"
	local -n _aq_out=$1
	local _aq_w _aq_q=""
	shift
	for _aq_w in "$@"; do
		if [[ $_aq_w =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
			_aq_q+="$_aq_w "
		else
			_aq_q+="'${_aq_w//\'/\'\\\'\'}' "
		fi
	done
	_aq_out=${_aq_q% }
}
