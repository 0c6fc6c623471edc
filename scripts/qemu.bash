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

# ---- QEMU's known defects (docs/upstream/, one page each) --------------------
#
# One row each, fields split by '|':
#   id | first version | last version | accelerator | entries (globs) |
#   where (icount: only with -icount on the command line; any) |
#   what it is, in a few words |
#   evidence, one of
#     bound:PATTERN...  every check the guest failed is a bounded check (its
#                       BOUND line right before its FAIL line) whose name
#                       matches a PATTERN: a glob, with '>' after it when the
#                       figure must lie above its bands, '<' below them
#     qemu:REGEX        the guest failed no check and QEMU's own message
#                       (an extended regular expression) ended the run
#   or several joined by ';', each failure explained by one of them. A
#   failure is matched by its figure's name and bands, never by its sentence:
#   a check may be reworded without touching this table.
# A run that fails only by a known defect of its QEMU version is KFAIL,
# naming the defect; the same failure on any other version is a FAIL that
# names the defect and says the version lies outside its range. The range
# runs from the release whose source brought the defect to the newest whose
# source was read (docs/upstream/ says which were measured); a point release
# ("8.1.4") starts it at that backport.
# An entry named after a defect (group qemu-defects) is its reproducer.
QEMU_DEFECTS=(
	'qemu-x2apic-icount|9.0|11.0|tcg|*|icount|RDMSR of the x2APIC current count (839H) reads the virtual clock in an instruction not translated as I/O under -icount, and QEMU exits|qemu:Bad icount read'
	'qemu-hpet-periodic-twice|9.1|11.0|tcg|timer-hpet timer-hpet-routed qemu-hpet-periodic-twice|icount|a periodic HPET timer whose callback finds the main counter exactly at its comparator fires again 1 us later: two interrupts a period under -icount|bound:timer_tick.hpet*.early> timer_tick.hpet*.count_off>'
	'qemu-cntvoff-wrap|8.1.4|11.0|tcg|arm-cntvoff qemu-cntvoff-wrap|any|CVAL + CNTVOFF_EL2 past 2^64 is taken as never, though CNTVCT (CNTPCT - CNTVOFF_EL2, modulo 2^64) reaches CVAL: the virtual timer never fires|bound:cntvoff.cpu*.met.virt< cntvoff.cpu*.wrap_irqs.virt<'
	'qemu-cntvoff-wrap|8.1.4|11.0|tcg|arm-lifecycle-*|any|CVAL + CNTVOFF_EL2 past 2^64 is taken as never, though CNTVCT (CNTPCT - CNTVOFF_EL2, modulo 2^64) reaches CVAL: the virtual timer never fires|bound:e*.vtimer.cpu*.run_oneshot_not_ok> e*.vtimer.cpu*.oneshot_late> e*.vtimer.cpu*.oneshot_fired<'
)
QEMU_DEFECT_EVIDENCE_KINDS=(bound qemu)

# The first row of defect id, into the variable named var (empty: no such defect).
qemu_defect_row_into() { # var id
	local -n _dr_out=$1
	local _dr_row
	_dr_out=""
	for _dr_row in "${QEMU_DEFECTS[@]}"; do
		[ "${_dr_row%%|*}" = "$2" ] || continue
		_dr_out=$_dr_row
		return 0
	done
	return 1
}

# The options an x86 entry runs with to avoid a known defect of this QEMU, with
# the words that say so, into QEMU_AVOID (array) and QEMU_AVOID_WHY: under
# -icount on a QEMU whose x2APIC timer aborts there, the CPU the runner would
# choose without x2APIC (an entry that names its -cpu keeps it).
# shellcheck disable=SC2034 # QEMU_AVOID, QEMU_AVOID_WHY: run_entry_cmd's
qemu_avoid() { # arch version accel params...
	local arch=$1 v=$2 accel=$3 row from through
	shift 3
	QEMU_AVOID=() QEMU_AVOID_WHY=""
	[ "$accel" = tcg ] && [ "$arch" != aarch64 ] || return 0
	[[ " $* " == *' -icount '* ]] || return 0
	arch_has_option cpu "$@" && return 0
	qemu_defect_row_into row qemu-x2apic-icount
	IFS='|' read -r _ from through _ <<<"$row"
	qemu_version_in "$v" "$from" "$through" || return 0
	QEMU_AVOID=(-cpu 'max,-x2apic')
	QEMU_AVOID_WHY="-cpu max,-x2apic: QEMU $v exits with 'Bad icount read' on the x2APIC timer under -icount (qemu-x2apic-icount, docs/upstream/qemu-x2apic-icount.md)"
}

# A guest's failures, from its console on stdin, one a line as the rows'
# evidence reads them: "bound NAME VALUE UNIT BAND..." for a FAIL line right
# after its BOUND line, "check SENTENCE" for any other FAIL line.
qemu_guest_failures() {
	awk '{ sub(/\r$/, "") }
	/^BOUND: / { bound = substr($0, 8); at = NR + 1; next }
	/^FAIL: / { if (NR == at) print "bound " bound; else print "check " substr($0, 7) }'
}

# Whether the figure lies beyond every band, above or below (ends "inf", "-inf").
qemu_figure_beyond() { # above|below value band...
	awk -v side="$1" -v v="$2" 'BEGIN {
		for (i = 3; i < ARGC; i++) {
			n = split(ARGV[i], end, /\.\./)
			if (n != 2) exit 1
			if (side == "above" && (end[2] == "inf" || v + 0 <= end[2] + 0)) exit 1
			if (side == "below" && (end[1] == "-inf" || v + 0 >= end[1] + 0)) exit 1
		}
		exit ARGC < 4
	}' "$@"
}

# Whether one failed bounded check ("NAME VALUE UNIT BAND...") matches a pattern.
qemu_bound_matches() { # pattern failure
	local pat=$1 glob=${1%[<>]} name value
	local -a words
	read -r -a words <<<"$2"
	name=${words[0]:-} value=${words[1]:-}
	# shellcheck disable=SC2053 # a glob, on purpose
	[[ $name == $glob ]] || return 1
	case $pat in
	*'>') qemu_figure_beyond above "$value" "${words[@]:3}" ;;
	*'<') qemu_figure_beyond below "$value" "${words[@]:3}" ;;
	*) return 0 ;;
	esac
}

# Whether a row's evidence explains every failure given (qemu_guest_failures'
# lines, or "qemu MESSAGE").
qemu_evidence_explains() { # evidence failures...
	local failure part ok
	local -a parts
	IFS=';' read -r -a parts <<<"$1"
	shift
	(($#)) || return 1
	for failure in "$@"; do
		ok=""
		for part in "${parts[@]}"; do
			if qemu_part_explains "$part" "$failure"; then ok=1 && break; fi
		done
		[ -n "$ok" ] || return 1
	done
}

# Whether one kind of evidence ("kind:body") explains one failure.
qemu_part_explains() { # part failure
	local kind=${1%%:*} body=${1#*:} failure=$2 pat
	local -a pats
	case $kind in
	bound)
		[[ $failure == 'bound '* ]] || return 1
		read -r -a pats <<<"$body"
		for pat in "${pats[@]}"; do
			qemu_bound_matches "$pat" "${failure#bound }" && return 0
		done
		return 1
		;;
	qemu) [[ $failure == 'qemu '* && ${failure#qemu } =~ $body ]] ;;
	*) return 1 ;;
	esac
}

# Whether a row applies to this run: accelerator, -icount where it asks for
# it, and the entry among its globs.
qemu_defect_applies() { # row accel entry cmdline
	local acc entries where pat
	local -a pats
	IFS='|' read -r _ _ _ acc entries where _ <<<"$1"
	[ "$acc" = "$2" ] || return 1
	[ "$where" != icount ] || [[ " $4 " == *' -icount '* ]] || return 1
	read -r -a pats <<<"$entries"
	for pat in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a glob, on purpose
		[[ $3 == $pat ]] && return 0
	done
	return 1
}

# The known defect of QEMU version v that explains every failure given
# (qemu_guest_failures' lines, or "qemu MESSAGE" when the guest failed no
# check), for this entry, accelerator and command: its row into QEMU_DEFECT.
# A row whose evidence explains them on a version outside its range goes
# into QEMU_DEFECT_OUTSIDE instead (the defect seen where it was not known).
# shellcheck disable=SC2034 # QEMU_DEFECT, QEMU_DEFECT_OUTSIDE: run_known_defect's
qemu_known_defect() { # version accel entry cmdline failures...
	local v=$1 accel=$2 entry=$3 cmd=$4 row from through evidence
	shift 4
	QEMU_DEFECT="" QEMU_DEFECT_OUTSIDE=""
	(($#)) || return 1
	for row in "${QEMU_DEFECTS[@]}"; do
		qemu_defect_applies "$row" "$accel" "$entry" "$cmd" || continue
		IFS='|' read -r _ from through _ _ _ _ evidence <<<"$row"
		qemu_evidence_explains "$evidence" "$@" || continue
		if qemu_version_in "$v" "$from" "$through"; then
			QEMU_DEFECT=$row
			return 0
		fi
		[ -n "$QEMU_DEFECT_OUTSIDE" ] || QEMU_DEFECT_OUTSIDE=$row
	done
	return 1
}

# Each row's fields checked, for scripts/check.sh's and the host tests'
# sanity: a line per fault, nothing when all is well.
qemu_defects_check() {
	local row id from through acc entries where what evidence kind part re='^[0-9]+\.[0-9]+(\.[0-9]+)?$'
	local -a parts
	for row in "${QEMU_DEFECTS[@]}"; do
		IFS='|' read -r id from through acc entries where what evidence <<<"$row"
		[[ $from =~ $re && $through =~ $re ]] || echo "$id: versions '$from' to '$through' are not MAJOR.MINOR[.MICRO]"
		qemu_version_ge "$through" "$from" || echo "$id: its range ends ($through) before it starts ($from)"
		[[ $acc == tcg || $acc == kvm ]] || echo "$id: accelerator '$acc' is neither tcg nor kvm"
		[[ $where == icount || $where == any ]] || echo "$id: where '$where' is neither icount nor any"
		[ -n "$entries" ] && [ -n "$what" ] || echo "$id: no entries or no description"
		IFS=';' read -r -a parts <<<"$evidence"
		((${#parts[@]})) || echo "$id: no evidence"
		for part in "${parts[@]}"; do
			kind=${part%%:*}
			[[ " ${QEMU_DEFECT_EVIDENCE_KINDS[*]} " == *" $kind "* && $part == *:?* ]] ||
				echo "$id: evidence '$part' is not one of ${QEMU_DEFECT_EVIDENCE_KINDS[*]} followed by ':' and what to match"
		done
	done
}
