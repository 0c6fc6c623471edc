// SPDX-License-Identifier: GPL-2.0-only
/*
 * common/selftest/selftest_engine.c, the selftest's arch-neutral half, on the host, with
 * the real lib/argv.c and lib/report.c under it.
 * What: selftest_begin() parses smp=, mem=, mode= and the arch's own
 * arguments, refuses a bad one and more arch arguments than it has room
 * for, and misbehaves as each mode= asks (fail, skip, hang, crash,
 * fault); the shared checks pass and fail on what they are given: argv[0],
 * the vCPU count, on_cpu() and on_cpus() reaching every CPU, 64-bit
 * printf and division, the memory size within the arch's slack.
 * Why: the runner's own tests lean on these modes and lines; a guest run
 * shows each check only passing.
 * How: the arch's hooks are played here (a CPU count, on_cpu()/on_cpus()
 * that can skip a CPU, the memory size); every case runs in a child
 * (child_capture.h), since a mode and an abort end the guest's life, and
 * its lines and exit status are checked.
 */
/* LIBSRC: common/selftest/selftest_engine.c lib/argv.c lib/report.c lib/checks.c lib/fixed.c lib/printf.c lib/string.c lib/strto.c */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "console_capture.h"
#include "child_capture.h"
#include "host_shim.h"
#include "../common/selftest/selftest.h"
#include "../lib/report.h"

#define MIB    (1ull << 20)
#define NCPUS  2
#define NO_CPU (-1)
/* exit statuses of the hooks that end a child, told apart from the guest's own */
#define CRASHED 100
#define HUNG	101

/* --- the arch's hooks ---------------------------------------------------------------- */

static int current_cpu, skipped_cpu = NO_CPU;
static u64 mem_bytes = 256 * MIB;
static unsigned idles, faults;
static u64 arch_flag;

void cpu_relax(void)
{
}

int smp_id(void)
{
	return current_cpu;
}

int cpu_count(void)
{
	return NCPUS;
}

u64 arch_mem_size(void)
{
	return mem_bytes;
}

void on_cpu(int cpu, void (*fn)(void *), void *arg)
{
	current_cpu = cpu;
	fn(arg);
	current_cpu = 0;
}

/* Every CPU but skipped_cpu: a broken on_cpus() the check must catch. */
void on_cpus(void (*fn)(void *), void *arg)
{
	for (int cpu = 0; cpu < NCPUS; cpu++)
		if (cpu != skipped_cpu)
			on_cpu(cpu, fn, arg);
}

static void __noreturn fake_crash(void)
{
	fflush(stdout);
	_exit(CRASHED);
}

static void fake_fault(void)
{
	faults++;
}

/* mode=hang idles forever: the third idle ends the child */
static void fake_idle(void)
{
	if (++idles == 3) {
		fflush(stdout);
		_exit(HUNG);
	}
}

static const struct arg arch_args[] = {
	ARG_UINT("flag", &arch_flag, 0, 9, "0", "an arch argument"),
};

static const struct selftest_arch arch = {
	.args = arch_args,
	.nargs = 1,
	.mem_slack_pct = 5,
	.crash = fake_crash,
	.fault = fake_fault,
	.idle = fake_idle,
};

/* --- selftest_begin --------------------------------------------------------------- */

struct begin_case {
	const char *line;      /* the arguments, space-separated */
	const char *want_line; /* a line of the output */
	int want_code;
};

static struct selftest_args args;

static void begin(const void *arg)
{
	const struct begin_case *c = arg;
	char buf[128], *argv[8] = {"selftest"};
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", c->line);
	for (char *w = strtok(buf, " "); w && argc < 8; w = strtok(NULL, " "))
		argv[argc++] = w;
	selftest_begin(argc, argv, &arch, &args);
	printf("begun: smp %llu mem %llu mode %u flag %llu\n", args.smp, args.mem_mib, args.mode,
	       arch_flag);
	report(true, "returned");
}

static const struct begin_case begin_cases[] = {
	{"smp=2 mem=256 flag=7", "begun: smp 2 mem 256 mode 0 flag 7", EXIT_PASS},
	{"", "begun: smp 0 mem 0 mode 0 flag 0", EXIT_PASS},
	{"mode=pass", "begun: smp 0 mem 0 mode 0 flag 0", EXIT_PASS},
	{"smp=0",
	 "FAIL: bad argument 'smp=0': smp must be a whole number from 1 to 18446744073709551615",
	 EXIT_FAIL},
	{"flag=10", "FAIL: bad argument 'flag=10': flag must be a whole number from 0 to 9",
	 EXIT_FAIL},
	{"mode=fail", "FAIL: mode=fail: a check that fails on purpose", EXIT_FAIL},
	{"mode=skip", "SKIP: mode=skip: nothing to check on purpose", EXIT_SKIP},
	{"mode=hang", "INFO: hanging on purpose", HUNG},
	{"mode=crash", "INFO: stopping without a summary on purpose", CRASHED},
	{"mode=nothing", "FAIL: the test reported nothing", EXIT_FAIL},
};

static void test_begin_table(void **state)
{
	for (size_t i = 0; i < sizeof(begin_cases) / sizeof(begin_cases[0]); i++)
		child_expect(begin, &begin_cases[i], begin_cases[i].line, begin_cases[i].want_code,
			     begin_cases[i].want_line);
}

/* mode=fault calls the arch's fault hook and, should it return, ends with the summary. */
static void fault_mode(const void *unused)
{
	static const struct begin_case c = {"mode=fault"};

	begin(&c);
}

static void test_fault_mode(void **state)
{
	struct child_outcome o;

	child_run(fault_mode, NULL, &o);
	lacks(o.out, "begun");
	has_line(o.out, "FAIL: the test reported nothing");
}

static void too_many_arch_args(const void *unused)
{
	struct selftest_arch big = arch;
	char *argv[] = {"selftest"};

	big.nargs = SELFTEST_ARCH_ARGS_MAX + 1;
	selftest_begin(1, argv, &big, &args);
}

static void test_too_many_arch_args(void **state)
{
	struct child_outcome o;

	child_run(too_many_arch_args, NULL, &o);
	has_line(o.out, "FAIL: 5 arch arguments: at most 4");
	assert_int_equal(o.code, EXIT_FAIL);
}

/* --- the shared checks ---------------------------------------------------------------- */

static void checks_argv(const void *unused)
{
	char *good[] = {"selftest"}, *bad[] = {"tsc_test"};

	selftest_check_argv(1, good);
	selftest_check_argv(1, bad);
	selftest_check_argv(0, bad);
}

static void test_check_argv(void **state)
{
	char out[CAPTURE_MAX];

	capture(checks_argv, NULL, out, sizeof(out));
	EXACTLY(out, "PASS: argv[0] is the program name ('selftest')",
		"FAIL: argv[0] is the program name ('tsc_test')",
		"FAIL: argv[0] is the program name ('')");
}

static void checks_cpu_count(const void *unused)
{
	struct selftest_args none = {0}, right = {.smp = NCPUS}, wrong = {.smp = 4};

	selftest_check_cpu_count(&none);
	selftest_check_cpu_count(&right);
	selftest_check_cpu_count(&wrong);
}

static void test_check_cpu_count(void **state)
{
	char out[CAPTURE_MAX];

	capture(checks_cpu_count, NULL, out, sizeof(out));
	EXACTLY(out, "PASS: vCPU count 2 matches smp=2", "FAIL: vCPU count 2 matches smp=4");
}

static void check_on_cpu_skipping(const void *cpu)
{
	skipped_cpu = *(const int *)cpu;
	selftest_check_on_cpu();
	skipped_cpu = NO_CPU;
}

static void test_check_on_cpu(void **state)
{
	static const int none = NO_CPU, second = 1;
	char out[CAPTURE_MAX];

	capture(check_on_cpu_skipping, &none, out, sizeof(out));
	EXACTLY(out, "PASS: on_cpu and on_cpus reached 2 of 2 CPUs");
	capture(check_on_cpu_skipping, &second, out, sizeof(out));
	EXACTLY(out, "FAIL: on_cpu and on_cpus reached 1 of 2 CPUs");
}

static void check_64bit(const void *unused)
{
	selftest_check_64bit();
}

static void test_check_64bit(void **state)
{
	char out[CAPTURE_MAX];

	capture(check_64bit, NULL, out, sizeof(out));
	EXACTLY(out, "PASS: printf %llu of UINT64_MAX: 18446744073709551615",
		"PASS: printf %lld of INT64_MIN: -9223372036854775808",
		"PASS: 64-bit division UINT64_MAX / 10: 0x1999999999999999",
		"PASS: 64-bit signed division and remainder");
}

/* mem=256 with 5% slack: 244 MiB to 256 MiB pass (256 - 12, the slack truncated). */
static const struct mem_case {
	u64 reported_mib, mem;
	const char *line;
} mem_cases[] = {
	{256, 256, "PASS: memory size 256 MiB matches mem=256 (at most 5% below)"},
	{244, 256, "PASS: memory size 244 MiB matches mem=256 (at most 5% below)"},
	{243, 256, "FAIL: memory size 243 MiB matches mem=256 (at most 5% below)"},
	{257, 256, "FAIL: memory size 257 MiB matches mem=256 (at most 5% below)"},
	{100, 0, NULL}, /* no mem=: nothing checked */
};

static void check_memory(const void *arg)
{
	const struct mem_case *c = arg;
	struct selftest_args a = {.mem_mib = c->mem};

	mem_bytes = c->reported_mib * MIB;
	selftest_check_memory(&arch, &a);
}

static void test_check_memory(void **state)
{
	char out[CAPTURE_MAX], want[128];

	for (size_t i = 0; i < sizeof(mem_cases) / sizeof(mem_cases[0]); i++) {
		capture(check_memory, &mem_cases[i], out, sizeof(out));
		snprintf(want, sizeof(want), mem_cases[i].line ? "%s\n" : "", mem_cases[i].line);
		if (strcmp(out, want))
			fail_msg("%llu MiB reported, mem=%llu: printed\n%s\nwant\n%s",
				 mem_cases[i].reported_mib, mem_cases[i].mem, out, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_begin_table),	   cmocka_unit_test(test_fault_mode),
		cmocka_unit_test(test_too_many_arch_args), cmocka_unit_test(test_check_argv),
		cmocka_unit_test(test_check_cpu_count),	   cmocka_unit_test(test_check_on_cpu),
		cmocka_unit_test(test_check_64bit),	   cmocka_unit_test(test_check_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
