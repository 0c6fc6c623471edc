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
  --arch ARCH    use the build configured for ARCH (x86_64, i386, aarch64)
  --build DIR    use the build in DIR (also BUILD_DIR=DIR)
  --default-bios x86: boot with QEMU's default BIOS instead of qboot
  -h             this help

Environment: QEMU, ACCEL (kvm|tcg), TIMEOUT, TIMEOUT_FACTOR, FIRMWARE,
LOGDIR, BUILD_DIR, NO_COLOR. See docs/runner.md.
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
	RUN_JOBS=1 RUN_TAP=0 RUN_LIST=0 RUN_VERBOSE=0 RUN_ALL=0 RUN_JUNIT=""
	RUN_REQ_ARCH="" RUN_REQ_BUILD=${BUILD_DIR:-}
	MAIN_NAMES=() MAIN_GROUPS=()
	while (($#)); do
		case $1 in
		-h | --help) main_usage; exit 0 ;;
		-v | --verbose) RUN_VERBOSE=1 ;;
		-a | --all) RUN_ALL=1 ;;
		-l | --list) RUN_LIST=1 ;;
		-t | --tap) RUN_TAP=1 ;;
		--default-bios)
			# shellcheck disable=SC2034 # a global the other runner files read
			FIRMWARE=default ;;
		-g | -j | --arch | --build | --junit)
			(($# >= 2)) || main_usage_error "$1 needs a value"
			main_option "$1" "$2"
			shift
			;;
		-g?* | -j?*) main_option "${1:0:2}" "${1:2}" ;;
		--arch=* | --build=* | --junit=* | --group=* | --jobs=*) main_option "${1%%=*}" "${1#*=}" ;;
		--) shift; MAIN_NAMES+=("$@"); break ;;
		-*) main_usage_error "unknown option '$1'" ;;
		*) MAIN_NAMES+=("$1") ;;
		esac
		shift
	done
}

main_option() { # option value
	case $1 in
	-g | --group) MAIN_GROUPS+=("$2") ;;
	-j | --jobs)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || main_usage_error "-j wants a positive number, not '$2'"
		# shellcheck disable=SC2034 # a global the other runner files read
		RUN_JOBS=$2
		;;
	--arch)
		cfg_in_list "$2" "${CFG_ARCHES[@]}" || main_usage_error "unknown arch '$2' (${CFG_ARCHES[*]})"
		# shellcheck disable=SC2034 # a global the other runner files read
		RUN_REQ_ARCH=$2
		;;
	--build)
		# shellcheck disable=SC2034 # a global the other runner files read
		RUN_REQ_BUILD=$2 ;;
	--junit) RUN_JUNIT=$2 ;;
	esac
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ] && [[ $1 == --arch || $1 == --build ]]; then
		main_usage_error "$1 means nothing to a standalone test"
	fi
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
	# shellcheck disable=SC2034 # a global the other runner files read
	RUN_FORCED_ACCEL=${ACCEL:-}
}

# The run cannot start (cfg error, no build): say so in every format, count it as one failure.
main_fatal() { # message
	local m
	for m in "$@"; do echo "$m" >&2; done
	if [ "$RUN_TAP" = 1 ]; then
		tap_begin
		tap_bail "$1"
	fi
	if [ -n "$RUN_JUNIT" ]; then junit_write "$RUN_JUNIT" 0 "$*"; fi
	echo "0 passed, 1 failed, 0 skipped"
	exit 4
}

# Fill MAIN_SELECTED with the tests to run, in cfg order.
main_select() {
	local t p g matched want
	local -A used=()
	MAIN_SELECTED=()
	for p in "${MAIN_NAMES[@]}"; do
		matched=0
		for t in "${CFG_NAMES[@]}"; do
			# shellcheck disable=SC2053 # p is a pattern on purpose: names may be globs.
			if [[ $t == $p ]]; then matched=1 used[$t]=1; fi
		done
		((matched)) || main_fatal "run_tests: no test in $RUN_CFG_SHOWN matches '$p'"
	done
	for t in "${CFG_NAMES[@]}"; do
		want=${used[$t]:-0}
		if ((!want)); then
			if ((${#MAIN_NAMES[@]} == 0 && ${#MAIN_GROUPS[@]} == 0)); then want=1; fi
			for g in "${MAIN_GROUPS[@]}"; do
				if cfg_has_group "$t" "$g"; then want=1; fi
			done
			if ((want)) && ((!RUN_ALL)) && cfg_has_group "$t" nodefault &&
				! cfg_in_list nodefault "${MAIN_GROUPS[@]}"; then
				want=0
			fi
		fi
		((want)) || continue
		if ! cfg_has_arch "$t" "$RUN_ARCH"; then
			((!RUN_VERBOSE)) || echo "not run: $t is for ${CFG_ARCH[$t]}, this build is $RUN_ARCH" >&2
			continue
		fi
		MAIN_SELECTED+=("$t")
	done
}

main_list() {
	local t
	for t in "${MAIN_SELECTED[@]}"; do
		echo "$t"
		((RUN_VERBOSE)) || continue
		run_prepare "$t"
		if [ -n "$PREP_OUTCOME" ]; then
			echo "    ($PREP_OUTCOME: $PREP_MSG)"
		else
			run_build_cmd "$t"
			echo "    $(run_quote_cmd "${ARCH_CMD[@]}")"
		fi
	done
}

# Keep one generation of logs: logs/ becomes logs.old/.
main_logs() {
	case $LOGDIR in
	/*) ;;
	*) LOGDIR=$PWD/$LOGDIR ;;
	esac
	if [ -z "${RUN_KERNEL_OVERRIDE:-}" ] && [ -e "$LOGDIR" ]; then
		rm -rf -- "${LOGDIR:?}.old"
		mv -- "$LOGDIR" "$LOGDIR.old"
	fi
	mkdir -p -- "$LOGDIR"
}

main_cleanup() {
	run_stop_all
	if [ -n "${RUN_TMP:-}" ]; then rm -rf -- "$RUN_TMP"; fi
}

main_interrupted() { # status
	echo "${RUN_PROG:-run_tests.sh}: interrupted, stopping the running tests" >&2
	run_stop_all
	exit "$1"
}

# The figures of this run (RESULT lines) and its known failures (KFAIL lines)
# as logs/results.json (docs/bench.md).
main_results_json() {
	local logs=() r
	for r in "$LOGDIR"/*.log; do
		if [ -s "${r%.log}.results" ] || grep -qa '^KFAIL: ' "$r"; then logs+=("$r"); fi
	done
	((${#logs[@]})) || return 0
	# a standalone script carries no copy of the converter
	[ -x "$SRCDIR/scripts/results-to-json" ] || return 0
	if ! command -v python3 >/dev/null 2>&1; then
		echo "no python3: figures left in $LOGDIR/results.txt only" >&2
		return 0
	fi
	"$SRCDIR/scripts/results-to-json" -o "$LOGDIR/results.json" "${logs[@]}" ||
		echo "results-to-json failed: figures left in $LOGDIR/results.txt" >&2
}

# One line saying what runs where, so a reader knows the accelerator (TAP: a comment).
main_banner() {
	local accel=${ACCEL:-kvm} line
	# a standalone script prints just its outcome line
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ]; then return; fi
	if [ -z "${ACCEL:-}" ] && [ -n "$RUN_KVM_PROBLEM" ]; then accel="tcg (no KVM: $RUN_KVM_PROBLEM)"; fi
	line="vmtick: $RUN_ARCH build in $RUN_BUILD, accelerator $accel, logs in $LOGDIR"
	if ((RUN_TAP)); then echo "# $line"; else echo "$line"; fi
}

main() { # args...
	local start status
	main_parse_args "$@"
	main_check_env
	# A standalone script holds exactly the test it was made for: always run it.
	if [ -n "${RUN_KERNEL_OVERRIDE:-}" ]; then RUN_ALL=1; fi
	RUN_CFG=${RUN_CFG:-${UNITTESTS_CFG:-$SRCDIR/unittests.cfg}}
	RUN_CFG_SHOWN=${RUN_CFG_SHOWN:-$RUN_CFG}
	LOGDIR=${LOGDIR:-logs}
	cfg_parse "$RUN_CFG" "$RUN_CFG_SHOWN" || main_fatal "${CFG_ERROR_LINES[@]}"
	if [ -z "${RUN_KERNEL_OVERRIDE:-}" ]; then
		arch_find_build || main_fatal "${ARCH_ERRORS[@]}"
	fi
	RUN_KVM_PROBLEM=$(arch_kvm_problem "$RUN_ARCH")
	main_select
	if ((RUN_LIST)); then
		main_list
		exit 0
	fi
	trap main_cleanup EXIT
	trap 'main_interrupted 130' INT
	trap 'main_interrupted 143' TERM
	trap 'main_interrupted 129' HUP
	if [ -z "${RUN_TMP:-}" ]; then RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vmtick.XXXXXX"); fi
	main_logs
	report_init
	if ((RUN_TAP)); then tap_begin; fi
	main_banner
	start=$(run_usec)
	run_all "${MAIN_SELECTED[@]}"
	if ((RUN_TAP)); then tap_end; fi
	if [ -n "$RUN_JUNIT" ]; then junit_write "$RUN_JUNIT" $(($(run_usec) - start)); fi
	main_results_json
	if ((${#MAIN_SELECTED[@]} == 0)); then echo "no test selected for $RUN_ARCH" >&2; fi
	report_counts
	status=$(report_exit_status)
	exit "$status"
}
