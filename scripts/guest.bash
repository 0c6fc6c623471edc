# SPDX-License-Identifier: GPL-2.0-only
# What a guest tells the host through QEMU: its verdict in QEMU's exit status, its figures in RESULT lines.
# shellcheck shell=bash

# How QEMU's status reaches a host tool: the guest writes its exit code to
# the testdev and QEMU exits with (code << 1) | 1. A tool that runs QEMU
# under timeout(1) gets 124 when the time ran out and 125-127 when QEMU
# could not be started (the shell gives 126 and 127 too); bash's wait gives
# 128 + n for death by signal n. These overlap: 137 is SIGKILL or guest code
# 68, 155 is SIGPROF or EXIT_SKIP. Of the codes above 63 only lib/report.h's
# EXIT_SKIP counts as the guest's; any other status above 128 is a signal.
GUEST_ST_PASS=1      # EXIT_PASS (0)
GUEST_ST_FAIL=3      # EXIT_FAIL (1)
GUEST_ST_SKIP=155    # EXIT_SKIP (77), also 128 + SIGPROF
GUEST_ST_TIMEOUT=124 # timeout(1): the time ran out
GUEST_ST_NO_START_MIN=125 # timeout(1) failed, or QEMU could not be run (126) or found (127)
GUEST_ST_NO_START_MAX=127
GUEST_ST_SIGNAL=128  # 128 + n: killed by signal n

# Decode QEMU's exit status. Sets GUEST_VERDICT, one of
#   PASS FAIL SKIP  the guest's own verdict (1, 3, 155)
#   GUEST           another guest exit code (an odd status below 128)
#   SIGNAL          QEMU died from a signal (above 128, 155 aside)
#   TIMEOUT         timeout(1) stopped QEMU (124)
#   NOSTART         QEMU could not be started (125-127)
#   EXITED          QEMU exited by itself, without the testdev (0)
#   STATUS          any other status: QEMU's own error
# and, where the status can mean them (the overlaps above), GUEST_CODE (the
# guest's exit code) and GUEST_SIGNAL (the signal's number); else empty.
# GUEST_VERDICT (and GUEST_RESULT below) are outputs the sourcing scripts
# read (runner.bash, boot-bench.sh, kvmclock-sweep.sh, vmtick_host.py);
# the linter sees those readers only when it follows them from there.
# shellcheck disable=SC2034
guest_status() { # status
	local st=$1
	GUEST_CODE="" GUEST_SIGNAL=""
	if ((st & 1 && st < GUEST_ST_SIGNAL)) || ((st == GUEST_ST_SKIP)); then GUEST_CODE=$((st >> 1)); fi
	if ((st > GUEST_ST_SIGNAL)); then GUEST_SIGNAL=$((st - GUEST_ST_SIGNAL)); fi
	case $st in
	"$GUEST_ST_PASS") GUEST_VERDICT=PASS ;;
	"$GUEST_ST_FAIL") GUEST_VERDICT=FAIL ;;
	"$GUEST_ST_SKIP") GUEST_VERDICT=SKIP ;;
	"$GUEST_ST_TIMEOUT") GUEST_VERDICT=TIMEOUT ;;
	0) GUEST_VERDICT=EXITED ;;
	*)
		if ((st >= GUEST_ST_NO_START_MIN && st <= GUEST_ST_NO_START_MAX)); then
			GUEST_VERDICT=NOSTART
		elif [ -n "$GUEST_SIGNAL" ]; then
			GUEST_VERDICT=SIGNAL
		elif [ -n "$GUEST_CODE" ]; then
			GUEST_VERDICT=GUEST
		else
			GUEST_VERDICT=STATUS
		fi
		;;
	esac
}

# The name of signal n without SIG (KILL), or nothing when it has none.
guest_signal_name() { # signal-number
	kill -l "$1" 2>/dev/null
}

# Whether a line of the guest's output is a RESULT line ("RESULT: name value
# unit", lib/report.h); if so GUEST_RESULT is its "name value unit". No
# subshell: the runner calls it for every line of every log.
# shellcheck disable=SC2034 # GUEST_RESULT: read by report.bash, kvmclock-sweep.sh
guest_result() { # line
	local line=${1%$'\r'}
	[[ $line == 'RESULT: '* ]] || return 1
	GUEST_RESULT=${line#RESULT: }
}

# A band's end in a BOUND line: a number, or an open end (-inf, inf).
GUEST_BOUND_END='-?([0-9]+(\.[0-9]*)?|\.[0-9]+|inf)'
# Whether a line is a BOUND line ("BOUND: name value unit lo..hi[ lo..hi]",
# lib/report.h report_bounded: a bounded check's figure, its RESULT too,
# then the bands it had to lie in); if so GUEST_RESULT is its figure,
# "name value unit", as vmtick_host.parse_bound reads it (the bands are
# results-to-json's). No subshell, as guest_result.
# shellcheck disable=SC2034 # GUEST_RESULT: read by report.bash
guest_bound() { # line
	local line=${1%$'\r'}
	[[ $line =~ ^BOUND:\ ([^ ]+)\ ([^ ]+)\ ([^ ]+)(\ $GUEST_BOUND_END\.\.$GUEST_BOUND_END)+\ *$ ]] || return 1
	GUEST_RESULT="${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
}
