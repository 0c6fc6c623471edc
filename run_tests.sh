#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the unittests.cfg entries of a configured build under QEMU; docs/runner.md tells how.
set -u

if ((BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1))); then
	echo "run_tests.sh: needs bash 5.1 or later (this is $BASH_VERSION)" >&2
	exit 4
fi

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN_PROG=run_tests.sh

# shellcheck source=scripts/runner-lib.bash
. "$SRCDIR/scripts/runner-lib.bash"

main "$@"
