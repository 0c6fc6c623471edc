#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the project's .gitlab-ci.yml for real with gitlab-ci-local (shell executor) and checks every job's artifacts.
#
# Usage: scripts/gitlab-ci-check.sh [--list] [JOB...]
#
# Without JOB: every job of the pipeline this host can run. KVM jobs need a
# usable /dev/kvm of the guest's arch; i386 under KVM also needs a KVM that runs
# 32-bit guests (not kvm-pvm). The jobs left out are named with the reason.
# JOB: job names as gitlab-ci-local lists them ('vmtick-kvm: [x86_64,timer]')
# or shell patterns ('vmtick-tcg: *'); the jobs they need run first.
# --list: print the selection and what is left out, run nothing.
#
# The pipeline runs in a copy of the work tree (tracked and untracked files
# that git does not ignore), so the tree itself is never written to. It takes
# about 2.5 minutes on 2 CPUs; run it alone, e.g. under
# `flock /tmp/vmtick-timing.lock scripts/gitlab-ci-check.sh`.
#
# Environment: GITLAB_CI_LOCAL (the tool; else it is installed with npm into
# ${XDG_CACHE_HOME:-~/.cache}/vmtick/gitlab-ci-local), CI_CONCURRENCY (jobs at
# once, default 1: on a 2-CPU host a TCG job beside a timer job made timer
# checks fail), KEEP=1 (keep the copy and print where it is).
set -u

# The newest release that runs on Node.js 20 (later ones need Node.js 22).
GCL_VERSION=4.65.1
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG=gitlab-ci-check
# shellcheck source=scripts/arch.bash
. "$TOP/scripts/arch.bash"

die() {
	echo "$PROG: $*" >&2
	exit 2
}

# gitlab-ci-local from GITLAB_CI_LOCAL, else a pinned copy installed once.
find_tool() {
	local prefix=${XDG_CACHE_HOME:-$HOME/.cache}/vmtick/gitlab-ci-local
	if [ -n "${GITLAB_CI_LOCAL:-}" ]; then
		GCL=$GITLAB_CI_LOCAL
		return
	fi
	GCL=$prefix/node_modules/.bin/gitlab-ci-local
	[ -x "$GCL" ] && [ "$("$GCL" --version 2>/dev/null)" = "$GCL_VERSION" ] && return
	command -v npm >/dev/null || die "needs npm (Debian: apt-get install npm) or GITLAB_CI_LOCAL=path"
	echo "$PROG: installing gitlab-ci-local $GCL_VERSION into $prefix"
	mkdir -p "$prefix" || die "cannot make $prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
		"gitlab-ci-local@$GCL_VERSION" >/dev/null || die "npm install gitlab-ci-local@$GCL_VERSION failed"
}

# Why this host cannot run a job (KVM's, arch_kvm_problem's words); empty when it can.
host_problem() { # job-name
	local job=$1 arch
	case $job in
	vmtick-kvm*) ;;
	*) return ;;
	esac
	arch=${job#*\[}
	arch=${arch%%,*}
	arch_kvm_problem "$arch"
}

# Copy the work tree into WORK/tree as a fresh git repository.
make_copy() {
	mkdir -p "$WORK/tree"
	(cd "$TOP" && git ls-files -z -co --exclude-standard) |
		(cd "$TOP" && tar --null -T - -cf -) | (cd "$WORK/tree" && tar -xf -) ||
		die "cannot copy the work tree"
	if ! git -C "$WORK/tree" init -q || ! git -C "$WORK/tree" add -A ||
		! git -C "$WORK/tree" -c user.name="$PROG" -c user.email="$PROG@localhost" \
			commit -q -m "copy for $PROG"; then
		die "cannot make a git repository of the copy"
	fi
}

# Fill SELECTED with the jobs to run; print those left out.
select_jobs() { # patterns...
	local job p want problem
	SELECTED=()
	while IFS= read -r job; do
		want=$(($# == 0))
		for p in "$@"; do
			# shellcheck disable=SC2053 # p is a pattern on purpose
			[[ $job == "$p" || $job == $p ]] && want=1
		done
		((want)) || continue
		problem=$(host_problem "$job")
		if [ -n "$problem" ]; then
			echo "left out: $job ($problem)"
			continue
		fi
		SELECTED+=("$job")
	done < <(cd "$WORK/tree" && "$GCL" --list-csv 2>/dev/null | tail -n +2 | cut -d';' -f1 | tr -d '"')
	((${#SELECTED[@]})) || die "no job selected (see --list)"
}

# A JUnit report as a generic reader takes it (junitparser): some test cases,
# none failed or errored. Nothing here depends on how the runner groups them.
junit_ok() { # file
	/usr/bin/python3 - "$1" <<'PY'
import sys
from junitparser import Error, Failure, JUnitXml, TestSuite
try:
    xml = JUnitXml.fromfile(sys.argv[1])
except Exception as e:
    sys.exit(f"{sys.argv[1]}: {e}")
suites = [xml] if isinstance(xml, TestSuite) else list(xml)
cases = [c for suite in suites for c in suite]
bad = [c.name for c in cases if any(isinstance(r, (Failure, Error)) for r in c.result)]
if not cases or bad:
    sys.exit(f"{sys.argv[1]}: {len(cases)} test cases, failed or errored: {bad}")
PY
}

# A report page that real HTML and XML parsers take (host-tests/report/pagecheck.py).
report_ok() { # file
	[ -s "$1" ] && python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import pagecheck
with open(sys.argv[2], encoding="utf-8") as f:
    text = f.read()
pagecheck.parse_html(text)
pagecheck.parse_svgs(text)' "$TOP/host-tests/report" "$1"
}

# Each test job left its JUnit file and logs among its artifacts. (gitlab-ci-local
# encodes ": [", "," and "]" in its folder names; count the folders instead.)
check_artifacts() {
	local want=0 n=0 bad=0 job dir
	for job in "${SELECTED[@]}"; do
		[[ $job != vmtick-kvm* && $job != vmtick-tcg* ]] || want=$((want + 1))
	done
	for dir in "$WORK"/tree/.gitlab-ci-local/artifacts/vmtick-{kvm,tcg}*/; do
		[ -d "$dir" ] || continue
		dir=${dir%/}
		n=$((n + 1))
		if ! junit_ok "$dir/vmtick-junit.xml"; then
			echo "$PROG: $dir: vmtick-junit.xml is not JUnit with passing test cases" >&2
			bad=$((bad + 1))
		elif ! ls "$dir"/logs/*.log >/dev/null 2>&1; then
			echo "$PROG: $dir: no logs/*.log" >&2
			bad=$((bad + 1))
		elif [[ $dir == *micro-bench* ]] && [ ! -s "$dir/logs/results.json" ]; then
			echo "$PROG: $dir: a micro-bench job without logs/results.json" >&2
			bad=$((bad + 1))
		elif ! report_ok "$dir/vmtick-report.html"; then
			echo "$PROG: $dir: vmtick-report.html is not a report page (docs/report.md)" >&2
			bad=$((bad + 1))
		fi
	done
	echo "$PROG: artifacts of $n test jobs checked ($want ran), $bad bad"
	((bad == 0 && n == want))
}

list=0
patterns=()
for a in "$@"; do
	case $a in
	--list) list=1 ;;
	-h | --help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$a' (--list, -h)" ;;
	*) patterns+=("$a") ;;
	esac
done

find_tool
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vmtick-gitlab-ci.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	echo "$PROG: the copy stays in $WORK/tree"
else
	trap 'rm -rf -- "$WORK"' EXIT
fi
make_copy
select_jobs "${patterns[@]}"
printf 'run: %s\n' "${SELECTED[@]}"
((list)) && exit 0

cd "$WORK/tree" || exit 2
"$GCL" --shell-isolation --needs --concurrency "${CI_CONCURRENCY:-1}" --no-color \
	--variable VMTICK_JOBS=1 "${SELECTED[@]}" 2>&1 | tee "$WORK/pipeline.log" |
	grep -E '^ *(PASS|FAIL|WARN) |^[^ ]+ .*(finished in|exited with|failed)' 
status=${PIPESTATUS[0]}
passed=$(grep -cE '^ *PASS ' "$WORK/pipeline.log")
failed=$(grep -cE '^ *FAIL ' "$WORK/pipeline.log")
echo "$PROG: gitlab-ci-local exit status $status"
check_artifacts || failed=$((failed + 1))
((status == 0)) || failed=$((failed + 1))
echo "$passed passed, $failed failed"
((failed == 0))
