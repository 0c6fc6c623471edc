#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make check`: host tests, every arch built with gcc and clang, and the default suite run on each,
# x86_64's and aarch64's also under QEMU 10 beside Debian's 7.2 (ARCH-gcc-qemu10: --qemu 10).
# `make run` (--run): only the default suite, for the arches this host runs natively, built with gcc.
# Each suite leaves its JUnit and TAP in logs/reports/ (LABEL.xml, LABEL.tap), for any CI to collect,
# and both leave the report of the run's logs there (report.html; make check also report.png).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
SRCDIR=$top
# shellcheck source=scripts/arch.bash
. "$top/scripts/arch.bash"
# shellcheck source=scripts/qemu.bash
. "$top/scripts/qemu.bash"
reports=logs/reports
jobs=${CHECK_JOBS:-2}
fuzz_seconds=${FUZZ_SECONDS:-3}
total_pass=0 total_fail=0 total_skip=0
failures=()

# A step's header, with the seconds since make check started (where the time goes).
step() { printf '\n=== %s (at %d s)\n' "$*" "$SECONDS"; }

# Count a suite from its JUnit (the outcome property of each test): PASS
# passed, SKIP skipped, KFAIL neither (as the runner's closing line counts),
# anything else failed.
count_junit() { # junit label
	local xml=$1 p s all
	if [ ! -s "$xml" ] || [ ! -s "${xml%.xml}.tap" ]; then
		failures+=("$2: no JUnit or TAP in $reports")
		total_fail=$((total_fail + 1))
		return
	fi
	p=$(grep -c '<property name="outcome" value="PASS"/>' "$xml")
	s=$(grep -c '<property name="outcome" value="SKIP"/>' "$xml")
	all=$(grep -cv '<property name="outcome" value="KFAIL"/>' <(grep '<property name="outcome" ' "$xml"))
	echo "$2 (from its JUnit): $p passed, $((all - p - s)) failed, $s skipped"
	total_pass=$((total_pass + p)) total_fail=$((total_fail + all - p - s)) total_skip=$((total_skip + s))
	[ $((all - p - s)) -eq 0 ] || failures+=("$2: $((all - p - s)) failed")
}

# A step that is not a test run: one pass or one fail in the totals.
must() { # label command...
	local label=$1
	shift
	if "$@"; then
		total_pass=$((total_pass + 1))
	else
		total_fail=$((total_fail + 1))
		failures+=("$label")
	fi
}

build() { # arch cc
	local dir
	dir=$(arch_build_dir "$1" "$2")
	mkdir -p "$dir" &&
		(cd "$dir" && "$top/configure" --arch="$1" --cc="$2" >/dev/null && make -s -j"$jobs")
}

# A suite: its counts as a line of a results file (a host-side stream's, or suite's own).
suite_to() { # results label build-dir [runner args...]
	local res=$1 label=$2 dir=$3 out line p f s
	shift 3
	out=$(mktemp)
	step "run_tests.sh $label"
	LOGDIR=logs/$label ./run_tests.sh --build "$dir" -j "${SUITE_JOBS:-$jobs}" \
		--junit "$reports/$label.xml" --tap-file "$reports/$label.tap" "$@" | tee "$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ] || [ ! -s "$reports/$label.xml" ] || [ ! -s "$reports/$label.tap" ]; then
		echo "fail $label: no closing line, JUnit or TAP" >>"$res"
		return
	fi
	read -r p _ f _ s _ <<<"${line//,/}"
	echo "counts $p $f $s $label" >>"$res"
}

# Add a results file's lines to the totals: "pass LABEL", "fail LABEL", and a
# suite's "counts P F S LABEL".
add_results() { # results-file
	local line p f s label
	while read -r line; do
		case $line in
		pass\ *) total_pass=$((total_pass + 1)) ;;
		counts\ *)
			read -r _ p f s label <<<"$line"
			total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
			[ "$f" -eq 0 ] || failures+=("$label: $f failed")
			;;
		*) total_fail=$((total_fail + 1)) failures+=("${line#fail }") ;;
		esac
	done <"$1"
}

# A suite outside the host-side streams, counted at once.
suite() { # label build-dir [runner args...]
	local res
	res=$(mktemp)
	suite_to "$res" "$@"
	add_results "$res"
	rm -f "$res"
}

# The runner's own tests (--fake-only or --real-only), their TAP kept with the suites'.
runner_tests() { # part
	env RUNNER_TEST_BUILD="$(arch_build_dir x86_64 gcc)" host-tests/runner/run.sh "$1" |
		tee "$reports/runner-tests-${1#--}.tap"
	return "${PIPESTATUS[0]}"
}

# The closing line and the exit status: 0 only when nothing failed.
finish() {
	echo
	echo "took $SECONDS s"
	for f in "${failures[@]}"; do echo "failed: $f"; done
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
	[ "$total_fail" -eq 0 ]
}

# The arches whose kernels this host runs under KVM when it has it.
host_arches() {
	case $(uname -m) in
	x86_64) echo x86_64 i386 ;;
	aarch64 | arm64) echo aarch64 ;;
	i?86) echo i386 ;;
	esac
}

# `make run`: the default suite of each arch this host runs natively, built
# with gcc. `make check` runs exactly this too, as its first suites.
default_suites() {
	local arch dir
	local -a native
	read -r -a native <<<"$(host_arches)"
	[ "${#native[@]}" -gt 0 ] || { echo "run: no vmtick arch runs natively on $(uname -m)" >&2; exit 2; }
	for arch in "${native[@]}"; do
		step "build $arch with gcc"
		must "build $arch-gcc" build "$arch" gcc
		dir=$(arch_build_dir "$arch" gcc)
		[ -f "$dir/config.mak" ] && suite "$arch-gcc" "$dir"
	done
}

# Without KVM, say once what this run cannot cover and why (docs/runner.md,
# "Without KVM"); every such step says so again where it is skipped.
without_kvm_note() {
	local problem
	problem=$(arch_kvm_problem "$(arch_canonical "$(uname -m)" || uname -m)")
	[ -n "$problem" ] || return 0
	echo "=== without KVM ($problem): every entry runs under TCG. Not covered here, run"
	echo "    where KVM is usable: the KVM-only entries (kvmclock, Hyper-V, TSC_ADJUST, the"
	echo "    TSC-deadline and RTC tick sources; they SKIP naming why), the KVM settings of"
	echo "    the others, the doc-test blocks marked needs-kvm, the LAVA boot under KVM and"
	echo "    the runner's refused-migration check (invtsc blocks migration under KVM only)."
}

if [ $# -gt 0 ] && [ "$1" != --run ]; then
	echo "check.sh: unknown argument '$1' (only --run)" >&2
	exit 2
fi
rm -rf -- "$reports"
mkdir -p -- "$reports"
without_kvm_note
if [ "${1:-}" = --run ]; then
	default_suites
	step "report of the logs (docs/report.md)"
	must "report" scripts/report -o "$reports/report.html" logs
	finish
	exit
fi

arches=(x86_64 i386)
[ -d lib/arm64 ] && [ -n "$(ls lib/arm64/*.S 2>/dev/null)" ] && arches+=(aarch64)

# Today's QEMU beside Debian's (issue 39): these arches' default suites run
# again under QEMU 10, as ARCH-gcc-qemu10, from the folder
# scripts/install-deps.sh unpacks it into (the runner's --qemu 10 finds it
# there, scripts/qemu.bash). Without it make check fails; it never skips.
qemu10_arches=(x86_64 aarch64)

# Why QEMU 10 cannot run ARCH's suite here (nothing when it can), in the
# runner's words, which name scripts/install-deps.sh.
qemu10_problem() { # arch
	qemu_pick 10 "$1" || echo "$QEMU_PICK_ERROR"
}

# Say at once what make check will fail on at the end.
for arch in "${qemu10_arches[@]}"; do
	problem=$(qemu10_problem "$arch")
	[ -z "$problem" ] || echo "=== without QEMU 10 ($problem): the $arch-gcc-qemu10 suite will fail"
done

# Wait until stream b has made a file (a build's done marker), at most 10 minutes.
wait_for() { # file
	local waited
	for ((waited = 0; waited < 600; waited++)); do [ -e "$1" ] && return; sleep 1; done
}

# A host-side step in a stream: its outcome as a line of the stream's results file.
must_to() { # results label command...
	local res=$1 label=$2
	shift 2
	if "$@"; then echo "pass $label" >>"$res"; else echo "fail $label" >>"$res"; fi
}

# The host-side steps, in four streams (a 2-CPU host runs them at once: the
# runner's checks mostly wait for fake or real QEMUs, the others compute).
# The only guests among them run in modes whose outcome does not depend on
# timing: the real selftest in its pass/fail/skip/hang/crash modes, the
# selftest group (vCPUs, config values, exceptions, IPIs, and on arm64 a
# 10 ms timer that must not fire early, which load can only delay), and the
# LAVA jobs booting selftests and exit-bench under TCG (functional checks; its
# timings are judged only by their fastest batches). Balanced by their times
# here (2 CPUs, no KVM, builds up to date, 2026-12-05): the runner's
# fake-QEMU checks (57 s alone) are stream d; the LAVA definition follows
# the LAVA jobs (b), the real selftest checks and same-commands stay in c;
# the report tests (22 s alone) follow whichever of a (host tests, fuzzers,
# host tools) and b (builds, LAVA) ends first. The host-side steps took 123
# s with the report tests always after the host tools (a the longest).
host_stream_a() { # results done-dir
	step "host tests (cmocka, ASan+UBSan)"
	must_to "$1" "host tests" make -s -j"$jobs" -C host-tests check
	step "fuzzers (${fuzz_seconds} s each)"
	must_to "$1" "fuzzers" make -s -j"$jobs" -C host-tests fuzz FUZZ_SECONDS="$fuzz_seconds"
	step "GitLab matrix"
	must_to "$1" "GitLab matrix" host-tests/gitlab/matrix-check
	step "host tools (host-tests/tools: bench-compare, the doc test's parser)"
	# their real kernels from stream b's x86_64 build (host-tests/tools/kernels.py), not built again
	wait_for "$2/x86_64-gcc"
	must_to "$1" "host tools" env VMTICK_TOOLS_BUILD="$(arch_build_dir x86_64 gcc)" \
		python3 -m unittest discover -s host-tests/tools -p 'test_*.py'
	report_tests_if_first "$@"
}

# The report tests run in whichever of streams a and b gets there first: b
# with builds up to date (its builds take seconds), a on a fresh clone (b
# builds for minutes). mkdir is the claim: exactly one stream makes it.
report_tests_if_first() { # results done-dir
	mkdir "$2/report-tests" 2>/dev/null || return 0
	step "report tests (host-tests/report: parsers, bad input, side by side, QEMU twins, its checks; chromium)"
	must_to "$1" "report tests" python3 -m unittest discover -s host-tests/report -p 'test_*.py'
}

# Every build, x86_64 with gcc first (stream c's kernels); each leaves a marker.
host_stream_b() { # results done-dir
	local arch cc
	for arch in "${arches[@]}"; do
		for cc in gcc clang; do
			step "build $arch with $cc"
			must_to "$1" "build $arch-$cc" build "$arch" "$cc"
			touch "$2/$arch-$cc"
		done
	done
	touch "$2/all"
	# its boots take every gcc build; the monitor on this run's consoles comes after the suites
	step "LAVA jobs (schema, cfg, boots)"
	must_to "$1" "LAVA jobs" host-tests/lava/jobs-check
	# the LAVA definition's check runs the real selftest in modes whose outcome is no matter of timing
	step "LAVA test definition"
	must_to "$1" "LAVA test definition" host-tests/lava/testdef-check
	report_tests_if_first "$@"
}

# The real selftest in modes whose outcome is no matter of timing (pass, fail,
# skip, hang, crash, signals, a failed migration), then the selftest group of
# the other builds and accelerators.
host_stream_c() { # results done-dir
	local arch
	wait_for "$2/x86_64-gcc"
	step "runner self-tests with the real x86_64 selftest"
	must_to "$1" "runner self-tests (real kernels)" runner_tests --real-only
	wait_for "$2/all"
	step "the runner, standalone scripts and LAVA jobs give each entry the same command"
	local builds=()
	for arch in "${arches[@]}"; do builds+=("$(arch_build_dir "$arch" gcc)"); done
	must_to "$1" "same commands" host-tests/runner/same-commands "${builds[@]}"
	for arch in "${arches[@]}"; do
		SUITE_JOBS=1 suite_to "$1" "$arch-clang-selftest" "$(arch_build_dir "$arch" clang)" -g selftest
	done
	# The default accelerator is KVM where it works: the x86 selftests under TCG too.
	if [ -z "$(arch_kvm_problem x86_64)" ]; then
		for arch in x86_64 i386; do
			ACCEL=tcg SUITE_JOBS=1 suite_to "$1" "$arch-gcc-tcg-selftest" "$(arch_build_dir "$arch" gcc)" -g selftest
		done
	fi
}

# The runner's checks with a fake QEMU: no kernels, mostly waiting.
host_stream_d() { # results done-dir
	step "runner self-tests with a fake QEMU"
	must_to "$1" "runner self-tests (fake QEMU)" runner_tests --fake-only
}

# Run the streams at once, then print each one's output whole and add up its results.
host_steps() {
	local tmp x
	tmp=$(mktemp -d)
	mkdir "$tmp/done"
	for x in a b c d; do
		"host_stream_$x" "$tmp/$x.res" "$tmp/done" >"$tmp/$x.out" 2>&1 &
	done
	wait
	cat "$tmp/a.out" "$tmp/b.out" "$tmp/c.out" "$tmp/d.out"
	step "host-side steps done"
	for x in a b c d; do [ -e "$tmp/$x.res" ] && add_results "$tmp/$x.res"; done
	for x in a b c d; do
		[ -s "$tmp/$x.res" ] && continue
		total_fail=$((total_fail + 1))
		failures+=("host-side steps: stream $x left no results")
	done
	rm -rf -- "$tmp"
}

host_steps

# From here on guests run whose checks are a matter of timing: one step at a time.
# The doc test runs README.md's `make run` in a fresh copy: those are the
# default suites of the native arches, and their logs, JUnit and TAP come back
# here (export-logs), so they are counted, kept and read by the LAVA check
# without running them a second time. The copy starts with the builds made
# above from the same sources (seed-builds): its build commands still run,
# configure and find nothing to rebuild.
step "doc test (every command README.md and docs/*.md show, in a fresh copy; make run's suites among them)"
must "doc test" host-tests/doc/run.py --seed-builds --export-logs logs
for arch in $(host_arches); do
	count_junit "$reports/$arch-gcc.xml" "$arch-gcc"
done

# the other arches' default suites (aarch64 under TCG on an x86 host)
for arch in "${arches[@]}"; do
	[[ " $(host_arches) " == *" $arch "* ]] ||
		{ [ -f "$(arch_build_dir "$arch" gcc)/config.mak" ] && suite "$arch-gcc" "$(arch_build_dir "$arch" gcc)"; }
done

# x86_64's and aarch64's default suites again under QEMU 10, each beside its
# 7.2 twin above (the report shows ARCH-gcc and ARCH-gcc-qemu10 side by side).
for arch in "${qemu10_arches[@]}"; do
	[[ " ${arches[*]} " == *" $arch "* ]] || continue
	problem=$(qemu10_problem "$arch")
	if [ -n "$problem" ]; then
		step "run_tests.sh $arch-gcc-qemu10"
		echo "$arch-gcc-qemu10: not run: $problem"
		total_fail=$((total_fail + 1))
		failures+=("$arch-gcc-qemu10: no QEMU 10 ($problem)")
		continue
	fi
	# --qemu 10 names the QEMU: a QEMU= of the caller's is for the suites above
	QEMU='' suite "$arch-gcc-qemu10" "$(arch_build_dir "$arch" gcc)" --qemu 10
done

# Where KVM runs x86_64 guests, the x86_64 default suite under TCG too: the
# path every host without KVM takes, so that it cannot rot where developers
# have KVM (docs/runner.md, "Without KVM").
if [ -z "$(arch_kvm_problem x86_64)" ]; then
	ACCEL=tcg suite "x86_64-gcc-tcg" "$(arch_build_dir x86_64 gcc)"
fi

# CI glue (docs/ci.md): the LAVA monitor on this run's consoles; the jobs'
# schema and boots, the GitLab matrix and the LAVA test definition were
# checked with the host-side steps.
step "LAVA monitor on this run's consoles"
lava_logs=()
for arch in "${arches[@]}"; do lava_logs+=("logs/$arch-gcc"); done
for arch in "${qemu10_arches[@]}"; do [ -d "logs/$arch-gcc-qemu10" ] && lava_logs+=("logs/$arch-gcc-qemu10"); done
must "LAVA monitor" host-tests/lava/jobs-check --monitor-only "${lava_logs[@]}"

# The report of every suite above, as make run leaves it, checked: built in
# under 2 s, HTML and SVG through real parsers, its figures equal to
# results.json's, rendered by chromium without a console message
# (logs/reports/report.png).
step "report of this run's logs (host-tests/report/check-report)"
must "report" host-tests/report/check-report logs

finish
