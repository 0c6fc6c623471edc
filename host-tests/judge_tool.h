/* SPDX-License-Identifier: GPL-2.0-only */
/* The main() of the host tools that judge logged runs again (tool_tick_judge, tool_lifecycle_judge). */
#ifndef VMTICK_JUDGE_TOOL_H
#define VMTICK_JUDGE_TOOL_H

#include <stdio.h>
#include "report.h"

/* A log that could not be read, or holds no whole record. */
#define JUDGE_TOOL_BAD_INPUT 2

/*
 * Judge each LOG of argv with judge_log (false: it could not be judged,
 * having said why on stderr), then print the SUMMARY. Returns the exit
 * status: 0 every check passed, 1 one failed, 2 no log given or one not
 * judged.
 */
static inline int judge_tool_main(int argc, char **argv, const char *name,
				  bool (*judge_log)(const char *path))
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s LOG...\n", name);
		return JUDGE_TOOL_BAD_INPUT;
	}
	for (int i = 1; i < argc; i++)
		if (!judge_log(argv[i]))
			status = JUDGE_TOOL_BAD_INPUT;
	if (report_summary() && !status)
		status = 1;
	return status;
}

#endif
