# SPDX-License-Identifier: GPL-2.0-only
# TAP version 13 (stdout with -t, a file with --tap-file): one test point per test, the guest's report lines as an indented subtest.
# shellcheck shell=bash

TAP_N=0
declare -ga TAP_FDS=()  # where TAP goes; empty: nowhere

tap_out() { # lines...
	local fd
	for fd in "${TAP_FDS[@]}"; do printf '%s\n' "$@" >&"$fd"; done
}

tap_begin() {
	tap_out "TAP version 13"
}

# A description escaped into the variable named var, without a subshell
# (it runs per guest line): a '#' in it would start a directive.
tap_escape_into() { # var text
	local -n _te_out=$1
	local s=${2//\\/\\\\}
	_te_out=${s//#/\\#}
}

# A single-quoted YAML scalar, control characters dropped.
tap_yaml_str() { # text
	local s=${1//[$'\001'-$'\037']/}
	echo "'${s//\'/\'\'}'"
}

# The guest's PASS/FAIL/SKIP/KFAIL lines as subtest points (KFAIL as TODO), INFO lines as comments.
tap_subtest() { # test
	local line k=0 body="" e
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'PASS: '* | 'FAIL: '* | 'SKIP: '* | 'KFAIL: '*) tap_escape_into e "${line#*: }" ;;
		esac
		case $line in
		'PASS: '*) k=$((k + 1)) body+="    ok $k - $e"$'\n' ;;
		'FAIL: '*)
			k=$((k + 1)) body+="    not ok $k - $e"
			# a run the runner found failing only by a known QEMU defect (run_known_defect)
			if [ "${R_OUTCOME:-}" = KFAIL ]; then body+=" # TODO known host defect"; fi
			body+=$'\n'
			;;
		'SKIP: '*) k=$((k + 1)) body+="    ok $k # SKIP $e"$'\n' ;;
		'KFAIL: '*) k=$((k + 1)) body+="    not ok $k - $e # TODO known host defect"$'\n' ;;
		'INFO: '*) body+="    # $line"$'\n' ;;
		esac
	done < <(tail -n +2 "$LOGDIR/$1.log")
	((k > 0)) || return 0
	tap_out "# Subtest: $1" "$body    1..$k"
}

# Called with R_OUTCOME, R_MSG, R_USEC set by report_read.
tap_test() { # test
	local t=$1 name point msg
	((${#TAP_FDS[@]})) || return 0
	TAP_N=$((TAP_N + 1))
	tap_escape_into name "$t"
	tap_escape_into msg "$R_MSG"
	tap_subtest "$t"
	case $R_OUTCOME in
	PASS) point="ok $TAP_N - $name" ;;
	SKIP | NOTRUN) point="ok $TAP_N - $name # SKIP $msg" ;;
	KFAIL) point="not ok $TAP_N - $name # TODO known host defect: $msg" ;;
	*) point="not ok $TAP_N - $name" ;;
	esac
	tap_out "$point" "  ---" "  outcome: $R_OUTCOME" "  message: $(tap_yaml_str "$R_MSG")" \
		"  duration_ms: $((R_USEC / USEC_PER_MSEC))" "  log: $(tap_yaml_str "$LOGDIR/$t.log")" \
		"  attempts: $R_ATTEMPTS" "  ..."
	tap_retried "$t"
}

# A test run again on a busy host: a diagnostic line per earlier attempt, so
# a pass on a later attempt is seen as one (docs/runner.md, "A busy host").
tap_retried() { # test
	local line n=0
	((R_ATTEMPTS > 1)) || return 0
	tap_out "# retried: $1 $R_OUTCOME on attempt $R_ATTEMPTS of $RUN_ATTEMPTS"
	while IFS= read -r line; do
		n=$((n + 1))
		tap_out "# retried: $1 attempt $n $line"
	done < <(run_earlier_attempts "$1")
}

# The plan (a run cut short by a signal still has one: its unfinished tests
# are 'not ok' INTERRUPTED points) and the counts as a comment.
tap_end() {
	tap_out "1..$TAP_N" "# $(report_count_line)"
}

# A run that cannot start at all (cfg error, no build, nothing selected).
tap_bail() { # reason
	tap_out "Bail out! $1"
}
