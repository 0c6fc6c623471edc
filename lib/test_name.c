/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's name, its argv[0]: built once per kernel with
 * -DTEST_NAME="NAME", NAME its source file's (Makefile), and linked in
 * beside it; not part of the library.
 */
#include "start.h"

const char test_name[] = TEST_NAME;
