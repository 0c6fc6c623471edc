# SPDX-License-Identifier: GPL-2.0-only
# The runner's command line: options, test selection, logs, and the order of a run.
# shellcheck shell=bash

main_usage() {
	cat <<USAGE
Usage: ${RUN_PROG:-run_tests.sh} [options] [TEST...]

Runs the unittests.cfg entries of one configured build. TEST is a name or a
shell pattern ('selftest-*'). Without TEST or -g, every entry outside the
'nodefault' group runs.

  -g GROUP       run the tests of GROUP (repeatable)
  -a             include 'nodefault' tests
  -l             list what would run (-v: with the QEMU command) and exit
  -v             verbose: say why tests are left out, show commands with -l
  -j N           run tests in parallel on N CPU slots (a test takes min(smp, N))
  -t             TAP version 13 on stdout instead of the outcome lines
  --junit FILE   also write JUnit XML to FILE
  --tap-file FILE  also write TAP version 13 to FILE
  --arch ARCH    use the build for ARCH (x86_64, i386, aarch64; arm64, i686)
  --build DIR    use the build in DIR (also BUILD_DIR=DIR)
  --default-bios x86: boot with QEMU's default BIOS instead of qboot
  --qemu WHICH   the QEMU to run: a folder holding usr/bin/qemu-system-ARCH,
                 or a version ("10", "7.2") of the system's QEMU or of one
                 scripts/install-deps.sh put under /opt/vmtick-qemu
  --replay-bundle  a replay bundle for every entry run under TCG -icount,
                 not only for a FAIL (logs/NAME.replay/, docs/runner.md)
  -h             this help

Environment: QEMU, ACCEL (kvm|tcg), TIMEOUT, TIMEOUT_FACTOR, FIRMWARE,
LOGDIR, BUILD_DIR, NO_COLOR, VMTICK_HOST_TRACE (auto|0|1). See docs/runner.md.
USAGE
}

main_usage_error() { # message
	echo "${RUN_PROG:-run_tests.sh}: $1 (see -h)" >&2
	exit 4
}

main_is_number() { # text
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! $1 =~ ^0+(\.0+)?$ ]]
}

main_parse_args() { # args...
	RUN_TAP=0 RUN_LIST=0 RUN_VERBOSE=0 RUN_JUNIT="" RUN_TAP_FILE=""
	run_set_jobs 1
	select_nodefault 0
	RUN_REQ_ARCH="" RUN_REQ_BUILD=${BUILD_DIR:-} RUN_REQ_QEMU=
	MAIN_NAMES=() MAIN_GROUPS=()
	while (($#)); do
		case $1 in
		-h | --help) main_usage; exit 0 ;;
		-v | --verbose) RUN_VERBOSE=1 ;;
		-a | --all) select_nodefault 1 ;;
		-l | --list) RUN_LIST=1 ;;
		-t | --tap) RUN_TAP=1 ;;
		--default-bios)
			FIRMWARE=default ;;
		--replay-bundle) replay_force 1 ;;
		-g | -j | --group | --jobs | --arch | --build | --junit | --tap-file | --qemu)
			(($# >= 2)) || main_usage_error "$1 needs a value"
			main_option "$1" "$2"
			shift
			;;
		-g?* | -j?*) main_option "${1:0:2}" "${1:2}" ;;
		--arch=* | --build=* | --junit=* | --tap-file=* | --group=* | --jobs=* | --qemu=*) main_option "${1%%=*}" "${1#*=}" ;;
		--) shift; MAIN_NAMES+=("$@"); break ;;
		-*) main_usage_error "unknown option '$1'" ;;
		*) MAIN_NAMES+=("$1") ;;
		esac
		shift
	done
}

main_option() { # option value
	[ -n "$2" ] || main_usage_error "$1 needs a value"
	case $1 in
	-g | --group)
		[[ $2 =~ ^[A-Za-z0-9_.+-]+$ ]] || main_usage_error "-g: '$2' is not a group name (letters, digits, _ . + -)"
		MAIN_GROUPS+=("$2")
		;;
	-j | --jobs)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || main_usage_error "-j wants a positive number, not '$2'"
		run_set_jobs "$2"
		;;
	--arch)
		RUN_REQ_ARCH=$(arch_canonical "$2") || main_usage_error "--arch: unknown arch '$2' (${CFG_ARCHES[*]}, or arm64, i686)"
		;;
	--build)
		RUN_REQ_BUILD=$2 ;;
	--junit) RUN_JUNIT=$2 ;;
	--tap-file) RUN_TAP_FILE=$2 ;;
	--qemu)
		[ -z "${QEMU:-}" ] || main_usage_error "--qemu $2 and QEMU=$QEMU both name a QEMU: give one"
		RUN_REQ_QEMU=$2
		;;
	esac
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ] && [[ $1 == --arch || $1 == --build ]]; then
		main_usage_error "$1 means nothing to a standalone test"
	fi
}

# What every test's job would otherwise find again in a subshell of its
# own: QEMU's version (a QEMU start) and its data folder.
main_warm_caches() {
	local qemu=${QEMU:-} _v _d
	[ -n "$qemu" ] || arch_default_qemu_into qemu "$RUN_ARCH"
	command -v "$qemu" >/dev/null 2>&1 || return 0
	qemu_version_into _v "$qemu"
	arch_qemu_datadir _d "$qemu"
}

# --qemu: the binary for the build's arch becomes QEMU, as if set by hand.
main_pick_qemu() {
	[ -n "$RUN_REQ_QEMU" ] || return 0
	qemu_pick "$RUN_REQ_QEMU" "${RUN_ARCH:-x86_64}" || main_usage_error "$QEMU_PICK_ERROR"
	QEMU=$QEMU_PICKED
	export QEMU
}

main_check_env() {
	case ${ACCEL:-} in
	'' | kvm | tcg) ;;
	*) main_usage_error "ACCEL must be kvm or tcg, not '$ACCEL'" ;;
	esac
	if [ -n "${TIMEOUT:-}" ] && ! main_is_number "$TIMEOUT"; then
		main_usage_error "TIMEOUT must be a positive number of seconds, not '$TIMEOUT'"
	fi
	if [ -n "${TIMEOUT_FACTOR:-}" ] && ! main_is_number "$TIMEOUT_FACTOR"; then
		main_usage_error "TIMEOUT_FACTOR must be a positive number, not '$TIMEOUT_FACTOR'"
	fi
	case ${FIRMWARE:-qboot} in
	qboot | default | seabios) ;;
	*) [ -r "$FIRMWARE" ] || main_usage_error "FIRMWARE must be qboot, default or a readable ROM file, not '$FIRMWARE'" ;;
	esac
	host_trace_check_env || main_usage_error "$HOST_TRACE_ERROR"
	run_force_accel "${ACCEL:-}"
}

# An output file named by an option must be writable before any test runs.
main_check_output() { # option file
	local dir
	dir=$(dirname -- "$2")
	if [ -d "$2" ]; then
		main_fatal "${RUN_PROG:-run_tests.sh}: $1 $2: is a directory"
	elif [ ! -d "$dir" ] || [ ! -w "$dir" ] || { [ -e "$2" ] && [ ! -w "$2" ]; }; then
		main_fatal "${RUN_PROG:-run_tests.sh}: $1 $2: cannot write there (directory $dir missing or not writable)"
	fi
}

# The run cannot start (cfg error, no build, nothing selected, no log
# directory): say so in every format, count it as one failure, exit 4.
# With -l only the message.
main_fatal() { # message...
	local m fd
	for m in "$@"; do echo "$m" >&2; done
	if ((RUN_LIST)); then exit 4; fi
	TAP_FDS=()
	if [ "$RUN_TAP" = 1 ]; then TAP_FDS=(1); fi
	if [ -n "$RUN_TAP_FILE" ] && [ ! -d "$RUN_TAP_FILE" ] && [ -w "$(dirname -- "$RUN_TAP_FILE")" ] &&
		exec {fd}>"$RUN_TAP_FILE"; then
		TAP_FDS+=("$fd")
	fi
	if ((${#TAP_FDS[@]})); then
		tap_begin
		tap_bail "$1"
	fi
	if [ -n "$RUN_JUNIT" ] && [ ! -d "$RUN_JUNIT" ] && [ -w "$(dirname -- "$RUN_JUNIT")" ]; then
		junit_write_fatal "$RUN_JUNIT" "$*"
	fi
	if ((RUN_TAP)); then exec >&2; fi
	echo "0 passed, 1 failed, 0 skipped"
	exit 4
}

main_list() {
	local t
	local -a lines
	for t in "${MAIN_SELECTED[@]}"; do
		echo "$t"
		((RUN_VERBOSE)) || continue
		run_prepare "$t"
		if [ -n "$PREP_OUTCOME" ]; then
			echo "    ($PREP_OUTCOME: $PREP_MSG)"
		else
			run_build_cmd "$t"
			# the header indented, without a sed per entry
			mapfile -t lines < <(run_header)
			printf '    %s\n' "${lines[@]}"
		fi
	done
}

# Keep one generation of logs: the files of logs/ move to logs.old/, and
# the replay bundles (NAME.replay/) with them. Its other directories stay:
# they are other runs' (make run's logs/ARCH-CC/, the
# suites' logs/reports/, LOGDIR=logs/NAME runs), which a later plain run
# must not take away. A log directory that cannot be made or written is an
# error naming it, before any test starts.
main_logs() {
	local why e
	case $LOGDIR in
	/*) ;;
	*) LOGDIR=$PWD/$LOGDIR ;;
	esac
	if [ -z "${RUN_KERNEL_OVERRIDE:-}" ] && [ -e "$LOGDIR" ]; then
		rm -rf -- "${LOGDIR:?}.old" 2>/dev/null
		why=$(mkdir -- "$LOGDIR.old" 2>&1) ||
			main_fatal "${RUN_PROG:-run_tests.sh}: cannot make $LOGDIR.old for the last run's logs: ${why##*: }"
		for e in "$LOGDIR"/* "$LOGDIR"/.[!.]*; do
			# a FAIL's replay bundle (scripts/replay.bash) is this run's, not another run's
			if { [ -d "$e" ] && ! replay_is_bundle "$e"; } || { [ ! -e "$e" ] && [ ! -L "$e" ]; }; then continue; fi
			why=$(mv -- "$e" "$LOGDIR.old/" 2>&1) ||
				main_fatal "${RUN_PROG:-run_tests.sh}: cannot move $e to $LOGDIR.old: ${why##*: }"
		done
	fi
	why=$(mkdir -p -- "$LOGDIR" 2>&1) ||
		main_fatal "${RUN_PROG:-run_tests.sh}: cannot create the log directory $LOGDIR: ${why##*: }"
	if [ ! -w "$LOGDIR" ] || ! why=$(: 2>&1 >"$LOGDIR/.vmtick-write-test"); then
		main_fatal "${RUN_PROG:-run_tests.sh}: cannot write in the log directory $LOGDIR${why:+: ${why##*: }}"
	fi
	rm -f -- "$LOGDIR/.vmtick-write-test"
}

main_cleanup() {
	run_stop_all
	if [ -n "${RUN_TMP:-}" ]; then rm -rf -- "$RUN_TMP"; fi
}

# The trap only notes the signal: run_all stops starting and reaping tests,
# and main_interrupted finishes the reports.
main_signal() { # status
	RUN_SIGNAL=${RUN_SIGNAL:-$1}
}

# Stop what runs, report each unfinished test as INTERRUPTED and each one not
# started as NOTRUN, keep the rest.
main_interrupted() {
	local t sig started running=" ${RUN_PID_NAME[*]} "
	local -A finished=()
	sig=$(run_signal_name "$RUN_SIGNAL")
	echo "${RUN_PROG:-run_tests.sh}: interrupted by $sig, stopping the running tests" >&2
	run_stop_all
	for t in "${REPORT_DONE[@]}"; do finished[$t]=1; done
	for t in "${MAIN_SELECTED[@]}"; do
		[ -z "${finished[$t]:-}" ] || continue
		if [ -s "$RUN_TMP/$t.result" ]; then
			: # it ended before it could be stopped
		elif [[ $running == *" $t "* ]]; then
			started=$(run_started_usec "$t")
			run_write_result "$t" INTERRUPTED $(($(run_usec) - started)) \
				"stopped by the runner on $sig before it ended"
		else
			echo "not started: the run was interrupted by $sig" >"$LOGDIR/$t.log"
			run_write_result "$t" NOTRUN 0 "not started: the run was interrupted by $sig"
		fi
		report_finished "$t"
	done
}

# Every run of this one that started QEMU (its log's header names the QEMU),
# with its figures (RESULT lines) and known failures (KFAIL lines), as
# logs/results.json (docs/bench.md): the QEMU and version of each, figures
# or none.
main_results_json() {
	local logs=() r
	for r in "$LOGDIR"/*.log; do
		if [ -s "${r%.log}.results" ] || grep -qa -e '^KFAIL: ' -e '^runner: qemu ' "$r"; then
			logs+=("$r")
		fi
	done
	((${#logs[@]})) || return 0
	# a standalone script carries no copy of the converter
	[ -x "$SRCDIR/scripts/results-to-json" ] || return 0
	# Debian's Python, as for the runner's other helpers (RUN_PYTHON): a
	# python3 on PATH may be a version manager's shim, which costs more than
	# the conversion
	local py=()
	if [ -x "$RUN_PYTHON" ]; then
		py=("$RUN_PYTHON")
	elif ! command -v python3 >/dev/null 2>&1; then
		echo "no python3: figures left in $LOGDIR/results.txt only" >&2
		return 0
	fi
	"${py[@]}" "$SRCDIR/scripts/results-to-json" -o "$LOGDIR/results.json" "${logs[@]}" ||
		echo "results-to-json failed: figures left in $LOGDIR/results.txt" >&2
}

# One line saying what runs where, so a reader knows the accelerator (TAP: a comment).
main_banner() {
	local line
	# a standalone script prints just its outcome line
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ]; then return; fi
	run_decide_accel ""
	line="vmtick: $RUN_ARCH build in $RUN_BUILD, accelerator $(run_accel_text), logs in $LOGDIR"
	tap_out "# $line"
	if ((!RUN_TAP)); then echo "$line"; fi
}

main() { # args...
	local start status
	main_parse_args "$@"
	main_check_env
	# A standalone script holds exactly the test it was made for: always run it.
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ]; then select_nodefault 1; fi
	RUN_CFG=${RUN_CFG:-${UNITTESTS_CFG:-$SRCDIR/unittests.cfg}}
	RUN_CFG_SHOWN=${RUN_CFG_SHOWN:-$RUN_CFG}
	LOGDIR=${LOGDIR:-logs}
	cfg_parse "$RUN_CFG" "$RUN_CFG_SHOWN" || main_fatal "${CFG_ERROR_LINES[@]}"
	if [ -z "${RUN_KERNEL_OVERRIDE:-}" ]; then
		arch_find_build "$RUN_REQ_BUILD" "$RUN_REQ_ARCH" RUN_BUILD RUN_ARCH ||
			main_fatal "${ARCH_ERRORS[@]}"
	fi
	main_pick_qemu
	run_find_kvm
	main_select
	if ((RUN_LIST)); then
		main_list
		exit 0
	fi
	RUN_SIGNAL=""
	trap main_cleanup EXIT
	trap 'main_signal 130' INT
	trap 'main_signal 143' TERM
	trap 'main_signal 129' HUP
	if [ -z "${RUN_TMP:-}" ]; then RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vmtick.XXXXXX"); fi
	# a standalone script writes the helpers it embeds only to run (-l names their paths)
	if declare -F standalone_unpack >/dev/null && ! standalone_unpack; then
		main_fatal "${RUN_PROG:-run_tests.sh}: cannot write its helpers to $RUN_TMP"
	fi
	main_logs
	main_open_outputs
	report_init
	tap_begin
	main_banner
	main_warm_caches
	start=$(run_usec)
	run_all "${MAIN_SELECTED[@]}"
	if [ -n "$RUN_SIGNAL" ]; then main_interrupted; fi
	tap_end
	if [ -n "$RUN_JUNIT" ]; then junit_write "$RUN_JUNIT" $(($(run_usec) - start)); fi
	main_results_json
	report_counts
	status=$(report_exit_status)
	exit "${RUN_SIGNAL:-$status}"
}

# Where TAP goes (stdout with -t, the --tap-file), checked before any test runs.
main_open_outputs() {
	local fd
	TAP_FDS=()
	if ((RUN_TAP)); then TAP_FDS+=(1); fi
	if [ -n "$RUN_TAP_FILE" ]; then
		main_check_output --tap-file "$RUN_TAP_FILE"
		exec {fd}>"$RUN_TAP_FILE"
		TAP_FDS+=("$fd")
	fi
	if [ -n "$RUN_JUNIT" ]; then main_check_output --junit "$RUN_JUNIT"; fi
}
