# SPDX-License-Identifier: GPL-2.0-only
# The host's trace of each attempt's QEMU: tracefs instances set up around it, read out by trace-cmd (docs/runner.md, "The host's trace").
# shellcheck shell=bash

# Where the runner can write tracefs (root), each attempt gets a tracefs
# instance of its own (other users' and other entries' tracing untouched),
# on the TSC clock (x86-tsc), holding the scheduler's events of that QEMU's
# threads only: set_event_pid with event-fork, the pid written by a shell
# that then execs QEMU (host_trace_begin), so the trace starts with QEMU's
# first instruction and every thread it makes is followed. Under KVM a
# second instance holds KVM's events and KVM's timers' hrtimer events:
# those fire in interrupt context, on whatever task the CPU ran (often the
# idle task while the vCPU thread sleeps in HLT), so a pid filter would
# drop exactly the expiries that matter; they are filtered by function
# instead, and the scheduler's events there only by the PIT kthread's name.
# Nothing runs while QEMU runs: the kernel fills the buffers, and
# trace-cmd extract reads them when QEMU has ended (host_trace_end); the
# instances are then removed. VMTICK_HOST_TRACE: auto (default) traces
# where it can the KVM runs of the entries whose judgment the host's
# record serves (those with evidence = or events =: about 0.8 s each after
# QEMU ends), 0 never, 1 every entry under either accelerator, one that
# cannot be traced an ERROR. HOST_TRACE_TCG=1 (the tests' fake QEMU runs
# under TCG) traces TCG runs under auto too.
HOST_TRACE_FS=${VMTICK_TRACEFS:-/sys/kernel/tracing} # the tests point it at a made-up tree
HOST_TRACE_CMD=${VMTICK_TRACE_CMD:-trace-cmd}          # and this at a fake
HOST_TRACE_CLOCK=x86-tsc
# Per CPU and instance; new events are dropped when full (overwrite off:
# the run's start, where KVM writes the TSC offset, is kept), and the log
# says how many. Measured: a 2-s timer-hpet under TCG wrote 27,000 events,
# 0.8 MB a CPU; this holds about 40 s of that.
HOST_TRACE_BUFFER_KB=16384
# QEMU's threads on and off a CPU; its exec and forks say which pid is QEMU and which threads are its
HOST_TRACE_SCHED_EVENTS=(sched/sched_switch sched/sched_wakeup sched/sched_process_exec sched/sched_process_fork)
HOST_TRACE_KVM_EVENTS=(kvm/kvm_apic_accept_irq kvm/kvm_set_irq kvm/kvm_ioapic_set_irq kvm/kvm_pic_set_irq
	kvm/kvm_write_tsc_offset)
HOST_TRACE_TIMER_EVENTS=(timer/hrtimer_start timer/hrtimer_expire_entry)
# KVM's timers: the LAPIC timer's and the in-kernel PIT's hrtimer callbacks
HOST_TRACE_TIMER_FILTER='function.function == apic_timer_fn || function.function == pit_timer_fn'
HOST_TRACE_PIT_SWITCH_FILTER='prev_comm ~ "kvm-pit/*" || next_comm ~ "kvm-pit/*"'
HOST_TRACE_PIT_WAKEUP_FILTER='comm ~ "kvm-pit/*"'
# Instance names: PREFIX<pid namespace>-<runner job's pid>[-kvm]. tracefs is
# the kernel's, shared by every container on it: the namespace keeps their
# names apart, and a runner sweeps only its own namespace's.
# ("ns" before the namespace: the first runners of this kind, which named
# instances PREFIX<pid>, sweep only names whose next word is all digits)
HOST_TRACE_PREFIX=vmtick-trace-ns
HOST_TRACE_NONE='runner: host trace: none: '
HOST_TRACE_INST=() HOST_TRACE_WHY="" HOST_TRACE_NOTE=""

# VMTICK_HOST_TRACE's value checked, for main_check_env: HOST_TRACE_MODE
# (auto, 0 or 1), or false with HOST_TRACE_ERROR.
# shellcheck disable=SC2034 # HOST_TRACE_ERROR: main_check_env's
host_trace_check_env() {
	HOST_TRACE_ERROR=""
	case ${VMTICK_HOST_TRACE:-auto} in
	auto | 0 | 1) HOST_TRACE_MODE=${VMTICK_HOST_TRACE:-auto} ;;
	*)
		HOST_TRACE_ERROR="VMTICK_HOST_TRACE must be 0 (no host trace), 1 (required) or auto, not '$VMTICK_HOST_TRACE'"
		return 1
		;;
	esac
}

# Why this host cannot trace an entry, into the variable named var (empty:
# it can). Mounts tracefs where it is not mounted (as root it mounts).
host_trace_why_not_into() { # var
	local -n _hw_out=$1
	_hw_out=""
	if [ "${HOST_TRACE_MODE:-auto}" = 0 ]; then
		_hw_out="turned off (VMTICK_HOST_TRACE=0)"
	elif [ "${HOST_TRACE_UID:-$EUID}" != 0 ]; then
		_hw_out="not root (tracefs is root's)"
	elif ! command -v "$HOST_TRACE_CMD" >/dev/null 2>&1; then
		_hw_out="no $HOST_TRACE_CMD (scripts/install-deps.sh installs it)"
	elif [ ! -d "$HOST_TRACE_FS/instances" ] && ! mount -t tracefs nodev "$HOST_TRACE_FS" 2>/dev/null; then
		_hw_out="no tracefs at $HOST_TRACE_FS, and it would not mount"
	elif [ ! -w "$HOST_TRACE_FS/instances" ]; then
		_hw_out="cannot write $HOST_TRACE_FS/instances"
	elif ! grep -qw -- "$HOST_TRACE_CLOCK" "$HOST_TRACE_FS/trace_clock" 2>/dev/null; then
		_hw_out="trace_clock offers no $HOST_TRACE_CLOCK (not an x86 host)"
	elif [ "${HOST_TRACE_MODE:-auto}" = auto ] && [ -z "${PREP_HOST_SERVED-x}" ]; then
		_hw_out="not this entry: auto traces those the host's evidence serves (evidence = or events =), VMTICK_HOST_TRACE=1 every one"
	elif [ "${HOST_TRACE_MODE:-auto}" = auto ] && [ "${HOST_TRACE_ACCEL:-kvm}" != kvm ] &&
		[ -z "${HOST_TRACE_TCG:-}" ]; then
		_hw_out="a ${HOST_TRACE_ACCEL} run: its guest's counter is QEMU's, not the host's TSC, so nothing puts its record on the trace's timeline; auto traces KVM runs, VMTICK_HOST_TRACE=1 this one too"
	fi
}

# For run_prepare: an entry that cannot be traced when the trace is
# required does not start (PREP_OUTCOME=ERROR).
# shellcheck disable=SC2034 # PREP_OUTCOME, PREP_MSG: run_prepare's
host_trace_prepare() {
	local why
	[ "${HOST_TRACE_MODE:-auto}" = 1 ] || return 0
	host_trace_why_not_into why
	[ -z "$why" ] || PREP_OUTCOME=ERROR PREP_MSG="VMTICK_HOST_TRACE=1 but no host trace can be recorded: $why"
}

# Remove instances whose runner job is gone (killed before it could): their
# pid filter names dead threads, but their buffers hold memory.
host_trace_sweep() { # namespace
	local d name owner
	for d in "$HOST_TRACE_FS/instances/$HOST_TRACE_PREFIX$1-"*; do
		[ -d "$d" ] || continue
		name=${d##*/}
		owner=${name#"$HOST_TRACE_PREFIX$1-"}
		owner=${owner%%-*}
		[[ $owner =~ ^[0-9]+$ ]] || continue
		kill -0 "$owner" 2>/dev/null && continue
		host_trace_remove "$d"
	done
}

# Stop an instance and take it away (the kernel disables its events).
host_trace_remove() { # instance-dir
	[ -d "$1" ] || return 0
	echo 0 2>/dev/null >"$1/tracing_on"
	rmdir -- "$1" 2>/dev/null
}

# One event of an instance enabled, with a filter (empty: none); false when
# this kernel has no such event or refuses the filter.
host_trace_event() { # instance-dir system/event filter
	local e=$1/events/$2
	[ -d "$e" ] || return 1
	if [ -n "$3" ]; then echo "$3" 2>/dev/null >"$e/filter" || return 1; fi
	echo 1 2>/dev/null >"$e/enable"
}

# A new instance, stopped, on the TSC clock, its buffer sized; false with
# HOST_TRACE_WHY when it cannot be made.
host_trace_instance() { # instance-dir
	local d=$1 why
	[ ! -d "$d" ] || host_trace_remove "$d"
	if ! why=$(mkdir -- "$d" 2>&1); then
		HOST_TRACE_WHY="cannot make the tracefs instance $d: ${why##*: }"
		return 1
	fi
	# a new instance records at once: stop it before anything is enabled
	if ! { echo 0 >"$d/tracing_on" && echo "$HOST_TRACE_CLOCK" >"$d/trace_clock" &&
		echo 0 >"$d/options/overwrite" && echo "$HOST_TRACE_BUFFER_KB" >"$d/buffer_size_kb"; } 2>/dev/null; then
		HOST_TRACE_WHY="cannot set up the tracefs instance $d (tracing_on, trace_clock, options/overwrite, buffer_size_kb)"
		host_trace_remove "$d"
		return 1
	fi
}

# Set up the attempt's instances and put the shell that starts tracing
# before QEMU in RUN_CMD (the log's header keeps the command as it was);
# or say in one log line why there is no trace.
host_trace_begin() { # log accel
	local log=$1 accel=$2 base k e ns
	HOST_TRACE_INST=() HOST_TRACE_NOTE="" HOST_TRACE_ACCEL=$accel
	host_trace_why_not_into HOST_TRACE_WHY
	if [ -z "$HOST_TRACE_WHY" ]; then
		# QEMU's place in the command: after the helper's words, if one runs it
		k=$((${#RUN_CMD[@]} - ${#ARCH_CMD[@]}))
		((k >= 0)) && [ "${RUN_CMD[k]}" = "${ARCH_CMD[0]}" ] ||
			HOST_TRACE_WHY="QEMU's binary is not where the runner put it in the command"
	fi
	if [ -n "$HOST_TRACE_WHY" ]; then
		echo "$HOST_TRACE_NONE$HOST_TRACE_WHY" >>"$log"
		return 0
	fi
	ns=$(readlink /proc/self/ns/pid 2>/dev/null)
	ns=${ns//[!0-9]/}
	host_trace_sweep "${ns:=0}"
	base=$HOST_TRACE_FS/instances/$HOST_TRACE_PREFIX$ns-$BASHPID
	host_trace_instance "$base" || { echo "$HOST_TRACE_NONE$HOST_TRACE_WHY" >>"$log"; return 0; }
	HOST_TRACE_INST=("$base")
	echo 1 >"$base/options/event-fork" 2>/dev/null || HOST_TRACE_WHY="this tracefs has no options/event-fork"
	for e in "${HOST_TRACE_SCHED_EVENTS[@]}"; do
		host_trace_event "$base" "$e" "" || HOST_TRACE_WHY="this kernel has no event ${e/\//:}"
	done
	if [ -z "$HOST_TRACE_WHY" ] && [ "$accel" = kvm ]; then host_trace_kvm "$base-kvm"; fi
	if [ -n "$HOST_TRACE_WHY" ]; then
		host_trace_abort
		echo "$HOST_TRACE_NONE$HOST_TRACE_WHY" >>"$log"
		return 0
	fi
	# the shell's pid joins the filter (appended: a second QEMU, as a
	# migration starts, joins it too), then it turns the instances on and
	# becomes QEMU; should the filter not take, tracing stays off
	# shellcheck disable=SC2016 # the inner shell expands them
	RUN_CMD=("${RUN_CMD[@]:0:k}" /bin/sh -c \
		'ok=; echo $$ 2>/dev/null >>"$1/set_event_pid" && ok=1
while [ "$1" != -- ]; do [ -z "$ok" ] || echo 1 2>/dev/null >"$1/tracing_on"; shift; done
shift; exec "$@"' \
		vmtick-host-trace "${HOST_TRACE_INST[@]}" -- "${RUN_CMD[@]:k}")
}

# Under KVM: the instance of KVM's events and its timers' expiries, not
# filtered by pid (see above); what this kernel lacks is named in the log.
host_trace_kvm() { # instance-dir
	local d=$1 e lacks=""
	host_trace_instance "$d" || return 0
	HOST_TRACE_INST+=("$d")
	for e in "${HOST_TRACE_KVM_EVENTS[@]}"; do
		host_trace_event "$d" "$e" "" || lacks+=" ${e/\//:}"
	done
	for e in "${HOST_TRACE_TIMER_EVENTS[@]}"; do
		host_trace_event "$d" "$e" "$HOST_TRACE_TIMER_FILTER" || lacks+=" ${e/\//:} (by function)"
	done
	host_trace_event "$d" sched/sched_switch "$HOST_TRACE_PIT_SWITCH_FILTER" || lacks+=" sched:sched_switch (kvm-pit)"
	host_trace_event "$d" sched/sched_wakeup "$HOST_TRACE_PIT_WAKEUP_FILTER" || lacks+=" sched:sched_wakeup (kvm-pit)"
	[ -z "$lacks" ] || HOST_TRACE_NOTE="; left out, this kernel has not or refused:$lacks"
}

# Stop and remove the attempt's instances without reading them (an
# interrupted run, or one whose set-up failed).
host_trace_abort() {
	local d
	for d in "${HOST_TRACE_INST[@]}"; do host_trace_remove "$d"; done
	HOST_TRACE_INST=()
}

# After QEMU has ended (exited, timed out or killed): stop the instances,
# have trace-cmd read them out into logs/TEST.trace.txt.gz (the text of
# trace-cmd report, timestamps as the TSC's counts), remove them, and name
# the file in the log with what it holds. With VMTICK_HOST_TRACE=1 an
# attempt without a trace is an ERROR.
host_trace_end() { # test log
	local t=$1 log=$2 d out dat n=0 lost=0 what v why kinds
	local -a args=()
	if ((${#HOST_TRACE_INST[@]})); then
		for d in "${HOST_TRACE_INST[@]}"; do
			[ -d "$d" ] || HOST_TRACE_WHY="its tracefs instance $d was removed while QEMU ran"
			echo 0 2>/dev/null >"$d/tracing_on"
			args+=(-B "${d##*/}")
			# the events held and those dropped because the buffer was full, summed over CPUs
			while read -r what v; do
				if [ "$what" = entries ]; then n=$((n + v)); else lost=$((lost + v)); fi
			done < <(sed -n -e 's/^\(entries\): /\1 /p' -e 's/^dropped events: /dropped /p' "$d"/per_cpu/cpu*/stats 2>/dev/null)
		done
		host_trace_out_into out "$t"
		dat=$RUN_TMP/$t.trace.dat
		if [ -n "$HOST_TRACE_WHY" ]; then
			:
		elif ! why=$("$HOST_TRACE_CMD" extract "${args[@]}" -o "$dat" 2>&1 >/dev/null); then
			HOST_TRACE_WHY="$HOST_TRACE_CMD extract failed: $(tail -n 1 <<<"$why")"
		elif ! { "$HOST_TRACE_CMD" report -N --raw-ts -i "$dat" 2>/dev/null | gzip >"$LOGDIR/$out"; } ||
			[ "${PIPESTATUS[0]}" != 0 ]; then
			HOST_TRACE_WHY="$HOST_TRACE_CMD report of $dat failed"
			rm -f -- "$LOGDIR/$out"
		fi
		rm -f -- "$dat"
		host_trace_abort
		if [ -z "$HOST_TRACE_WHY" ]; then
			kinds="the scheduler's events of QEMU's threads"
			((${#args[@]} < 4)) || kinds+=", KVM's events and its timers' expiries$HOST_TRACE_NOTE"
			echo "runner: host trace: $out beside this log ($n events on the TSC clock, read by trace-cmd: $kinds; $lost lost to a full buffer)" >>"$log"
		else
			echo "$HOST_TRACE_NONE$HOST_TRACE_WHY" >>"$log"
		fi
	fi
	if [ "${HOST_TRACE_MODE:-auto}" = 1 ] && [ -n "$HOST_TRACE_WHY" ] && [ "$RUN_OUTCOME" != ERROR ]; then
		RUN_MSG="VMTICK_HOST_TRACE=1 but no host trace was recorded: $HOST_TRACE_WHY; the run was $RUN_OUTCOME: $RUN_MSG"
		RUN_OUTCOME=ERROR
	fi
}

# The trace's file name beside the log: TEST.trace.txt.gz, or for a later
# attempt of the same run (its earlier logs kept as TEST.log.N) the first
# TEST.trace.N.txt.gz free.
host_trace_out_into() { # var test
	local -n _ho_out=$1
	local i=2
	_ho_out=$2.trace.txt.gz
	while [ -e "$LOGDIR/$_ho_out" ]; do
		_ho_out=$2.trace.$i.txt.gz
		i=$((i + 1))
	done
}
