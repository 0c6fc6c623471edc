# SPDX-License-Identifier: GPL-2.0-only
# Which unittests.cfg entries a run takes (names, groups, -a, the build's arch), and why none when none.
# shellcheck shell=bash

# Whether nodefault entries are taken too (-a, and a standalone script's own test).
select_nodefault() { # 0 or 1
	SELECT_ALL=$1
}

# Every -g GROUP must be a group of some entry (of any arch): a typo is an error, not an empty run.
select_check_groups() {
	local g t known
	for g in "${MAIN_GROUPS[@]}"; do
		[ "$g" != nodefault ] || continue
		known=0
		for t in "${CFG_NAMES[@]}"; do
			if cfg_has_group "$t" "$g"; then known=1 && break; fi
		done
		((known)) || main_fatal "run_tests: no entry of $RUN_CFG_SHOWN is in group '$g' (groups there: $(select_all_groups))"
	done
}

select_all_groups() {
	local t g
	local -A seen=()
	for t in "${CFG_NAMES[@]}"; do
		for g in ${CFG_GROUPS[$t]:-}; do seen[$g]=1; done
	done
	if ((${#seen[@]} == 0)); then echo none; return; fi
	printf '%s\n' "${!seen[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# Whether TEST is asked for (named, in a -g group, or the default set);
# a group member left out only for being 'nodefault' goes to SELECT_NODEFAULT.
select_wanted() { # test named(0|1)
	local t=$1 g in_group=0
	(($2)) && return 0
	if ((${#MAIN_NAMES[@]} == 0 && ${#MAIN_GROUPS[@]} == 0)); then in_group=1; fi
	for g in "${MAIN_GROUPS[@]}"; do
		if cfg_has_group "$t" "$g"; then in_group=1; fi
	done
	((in_group)) || return 1
	if ((!SELECT_ALL)) && cfg_has_group "$t" nodefault && ! cfg_in_list nodefault "${MAIN_GROUPS[@]}"; then
		SELECT_NODEFAULT+=("$t")
		return 1
	fi
	return 0
}

# Fill MAIN_SELECTED with the tests to run, in cfg order. Selecting nothing is
# an error (exit 4) that says why: a typo in a CI job must not pass forever.
main_select() {
	local t p matched
	local -A named=()
	MAIN_SELECTED=() SELECT_OTHER_ARCH=() SELECT_NODEFAULT=()
	select_check_groups
	for p in "${MAIN_NAMES[@]}"; do
		matched=0
		for t in "${CFG_NAMES[@]}"; do
			# shellcheck disable=SC2053 # p is a pattern on purpose: names may be globs.
			if [[ $t == $p ]]; then matched=1 named[$t]=1; fi
		done
		((matched)) || main_fatal "run_tests: no test in $RUN_CFG_SHOWN matches '$p'$(select_did_you_mean "$p")"
	done
	for t in "${CFG_NAMES[@]}"; do
		select_wanted "$t" "${named[$t]:-0}" || continue
		if ! cfg_has_arch "$t" "$RUN_ARCH"; then
			((!RUN_VERBOSE)) || echo "not run: $t is for ${CFG_ARCH[$t]}, this build is $RUN_ARCH" >&2
			SELECT_OTHER_ARCH+=("$t")
			continue
		fi
		MAIN_SELECTED+=("$t")
	done
	((${#MAIN_SELECTED[@]})) || main_fatal "run_tests: nothing to run: $(select_why_none)"
}

# Edit distance from a to b into SELECT_DIST: insertions, deletions,
# substitutions and swaps of two neighbours ('hept' -> 'hpet') cost 1 each.
select_distance() { # a b
	local a=$1 b=$2 i j best w=$((${#2} + 1))
	local -a d=()
	for ((i = 0; i <= ${#a}; i++)); do d[i * w]=$i; done
	for ((j = 0; j <= ${#b}; j++)); do d[j]=$j; done
	for ((i = 1; i <= ${#a}; i++)); do
		for ((j = 1; j <= ${#b}; j++)); do
			best=$((d[(i - 1) * w + j - 1] + 1))
			[[ ${a:i-1:1} != "${b:j-1:1}" ]] || best=$((best - 1))
			((d[(i - 1) * w + j] + 1 >= best)) || best=$((d[(i - 1) * w + j] + 1))
			((d[i * w + j - 1] + 1 >= best)) || best=$((d[i * w + j - 1] + 1))
			if ((i > 1 && j > 1)) && [[ ${a:i-1:1} == "${b:j-2:1}" && ${a:i-2:1} == "${b:j-1:1}" ]] &&
				((d[(i - 2) * w + j - 2] + 1 < best)); then
				best=$((d[(i - 2) * w + j - 2] + 1))
			fi
			d[i * w + j]=$best
		done
	done
	SELECT_DIST=${d[${#a} * w + ${#b}]}
}

# For a name no test has: "; did you mean NAME?" naming the closest tests
# (of any arch), when one is close enough to be a typo of it; else nothing.
select_did_you_mean() { # name
	local p=${1,,} t best=-1 close=()
	[[ $p != *[][*?]* ]] || return 0 # a pattern, not a misspelt name
	for t in "${CFG_NAMES[@]}"; do
		select_distance "$p" "${t,,}"
		if ((best < 0 || SELECT_DIST < best)); then best=$SELECT_DIST close=(); fi
		((SELECT_DIST != best)) || close+=("$t")
	done
	# at most 2 edits, or a third of the name's length for a long one
	((best >= 0 && best <= (${#p} / 3 > 2 ? ${#p} / 3 : 2))) || return 0
	if ((${#close[@]} == 1)); then
		echo "; did you mean ${close[0]}?"
	elif ((${#close[@]} <= 3)); then
		echo "; did you mean ${close[*]:0:${#close[@]}-1} or ${close[-1]}?"
	else
		echo "; did you mean one of $(select_some "${close[@]}")?"
	fi
}

# One list of names, at most a few of them.
select_some() { # names...
	if (($# <= 3)); then echo "$*"; else echo "$1 $2 $3 and $(($# - 3)) more"; fi
}

select_why_none() {
	local what=()
	if ((${#MAIN_NAMES[@]})); then what+=("'${MAIN_NAMES[*]}'"); fi
	if ((${#MAIN_GROUPS[@]})); then what+=("group '${MAIN_GROUPS[*]}'"); fi
	if ((${#what[@]} == 0)); then what=("the default set"); fi
	if ((${#what[@]} == 2)); then what=("${what[0]} and ${what[1]}"); fi
	if ((${#CFG_NAMES[@]} == 0)); then
		echo "$RUN_CFG_SHOWN has no entries"
	elif ((${#SELECT_OTHER_ARCH[@]})); then
		echo "${what[0]} matched $(select_some "${SELECT_OTHER_ARCH[@]}"), not for $RUN_ARCH (this build: $RUN_BUILD); pick another build with --arch or --build"
	elif ((${#SELECT_NODEFAULT[@]})); then
		echo "${what[0]} matched only 'nodefault' entries ($(select_some "${SELECT_NODEFAULT[@]}")); add -a to run them"
	else
		echo "${what[0]} matched no entry of $RUN_CFG_SHOWN"
	fi
}
