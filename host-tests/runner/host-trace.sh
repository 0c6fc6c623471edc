# SPDX-License-Identifier: GPL-2.0-only
# The runner's checks of the host's trace (scripts/host_trace.bash): why there is none, the trace of a fake QEMU, the KVM set-up, nothing left in tracefs; sourced by host-tests/runner/run.sh.
# shellcheck shell=bash

FAKE_TRACE_CMD=$HERE/fake-trace-cmd
TRACEFS=/sys/kernel/tracing
TRACE_PREFIX=vmtick-trace-ns

# Whether this host can take a real trace: root, tracefs mounted (or
# mountable), x86-tsc, trace-cmd. The checks that need one say SKIP otherwise.
real_tracefs() {
	[ "$(id -u)" = 0 ] && command -v trace-cmd >/dev/null 2>&1 || return 1
	[ -d "$TRACEFS/instances" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null || return 1
	grep -qw x86-tsc "$TRACEFS/trace_clock"
}

skip() { # description why
	PASSED=$((PASSED + 1))
	echo "ok - $1 # SKIP $2"
}

# No runner's instance is left by a runner job that has ended (its name
# carries the job's pid; other runners' live jobs may hold theirs).
no_instance_left() {
	local d owner
	for d in "$TRACEFS/instances/$TRACE_PREFIX"*; do
		[ -d "$d" ] || continue
		owner=${d##*/"$TRACE_PREFIX"}
		owner=${owner#*-}
		! kill -0 "${owner%%-*}" 2>/dev/null || continue
		echo "left behind: $d" >&2
		return 1
	done
}
# The one "host trace" line of a log.
trace_line() { grep '^runner: host trace: ' "$1"; }
trace_lines() { grep -c '^runner: host trace: ' "$1"; }

# A run of [pass] (or TEST) with the fake QEMU, env settings first.
# The switches away from task comm in a trace that go to neither QEMU (pid) nor a task forked
# from it or from its forks, by the trace's sched_process_fork lines.
not_qemus_switches() { # trace pid comm
	awk -v q="$2" -v c="$3" '
	{ line[NR] = $0 }
	/sched_process_fork:/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^pid=/) p = substr($i, 5)
			if ($i ~ /^child_pid=/) child[substr($i, 11)] = p
		}
	}
	END {
		ours[q] = 1
		do { more = 0; for (k in child) if ((child[k] in ours) && !(k in ours)) { ours[k] = 1; more = 1 } } while (more)
		for (n = 1; n <= NR; n++) {
			if (line[n] !~ ("sched_switch: +prev_comm=" c " ")) continue
			if (match(line[n], /next_pid=[0-9]+/) && (substr(line[n], RSTART + 9, RLENGTH - 9) in ours)) continue
			print line[n]
		}
	}' "$1"
}

trace_run() { # [env=value...] [-- TEST]
	local envs=() t=pass
	while (($#)) && [ "$1" != -- ]; do envs+=("$1") && shift; done
	[ "${1:-}" != -- ] || t=$2
	rm -rf logs logs.old
	env VMTICK_HOST_TRACE=auto HOST_TRACE_TCG=1 "${envs[@]}" UNITTESTS_CFG=h.cfg QEMU="$FAKE" "$RUNNER" --build build "$t" \
		>out.txt 2>err.txt
}

# Where the runner cannot trace: one line saying why, and nothing else changes.
host_trace_none() {
	trace_run VMTICK_HOST_TRACE=yes
	ok "host trace: a bad VMTICK_HOST_TRACE is exit 4" equals "$?" 4
	ok "host trace: ... naming the value" has_line err.txt \
		"run_tests.sh: VMTICK_HOST_TRACE must be 0 (no host trace), 1 (required) or auto, not 'yes' (see -h)"
	trace_run VMTICK_HOST_TRACE=0
	ok "host trace: VMTICK_HOST_TRACE=0 still PASSes" has_match out.txt '^PASS +pass '
	ok "host trace: VMTICK_HOST_TRACE=0 says so in one line" \
		equals "$(trace_line logs/pass.log)" "runner: host trace: none: turned off (VMTICK_HOST_TRACE=0)"
	ok "host trace: the guest's output untouched" has_line logs/pass.log 'PASS: one'
	if [ "$(id -u)" = 0 ]; then
		trace_run VMTICK_TRACE_CMD="$FAKE_TRACE_CMD" -- plain
		ok "host trace: auto leaves an entry the host's evidence does not serve, saying so" \
			equals "$(trace_line logs/plain.log)" "runner: host trace: none: not this entry: auto traces those the host's evidence serves (evidence = or events =), VMTICK_HOST_TRACE=1 every one"
	else
		skip "host trace: auto leaves an entry the host's evidence does not serve, saying so" "not root: the not-root line comes first"
	fi
	if [ "$(id -u)" = 0 ]; then
		trace_run VMTICK_TRACE_CMD="$FAKE_TRACE_CMD" HOST_TRACE_TCG= -- traced
		ok "host trace: auto leaves a TCG run, saying why" \
			equals "$(trace_line logs/traced.log)" "runner: host trace: none: a tcg run: its guest's counter is QEMU's, not the host's TSC, so nothing puts its record on the trace's timeline; auto traces KVM runs, VMTICK_HOST_TRACE=1 this one too"
	else
		skip "host trace: auto leaves a TCG run, saying why" "not root: the not-root line comes first"
	fi
	trace_run HOST_TRACE_UID=1000
	ok "host trace: not root says so" equals "$(trace_line logs/pass.log)" "runner: host trace: none: not root (tracefs is root's)"
	ok "host trace: not root still PASSes" has_match out.txt '^PASS +pass '
	trace_run VMTICK_TRACE_CMD=/nonexistent/trace-cmd
	ok "host trace: no trace-cmd says so" \
		equals "$(trace_line logs/pass.log)" "runner: host trace: none: no /nonexistent/trace-cmd (scripts/install-deps.sh installs it)"
	if [ "$(id -u)" = 0 ]; then
		trace_run VMTICK_TRACE_CMD="$FAKE_TRACE_CMD" VMTICK_TRACEFS="$WORK/no-such-dir"
		ok "host trace: no tracefs says so" \
			equals "$(trace_line logs/pass.log)" "runner: host trace: none: no tracefs at $WORK/no-such-dir, and it would not mount"
	else
		skip "host trace: no tracefs says so" "not root: the not-root line comes first"
	fi
	trace_run VMTICK_HOST_TRACE=1 HOST_TRACE_UID=1000
	ok "host trace: required but impossible is not a pass" not equals "$?" 0
	ok "host trace: ... an ERROR that says why" \
		has_match out.txt "^ERROR +pass .*VMTICK_HOST_TRACE=1 but no host trace can be recorded: not root"
}

# A fake QEMU traced on the real tracefs, and what the runner leaves there.
host_trace_real() {
	local why="needs root, tracefs with x86-tsc and trace-cmd" on0 stale=4194000 f noise noise_pid qpid ns
	if ! real_tracefs; then
		skip "host trace: a real trace of a fake QEMU" "$why"
		return
	fi
	on0=$(<"$TRACEFS/tracing_on")
	# an instance a killed runner left (its owner's pid dead) is swept away
	while kill -0 "$stale" 2>/dev/null; do stale=$((stale + 1)); done
	ns=$(readlink /proc/self/ns/pid)
	ns=${ns//[!0-9]/}
	mkdir "$TRACEFS/instances/$TRACE_PREFIX$ns-$stale"
	# a process running beside QEMU, which the trace must not hold
	noise=htnoise$$
	cp /bin/sleep "$WORK/$noise"
	(while :; do "$WORK/$noise" 0.01; done) &
	noise_pid=$!
	rm -f span.txt
	trace_run -- traced
	kill "$noise_pid"
	wait "$noise_pid" 2>/dev/null
	qpid=$(awk '{ print $1; exit }' span.txt)
	f=logs/traced.trace.txt.gz
	gzip -dc "$f" >"$f.txt"
	ok "host trace: a traced run PASSes" has_match out.txt '^PASS +traced '
	ok "host trace: one line names the trace beside the log" \
		has_match logs/traced.log "^runner: host trace: traced\.trace\.txt\.gz beside this log \([1-9][0-9]* events on the TSC clock, read by trace-cmd: the scheduler's events of QEMU's threads; 0 lost to a full buffer\)$"
	ok "host trace: ... only one" equals "$(trace_lines logs/traced.log)" 1
	ok "host trace: ... its count the trace's lines" \
		equals "$(sed -n 's/^runner: host trace: .* (\([0-9]*\) events .*/\1/p' logs/traced.log)" "$(grep -c ': sched_' "$f.txt")"
	ok "host trace: the header keeps the command as it was" has_match logs/traced.log "^[^ ]*python3 [^ ]*host_evidence\.py -- $FAKE -machine "
	ok "host trace: the trace holds the fake QEMU's switches (trace-cmd report text, TSC counts)" \
		has_match "$f.txt" "^${TRACE_PREFIX}[0-9]+-[0-9]+: +[^ ]+-[0-9]+ +\[[0-9]+\] ?[0-9]{12,}: sched_switch: +prev_comm=[^ ]+ prev_pid=$qpid "
	ok "host trace: ... and its children's (its pause's sleep)" has_match "$f.txt" ': sched_switch: +prev_comm=sleep '
	ok "host trace: ... its exec, which names QEMU's pid" has_match "$f.txt" ": sched_process_exec: +filename=$FAKE pid=$qpid "
	ok "host trace: ... its forks, which name its threads and children" \
		has_match "$f.txt" ": sched_process_fork: +comm=[^ ]+ pid=$qpid child_comm=[^ ]+ child_pid=[0-9]+"
	# a switch from QEMU's task names the next one, whoever it is; one between two others is not
	# QEMU's: a switch away from the noise must be to QEMU or a task it forked (the trace's forks)
	ok "host trace: ... and no one else's (no switch from a process beside it to another)" \
		equals "$(not_qemus_switches "$f.txt" "$qpid" "$noise")" ""
	ok "host trace: no instance left, the stale one swept" no_instance_left
	ok "host trace: ... the stale one too" not_exists "$TRACEFS/instances/$TRACE_PREFIX$ns-$stale"
	ok "host trace: the top instance's tracing_on as it was" equals "$(<"$TRACEFS/tracing_on")" "$on0"
	ok "host trace: the top instance's events untouched" equals "$(grep -c . "$TRACEFS/set_event")" 0
	# trace-cmd failing after the run: the line says why, the outcome stays
	trace_run VMTICK_TRACE_CMD="$FAKE_TRACE_CMD" FAKE_TRACE_CMD_FAIL=extract
	ok "host trace: extract failing says why" \
		equals "$(trace_line logs/pass.log)" "runner: host trace: none: $FAKE_TRACE_CMD extract failed: fake-trace-cmd: extract refused"
	ok "host trace: ... and the run still PASSes" has_match out.txt '^PASS +pass '
	ok "host trace: ... no instance left" no_instance_left
	trace_run VMTICK_HOST_TRACE=1 VMTICK_TRACE_CMD="$FAKE_TRACE_CMD" FAKE_TRACE_CMD_FAIL=report
	ok "host trace: required, report failing: ERROR naming it" \
		has_match out.txt "^ERROR +pass .*VMTICK_HOST_TRACE=1 but no host trace was recorded: $FAKE_TRACE_CMD report of .* failed; the run was PASS"
	ok "host trace: ... no half-written trace" not_exists logs/pass.trace.txt.gz
	# QEMU killed at its timeout: the trace read all the same, nothing left
	trace_run TIMEOUT=2 -- hang
	ok "host trace: timed out: TIMEOUT" has_match out.txt '^TIMEOUT +hang '
	ok "host trace: timed out: the trace kept and named" \
		has_match logs/hang.log '^runner: host trace: hang\.trace\.txt\.gz beside this log \([1-9]'
	ok "host trace: timed out: no instance left" no_instance_left
	ok "host trace: timed out: no QEMU left" no_process "sleep $FAKE_QEMU_SLEEP"
	host_trace_interrupt
}

# A run interrupted while its QEMU runs leaves nothing in tracefs.
host_trace_interrupt() {
	local pid seen=""
	rm -rf logs logs.old
	set -m
	(VMTICK_HOST_TRACE=auto HOST_TRACE_TCG=1 UNITTESTS_CFG=h.cfg QEMU=$FAKE exec "$RUNNER" --build build hang >out.txt 2>err.txt) &
	pid=$!
	set +m
	wait_for logs/hang.log 'INFO: hanging'
	if compgen -G "$TRACEFS/instances/$TRACE_PREFIX*" >/dev/null; then seen=1; fi
	kill -INT "$pid"
	wait "$pid"
	ok "host trace: interrupted: its instance was there while QEMU ran" equals "$seen" 1
	ok "host trace: interrupted: no instance left" no_instance_left
	ok "host trace: interrupted: no QEMU left" no_process "sleep $FAKE_QEMU_SLEEP"
}

# Under KVM (which this check need not have): the instances and filters the
# runner sets up, on the real tracefs, and the trace-cmd commands it runs.
host_trace_kvm_setup() {
	local d=$WORK/htkvm out
	if ! real_tracefs; then
		skip "host trace: the KVM set-up on this kernel" "needs root, tracefs with x86-tsc and trace-cmd"
		return
	fi
	mkdir -p "$d" && rm -f "$d"/*
	# shellcheck disable=SC2016 # expanded by the inner shell
	out=$(cd "$d" && SRCDIR=$TOP VMTICK_HOST_TRACE=auto HOST_TRACE_TCG=1 VMTICK_TRACE_CMD=$FAKE_TRACE_CMD FAKE_TRACE_CMD_ARGV=$d/argv bash -c '
		. "$SRCDIR/scripts/runner-lib.bash"
		host_trace_check_env || exit 1
		LOGDIR=$PWD RUN_TMP=$PWD RUN_OUTCOME=PASS RUN_MSG=ok
		ARCH_CMD=(sleep 0.3) RUN_CMD=(python3 helper.py -- "${ARCH_CMD[@]}")
		host_trace_begin k.log kvm
		i=${HOST_TRACE_INST[0]}
		{
			echo "cmd: ${RUN_CMD[*]:0:5} ${RUN_CMD[*]: -6}"
			echo "sched events: $(sort "$i/set_event" | tr "\n" " ")"
			echo "sched clock: $(grep -o "\[[^]]*\]" "$i/trace_clock") fork: $(<"$i/options/event-fork") overwrite: $(<"$i/options/overwrite") kb: $(<"$i/buffer_size_kb")"
			echo "kvm events: $(sort "$i-kvm/set_event" | tr "\n" " ")"
			echo "kvm clock: $(grep -o "\[[^]]*\]" "$i-kvm/trace_clock")"
			for e in timer/hrtimer_start timer/hrtimer_expire_entry sched/sched_switch sched/sched_wakeup; do
				echo "kvm filter $e: $(<"$i-kvm/events/$e/filter")"
			done
			echo "on before: $(<"$i/tracing_on") $(<"$i-kvm/tracing_on")"
			"${RUN_CMD[@]:3}" &
			sleep 0.1
			echo "pid filter: $(grep -c "^$!$" "$i/set_event_pid") on: $(<"$i/tracing_on") $(<"$i-kvm/tracing_on")"
			wait
			host_trace_end kvm k.log
			echo "left: $(ls -d "$i"* 2>/dev/null | wc -l)"
		} 2>&1
		echo "inst: ${i##*/}"')
	echo "$out" >"$d/out"
	local inst
	inst=$(sed -n 's/^inst: //p' "$d/out")
	ok "host trace: kvm: QEMU started through the shell that turns tracing on" \
		has_match "$d/out" "^cmd: python3 helper.py -- /bin/sh -c vmtick-host-trace $TRACEFS/instances/$inst $TRACEFS/instances/$inst-kvm -- sleep 0.3$"
	ok "host trace: kvm: QEMU's threads' scheduler events" has_line "$d/out" \
		"sched events: sched:sched_process_exec sched:sched_process_fork sched:sched_switch sched:sched_wakeup "
	ok "host trace: kvm: TSC clock, followed forks, start kept, 16 MB a CPU (in whole pages)" \
		has_match "$d/out" "^sched clock: \[x86-tsc\] fork: 1 overwrite: 0 kb: 1638[4-9]$"
	ok "host trace: kvm: KVM's events, its timers' and its PIT thread's" has_line "$d/out" \
		"kvm events: kvm:kvm_apic_accept_irq kvm:kvm_ioapic_set_irq kvm:kvm_pic_set_irq kvm:kvm_set_irq kvm:kvm_write_tsc_offset sched:sched_switch sched:sched_wakeup timer:hrtimer_expire_entry timer:hrtimer_start "
	ok "host trace: kvm: on the TSC clock too" has_line "$d/out" "kvm clock: [x86-tsc]"
	ok "host trace: kvm: hrtimer_start filtered to KVM's timers" has_line "$d/out" \
		"kvm filter timer/hrtimer_start: function.function == apic_timer_fn || function.function == pit_timer_fn"
	ok "host trace: kvm: hrtimer_expire_entry filtered to KVM's timers" has_line "$d/out" \
		"kvm filter timer/hrtimer_expire_entry: function.function == apic_timer_fn || function.function == pit_timer_fn"
	ok "host trace: kvm: the PIT thread's switches" has_line "$d/out" \
		'kvm filter sched/sched_switch: prev_comm ~ "kvm-pit/*" || next_comm ~ "kvm-pit/*"'
	ok "host trace: kvm: the PIT thread's wake-ups" has_line "$d/out" 'kvm filter sched/sched_wakeup: comm ~ "kvm-pit/*"'
	ok "host trace: kvm: off until QEMU starts" has_line "$d/out" "on before: 0 0"
	ok "host trace: kvm: then on, QEMU's pid the filter" has_line "$d/out" "pid filter: 1 on: 1 1"
	ok "host trace: kvm: trace-cmd reads both instances" has_line "$d/argv" \
		"extract -B $inst -B $inst-kvm -o $d/kvm.trace.dat"
	ok "host trace: kvm: and writes the report's text with TSC counts" has_line "$d/argv" \
		"report -N --raw-ts -i $d/kvm.trace.dat"
	ok "host trace: kvm: the log says what the trace holds" has_match "$d/k.log" \
		"^runner: host trace: kvm\.trace\.txt\.gz beside this log \([0-9]+ events on the TSC clock, read by trace-cmd: the scheduler's events of QEMU's threads, KVM's events and its timers' expiries; 0 lost to a full buffer\)$"
	ok "host trace: kvm: instances removed" has_line "$d/out" "left: 0"
}

host_trace() {
	local d=$WORK/htrace
	make_build "$d/build" x86_64
	printf '%s\n' "span $d/span.txt" 'out PASS: traced' 'pause 1' 'out SUMMARY: 1 tests, 0 unexpected failures, 0 skipped' \
		'exit 0' >"$d/build/x86/traced.flat"
	printf '%s\n' '[pass]' 'file = pass.flat' 'evidence = host' '[traced]' 'file = traced.flat' 'evidence = host' '[hang]' 'file = hang.flat' 'evidence = host' 'timeout = 60' '[plain]' 'file = pass.flat' >"$d/h.cfg"
	cd "$d" || return
	host_trace_none
	host_trace_real
	cd "$TOP" || return
	host_trace_kvm_setup
}
