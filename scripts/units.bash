# SPDX-License-Identifier: GPL-2.0-only
# Unit conversion factors for the host's shell scripts, named and valued as lib/units.h names them.
# shellcheck shell=bash

# BIG_PER_SMALL is how many BIG make one SMALL (USEC_PER_SEC: us in a
# second); host-tests/tools/test_units.py checks every name here against
# lib/units.h. The scripts that source this file read them (runner.bash,
# report.bash, tap.bash, junit.bash, boot-bench.sh, timer-stress.sh); the
# linter sees those readers only when it follows them from there. One
# block, so that the directive covers it where a standalone script embeds
# this file after others.
# shellcheck disable=SC2034
{
	# time
	MSEC_PER_SEC=1000
	USEC_PER_MSEC=1000
	USEC_PER_SEC=1000000
	NSEC_PER_USEC=1000
	NSEC_PER_MSEC=1000000
	NSEC_PER_SEC=1000000000
}
