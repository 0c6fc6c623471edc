# SPDX-License-Identifier: GPL-2.0-only
# TAP version 13 on stdout: one test point per test, the guest's report lines as an indented subtest.
# shellcheck shell=bash

TAP_N=0

tap_begin() {
	echo "TAP version 13"
}

# A '#' in a description would start a directive.
tap_escape() { # text
	local s=${1//\\/\\\\}
	echo "${s//#/\\#}"
}

# A single-quoted YAML scalar, control characters dropped.
tap_yaml_str() { # text
	local s=${1//[$'\001'-$'\037']/}
	echo "'${s//\'/\'\'}'"
}

# The guest's PASS/FAIL/SKIP/KFAIL lines as subtest points (KFAIL as TODO), INFO lines as comments.
tap_subtest() { # test
	local line k=0 body=""
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'PASS: '*) k=$((k + 1)) body+="    ok $k - $(tap_escape "${line#PASS: }")"$'\n' ;;
		'FAIL: '*) k=$((k + 1)) body+="    not ok $k - $(tap_escape "${line#FAIL: }")"$'\n' ;;
		'SKIP: '*) k=$((k + 1)) body+="    ok $k # SKIP $(tap_escape "${line#SKIP: }")"$'\n' ;;
		'KFAIL: '*) k=$((k + 1)) body+="    not ok $k - $(tap_escape "${line#KFAIL: }") # TODO known host defect"$'\n' ;;
		'INFO: '*) body+="    # $line"$'\n' ;;
		esac
	done < <(tail -n +2 "$LOGDIR/$1.log")
	((k > 0)) || return 0
	printf '# Subtest: %s\n%s    1..%d\n' "$1" "$body" "$k"
}

# Called with R_OUTCOME, R_MSG, R_USEC set by report_read.
tap_test() { # test
	local t=$1 name
	TAP_N=$((TAP_N + 1))
	name=$(tap_escape "$t")
	tap_subtest "$t"
	case $R_OUTCOME in
	PASS) echo "ok $TAP_N - $name" ;;
	SKIP) echo "ok $TAP_N - $name # SKIP $(tap_escape "$R_MSG")" ;;
	KFAIL) echo "not ok $TAP_N - $name # TODO known host defect: $(tap_escape "$R_MSG")" ;;
	*) echo "not ok $TAP_N - $name" ;;
	esac
	echo "  ---"
	echo "  outcome: $R_OUTCOME"
	echo "  message: $(tap_yaml_str "$R_MSG")"
	echo "  duration_ms: $((R_USEC / 1000))"
	echo "  log: $(tap_yaml_str "$LOGDIR/$t.log")"
	echo "  ..."
}

tap_end() {
	echo "1..$TAP_N"
}

# A run that cannot start at all (cfg error, no build).
tap_bail() { # reason
	echo "Bail out! $1"
}
