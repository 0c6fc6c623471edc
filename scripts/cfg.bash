# SPDX-License-Identifier: GPL-2.0-only
# Reads unittests.cfg into arrays, checks every line, splits and expands values; never evaluates them.
# shellcheck shell=bash

CFG_KEYS=(file arch smp test_args qemu_params groups accel timeout events
	evidence kvm_params tcg_params kvm_args tcg_args qemu_min)
# The accelerators, in the order the runner prefers them: KVM where usable, else TCG.
CFG_ACCELS=(kvm tcg)
CFG_ARCHES=(x86_64 i386 aarch64)
CFG_PLACEHOLDERS=(host_time host_time_s host_time_ns host_cpus host_kind)
# What `evidence` may say: `host`, the guest asks scripts/host_evidence.py
# what the host did to QEMU's threads (docs/runner.md, "Host evidence for the guest").
CFG_EVIDENCE_KINDS=(host)

# Per test, keyed by section name. CFG_NAMES keeps the file's order.
# CFG_ACCEL_PARAMS and CFG_ACCEL_ARGS are keyed "ACCEL:test" (kvm_params = ...
# is CFG_ACCEL_PARAMS[kvm:test]); CFG_ACCEL holds the list, "kvm tcg" by default.
declare -gA CFG_FILE=() CFG_ARCH=() CFG_SMP=() CFG_ARGS=() CFG_PARAMS=() \
	CFG_GROUPS=() CFG_ACCEL=() CFG_TIMEOUT=() CFG_EVENTS=() CFG_EVIDENCE=() CFG_WHERE=() \
	CFG_ACCEL_PARAMS=() CFG_ACCEL_ARGS=() CFG_QEMU_MIN=()
declare -ga CFG_NAMES=()
CFG_ERRORS=0
# Messages of the last failed cfg_parse, one "file:line: message" each.
declare -ga CFG_ERROR_LINES=()

cfg_error() { # where message
	CFG_ERROR_LINES+=("$1: $2")
	CFG_ERRORS=$((CFG_ERRORS + 1))
}

cfg_in_list() { # word list...
	local w=$1 x
	shift
	for x in "$@"; do
		[ "$x" = "$w" ] && return 0
	done
	return 1
}

# Split a value into words like a shell would, without expanding anything:
# blanks separate words, '...' is literal, "..." is literal except \" and \\,
# and a backslash outside quotes takes the next character literally.
# Result in CFG_WORDS; returns 1 (with CFG_SPLIT_ERROR) on an unbalanced quote.
cfg_split_words() { # string
	local s=$1 i c word="" inword=0 quote=""
	CFG_WORDS=()
	CFG_SPLIT_ERROR=""
	# Without quotes or backslashes the words are what blanks separate: read
	# splits them at once (the character loop below, over every value of the
	# cfg, slowed each runner start: -l took 0.31 s with it, 0.26 s without).
	if [[ $s != *[\'\"\\]* ]]; then
		IFS=$' \t' read -r -a CFG_WORDS <<<"$s"
		return 0
	fi
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [ "$quote" = "'" ]; then
			if [ "$c" = "'" ]; then quote=""; else word+=$c; fi
		elif [ "$quote" = '"' ]; then
			if [ "$c" = '"' ]; then
				quote=""
			elif [ "$c" = "\\" ] && [[ ${s:i+1:1} == [\"\\] ]]; then
				word+=${s:i+1:1}
				i=$((i + 1))
			else
				word+=$c
			fi
		elif [[ $c == [[:blank:]] ]]; then
			if ((inword)); then CFG_WORDS+=("$word"); fi
			word=""
			inword=0
		elif [ "$c" = "'" ] || [ "$c" = '"' ]; then
			quote=$c
			inword=1
		elif [ "$c" = "\\" ]; then
			if ((i + 1 >= ${#s})); then
				CFG_SPLIT_ERROR="trailing backslash"
				return 1
			fi
			word+=${s:i+1:1}
			i=$((i + 1))
			inword=1
		else
			word+=$c
			inword=1
		fi
	done
	if [ -n "$quote" ]; then
		CFG_SPLIT_ERROR="unterminated $quote quote"
		return 1
	fi
	if ((inword)); then CFG_WORDS+=("$word"); fi
	return 0
}

# Every {name} made of lower-case letters and '_' must be a known placeholder;
# other braces (e.g. JSON in -device '{"driver": ...}') are left alone.
cfg_check_placeholders() { # where key value
	local v=$3 name
	while [[ $v =~ \{([a-z_]+)\} ]]; do
		name=${BASH_REMATCH[1]}
		if ! cfg_in_list "$name" "${CFG_PLACEHOLDERS[@]}"; then
			cfg_error "$1" "$2: unknown placeholder {$name} (known: ${CFG_PLACEHOLDERS[*]/#/\{})"
		fi
		v=${v#*"${BASH_REMATCH[0]}"}
	done
}

cfg_host_cpus() {
	nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1
}

# One key's value in an entry, empty when the entry does not set it; the keys
# other files read (file, arch, smp and groups have functions of their own).
cfg_value() { # test key
	local v
	cfg_value_into v "$1" "$2" || return
	echo "$v"
}

# cfg_value into the variable named var, without a subshell (what builds a
# command per entry: the runner, scripts/lava-jobs). Status 1 for a key it
# does not know, the variable then empty.
cfg_value_into() { # var test key
	# a name of its own: a nameref to a caller's variable must not see a local of the same name
	local -n _cv_out=$1
	case $3 in
	test_args) _cv_out=${CFG_ARGS[$2]:-} ;;
	qemu_params) _cv_out=${CFG_PARAMS[$2]:-} ;;
	accel) _cv_out=${CFG_ACCEL[$2]:-} ;;
	timeout) _cv_out=${CFG_TIMEOUT[$2]:-} ;;
	events) _cv_out=${CFG_EVENTS[$2]:-} ;;
	evidence) _cv_out=${CFG_EVIDENCE[$2]:-} ;;
	qemu_min) _cv_out=${CFG_QEMU_MIN[$2]:-} ;;
	kvm_params | tcg_params) _cv_out=${CFG_ACCEL_PARAMS[${3%_params}:$2]:-} ;;
	kvm_args | tcg_args) _cv_out=${CFG_ACCEL_ARGS[${3%_args}:$2]:-} ;;
	*)
		_cv_out=""
		return 1
		;;
	esac
}

# Whether the entry runs under ACCEL (its accel list; both by default).
cfg_has_accel() { # test accel
	local a
	for a in ${CFG_ACCEL[$1]:-${CFG_ACCELS[*]}}; do
		[ "$a" = "$2" ] && return 0
	done
	return 1
}

# The entry as cfg text again, from the parsed values (standalone scripts).
cfg_entry_text() { # test
	local t=$1
	echo "[$t]"
	echo "file = ${CFG_FILE[$t]}"
	echo "arch = ${CFG_ARCH[$t]}"
	echo "smp = ${CFG_SMP[$t]}"
	if [ -n "${CFG_ARGS[$t]+set}" ]; then echo "test_args = ${CFG_ARGS[$t]}"; fi
	if [ -n "${CFG_PARAMS[$t]+set}" ]; then echo "qemu_params = ${CFG_PARAMS[$t]}"; fi
	if [ -n "${CFG_GROUPS[$t]+set}" ]; then echo "groups = ${CFG_GROUPS[$t]}"; fi
	if [ -n "${CFG_ACCEL[$t]+set}" ]; then echo "accel = ${CFG_ACCEL[$t]}"; fi
	if [ -n "${CFG_TIMEOUT[$t]+set}" ]; then echo "timeout = ${CFG_TIMEOUT[$t]}"; fi
	if [ -n "${CFG_EVENTS[$t]+set}" ]; then echo "events = ${CFG_EVENTS[$t]}"; fi
	if [ -n "${CFG_EVIDENCE[$t]+set}" ]; then echo "evidence = ${CFG_EVIDENCE[$t]}"; fi
	if [ -n "${CFG_QEMU_MIN[$t]+set}" ]; then echo "qemu_min = ${CFG_QEMU_MIN[$t]}"; fi
	local a
	for a in "${CFG_ACCELS[@]}"; do
		if [ -n "${CFG_ACCEL_PARAMS[$a:$t]+set}" ]; then echo "${a}_params = ${CFG_ACCEL_PARAMS[$a:$t]}"; fi
		if [ -n "${CFG_ACCEL_ARGS[$a:$t]+set}" ]; then echo "${a}_args = ${CFG_ACCEL_ARGS[$a:$t]}"; fi
	done
}

# Substitute the placeholders in one value. The time is read here, so call it
# right before QEMU starts. EPOCHREALTIME has microsecond resolution.
cfg_expand() { # value var: the result in the variable named var (no subshell)
	local v=$1 now=${EPOCHREALTIME:-} sec usec
	if [[ $v == *'{'* ]]; then
		if [ -z "$now" ]; then now="$(date +%s).000000"; fi
		now=${now/,/.}
		sec=${now%.*}
		usec=${now#*.}
		v=${v//\{host_time_ns\}/$sec${usec}000}
		v=${v//\{host_time_s\}/$sec}
		v=${v//\{host_time\}/$sec.${usec}000}
		if [[ $v == *'{host_cpus}'* ]]; then
			v=${v//\{host_cpus\}/$(cfg_host_cpus)}
		fi
		if [[ $v == *'{host_kind}'* ]]; then
			v=${v//\{host_kind\}/$(arch_host_kind)}
		fi
	fi
	printf -v "$2" '%s' "$v"
}

cfg_check_value() { # where section key value
	local where=$1 name=$2 key=$3 v=$4 w
	case $key in
	file)
		[[ $v =~ ^[A-Za-z0-9_.+-]+$ ]] ||
			cfg_error "$where" "file: '$v' is not a kernel file name (like selftest.flat)"
		;;
	arch)
		cfg_split_words "${v//,/ }"
		((${#CFG_WORDS[@]})) || cfg_error "$where" "arch: empty list"
		for w in "${CFG_WORDS[@]}"; do
			cfg_in_list "$w" "${CFG_ARCHES[@]}" ||
				cfg_error "$where" "arch: unknown arch '$w' (${CFG_ARCHES[*]})"
		done
		;;
	smp)
		[[ $v =~ ^[1-9][0-9]{0,3}$ || $v == '{host_cpus}' ]] ||
			cfg_error "$where" "smp: '$v' is not a CPU count (1, 2, ... or {host_cpus})"
		;;
	test_args | kvm_args | tcg_args) cfg_check_placeholders "$where" "$key" "$v" ;;
	qemu_params | kvm_params | tcg_params)
		cfg_split_words "$v" || cfg_error "$where" "$key: $CFG_SPLIT_ERROR"
		cfg_check_placeholders "$where" "$key" "$v"
		;;
	groups)
		cfg_split_words "$v"
		for w in "${CFG_WORDS[@]}"; do
			[[ $w =~ ^[A-Za-z0-9_.+-]+$ ]] || cfg_error "$where" "groups: bad group name '$w'"
		done
		;;
	accel)
		cfg_split_words "${v//,/ }"
		((${#CFG_WORDS[@]})) || cfg_error "$where" "accel: empty list (kvm, tcg or both)"
		local -A seen=()
		for w in "${CFG_WORDS[@]}"; do
			if ! cfg_in_list "$w" "${CFG_ACCELS[@]}"; then
				cfg_error "$where" "accel: '$w' is neither kvm nor tcg"
			elif [ -n "${seen[$w]:-}" ]; then
				cfg_error "$where" "accel: '$w' named twice"
			fi
			seen[$w]=1
		done
		;;
	timeout)
		[[ $v =~ ^[0-9]+(\.[0-9]+)?$ && ! $v =~ ^0+(\.0+)?$ ]] ||
			cfg_error "$where" "timeout: '$v' is not a positive number of seconds"
		;;
	events)
		# docs/lifecycle.md; scripts/lifecycle.py checks the same, for standalone use
		cfg_split_words "$v"
		((${#CFG_WORDS[@]})) || cfg_error "$where" "events: empty list"
		for w in "${CFG_WORDS[@]}"; do
			[[ $w =~ ^((pause|save)=[0-9]{1,3}(\.[0-9]{1,3})?|save|migrate|reset|pingpong=([1-9][0-9]?|100)|migrate=([2-9]|1[0-6]))$ ]] ||
				cfg_error "$where" "events: bad event '$w' (pause=SECONDS, save[=SECONDS], migrate, reset, pingpong=N with N 1..100, migrate=N with N 2..16)"
		done
		;;
	qemu_min)
		# the oldest QEMU the entry runs on (a machine type it names, say): older ones SKIP
		[[ $v =~ ^[0-9]+\.[0-9]+$ ]] || cfg_error "$where" "qemu_min: '$v' is not a QEMU version such as 9.0"
		;;
	evidence)
		cfg_in_list "$v" "${CFG_EVIDENCE_KINDS[@]}" ||
			cfg_error "$where" "[$name] evidence: '$v' is not a kind of evidence (known: ${CFG_EVIDENCE_KINDS[*]})"
		;;
	esac
	: "$name"
}

cfg_store() { # section key value
	case $2 in
	file) CFG_FILE[$1]=$3 ;;
	arch) CFG_ARCH[$1]=${3//,/ } ;;
	smp) CFG_SMP[$1]=$3 ;;
	test_args)
		CFG_ARGS[$1]=$3 ;;
	qemu_params)
		CFG_PARAMS[$1]=$3 ;;
	groups) CFG_GROUPS[$1]=$3 ;;
	accel)
		cfg_split_words "${3//,/ }"
		CFG_ACCEL[$1]=${CFG_WORDS[*]} ;;
	kvm_params | tcg_params) CFG_ACCEL_PARAMS[${2%_params}:$1]=$3 ;;
	kvm_args | tcg_args) CFG_ACCEL_ARGS[${2%_args}:$1]=$3 ;;
	timeout)
		CFG_TIMEOUT[$1]=$3 ;;
	events)
		CFG_EVENTS[$1]=$3 ;;
	evidence) CFG_EVIDENCE[$1]=$3 ;;
	qemu_min) CFG_QEMU_MIN[$1]=$3 ;;
	esac
}

# Read a cfg file. Returns 1 after collecting every error in CFG_ERROR_LINES.
cfg_parse() { # file [display-name]
	local file=$1 shown=${2:-$1} line n=0 section="" key value
	local -A seen_keys=()
	CFG_ERRORS=0
	CFG_ERROR_LINES=()
	if [ ! -r "$file" ]; then
		cfg_error "$shown" "cannot read the test configuration"
		return 1
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%$'\r'}
		# Trim blanks at both ends.
		line=${line#"${line%%[![:blank:]]*}"}
		line=${line%"${line##*[![:blank:]]}"}
		case $line in
		'' | '#'*) continue ;;
		esac
		if [[ $line =~ ^\[([A-Za-z0-9_.+-]+)\]$ ]]; then
			cfg_finish_section "$section"
			section=${BASH_REMATCH[1]}
			if [ -n "${CFG_WHERE[$section]:-}" ]; then
				cfg_error "$shown:$n" "[$section] already defined at ${CFG_WHERE[$section]}"
				section="#dup"
				continue
			fi
			CFG_WHERE[$section]="$shown:$n"
			CFG_NAMES+=("$section")
			seen_keys=()
		elif [[ $line == '['* ]]; then
			cfg_error "$shown:$n" "malformed section header '$line' (want [name] with letters, digits, _ . + -)"
			section="#bad"
		elif [[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)[[:blank:]]*=[[:blank:]]*(.*)$ ]]; then
			key=${BASH_REMATCH[1]}
			value=${BASH_REMATCH[2]}
			if ! cfg_in_list "$key" "${CFG_KEYS[@]}"; then
				cfg_error "$shown:$n" "unknown key '$key' (known: ${CFG_KEYS[*]})"
			elif [ -z "$section" ]; then
				cfg_error "$shown:$n" "'$key' outside a [section]"
			elif [[ $section == '#'* ]]; then
				: # The section header was already reported.
			elif [ -n "${seen_keys[$key]:-}" ]; then
				cfg_error "$shown:$n" "'$key' given twice in [$section] (first at line ${seen_keys[$key]})"
			else
				seen_keys[$key]=$n
				cfg_check_value "$shown:$n" "$section" "$key" "$value"
				cfg_store "$section" "$key" "$value"
			fi
		else
			cfg_error "$shown:$n" "malformed line '$line' (want 'key = value', '[name]' or '# comment')"
		fi
	done <"$file"
	cfg_finish_section "$section"
	((CFG_ERRORS == 0))
}

# Checks that need the whole section, and defaults.
cfg_finish_section() { # section
	local s=$1
	if [ -z "$s" ] || [[ $s == '#'* ]]; then
		return 0
	fi
	if [ -z "${CFG_FILE[$s]:-}" ]; then
		cfg_error "${CFG_WHERE[$s]}" "[$s] has no 'file' key"
	fi
	: "${CFG_ARCH[$s]:=${CFG_ARCHES[*]}}"
	: "${CFG_SMP[$s]:=1}"
	local a
	for a in "${CFG_ACCELS[@]}"; do
		cfg_has_accel "$s" "$a" && continue
		if [ -n "${CFG_ACCEL_PARAMS[$a:$s]+set}" ] || [ -n "${CFG_ACCEL_ARGS[$a:$s]+set}" ]; then
			cfg_error "${CFG_WHERE[$s]}" "[$s] sets ${a}_params or ${a}_args but does not run under $a (accel = ${CFG_ACCEL[$s]})"
		fi
	done
}

cfg_has_group() { # test group
	local g
	for g in ${CFG_GROUPS[$1]:-}; do
		[ "$g" = "$2" ] && return 0
	done
	return 1
}

cfg_has_arch() { # test arch
	local a
	for a in ${CFG_ARCH[$1]}; do
		[ "$a" = "$2" ] && return 0
	done
	return 1
}
