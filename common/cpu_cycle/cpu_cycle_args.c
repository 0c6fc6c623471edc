/* SPDX-License-Identifier: GPL-2.0-only */
/* The cpu-off-on test's arguments (cycles=, fault=): apart from the engine, so the host tests build
 * them. */
#include "libc.h"
#include "argv.h"
#include "report.h"
#include "cpu_cycle_check.h"

static const char *const fault_names[] = {"none", "offset", "back", "reset", "noirq"};

static_assert(ARRAY_SIZE(fault_names) == NR_FAULTS, "a name per enum cc_fault");

void cc_parse_args(struct cc_args *a, int argc, char **argv)
{
	const struct arg args[] = {
		ARG_UINT("cycles", &a->cycles, 1, CC_CYCLES_MAX, ARG_DEFAULT(CC_CYCLES_DEFAULT),
			 "times the last vCPU is turned off and on again"),
		ARG_ONE_OF("fault", &a->fault, fault_names, "none",
			   "test-only: offset, back, reset or noirq (see the test's header)"),
	};
	const struct arg_table table = ARG_TABLE(args);

	args_parse_or_abort(&table, argc, argv);
}

const char *cc_fault_name(unsigned f)
{
	return f < NR_FAULTS ? fault_names[f] : "?";
}
