# SPDX-License-Identifier: GPL-2.0-only
"""Unit conversion factors for the host's Python tools, named and valued as lib/units.h names them.

BIG_PER_SMALL is how many BIG make one SMALL (NSEC_PER_SEC: ns in a second).
host-tests/tools/test_units.py checks every name here against lib/units.h.
Import it by path as its neighbours do (the scripts' directory on sys.path).
"""

# time
MSEC_PER_SEC = 1000
USEC_PER_MSEC = 1000
USEC_PER_SEC = 1000000
NSEC_PER_USEC = 1000
NSEC_PER_MSEC = 1000000
NSEC_PER_SEC = 1000000000

# frequency
HZ_PER_KHZ = 1000
HZ_PER_MHZ = 1000000
