/* SPDX-License-Identifier: GPL-2.0-only */
/* The selftest checks that do not depend on the arch, and the modes that misbehave on purpose for the runner's tests. */
#include "selftest.h"
#include "arch.h"
#include "argv.h"
#include "atomic.h"
#include "report.h"

#define MAX_SEEN_CPUS 512

static u32 seen_on[MAX_SEEN_CPUS];

/* mode=: how the selftest misbehaves on purpose; "pass" does not. */
static const char *const mode_names[] = {
	"pass", "fail", "skip", "hang", "crash", "nothing", "fault",
};

static void __noreturn misbehave(const struct selftest_arch *arch, const char *mode)
{
	if (!strcmp(mode, "fail")) {
		report(false, "mode=fail: a check that fails on purpose");
	} else if (!strcmp(mode, "skip")) {
		report_skip("mode=skip: nothing to check on purpose");
	} else if (!strcmp(mode, "hang")) {
		report_info("hanging on purpose");
		for (;;)
			arch->idle();
	} else if (!strcmp(mode, "crash")) {
		report_info("stopping without a summary on purpose");
		arch->crash();
	} else if (!strcmp(mode, "fault")) {
		arch->fault();
	}
	report_exit();
}

#define SELFTEST_COMMON_ARGS 3

void selftest_begin(int argc, char **argv, const struct selftest_arch *arch,
		    struct selftest_args *args)
{
	struct arg all[SELFTEST_COMMON_ARGS + SELFTEST_ARCH_ARGS_MAX] = {
		ARG_UINT("smp", &args->smp, 1, UINT64_MAX, NULL, "the vCPU count to expect"),
		ARG_UINT("mem", &args->mem_mib, 1, UINT64_MAX, NULL, "the memory to expect, MiB"),
		ARG_ONE_OF("mode", &args->mode, mode_names, "pass",
			   "misbehave on purpose, for the runner's tests"),
	};
	struct arg_table table = { .args = all, .n = SELFTEST_COMMON_ARGS + arch->nargs };

	if (arch->nargs > SELFTEST_ARCH_ARGS_MAX)
		report_abort("%zu arch arguments: at most %d", arch->nargs, SELFTEST_ARCH_ARGS_MAX);
	memcpy(all + SELFTEST_COMMON_ARGS, arch->args, arch->nargs * sizeof(*arch->args));
	memset(args, 0, sizeof(*args));
	args_parse_or_abort(&table, argc, argv);
	if (args->mode)
		misbehave(arch, mode_names[args->mode]);
}

void selftest_check_argv(int argc, char **argv)
{
	report(argc >= 1 && !strcmp(argv[0], "selftest"), "argv[0] is the program name ('%s')",
	       argc >= 1 ? argv[0] : "");
}

void selftest_check_cpu_count(const struct selftest_args *args)
{
	if (args->smp)
		report(cpu_count() == (int)args->smp, "vCPU count %d matches smp=%llu", cpu_count(),
		       args->smp);
}

static void mark_cpu(void *arg)
{
	atomic_add(&seen_on[smp_id()], (u32)(uintptr_t)arg);
}

void selftest_check_on_cpu(void)
{
	int n = cpu_count(), ok = 0;

	assert(n <= MAX_SEEN_CPUS);
	memset(seen_on, 0, sizeof(seen_on));
	for (int i = 0; i < n; i++)
		on_cpu(i, mark_cpu, (void *)1);
	on_cpus(mark_cpu, (void *)2);
	for (int i = 0; i < n; i++)
		ok += seen_on[i] == 3;
	report(ok == n, "on_cpu and on_cpus reached %d of %d CPUs", ok, n);
}

/* volatile operands keep the compiler from folding the arithmetic at build time */
void selftest_check_64bit(void)
{
	char buf[64];
	volatile u64 big = UINT64_MAX, ten = 10;
	volatile s64 neg = INT64_MIN;

	snprintf(buf, sizeof(buf), "%llu", big);
	report(!strcmp(buf, "18446744073709551615"), "printf %%llu of UINT64_MAX: %s", buf);
	snprintf(buf, sizeof(buf), "%lld", neg);
	report(!strcmp(buf, "-9223372036854775808"), "printf %%lld of INT64_MIN: %s", buf);
	snprintf(buf, sizeof(buf), "%#llx", big / ten);
	report(!strcmp(buf, "0x1999999999999999"), "64-bit division UINT64_MAX / 10: %s", buf);
	report(neg / -3 == 3074457345618258602ll && neg % 7 == -1,
	       "64-bit signed division and remainder");
}

void selftest_check_memory(const struct selftest_arch *arch, const struct selftest_args *args)
{
	u64 mib = arch_mem_size() >> 20, want = args->mem_mib;

	if (!want)
		return;
	report(mib <= want && mib >= want - want * arch->mem_slack_pct / 100,
	       "memory size %llu MiB matches mem=%llu (at most %u%% below)", mib,
	       want, arch->mem_slack_pct);
}
