# SPDX-License-Identifier: GPL-2.0-only
# JUnit XML for CI systems: one testsuite per run, one testcase per test, the log as system-out.
# shellcheck shell=bash

# Text XML 1.0 accepts: valid UTF-8 without control characters other than tab and newlines.
junit_clean() {
	if command -v iconv >/dev/null 2>&1; then
		iconv -c -f UTF-8 -t UTF-8
	else
		LC_ALL=C tr -d '\200-\377'
	fi | LC_ALL=C tr -d '\000-\010\013\014\016-\037\177'
}

junit_attr() { # text
	local s
	s=$(printf '%s' "$1" | junit_clean)
	s=${s//&/"&amp;"}
	s=${s//</"&lt;"}
	s=${s//>/"&gt;"}
	s=${s//\"/"&quot;"}
	s=${s//$'\t'/"&#9;"}
	s=${s//$'\r'/"&#13;"}
	echo "${s//$'\n'/"&#10;"}"
}

# A file as CDATA; "]]>" inside it is split across two sections.
junit_cdata() { # file
	printf '<![CDATA['
	junit_clean <"$1" | sed 's/]]>/]]]]><![CDATA[>/g'
	printf ']]>'
}

junit_testcase() { # test classname
	local t=$1 log="$LOGDIR/$1.log" fails
	report_read "$t"
	printf '    <testcase name="%s" classname="%s" time="%s">\n' \
		"$(junit_attr "$t")" "$(junit_attr "$2")" "$R_SECS"
	case $R_OUTCOME in
	PASS) ;;
	SKIP) printf '      <skipped message="%s"/>\n' "$(junit_attr "$R_MSG")" ;;
	KFAIL)
		# JUnit has no known-failure element: a <skipped> that says so, with the KFAIL lines
		fails=$(grep -a '^KFAIL: ' "$log" | tr -d '\r')
		printf '      <skipped type="KFAIL" message="%s">%s</skipped>\n' \
			"$(junit_attr "known host defect: $R_MSG")" "$(junit_attr "$fails")"
		;;
	FAIL)
		fails=$(grep -a '^FAIL: ' "$log" | tr -d '\r')
		printf '      <failure type="FAIL" message="%s">%s</failure>\n' \
			"$(junit_attr "$R_MSG")" "$(junit_attr "${fails:-$R_MSG}")"
		;;
	*)
		printf '      <error type="%s" message="%s">%s</error>\n' \
			"$R_OUTCOME" "$(junit_attr "$R_MSG")" "$(junit_attr "$R_OUTCOME: $R_MSG")"
		;;
	esac
	printf '      <system-out>'
	[ ! -r "$log" ] || junit_cdata "$log"
	printf '</system-out>\n'
	echo '    </testcase>'
}

# Write the whole report. FAIL is a <failure>; TIMEOUT, CRASH and ERROR
# (the test did not run to its end) are <error>s; SKIP and KFAIL are <skipped>.
junit_write() { # file total-usec [cfg-error]
	local file=$1 usec=$2 cfgerr=${3:-} suite="vmtick.${RUN_ARCH:-unknown}" t n fails errors secs skipped
	n=${#REPORT_DONE[@]}
	fails=${REPORT_COUNT[FAIL]}
	errors=$((REPORT_COUNT[TIMEOUT] + REPORT_COUNT[CRASH] + REPORT_COUNT[ERROR]))
	skipped=$((REPORT_COUNT[SKIP] + REPORT_COUNT[KFAIL]))
	if [ -n "$cfgerr" ]; then n=$((n + 1)) errors=$((errors + 1)); fi
	secs=$(printf '%d.%03d' $((usec / 1000000)) $((usec % 1000000 / 1000)))
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		printf '<testsuites name="vmtick" tests="%d" failures="%d" errors="%d" skipped="%d" time="%s">\n' \
			"$n" "$fails" "$errors" "$skipped" "$secs"
		printf '  <testsuite name="%s" tests="%d" failures="%d" errors="%d" skipped="%d" time="%s" timestamp="%s" hostname="%s">\n' \
			"$suite" "$n" "$fails" "$errors" "$skipped" "$secs" \
			"$(date -u +%Y-%m-%dT%H:%M:%S)" "$(junit_attr "$(uname -n)")"
		echo '    <properties>'
		printf '      <property name="arch" value="%s"/>\n' "$(junit_attr "${RUN_ARCH:-}")"
		printf '      <property name="build" value="%s"/>\n' "$(junit_attr "${RUN_BUILD:-}")"
		echo '    </properties>'
		if [ -n "$cfgerr" ]; then
			printf '    <testcase name="unittests.cfg" classname="%s" time="0">\n' "$suite"
			printf '      <error type="ERROR" message="%s"/>\n' "$(junit_attr "$cfgerr")"
			echo '    </testcase>'
		fi
		for t in "${REPORT_DONE[@]}"; do
			junit_testcase "$t" "$suite"
		done
		echo '    <system-out/>'
		echo '    <system-err/>'
		echo '  </testsuite>'
		echo '</testsuites>'
	} >"$file"
}
