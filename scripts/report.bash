# SPDX-License-Identifier: GPL-2.0-only
# What the user sees: one line per finished test, the RESULT figures, the counts and the exit status.
# shellcheck shell=bash

# NOTRUN: never started, the run having been interrupted first: counted apart,
# neither failed nor skipped (the run's status is its signal's anyway).
declare -gA REPORT_COUNT=([PASS]=0 [KFAIL]=0 [FAIL]=0 [SKIP]=0 [TIMEOUT]=0 [CRASH]=0 [ERROR]=0 [INTERRUPTED]=0 [NOTRUN]=0)
# The outcomes that count as failed, in the order the breakdown lists them.
REPORT_FAILED_OUTCOMES=(FAIL TIMEOUT CRASH ERROR INTERRUPTED)
declare -ga REPORT_DONE=()      # tests in the order they finished
declare -ga REPORT_AGAIN=()     # tests the runner ran more than once (a busy host)
declare -ga REPORT_DEFECTS=()   # "test|outcome|QEMU version|message" of each defect's reproducer
REPORT_COLOUR=0

# Worst outcome -> exit status (PASS, KFAIL and SKIP are 0). INTERRUPTED has
# none: an interrupted run exits with its signal's status (128 + n).
report_status_of() { # outcome
	case $1 in
	FAIL) echo 1 ;;
	TIMEOUT) echo 2 ;;
	CRASH) echo 3 ;;
	ERROR) echo 4 ;;
	*) echo 0 ;;
	esac
}

report_init() {
	if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "$RUN_TAP" = 0 ]; then REPORT_COLOUR=1; fi
}

# The result file written by run_write_result: outcome, microseconds,
# message, start time (UTC), attempts (more than 1: run again on a busy host).
# What report_read read that only the JUnit writer uses.
report_start() { echo "$R_START"; }

# The accelerator of a log's header (run_write_header), or nothing when QEMU
# never started: the runner's lines after the command, up to the console.
report_log_accel() { # log
	local line
	{
		IFS= read -r line || return 0
		while IFS= read -r line && [[ $line == 'runner: '* ]]; do
			if [[ $line == "$RUN_ACCEL_RECORD"* ]]; then
				echo "${line#"$RUN_ACCEL_RECORD"}"
				return 0
			fi
		done
	} <"$1"
}

report_read() { # test -> R_OUTCOME R_USEC R_MSG R_START R_ATTEMPTS R_SECS
	{
		IFS= read -r R_OUTCOME
		IFS= read -r R_USEC
		IFS= read -r R_MSG
		IFS= read -r R_START
		IFS= read -r R_ATTEMPTS || R_ATTEMPTS=1
	} <"$RUN_TMP/$1.result"
	R_SECS=$(printf '%d.%02d' $((R_USEC / USEC_PER_SEC)) $((R_USEC % USEC_PER_SEC * 100 / USEC_PER_SEC)))
}

report_line() { # test
	local colour="" reset=""
	if ((REPORT_COLOUR)); then
		case $R_OUTCOME in
		PASS) colour=$'\e[32m' ;;
		SKIP | KFAIL | NOTRUN) colour=$'\e[33m' ;;
		*) colour=$'\e[31m' ;;
		esac
		reset=$'\e[0m'
	fi
	printf '%s%-7s%s %s (%s s) %s\n' "$colour" "$R_OUTCOME" "$reset" "$1" "$R_SECS" "$R_MSG"
}

# The guest's figures, its RESULT lines and each BOUND line's figure (guest_result,
# guest_bound, scripts/guest.bash) -> logs/TEST.results ("name value unit") and one
# line "test name value unit" in logs/results.txt.
report_results() { # test
	local line r
	r="$LOGDIR/$1.results"
	: >"$r"
	while IFS= read -r line; do
		guest_result "$line" || guest_bound "$line" || continue
		echo "$GUEST_RESULT" >>"$r"
		echo "$1 $GUEST_RESULT" >>"$LOGDIR/results.txt"
	done < <(tail -n +2 "$LOGDIR/$1.log")
	[ -s "$r" ] || rm -f "$r"
}

# Called by the scheduler as each test finishes.
report_finished() { # test
	local t=$1
	report_read "$t"
	REPORT_COUNT[$R_OUTCOME]=$((REPORT_COUNT[$R_OUTCOME] + 1))
	# run again on a busy host (runner.bash, run_test): said in the closing lines
	if ((R_ATTEMPTS > 1)); then REPORT_AGAIN+=("$t"); fi
	REPORT_DONE+=("$t")
	report_note_defect "$t"
	report_results "$t"
	tap_test "$t"
	if [ "$RUN_TAP" = 0 ]; then report_line "$t"; fi
}

report_failed() {
	local o n=0
	for o in "${REPORT_FAILED_OUTCOMES[@]}"; do n=$((n + REPORT_COUNT[$o])); done
	echo "$n"
}

report_count_line() {
	echo "${REPORT_COUNT[PASS]} passed, $(report_failed) failed, ${REPORT_COUNT[SKIP]} skipped"
}

report_exit_status() {
	local o worst=0 s
	for o in FAIL TIMEOUT CRASH ERROR; do
		s=$(report_status_of "$o")
		if ((REPORT_COUNT[$o] > 0 && s > worst)); then worst=$s; fi
	done
	echo "$worst"
}

# Tests that passed but for known host defects (KFAIL) are neither passed
# nor failed in the counts line: they get a line of their own before it.
report_kfail_line() {
	if ((REPORT_COUNT[KFAIL] > 0)); then
		echo "known host defects: ${REPORT_COUNT[KFAIL]} KFAIL (passed apart from them)"
	fi
	if ((REPORT_COUNT[NOTRUN] > 0)); then
		echo "not started: ${REPORT_COUNT[NOTRUN]} (the run was interrupted before them)"
	fi
	# a verdict from a later attempt is worth less than one from a quiet host: say so
	if ((${#REPORT_AGAIN[@]} > 0)); then
		echo "run again on a busy host: ${REPORT_AGAIN[*]} (see their lines and logs)"
	fi
}

# A QEMU defect's reproducer (an entry named after a row of QEMU_DEFECTS) is
# kept for the defects table, with the QEMU version of its log's header
# (run_header: `runner: qemu VERSION BINARY`).
report_note_defect() { # test
	local row line v=unknown
	qemu_defect_row_into row "$1" || return 0
	while IFS= read -r line; do
		[[ $line == "$RUN_QEMU_RECORD"* ]] || continue
		v=${line#"$RUN_QEMU_RECORD"}
		v=${v%% *} # the version, before the binary
		break
	done < <(head -n "$RUN_HEADER_LINES" "$LOGDIR/$1.log" 2>/dev/null)
	REPORT_DEFECTS+=("$1|$R_OUTCOME|$v|$R_MSG")
}

# What a reproducer's outcome says about its defect on this QEMU, into the variable named var.
report_defect_verdict_into() { # var outcome message
	local -n _dv_out=$1
	case $2 in
	PASS) _dv_out="PASS: does not have it" ;;
	KFAIL) _dv_out="KFAIL: has it, within its known range" ;;
	FAIL) if [[ $3 == 'QEMU defect '*' seen outside its known range'* ]]; then
		_dv_out="FAIL: has it, outside its known range"
	else
		_dv_out="FAIL: fails otherwise (its line above says how)"
	fi ;;
	*) _dv_out="$2: not judged (its line above says why)" ;;
	esac
}

# The defects table: each reproducer run, its defect's known range and what
# the run's QEMU showed (docs/upstream/ has a page per defect).
report_defects() {
	local d t outcome v msg row from through verdict
	((${#REPORT_DEFECTS[@]})) || return 0
	printf 'QEMU defects (docs/upstream/):\n'
	printf '  %-26s %-16s %-8s %s\n' defect 'known in' QEMU verdict
	for d in "${REPORT_DEFECTS[@]}"; do
		IFS='|' read -r t outcome v msg <<<"$d"
		qemu_defect_row_into row "$t"
		IFS='|' read -r _ from through _ <<<"$row"
		report_defect_verdict_into verdict "$outcome" "$msg"
		printf '  %-26s %-16s %-8s %s\n' "$t" "$from to $through" "$v" "$verdict"
	done
}

# The closing lines: a breakdown of the failures, then exactly "N passed, N failed, N skipped".
report_counts() {
	local o detail="" counts
	counts=$(report_count_line)
	for o in "${REPORT_FAILED_OUTCOMES[@]}"; do
		if ((REPORT_COUNT[$o] > 0)); then detail+="${detail:+, }${REPORT_COUNT[$o]} $o"; fi
	done
	if [ "$RUN_TAP" = 1 ]; then
		# stdout stays pure TAP (tap_end wrote the counts as a comment); the
		# plain line goes to stderr for people and CI logs.
		{
			report_defects
			[ -z "$detail" ] || echo "failed: $detail"
			report_kfail_line
			echo "$counts"
		} >&2
	else
		report_defects
		[ -z "$detail" ] || echo "failed: $detail"
		report_kfail_line
		echo "$counts"
	fi
}
