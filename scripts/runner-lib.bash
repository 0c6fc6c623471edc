# SPDX-License-Identifier: GPL-2.0-only
# Loads the runner's pieces, for run_tests.sh and scripts/mkstandalone.sh (which embeds them in runner_lib_names order).
# shellcheck shell=bash

# The pieces, in the order they are loaded below.
runner_lib_names() { printf '%s\n' units cfg arch qemu guest host_trace runner replay report tap junit select main; }
# shellcheck source=scripts/units.bash
. "$SRCDIR/scripts/units.bash"
# shellcheck source=scripts/cfg.bash
. "$SRCDIR/scripts/cfg.bash"
# shellcheck source=scripts/arch.bash
. "$SRCDIR/scripts/arch.bash"
# shellcheck source=scripts/qemu.bash
. "$SRCDIR/scripts/qemu.bash"
# shellcheck source=scripts/guest.bash
. "$SRCDIR/scripts/guest.bash"
# shellcheck source=scripts/host_trace.bash
. "$SRCDIR/scripts/host_trace.bash"
# shellcheck source=scripts/runner.bash
. "$SRCDIR/scripts/runner.bash"
# shellcheck source=scripts/replay.bash
. "$SRCDIR/scripts/replay.bash"
# shellcheck source=scripts/report.bash
. "$SRCDIR/scripts/report.bash"
# shellcheck source=scripts/tap.bash
. "$SRCDIR/scripts/tap.bash"
# shellcheck source=scripts/junit.bash
. "$SRCDIR/scripts/junit.bash"
# shellcheck source=scripts/select.bash
. "$SRCDIR/scripts/select.bash"
# shellcheck source=scripts/main.bash
. "$SRCDIR/scripts/main.bash"
