# SPDX-License-Identifier: GPL-2.0-only
# JUnit XML for CI dashboards: a testsuite per QEMU run, a testcase per guest check, the run's outcome on its suite.
# shellcheck shell=bash

JUNIT_RUN_CASE=run # the testcase that carries a run's own outcome when its checks do not

# Text XML 1.0 accepts: valid UTF-8 without control characters other than tab and newlines.
junit_clean() {
	if command -v iconv >/dev/null 2>&1; then
		iconv -c -f UTF-8 -t UTF-8
	else
		LC_ALL=C tr -d '\200-\377'
	fi | LC_ALL=C tr -d '\000-\010\013\014\016-\037\177'
}

# Escape already clean text for an attribute, without a fork: result in JUNIT_ESC.
junit_esc() { # text
	local s=$1
	s=${s//&/"&amp;"}
	s=${s//</"&lt;"}
	s=${s//>/"&gt;"}
	s=${s//\"/"&quot;"}
	s=${s//$'\t'/"&#9;"}
	s=${s//$'\r'/"&#13;"}
	JUNIT_ESC=${s//$'\n'/"&#10;"}
}

# Clean and escape any text for an attribute, into JUNIT_ESC. Text of
# printable ASCII, tabs and newlines is clean already: only the rest goes
# through junit_clean (a fork and two execs), the common case forks nothing.
# Trailing newlines go, as a command substitution drops them.
junit_attr_esc() { # text
	local s=$1
	if [[ $s == *[!\ -~$'\t\n\r']* ]]; then
		s=$(printf '%s' "$s" | junit_clean)
	else
		while [[ $s == *$'\n' ]]; do s=${s%$'\n'}; done
	fi
	junit_esc "$s"
}

# Clean and escape any text for an attribute.
junit_attr() { # text
	junit_attr_esc "$1"
	echo "$JUNIT_ESC"
}

# A clean file as CDATA; "]]>" inside it is split across two sections.
junit_cdata() { # file
	printf '<![CDATA['
	sed 's/]]>/]]]]><![CDATA[>/g' "$1"
	printf ']]>'
}

junit_property() { # name value
	junit_attr_esc "$2"
	printf '      <property name="%s" value="%s"/>\n' "$1" "$JUNIT_ESC"
}

# The first line of QEMU's --version, once per report.
junit_qemu_version() {
	local qemu=${QEMU:-$(arch_default_qemu "${RUN_ARCH:-x86_64}")} v=""
	if command -v "$qemu" >/dev/null 2>&1; then
		v=$(timeout 10 "$qemu" --version </dev/null 2>/dev/null | head -n 1)
	fi
	echo "${v:-unknown (no $qemu --version)}"
}

# One testcase per PASS/FAIL/SKIP line of the guest, in JUNIT_CASES; counts in J_N J_F J_SK.
# Each bounded check's BOUND line (lib/report.h: NAME VALUE UNIT LO..HI...) in JUNIT_BOUNDS.
junit_checks() { # clean-log classname
	local line tag msg cls
	junit_esc "$2"
	cls=$JUNIT_ESC
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'PASS: '* | 'FAIL: '* | 'SKIP: '* | 'KFAIL: '*) ;;
		'BOUND: '*)
			JUNIT_BOUNDS+=("${line#BOUND: }")
			continue
			;;
		*) continue ;;
		esac
		tag=${line%%: *}
		# a run the runner found failing only by a known QEMU defect (run_known_defect)
		if [ "$tag" = FAIL ] && [ "${R_OUTCOME:-}" = KFAIL ]; then tag=KFAIL; fi
		junit_esc "${line#*: }"
		msg=$JUNIT_ESC
		J_N=$((J_N + 1))
		case $tag in
		PASS) JUNIT_CASES+="    <testcase name=\"$msg\" classname=\"$cls\" time=\"0\"/>"$'\n' ;;
		FAIL)
			J_F=$((J_F + 1))
			JUNIT_CASES+="    <testcase name=\"$msg\" classname=\"$cls\" time=\"0\">"$'\n'
			JUNIT_CASES+="      <failure type=\"FAIL\" message=\"$msg\"/>"$'\n    </testcase>\n'
			;;
		SKIP)
			J_SK=$((J_SK + 1))
			JUNIT_CASES+="    <testcase name=\"$msg\" classname=\"$cls\" time=\"0\">"$'\n'
			JUNIT_CASES+="      <skipped message=\"$msg\"/>"$'\n    </testcase>\n'
			;;
		KFAIL)
			# JUnit has no known failure: a <skipped> that says so (a known host defect, docs/clocks.md)
			J_SK=$((J_SK + 1))
			JUNIT_CASES+="    <testcase name=\"$msg\" classname=\"$cls\" time=\"0\">"$'\n'
			JUNIT_CASES+="      <skipped type=\"KFAIL\" message=\"known host defect: $msg\"/>"$'\n    </testcase>\n'
			;;
		esac
	done < <(tail -n +2 "$1")
}

# The run's own testcase, when its checks do not tell its outcome: it did not
# end normally, failed without a failing check, or was skipped by the runner.
# Appended to JUNIT_CASES.
junit_run_case() { # classname
	local cls kind="" msg
	junit_attr_esc "$1"
	cls=$JUNIT_ESC
	junit_attr_esc "$R_MSG"
	msg=$JUNIT_ESC
	case $R_OUTCOME in
	PASS) ((J_N == 0)) || return 0 ;;
	# a known host defect that left no checks (QEMU ended at once: run_known_defect)
	KFAIL) ((J_N == 0)) || return 0; kind=kfail J_SK=$((J_SK + 1)) ;;
	FAIL) ((J_F == 0)) || return 0; kind=failure J_F=$((J_F + 1)) ;;
	SKIP | NOTRUN) ((J_N == 0)) || return 0; kind=skipped J_SK=$((J_SK + 1)) ;;
	*) kind=error J_E=$((J_E + 1)) ;;
	esac
	J_N=$((J_N + 1))
	JUNIT_CASES+="    <testcase name=\"$JUNIT_RUN_CASE\" classname=\"$cls\" time=\"$R_SECS\">"$'\n'
	case $kind in
	skipped) JUNIT_CASES+="      <skipped message=\"$msg\"/>"$'\n' ;;
	kfail) JUNIT_CASES+="      <skipped type=\"KFAIL\" message=\"known host defect: $msg\"/>"$'\n' ;;
	?*) JUNIT_CASES+="      <$kind type=\"$R_OUTCOME\" message=\"$msg\">$R_OUTCOME: $msg</$kind>"$'\n' ;;
	esac
	JUNIT_CASES+="    </testcase>"$'\n'
}

# A test that passed (or KFAILed) only on a later attempt: its run's testcase
# carries each earlier attempt as a Surefire <flakyFailure>, which GitLab and
# Jenkins show as a flaky test. A test that failed on every attempt has its
# <failure> already. Appended to JUNIT_CASES.
junit_flaky_case() { # test classname
	local line msg
	((R_ATTEMPTS > 1)) || return 0
	[[ $R_OUTCOME == PASS || $R_OUTCOME == KFAIL ]] || return 0
	junit_attr_esc "$2"
	JUNIT_CASES+="    <testcase name=\"$JUNIT_RUN_CASE\" classname=\"$JUNIT_ESC\" time=\"$R_SECS\">"$'\n'
	while IFS= read -r line; do
		junit_attr_esc "${line#FAIL: }"
		msg=$JUNIT_ESC
		JUNIT_CASES+="      <flakyFailure type=\"FAIL\" message=\"$msg\"><stackTrace>FAIL: $msg</stackTrace></flakyFailure>"$'\n'
	done < <(run_earlier_attempts "$1")
	JUNIT_CASES+="    </testcase>"$'\n'
}

# One QEMU run as a testsuite; adds its counts to JT_N JT_F JT_E JT_SK.
junit_suite() { # test qemu-version host-kernel
	local t=$1 log="$LOGDIR/$1.log" clean="$RUN_TMP/$1.junit" cls cmd="" accel
	local J_N=0 J_F=0 J_E=0 J_SK=0 JUNIT_CASES="" b
	local -a JUNIT_BOUNDS=()
	report_read "$t"
	cls="vmtick.${RUN_ARCH:-unknown}.$t"
	if [ -r "$log" ]; then junit_clean <"$log" >"$clean"; else : >"$clean"; fi
	IFS= read -r cmd <"$clean"
	[[ $cmd != 'not started: '* ]] || cmd=""
	accel=$(report_log_accel "$clean")
	junit_checks "$clean" "$cls"
	junit_run_case "$cls"
	junit_flaky_case "$t" "$cls"
	junit_attr_esc "$t"
	printf '  <testsuite name="%s" tests="%d" failures="%d" errors="%d" skipped="%d" time="%s" timestamp="%s" hostname="%s">\n' \
		"$JUNIT_ESC" "$J_N" "$J_F" "$J_E" "$J_SK" "$R_SECS" "$(report_start)" "$JUNIT_HOSTNAME"
	echo '    <properties>'
	junit_property outcome "$R_OUTCOME"
	junit_property message "$R_MSG"
	junit_property arch "${RUN_ARCH:-}"
	junit_property accelerator "${accel:-none (QEMU did not start)}"
	junit_property qemu_version "$2"
	junit_property host_kernel "$3"
	junit_property command "$cmd"
	junit_property log "$log"
	junit_property attempts "$R_ATTEMPTS"
	# each bounded check's figure and bands, in order: "bound" NAME VALUE UNIT LO..HI...
	for b in "${JUNIT_BOUNDS[@]}"; do junit_property bound "$b"; done
	echo '    </properties>'
	printf '%s' "$JUNIT_CASES"
	printf '    <system-out>'
	junit_cdata "$clean"
	printf '</system-out>\n'
	echo '  </testsuite>'
	JT_N=$((JT_N + J_N)) JT_F=$((JT_F + J_F)) JT_E=$((JT_E + J_E)) JT_SK=$((JT_SK + J_SK))
}

# The whole report: <testsuites> around one suite per finished (or
# interrupted) run. FAIL is a <failure>; TIMEOUT, CRASH, ERROR and
# INTERRUPTED are <error>s; SKIP and NOTRUN (never started) are <skipped message="reason">.
junit_write() { # file total-usec
	local file=$1 usec=$2 t qv hk body="$RUN_TMP/junit.body" JT_N=0 JT_F=0 JT_E=0 JT_SK=0
	qv=$(junit_qemu_version)
	hk=$(uname -sr)
	# every suite's hostname attribute, read once
	junit_attr_esc "$(uname -n)"
	JUNIT_HOSTNAME=$JUNIT_ESC
	for t in "${REPORT_DONE[@]}"; do
		junit_suite "$t" "$qv" "$hk"
	done >"$body"
	# (a redirected loop runs in this shell: the totals are set)
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		printf '<testsuites name="vmtick.%s" tests="%d" failures="%d" errors="%d" skipped="%d" time="%s">\n' \
			"$(junit_attr "${RUN_ARCH:-unknown}")" "$JT_N" "$JT_F" "$JT_E" "$JT_SK" \
			"$(printf '%d.%03d' $((usec / USEC_PER_SEC)) $((usec % USEC_PER_SEC / USEC_PER_MSEC)))"
		cat "$body"
		echo '</testsuites>'
	} >"$file"
}

# A run that could not start: one suite with one errored testcase.
junit_write_fatal() { # file message
	local file=$1 msg
	msg=$(junit_attr "$2")
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		printf '<testsuites name="vmtick.%s" tests="1" failures="0" errors="1" skipped="0" time="0">\n' \
			"$(junit_attr "${RUN_ARCH:-unknown}")"
		printf '  <testsuite name="run_tests" tests="1" failures="0" errors="1" skipped="0" time="0" timestamp="%s" hostname="%s">\n' \
			"$(run_utc_now)" "$(junit_attr "$(uname -n)")"
		echo '    <properties>'
		junit_property outcome ERROR
		junit_property message "$2"
		junit_property arch "${RUN_ARCH:-}"
		junit_property accelerator "none (nothing started)"
		junit_property qemu_version "$(junit_qemu_version)"
		junit_property host_kernel "$(uname -sr)"
		echo '    </properties>'
		echo '    <testcase name="start" classname="vmtick.run_tests" time="0">'
		printf '      <error type="ERROR" message="%s">ERROR: %s</error>\n' "$msg" "$msg"
		echo '    </testcase>'
		echo '  </testsuite>'
		echo '</testsuites>'
	} >"$file"
}
