/* SPDX-License-Identifier: GPL-2.0-only */
/* The timer-tick engine's arguments: the source, its rate and length, the test-only faults, when to print the record. */
#include "argv.h"
#include "report.h"
#include "timer_tick.h"
#include "tick_engine.h"
#include "units.h"

#define TICK_HZ_MAX	 10000
#define TICK_SECONDS_MAX 600
/* resolution=: at most the rarest rate tick_resolution tries (TICK_RESOLUTION_LADDER's first) */
#define TICK_RESOLUTION_MAX 2000
/* fault=miss: one expiry in this many muted, unless miss_every= says otherwise (2 %) */
#define TICK_FAULT_MISS_EVERY	  50
#define TICK_FAULT_MISS_EVERY_MIN 2
#define TICK_FAULT_MISS_EVERY_MAX 1000000
/* slow_arm=: at most a second's pause */
#define TICK_SLOW_ARM_MAX_US 1000000

static const char *const tick_fault_names[] = {
	[FAULT_NONE] = "none",	   [FAULT_DROP10] = "drop10", [FAULT_HOLD20] = "hold20",
	[FAULT_HOLD50] = "hold50", [FAULT_FREQ1] = "freq1",   [FAULT_FREQ5] = "freq5",
	[FAULT_STOP100] = "stop100", [FAULT_MISS] = "miss", [FAULT_EARLY10] = "early10",
};

const char *tick_fault_name(void)
{
	return tick_fault_names[tick_run.fault];
}

/* The source a run ticks with: one of srcs, or tick_source_none after them. */
const struct tick_source *tick_parse_args(int argc, char **argv,
					 const struct tick_source *const *srcs, size_t n,
					 struct tick_args *a)
{
	const struct arg args[] = {
		{ .key = "source", .kind = ARG_KIND_ONE_OF, .to.index = &a->source,
		  .names = a->sources, .nnames = n + 1, .required = true,
		  .help = "the tick source" },
		ARG_UINT("hz", &a->hz, 1, TICK_HZ_MAX, "1000", "ticks per second"),
		ARG_UINT("seconds", &a->seconds, 1, TICK_SECONDS_MAX, "10", "how long to tick"),
		ARG_ONE_OF("fault", &a->fault, tick_fault_names, "none",
			   "test-only: the check to make fail"),
		ARG_UINT("miss_every", &a->miss_every, 0, TICK_FAULT_MISS_EVERY_MAX, "0",
			 "fault=miss: one expiry in this many never delivered (0: 50)"),
		ARG_UINT("resolution", &a->resolution, 0, TICK_RESOLUTION_MAX, "0",
			 "the lost-tick check must catch 1 never-delivered interrupt in this many, "
			 "else it is a SKIP saying so (0: report it, need none)"),
		ARG_UINT("slow_arm", &a->slow_arm_us, 0, TICK_SLOW_ARM_MAX_US, "0",
			 "test-only: a one-shot's comparator writes each held this many us before "
			 "they land, one arming in 8 a period more (0: none)"),
		ARG_ONE_OF("record", &a->record, record_when_names, "fail",
			   "print the run's record (TICK-RECORD lines, for scripts/tick-judge): "
			   "when a check fails, always or never"),
	};
	const struct arg_table table = ARG_TABLE(args);

	if (n > TICK_SOURCES_MAX)
		report_abort("%zu tick sources: at most %d", n, TICK_SOURCES_MAX);
	for (size_t i = 0; i < n; i++)
		a->sources[i] = srcs[i]->name;
	a->sources[n] = tick_source_none.name;
	args_parse_or_abort(&table, argc, argv);
	if (a->miss_every && a->fault != FAULT_MISS)
		report_abort(
			"miss_every=%llu: it sets fault=miss's interval, and fault=%s was given",
			a->miss_every, tick_fault_names[a->fault]);
	if (a->miss_every && a->miss_every < TICK_FAULT_MISS_EVERY_MIN)
		report_abort("miss_every=%llu would mute every expiry: at least %d", a->miss_every,
			     TICK_FAULT_MISS_EVERY_MIN);
	if (!a->miss_every)
		a->miss_every = TICK_FAULT_MISS_EVERY;
	return a->source < n ? srcs[a->source] : &tick_source_none;
}
