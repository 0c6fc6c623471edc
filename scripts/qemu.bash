# SPDX-License-Identifier: GPL-2.0-only
# Which QEMU runs a suite (--qemu, its version) and the QEMU defects known per version (docs/host-quirks.md).
# shellcheck shell=bash

# Where scripts/install-deps.sh unpacks QEMUs beside the system's, one folder
# per version (ROOT/10.0.2/usr/bin/qemu-system-x86_64).
QEMU_INSTALL_ROOT=${VMTICK_QEMU_ROOT:-/opt/vmtick-qemu}
declare -gA QEMU_VERSION_CACHE=()

# QEMU's version ("10.0.2") from its --version line, into the variable named
# var; "unknown" when the binary does not say.
qemu_version_into() { # var binary
	local -n _qv_out=$1
	local line re='version ([0-9]+\.[0-9]+(\.[0-9]+)?)'
	if [ -n "${QEMU_VERSION_CACHE[$2]:-}" ]; then
		_qv_out=${QEMU_VERSION_CACHE[$2]}
		return
	fi
	line=$("$2" --version 2>/dev/null | head -n 1)
	if [[ $line =~ $re ]]; then _qv_out=${BASH_REMATCH[1]}; else _qv_out=unknown; fi
	QEMU_VERSION_CACHE[$2]=$_qv_out
}

# Whether version a is at least b, comparing numerically part by part (10.0 >= 9.1).
qemu_version_ge() { # a b
	local -a x y
	local i
	IFS=. read -r -a x <<<"$1"
	IFS=. read -r -a y <<<"$2"
	for i in 0 1 2; do
		((${x[i]:-0} == ${y[i]:-0})) && continue
		((${x[i]:-0} > ${y[i]:-0}))
		return
	done
	return 0
}

# Whether version v lies in from..through, where "through 10.0" takes every 10.0.z.
qemu_version_in() { # v from through
	local v=$1 through=$3
	[[ $v =~ ^[0-9]+\.[0-9]+ ]] || return 1
	qemu_version_ge "$v" "$2" || return 1
	[[ $through == *.*.* ]] || v=${BASH_REMATCH[0]}
	qemu_version_ge "$through" "$v"
}

# The QEMU binaries for arch that --qemu can name: the system's, then each
# folder under QEMU_INSTALL_ROOT.
qemu_candidates() { # arch
	local name d
	arch_default_qemu_into name "$1"
	command -v "$name" 2>/dev/null
	for d in "$QEMU_INSTALL_ROOT"/*/; do
		[ -x "${d}usr/bin/$name" ] && echo "${d}usr/bin/$name"
	done
	return 0
}

# The binary --qemu WHICH names for arch, into QEMU_PICKED; QEMU_PICK_ERROR
# says why there is none (both read by main.bash and scripts/check.sh). WHICH is a folder (with usr/bin/ or bin/ inside)
# or a version prefix ("10", "10.0", "7.2.22") of a candidate's version.
# shellcheck disable=SC2034 # QEMU_PICKED, QEMU_PICK_ERROR: the callers'
qemu_pick() { # which arch
	local which=$1 name b v d
	QEMU_PICKED="" QEMU_PICK_ERROR=""
	arch_default_qemu_into name "$2"
	if [ -d "$which" ]; then
		for d in "$which/usr/bin" "$which/bin" "$which"; do
			if [ -x "$d/$name" ]; then
				QEMU_PICKED=$(cd "$d" && pwd)/$name
				return 0
			fi
		done
		QEMU_PICK_ERROR="--qemu $which: no $name in that folder (nor in its usr/bin or bin)"
		return 1
	fi
	if [[ ! $which =~ ^[0-9]+(\.[0-9]+){0,2}$ ]]; then
		QEMU_PICK_ERROR="--qemu: '$which' is neither a folder nor a version such as 10 or 7.2"
		return 1
	fi
	local found=""
	while IFS= read -r b; do
		qemu_version_into v "$b"
		found+="${found:+, }$b ($v)"
		if [[ $v == "$which" || $v == "$which".* ]]; then
			QEMU_PICKED=$b
			return 0
		fi
	done < <(qemu_candidates "$2")
	QEMU_PICK_ERROR="--qemu $which: no $name of that version here (found: ${found:-none}; scripts/install-deps.sh installs QEMU 10 under $QEMU_INSTALL_ROOT)"
	return 1
}

# ---- QEMU's known defects (docs/host-quirks.md, "QEMU 10") -------------------
#
# One row each, fields split by '|':
#   id | first version | last version | accelerator | entries (globs) |
#   where (icount: only with -icount on the command line; any) |
#   what it is, in a few words |
#   evidence, last since it may hold '|': an extended regular expression
#     that every FAIL line of the guest (or, when QEMU ended without a
#     SUMMARY, QEMU's own message) must match
# A run that fails only by a known defect of its QEMU version is KFAIL,
# naming the defect; the same failure on any other version stays a FAIL.
# Versions are those whose source was read (docs/host-quirks.md): the first
# is where the defective code arrived, the last the newest release checked.
QEMU_DEFECTS=(
	'qemu-x2apic-icount|9.0|10.0|tcg|*|icount|rdmsr/wrmsr of the x2APIC timer registers read the virtual clock outside an I/O instruction under -icount, and QEMU exits|Bad icount read'
	'qemu-hpet-periodic-twice|9.1|10.0|tcg|timer-hpet timer-hpet-routed|icount|a periodic HPET timer whose callback finds the main counter exactly at its comparator fires again 1 us later: two interrupts a period under -icount|no tick early beyond .*: [0-9]+ early|the interrupts that came ran at .* tick\(s\) over'
	'qemu-cntvoff-wrap|8.2|10.0|tcg|arm-cntvoff arm-lifecycle-*|any|CVAL + CNTVOFF_EL2 past 2^64 is taken as never, though CNTVCT (CNTPCT - CNTVOFF_EL2, modulo 2^64) reaches CVAL: the virtual timer never fires|virt timer.*met within .*\(never\)|virt timer.*CVAL \+ CNTVOFF past 2\^64 \(yes\): no interrupt|vtimer one-shot'
)

# The options an x86 entry runs with to avoid a known defect of this QEMU, with
# the words that say so, into QEMU_AVOID (array) and QEMU_AVOID_WHY: under
# -icount on a QEMU whose x2APIC timer aborts there, the CPU the runner would
# choose without x2APIC (an entry that names its -cpu keeps it).
# shellcheck disable=SC2034 # QEMU_AVOID, QEMU_AVOID_WHY: run_entry_cmd's
qemu_avoid() { # arch version accel params...
	local arch=$1 v=$2 accel=$3
	shift 3
	QEMU_AVOID=() QEMU_AVOID_WHY=""
	[ "$accel" = tcg ] && [ "$arch" != aarch64 ] || return 0
	[[ " $* " == *' -icount '* ]] || return 0
	arch_has_option cpu "$@" && return 0
	qemu_version_in "$v" 9.0 10.0 || return 0
	QEMU_AVOID=(-cpu 'max,-x2apic')
	QEMU_AVOID_WHY="-cpu max,-x2apic: QEMU $v exits with 'Bad icount read' on the x2APIC timer under -icount (qemu-x2apic-icount, docs/host-quirks.md)"
}

# The known defect of QEMU version v that explains every failure line given
# (FAIL lines of the guest, or QEMU's message), for this entry, accelerator
# and command; its row into QEMU_DEFECT (empty: none explains them all).
# shellcheck disable=SC2034 # QEMU_DEFECT: run_known_defect's
qemu_known_defect() { # version accel entry cmdline lines...
	local v=$1 accel=$2 entry=$3 cmd=$4 row from through acc entries where re pat line ok
	local -a pats
	shift 4
	QEMU_DEFECT=""
	(($#)) || return 1
	for row in "${QEMU_DEFECTS[@]}"; do
		IFS='|' read -r _ from through acc entries where _ re <<<"$row"
		[ "$acc" = "$accel" ] || continue
		qemu_version_in "$v" "$from" "$through" || continue
		[ "$where" != icount ] || [[ " $cmd " == *' -icount '* ]] || continue
		ok=""
		read -r -a pats <<<"$entries"
		for pat in "${pats[@]}"; do
			# shellcheck disable=SC2053 # a glob, on purpose
			[[ $entry == $pat ]] && ok=1
		done
		[ -n "$ok" ] || continue
		for line in "$@"; do
			[[ $line =~ $re ]] || continue 2
		done
		QEMU_DEFECT=$row
		return 0
	done
	return 1
}
