# SPDX-License-Identifier: GPL-2.0-only
# Runs tests: decides accel, starts QEMU under a timeout, classifies the outcome, schedules -j slots.
# shellcheck shell=bash

RUN_KILL_AFTER=5                 # seconds between SIGTERM and SIGKILL for a timed-out QEMU
RUN_SIGKILL=9                    # what timeout sends RUN_KILL_AFTER s after SIGTERM
RUN_DEFAULT_TIMEOUT=90
# Entries with host events run under scripts/lifecycle.py (docs/lifecycle.md),
# entries with `evidence = host` under scripts/host_evidence.py (docs/runner.md,
# "Host evidence for the guest"), with Debian's Python: the helpers need
# nothing but the standard library.
RUN_PYTHON=/usr/bin/python3
declare -gA RUN_PID_NAME=() RUN_PID_SLOTS=() RUN_STARTED=()

# What main.bash's options decide: CPU slots (-j), an accelerator forced by ACCEL=.
run_set_jobs() { RUN_JOBS=$1; }
run_force_accel() { RUN_FORCED_ACCEL=$1; }
# When a running test started (microseconds), for an interrupted run's report.
run_started_usec() { echo "${RUN_STARTED[$1]:-}"; }
RUN_USED=0

# A busy host (docs/runner.md, "A busy host"): while QEMU runs, the runner
# samples how long each thread of its process group was runnable but waited
# for a CPU (the scheduler's run_delay, /proc/PID/task/TID/schedstat) and
# how long it ran, and how much time this machine's own hypervisor stole and
# everything ran (/proc/stat). The host's share is the steal plus the waits
# that other processes' CPU time explains (run_disturbance): QEMU's threads
# waiting on each other are not a busy host. A FAIL during which that came
# to more than RUN_DISTURBED_PCT of the run's time is run again, up to
# RUN_ATTEMPTS attempts in all, each judged by the same bounds; on a quiet
# host a FAIL is final at once, the evidence in its line; so is the FAIL of
# an entry whose guest judged with the host's evidence (`evidence = host`,
# RUN_WITH_EVIDENCE). Measured here: 0.6-0.8 %
# for a 2-s timer run on an idle host (6 % with a compiler beside it), 25-40 %
# beside two busy loops.
RUN_DISTURBED_PCT=5
RUN_ATTEMPTS=3
# A second or third attempt runs alone: it takes the machine lock
# ($RUN_TMP/machine.lock) exclusively, which waits for every attempt already
# running beside it (each holds the lock shared while its QEMU runs) and keeps
# new ones from starting until it ends. A test the runner's own -j slots had
# disturbed is then judged on a host that runs nothing else of the suite's.
RUN_PROC=${RUN_PROC:-/proc} # the tests point it at a made-up tree
RUN_CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
RUN_WITH_EVIDENCE=0 # the entry's QEMU runs under scripts/host_evidence.py (run_build_cmd)
RUN_TPID="" # the timeout process (and process group) of the running attempt
declare -gA RUN_WAIT_NS=() RUN_CPU_NS=()

run_smp() { # test
	local smp
	run_smp_into smp "$1"
	echo "$smp"
}

# run_smp into the variable named var, without a subshell unless the entry
# asks for {host_cpus}.
run_smp_into() { # var test
	local -n _rs_out=$1
	_rs_out=${CFG_SMP[$2]}
	if [ "$_rs_out" = '{host_cpus}' ]; then _rs_out=$(cfg_host_cpus); fi
}

# Seconds QEMU may run: TIMEOUT, else cfg timeout, else 90; times TIMEOUT_FACTOR.
run_timeout() { # test
	local t
	run_timeout_base t "$1"
	# a whole number of seconds under no factor is printed as it is: awk's %g
	# would print the same (up to six digits)
	if [[ ${TIMEOUT_FACTOR:-1} == 1 && $t =~ ^[1-9][0-9]{0,5}$ ]]; then
		echo "$t"
		return
	fi
	awk -v t="$t" -v f="${TIMEOUT_FACTOR:-1}" 'BEGIN { printf "%g\n", t * f }'
}

# run_timeout's seconds before TIMEOUT_FACTOR, into the variable named var.
run_timeout_base() { # var test
	local -n _rt_out=$1
	_rt_out=${TIMEOUT:-${CFG_TIMEOUT[$2]:-}}
	_rt_out=${_rt_out:-$RUN_DEFAULT_TIMEOUT}
}

# Whether this host's KVM runs the build's arch: RUN_KVM_PROBLEM says why not (empty: it does).
run_find_kvm() {
	RUN_KVM_PROBLEM=$(arch_kvm_problem "$RUN_ARCH")
}

# The one place the runner decides an entry's accelerator, for its accel
# list (empty: the banner's question, any) under ACCEL= and this host's KVM:
# arch_decide_accel's choice, as PREP_ACCEL and PREP_WHY (why not KVM, when
# it falls back to TCG), or PREP_OUTCOME/PREP_MSG (SKIP or ERROR) when the
# entry cannot run.
run_decide_accel() { # accel-list
	local list=${1:-${CFG_ACCELS[*]}}
	arch_decide_accel "$list" "$RUN_FORCED_ACCEL" "$RUN_KVM_PROBLEM"
	PREP_ACCEL=$ARCH_ACCEL PREP_WHY=$ARCH_ACCEL_WHY PREP_OUTCOME="" PREP_MSG=""
	case $ARCH_ACCEL_REFUSED in
	not-listed) PREP_OUTCOME=SKIP PREP_MSG="test runs under accel=${list// /,} only, ACCEL=$RUN_FORCED_ACCEL was forced" ;;
	kvm-unusable) PREP_OUTCOME=ERROR PREP_MSG="ACCEL=kvm but KVM is not usable: $RUN_KVM_PROBLEM" ;;
	needs-kvm) PREP_OUTCOME=SKIP PREP_MSG="needs KVM (accel=kvm), which is not usable here: $RUN_KVM_PROBLEM" ;;
	esac
}

# The accelerator run_decide_accel chose, with why, as the banner says it.
run_accel_text() {
	echo "${PREP_ACCEL:-none ($PREP_MSG)}${PREP_WHY:+ ($PREP_WHY)}"
}

# Decide how a test starts. Sets PREP_OUTCOME/PREP_MSG when it cannot start
# (SKIP or ERROR), else PREP_ACCEL and PREP_KERNEL.
run_prepare() { # test
	local t=$1 qemu=${QEMU:-} v dir
	PREP_KERNEL=""
	cfg_value_into v "$t" accel
	run_decide_accel "$v"
	[ -z "$PREP_OUTCOME" ] || return 0
	arch_testdir_into dir "$RUN_ARCH"
	PREP_KERNEL=${RUN_KERNEL_OVERRIDE:-$RUN_BUILD/$dir/${CFG_FILE[$t]}}
	[ -n "$qemu" ] || arch_default_qemu_into qemu "$RUN_ARCH"
	# the QEMU of the run, which the log's header names with its version
	PREP_QEMU=$qemu PREP_QEMU_VERSION=unknown
	if command -v "$qemu" >/dev/null 2>&1; then qemu_version_into PREP_QEMU_VERSION "$qemu"; fi
	local min events evidence
	cfg_value_into min "$t" qemu_min
	cfg_value_into events "$t" events
	cfg_value_into evidence "$t" evidence
	if [ -n "$min" ] && [ "$PREP_QEMU_VERSION" != unknown ] && ! qemu_version_ge "$PREP_QEMU_VERSION" "$min"; then
		PREP_OUTCOME=SKIP PREP_MSG="needs QEMU $min or later (qemu_min), this is $PREP_QEMU_VERSION ($qemu)"
	elif [ ! -r "$PREP_KERNEL" ]; then
		PREP_OUTCOME=ERROR PREP_MSG="kernel $PREP_KERNEL not found (not built? run make)"
	elif ! command -v "$qemu" >/dev/null 2>&1; then
		PREP_OUTCOME=ERROR PREP_MSG="QEMU binary '$qemu' not found (install it or set QEMU=)"
	elif [ -n "$events" ] && [ ! -x "$RUN_PYTHON" ]; then
		PREP_OUTCOME=ERROR PREP_MSG="events need $RUN_PYTHON for scripts/lifecycle.py, which is not installed"
	elif [ -n "$evidence" ] && [ ! -x "$RUN_PYTHON" ]; then
		PREP_OUTCOME=ERROR PREP_MSG="evidence needs $RUN_PYTHON for scripts/host_evidence.py, which is not installed"
	else
		# the entries whose judgment the host's record serves: traced under auto
		# shellcheck disable=SC2034 # PREP_HOST_SERVED: host_trace_why_not_into's
		PREP_HOST_SERVED=$events$evidence
		host_trace_prepare
	fi
}

# An entry's QEMU options and kernel arguments under one accelerator: its
# qemu_params then ACCEL_params, its test_args then ACCEL_args, each word
# with its placeholders expanded (the host time is read now). The runner,
# scripts/lava-jobs and the standalone scripts all build commands here.
# RUN_PARAMS without -icount ARG and -rtc clock=vm.
run_drop_icount() {
	local -a kept=()
	local i=0 n=${#RUN_PARAMS[@]}
	while ((i < n)); do
		if [ "${RUN_PARAMS[i]}" = -icount ] ||
			{ [ "${RUN_PARAMS[i]}" = -rtc ] && [ "${RUN_PARAMS[i + 1]:-}" = clock=vm ]; }; then
			i=$((i + 2))
			continue
		fi
		kept+=("${RUN_PARAMS[i]}")
		i=$((i + 1))
	done
	RUN_PARAMS=("${kept[@]}")
}

# TCG_REALTIME=1 drops the TCG entries' clock settings (-icount ARG, -rtc
# clock=vm): guest time then follows the host's, as in a by-hand run under
# plain TCG (docs/timers.md, "TCG in real time").
run_entry_parts() { # test accel -> RUN_PARAMS (array), RUN_ARGS
	local t=$1 a=$2 w value args p="" pa="" ta="" aa=""
	RUN_PARAMS=()
	cfg_value_into p "$t" qemu_params
	cfg_value_into pa "$t" "${a}_params"
	cfg_split_words "$p $pa"
	for w in "${CFG_WORDS[@]}"; do
		cfg_expand "$w" value
		RUN_PARAMS+=("$value")
	done
	if [ "${TCG_REALTIME:-}" = 1 ] && [ "$a" = tcg ]; then run_drop_icount; fi
	cfg_value_into ta "$t" test_args
	cfg_value_into aa "$t" "${a}_args"
	args="$ta $aa"
	args=${args#"${args%%[![:blank:]]*}"}
	args=${args%"${args##*[![:blank:]]}"}
	cfg_expand "$args" RUN_ARGS
}

# The entry's QEMU command under accel, in ARCH_CMD.
# On a QEMU with a known defect an option avoids (qemu_avoid), the entry
# runs with that option: RUN_AVOID_WHY says which and why.
run_entry_cmd() { # test arch accel kernel
	local smp qemu=${QEMU:-} v
	run_entry_parts "$1" "$3"
	run_smp_into smp "$1"
	[ -n "$qemu" ] || arch_default_qemu_into qemu "$2"
	qemu_version_into v "$qemu"
	qemu_avoid "$2" "$v" "$3" "${RUN_PARAMS[@]}"
	RUN_PARAMS+=("${QEMU_AVOID[@]}")
	RUN_AVOID_WHY=$QEMU_AVOID_WHY
	arch_qemu_cmd "$2" "$3" "$smp" "$4" "$RUN_ARGS" "${RUN_PARAMS[@]}"
}

# Build RUN_CMD: QEMU's command, under scripts/lifecycle.py when the entry
# has events, else under scripts/host_evidence.py when it has `evidence =
# host` (each helper the source tree's, or the copy a standalone script
# unpacks: RUN_LIFECYCLE_PY, RUN_HOST_EVIDENCE_PY). An entry with both runs under the lifecycle helper alone: its guest
# finds no host-evidence flag in fw_cfg and judges without the host's evidence.
run_build_cmd() { # test
	local t=$1 events evidence
	run_entry_cmd "$t" "$RUN_ARCH" "$PREP_ACCEL" "$PREP_KERNEL"
	RUN_CMD=("${ARCH_CMD[@]}")
	cfg_value_into events "$t" events
	cfg_value_into evidence "$t" evidence
	RUN_WITH_EVIDENCE=0
	if [ -n "$events" ]; then
		RUN_CMD=("$RUN_PYTHON" "${RUN_LIFECYCLE_PY:-$SRCDIR/scripts/lifecycle.py}" --events "$events" -- "${ARCH_CMD[@]}")
	elif [ -n "$evidence" ]; then
		RUN_CMD=("$RUN_PYTHON" "${RUN_HOST_EVIDENCE_PY:-$SRCDIR/scripts/host_evidence.py}" -- "${ARCH_CMD[@]}")
		RUN_WITH_EVIDENCE=1
	fi
}

run_usec() {
	local t
	run_usec_into t
	echo "$t"
}

# run_usec into the variable named var, without a subshell.
run_usec_into() { # var
	local -n _ru_out=$1
	_ru_out=${EPOCHREALTIME/[.,]/}
	[ -n "$_ru_out" ] || _ru_out=$(($(date +%s) * USEC_PER_SEC))
}

# The result file report_read reads.
run_write_result() { # test outcome usec message [start-time attempts]
	local start=${5:-}
	if [ -z "$start" ]; then start=$(run_utc_now); fi
	printf '%s\n%s\n%s\n%s\n%s\n' "$2" "$3" "${4//$'\n'/ }" "$start" "${6:-1}" \
		>"$RUN_TMP/$1.result"
}

# The log's header: the command (shell-quoted), then the runner's
# record of the accelerator run_decide_accel chose, then of QEMU: its
# version (its --version) and its binary, as the command names it
# (`runner: qemu 7.2.22 qemu-system-x86_64`). What reports the accelerator
# or the QEMU (the JUnit writer, scripts/results-to-json and through it
# the report; scripts/tick-miss-sweep from -l -v, which lists the same
# header) reads these lines, never the command line, whose first word is
# the agent's where one runs QEMU (run_build_cmd). No header (a test that
# never started): no accelerator.
RUN_ACCEL_RECORD='runner: accelerator '
RUN_QEMU_RECORD='runner: qemu '
RUN_HEADER_LINES=3
run_header() {
	arch_quote_cmd "${RUN_CMD[@]}"
	echo "$RUN_ACCEL_RECORD$PREP_ACCEL"
	echo "$RUN_QEMU_RECORD${PREP_QEMU_VERSION:-unknown} $PREP_QEMU"
}

run_write_header() { # log
	run_header >"$1"
}

# The earlier attempts of a test run again on a busy host, one line each
# ("MESSAGE while DISTURBANCE"; empty file: one attempt), for JUnit and TAP.
run_earlier_attempts() { # test
	local f="$RUN_TMP/$1.attempts"
	if [ -r "$f" ]; then cat -- "$f"; fi
}

run_utc_now() {
	date -u +%Y-%m-%dT%H:%M:%S
}

# Signal a process group that is not our child (its job is gone), wait up to
# RUN_KILL_AFTER+1 s for it, then SIGKILL it. A group whose members are all
# dead (zombies: QEMU's orphaned children wait for init to reap them, which
# can take seconds) is gone; a pgrep that cannot tell the states apart
# (status 2 or 3) leaves the wait to kill -0.
run_kill_group() { # pgid
	local i
	kill -TERM -- "-$1" 2>/dev/null || kill -TERM "$1" 2>/dev/null || return 0
	for ((i = 0; i < (RUN_KILL_AFTER + 1) * 10; i++)); do
		kill -0 -- "-$1" 2>/dev/null || return 0
		pgrep -g "$1" -r D,I,P,R,S,T,t,W >/dev/null 2>&1
		(($? != 1)) || return 0
		sleep 0.1
	done
	kill -KILL -- "-$1" 2>/dev/null
}

# Run one test to completion; meant to run in the background. The result goes
# to $RUN_TMP/TEST.result, the log to $LOGDIR/TEST.log (earlier attempts, run
# again because the host was busy, to TEST.log.1, TEST.log.2).
run_test() { # test
	local t=$1 log="$LOGDIR/$1.log" start tmo when attempt earlier="" notes="" now
	run_usec_into start
	when=$(run_utc_now)
	run_prepare "$t"
	if [ -n "$PREP_OUTCOME" ]; then
		printf 'not started: %s\n' "$PREP_MSG" >"$log"
		run_write_result "$t" "$PREP_OUTCOME" 0 "$PREP_MSG"
		return
	fi
	tmo=$(run_timeout "$t")
	# Ctrl-C reaches the whole foreground group: leave it to the main shell,
	# which stops this job with SIGTERM.
	trap '' INT
	trap 'if [ -n "$RUN_TPID" ]; then kill -TERM -- "-$RUN_TPID" 2>/dev/null; wait "$RUN_TPID"; fi; host_trace_abort; exit 143' TERM
	exec {RUN_LOCK_FD}>>"$RUN_TMP/machine.lock"
	for ((attempt = 1; ; attempt++)); do
		# placeholders (the host's time) are read again for every attempt
		run_build_cmd "$t"
		run_write_header "$log"
		[ -z "$RUN_AVOID_WHY" ] || echo "runner: runs with $RUN_AVOID_WHY" >>"$log"
		[ -z "$notes" ] || printf '%s' "$notes" >>"$log"
		if ((attempt == 1)); then flock -s "$RUN_LOCK_FD"; else flock -x "$RUN_LOCK_FD"; fi
		run_attempt "$t" "$log" "$tmo"
		flock -u "$RUN_LOCK_FD"
		if [ "$RUN_OUTCOME" = FAIL ] && ! run_disturbed; then
			RUN_MSG+=" (a FAIL on a quiet host, not run again: $RUN_DISTURBANCE)"
			break
		fi
		# The guest judged with the host's evidence: what the host held is in
		# its verdicts already, and a later attempt whose holds happened to
		# explain a real fault away (a SKIP) would hide it.
		if [ "$RUN_OUTCOME" = FAIL ] && ((RUN_WITH_EVIDENCE)); then
			RUN_MSG+=" (judged with the host's evidence, not run again: $RUN_DISTURBANCE)"
			break
		fi
		if [ "$RUN_OUTCOME" != FAIL ] || ((attempt >= RUN_ATTEMPTS)); then
			break
		fi
		mv -f -- "$log" "$log.$attempt"
		notes+="runner: attempt $attempt FAIL while $RUN_DISTURBANCE: run again, alone (its log: $t.log.$attempt)"$'\n'
		earlier+="; attempt $attempt ${RUN_MSG#*; first } while $RUN_DISTURBANCE"
		printf 'FAIL: %s while %s (its log: %s)\n' "${RUN_MSG#*; first FAIL: }" "$RUN_DISTURBANCE" \
			"$t.log.$attempt" >>"$RUN_TMP/$t.attempts"
	done
	if [ -n "$earlier" ]; then
		RUN_MSG+=" (attempt $attempt of $RUN_ATTEMPTS$earlier)"
	fi
	# a FAIL under TCG -icount recorded again, kept as a replay bundle (scripts/replay.bash)
	replay_after_run "$t" "$log" "$tmo"
	run_usec_into now
	start=$((now - start))
	run_write_result "$t" "$RUN_OUTCOME" "$start" "$RUN_MSG" "$when" "$attempt"
}

# One run of RUN_CMD, its output appended to the log; sets RUN_OUTCOME,
# RUN_MSG and RUN_DISTURBANCE (what the host took from QEMU, in words).
run_attempt() { # test log timeout
	local t=$1 log=$2 tmo=$3 err="$RUN_TMP/$1.err" st usec steal0 steal1 busy0 busy1 self0 self1 now
	run_usec_into usec
	run_host_cpu_ms steal0 busy0
	run_self_cpu_ms self0
	RUN_WAIT_NS=() RUN_CPU_NS=()
	# the host's trace: RUN_CMD then starts QEMU through a shell that turns it on
	host_trace_begin "$log" "$PREP_ACCEL"
	# timeout makes itself a process-group leader: killing the group also
	# reaches anything QEMU started. stdin must not be the terminal. It ends
	# when QEMU does, or SIGKILLs it RUN_KILL_AFTER s after the time is up.
	# QEMU does not inherit the machine lock: only this shell holds and releases it.
	timeout --kill-after="$RUN_KILL_AFTER" "$tmo" "${RUN_CMD[@]}" </dev/null >>"$log" 2>"$err" {RUN_LOCK_FD}>&- &
	RUN_TPID=$!
	echo "$RUN_TPID" >"$RUN_TMP/$t.pgid"
	# bash reports a job killed by a signal on stderr as soon as it notices,
	# which can be during the watch: the outcome line says it instead.
	{
		run_watch "$RUN_TPID" "$err"
		# before the wait, which would add QEMU's time to this shell's children's
		run_self_cpu_ms self1
		wait "$RUN_TPID"
	} 2>/dev/null
	st=$?
	RUN_TPID=""
	rm -f "$RUN_TMP/$t.pgid"
	run_usec_into now
	usec=$((now - usec))
	run_host_cpu_ms steal1 busy1
	run_classify "$st" "$log" "$err" "$tmo" "$usec"
	host_trace_end "$t" "$log"
	run_known_defect "$t" "$log" "$err"
	# QEMU's stderr is empty unless something went wrong
	if [ -s "$err" ]; then cat "$err" >>"$log"; fi
	run_disturbance "$usec" $((steal1 - steal0)) $((busy1 - busy0 - (self1 - self0)))
	echo "runner: $RUN_DISTURBANCE" >>"$log"
}

# A failure that a known defect of this QEMU version explains (qemu_known_defect:
# every check the guest failed, or QEMU's own message when the guest failed
# none) is KFAIL, never a reason to run again; the log says which defect. The
# same failure on a version outside the defect's range stays a FAIL that
# names the defect and the range.
run_known_defect() { # test log errfile
	local id from through what
	local -a failures=()
	case $RUN_OUTCOME in FAIL | ERROR | CRASH) ;; *) return 0 ;; esac
	mapfile -t failures < <(tail -n +$((RUN_HEADER_LINES + 1)) "$2" | qemu_guest_failures)
	if ((${#failures[@]} == 0)) && [ -s "$3" ]; then failures=("qemu $(run_qemu_message "$3")"); fi
	if qemu_known_defect "$PREP_QEMU_VERSION" "$PREP_ACCEL" "$1" "${RUN_CMD[*]}" "${failures[@]}"; then
		IFS='|' read -r id from through _ _ _ what _ <<<"$QEMU_DEFECT"
		RUN_MSG="known QEMU defect $id of QEMU $from to $through (this is $PREP_QEMU_VERSION, docs/upstream/$id.md): $what; $RUN_OUTCOME: $RUN_MSG"
		RUN_OUTCOME=KFAIL
		echo "runner: known QEMU defect $id (QEMU $from to $through, this is $PREP_QEMU_VERSION): $what" >>"$2"
	elif [ -n "$QEMU_DEFECT_OUTSIDE" ]; then
		IFS='|' read -r id from through _ _ _ what _ <<<"$QEMU_DEFECT_OUTSIDE"
		RUN_MSG="QEMU defect $id seen outside its known range: QEMU $PREP_QEMU_VERSION, known in $from to $through (docs/upstream/$id.md): $what; $RUN_OUTCOME: $RUN_MSG"
		echo "runner: QEMU defect $id seen outside its known range (QEMU $from to $through, this is $PREP_QEMU_VERSION): $what" >>"$2"
	fi
}

# Every thread's time on a CPU and run_delay (ns) in the given processes, into
# RUN_CPU_NS and RUN_WAIT_NS by thread id; builtins only, as it runs at every
# poll. A thread's figures count from its start, so the last sample before it
# ends is its whole.
run_sample_waits() { # pid...
	local pid f c w tid
	for pid in "$@"; do
		for f in "$RUN_PROC/$pid"/task/*/schedstat; do
			read -r c w _ 2>/dev/null <"$f" || continue
			tid=${f%/schedstat}
			RUN_CPU_NS[${tid##*/}]=$c
			RUN_WAIT_NS[${tid##*/}]=$w
		done
	done
}

# This machine's CPU time so far (all CPUs, ms), from /proc/stat: what its
# hypervisor stole into the variable named by steal, what ran (user, nice,
# system, irq, softirq) into the one named by busy.
run_host_cpu_ms() { # steal-var busy-var
	local -n _hc_steal=$1 _hc_busy=$2
	local -a f=()
	# "cpu user nice system idle iowait irq softirq steal ...", in clock ticks
	read -r -a f 2>/dev/null <"$RUN_PROC/stat"
	_hc_steal=$((${f[8]:-0} * MSEC_PER_SEC / RUN_CLK_TCK))
	_hc_busy=$(((${f[1]:-0} + ${f[2]:-0} + ${f[3]:-0} + ${f[6]:-0} + ${f[7]:-0}) * MSEC_PER_SEC / RUN_CLK_TCK))
}

# The CPU time this runner's job has used so far (ms), its reaped children
# (pgrep) included: the watching is the test's own, not a busy host.
run_self_cpu_ms() { # var
	local -n _sc_out=$1
	local line
	local -a f=()
	_sc_out=0
	read -r line 2>/dev/null <"$RUN_PROC/$BASHPID/stat" || return 0
	# after "pid (comm) ": state ppid ... utime (14th field) is f[11]
	read -r -a f <<<"${line##*) }"
	_sc_out=$(((${f[11]:-0} + ${f[12]:-0} + ${f[13]:-0} + ${f[14]:-0}) * MSEC_PER_SEC / RUN_CLK_TCK))
}

# RUN_DISTURBANCE: the run's length and what the host took of it. QEMU's
# threads wait for a CPU when something else runs, but also when they
# outnumber the CPUs (a 2-vCPU TCG guest on 2 CPUs waits on its own main
# loop): only the waits that other processes' CPU time can explain (the
# machine's busy time less QEMU's own and this runner job's) were the host's
# doing (RUN_HOST_MS).
run_disturbance() { # usec steal-ms busy-ms
	local w sum=0 own=0 others
	for w in "${RUN_WAIT_NS[@]}"; do sum=$((sum + w)); done
	for w in "${RUN_CPU_NS[@]}"; do own=$((own + w)); done
	RUN_WAIT_MS=$((sum / NSEC_PER_MSEC)) RUN_STEAL_MS=$2 RUN_ELAPSED_MS=$(($1 / USEC_PER_MSEC))
	others=$(($3 - own / NSEC_PER_MSEC))
	((others > 0)) || others=0
	RUN_OTHERS_MS=$others
	RUN_HOST_MS=$((RUN_STEAL_MS + (RUN_WAIT_MS < others ? RUN_WAIT_MS : others)))
	RUN_DISTURBANCE="QEMU's threads waited $RUN_WAIT_MS ms for a CPU in $RUN_ELAPSED_MS ms, other processes ran $RUN_OTHERS_MS ms, the host's hypervisor stole $RUN_STEAL_MS ms"
}

# Whether the host took more than RUN_DISTURBED_PCT of the last attempt's time.
run_disturbed() {
	((RUN_HOST_MS * 100 > RUN_DISTURBED_PCT * RUN_ELAPSED_MS))
}

# Wait for QEMU. Under KVM a guest that crashes the virtual CPU can leave
# QEMU paused after "KVM internal error" instead of exiting: stop it then,
# rather than waiting for the timeout.
# Polls often at first, when most tests end (each poll late is time lost
# per test), then every 0.2 s.
run_watch() { # pgid errfile
	local polls=0 nap=0.01 nap_fd
	local -a pids=()
	# Naps are read timeouts on a pipe that never has data (this shell holds
	# its write end too): a sleep or a grep per poll is a fork and an exec,
	# 100 a second at first, CPU time the guest's vCPU may want (steal time
	# in a 0.5 s rtc-periodic window: idle 0.05-1.4 ms with them, 0.01-0.3 ms
	# without; beside a busy loop 13-68 ms with them, 3.5-8.5 ms without).
	exec {nap_fd}<> <(:)
	while kill -0 "$1" 2>/dev/null; do
		# the processes of the attempt's group (QEMU, a second QEMU when
		# migrating), looked up every tenth poll; their threads at every poll
		((polls % 10)) || mapfile -t pids < <(pgrep -g "$1")
		run_sample_waits "${pids[@]}"
		# QEMU's stderr is empty unless something went wrong: grep only then
		if ((polls % 10 == 0)) && [ -s "$2" ] && grep -qs 'KVM internal error' "$2"; then
			kill -TERM -- "-$1" 2>/dev/null
			break
		fi
		polls=$((polls + 1))
		if ((polls == 50)); then nap=0.05; elif ((polls == 90)); then nap=0.2; fi
		read -r -t "$nap" -u "$nap_fd" _ || :
	done
	exec {nap_fd}<&-
}

# QEMU's own messages, warnings left out when there is anything else.
run_qemu_message() { # errfile
	local line all="" errors=""
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		all+="${all:+; }$line"
		[[ $line == *'warning:'* ]] || errors+="${errors:+; }$line"
	done <"$1"
	echo "${errors:-$all}"
}

# QEMU runs under timeout, which dies by the same signal when QEMU does:
# scripts/guest.bash decodes the status (guest_status).
run_signal_name() { # status
	local n
	n=$(guest_signal_name $(($1 - GUEST_ST_SIGNAL))) && echo "SIG$n" || echo "signal $(($1 - GUEST_ST_SIGNAL))"
}

# Whether the SUMMARY line says every check was skipped (EXIT_SKIP's meaning).
run_all_skipped() { # summary
	[[ $1 =~ ^([0-9]+)\ tests,\ 0\ unexpected\ failures,\ ([0-9]+)\ skipped ]] &&
		((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] == BASH_REMATCH[2]))
}

# Map QEMU's exit status and the guest's output to an outcome (docs/runner.md).
run_classify() { # status log errfile timeout usec
	local st=$1 tmo=$4 usec=$5 line summary="" firstfail="" firstskip="" last="" spoke=0 qmsg lcmsg
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'SUMMARY: '*) summary=${line#SUMMARY: } ;;
		'FAIL: '*) [ -n "$firstfail" ] || firstfail=$line ;;
		'SKIP: '*) [ -n "$firstskip" ] || firstskip=${line#SKIP: } ;;
		# the runner's own notes after the header (an avoided defect, earlier attempts)
		'runner: '*) continue ;;
		esac
		if [[ $line == *[![:space:]]* ]]; then
			spoke=1
			last=$line
		fi
	done < <(tail -n +$((RUN_HEADER_LINES + 1)) "$2")
	qmsg="" lcmsg=""
	# QEMU's stderr: read only when there is anything in it
	if [ -s "$3" ]; then
		qmsg=$(run_qemu_message "$3")
		lcmsg=$(sed -n -E 's/^(lifecycle|host-evidence): ERROR: //p' "$3" | head -n 1)
	fi
	guest_status "$st"
	RUN_OUTCOME=CRASH
	if [ -n "$lcmsg" ]; then
		# scripts/lifecycle.py could not perform an event, or scripts/host_evidence.py
		# failed: it says why, QEMU's words included
		RUN_OUTCOME=ERROR RUN_MSG=$lcmsg
	elif [ -s "$3" ] && grep -qs 'KVM internal error' "$3"; then
		RUN_MSG="KVM internal error, QEMU stopped the guest${last:+; last output: $last}"
	elif [ "$GUEST_VERDICT" = TIMEOUT ] || { [ "$GUEST_SIGNAL" = "$RUN_SIGKILL" ] && ((usec >= ${tmo%.*} * USEC_PER_SEC)); }; then
		RUN_OUTCOME=TIMEOUT RUN_MSG="killed after $tmo s${last:+ (last output: $last)}"
	elif [ "$GUEST_VERDICT" = SIGNAL ] || { [ "$GUEST_VERDICT" = SKIP ] && ! run_all_skipped "$summary"; }; then
		# Death by signal is a crash whatever the guest printed before it.
		RUN_MSG="QEMU killed by $(run_signal_name "$st") (status $st)${summary:+ after SUMMARY: $summary}${qmsg:+: $qmsg}"
		[ -n "$summary" ] || RUN_MSG+="${last:+; last output: $last}"
	elif [ "$GUEST_VERDICT" = EXITED ] && [[ $qmsg == *'terminating on signal'* ]]; then
		RUN_MSG="QEMU was stopped by a signal: $qmsg"
	elif [ -n "$summary" ]; then
		run_classify_summary "$st" "$summary" "$firstfail" "$firstskip"
	elif [ "$GUEST_VERDICT" = NOSTART ]; then
		RUN_OUTCOME=ERROR RUN_MSG="could not start QEMU (status $st)${qmsg:+: $qmsg}"
	elif [ "$GUEST_VERDICT" = PASS ] && ((!spoke)); then
		RUN_OUTCOME=ERROR RUN_MSG=${qmsg:-"QEMU exited with status 1 before the guest printed anything"}
	elif [ "$GUEST_VERDICT" = EXITED ]; then
		RUN_MSG="QEMU exited by itself without a guest report (reset or triple fault?)${last:+; last output: $last}"
	elif [ -n "$GUEST_CODE" ]; then
		RUN_MSG="guest exited with code $GUEST_CODE without a SUMMARY line${last:+; last output: $last}"
	else
		RUN_MSG="QEMU exit status $st without a SUMMARY line${qmsg:+: $qmsg}"
	fi
}

# The outcome when the guest printed its SUMMARY: guest_status's verdict of QEMU's status.
run_classify_summary() { # status summary firstfail firstskip
	local st=$1 summary=$2 fails=""
	# the last ", N unexpected failures" (as sed's greedy .* took it)
	if [[ $summary =~ .*,\ ([0-9]+)\ unexpected\ failures ]]; then fails=${BASH_REMATCH[1]}; fi
	case $GUEST_VERDICT in
	PASS)
		if ((${fails:-0} > 0)); then
			RUN_OUTCOME=FAIL RUN_MSG="$summary (but the guest exited with code 0)"
		else
			run_pass_outcome "$summary"
			RUN_OUTCOME=$RUN_PASS_OUTCOME RUN_MSG=$summary
		fi
		;;
	FAIL) RUN_OUTCOME=FAIL RUN_MSG="$summary${3:+; first $3}" ;;
	SKIP) RUN_OUTCOME=SKIP RUN_MSG=${4:-$summary} ;;
	EXITED) RUN_OUTCOME=CRASH RUN_MSG="QEMU exited by itself after the SUMMARY (reset?): $summary" ;;
	*)
		if [ -n "$GUEST_CODE" ]; then
			RUN_OUTCOME=FAIL RUN_MSG="$summary; unexpected guest exit code $GUEST_CODE"
		else
			RUN_OUTCOME=CRASH RUN_MSG="QEMU exit status $st after: $summary"
		fi
		;;
	esac
}

# A guest that passed apart from checks a known host defect failed (KFAIL
# lines, lib/report.h) is KFAIL: not a failure, but not a plain PASS either.
# The outcome in RUN_PASS_OUTCOME.
run_pass_outcome() { # summary
	local known=""
	if [[ $1 =~ .*,\ ([0-9]+)\ known\ failures ]]; then known=${BASH_REMATCH[1]}; fi
	if ((${known:-0} > 0)); then RUN_PASS_OUTCOME=KFAIL; else RUN_PASS_OUTCOME=PASS; fi
}

# Wait for one running test, free its slots and hand it to report_finished.
# A signal (main_signal) makes wait return without a pid.
run_reap() {
	local pid="" t
	wait -n -p pid "${!RUN_PID_NAME[@]}"
	[ -n "${pid:-}" ] || return 0
	t=${RUN_PID_NAME[$pid]}
	RUN_USED=$((RUN_USED - RUN_PID_SLOTS[$pid]))
	unset "RUN_PID_NAME[$pid]" "RUN_PID_SLOTS[$pid]"
	if [ ! -s "$RUN_TMP/$t.result" ]; then
		run_write_result "$t" ERROR 0 "the runner's job for this test died"
	fi
	report_finished "$t"
}

# Run tests in order; a test holds min(smp, RUN_JOBS) of the RUN_JOBS slots.
# After a signal (RUN_SIGNAL) nothing more starts or is waited for.
run_all() { # tests...
	local t w pid
	for t in "$@"; do
		w=$(run_smp "$t")
		((w <= RUN_JOBS)) || w=$RUN_JOBS
		while ((RUN_USED + w > RUN_JOBS)) && [ -z "$RUN_SIGNAL" ]; do run_reap; done
		[ -z "$RUN_SIGNAL" ] || return 0
		RUN_STARTED[$t]=$(run_usec)
		run_test "$t" &
		pid=$!
		RUN_PID_NAME[$pid]=$t
		RUN_PID_SLOTS[$pid]=$w
		RUN_USED=$((RUN_USED + w))
	done
	while ((${#RUN_PID_NAME[@]})) && [ -z "$RUN_SIGNAL" ]; do run_reap; done
}

# Stop every running test and whatever it started; used by the traps.
run_stop_all() {
	local pid f
	for pid in "${!RUN_PID_NAME[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${!RUN_PID_NAME[@]}"; do
		wait "$pid" 2>/dev/null
	done
	RUN_PID_NAME=()
	# A job killed before its own trap ran leaves its QEMU's group behind.
	for f in "$RUN_TMP"/*.pgid; do
		[ -e "$f" ] || continue
		run_kill_group "$(<"$f")"
		rm -f "$f"
	done
}
