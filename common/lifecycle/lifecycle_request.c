/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle engine's requests to the runner and its answers, read from the console while the boot vCPU samples (the engine, a run of migrations and a reset ask through it). */
#include "lifecycle_state.h"
#include "console_input.h"
#include "wait.h"

/*
 * Ask for the event and sample until the runner's answer is in; the line
 * is read from the console's input one polled character at a time.
 */
bool lc_request(struct lc_cpu *me, enum lc_event kind, struct lc_answer *a)
{
	u64 give_up = arch_counter() + ns_to_ticks(LC_ANSWER_WAIT_NS, arch_counter_hz());

	/*
	 * The host stamps the request when the whole line is in and may stop
	 * the guest at once: the time of day is read before the newline goes
	 * out, never after it (a read after it can land after a pause).
	 */
	printf(LC_REQUEST "%s %u", lc_event_name(kind), lc.rec.seq);
	if (lc.rec.run.k)
		printf(" run=%u", lc.rec.run.k);
	if (lc.rec.arch->tod_ns)
		a->tod_req = lc.rec.arch->tod_ns();
	a->nl_at = arch_counter();
	putchar('\n');
	return lc_read_answer(me, a, give_up);
}

/* The answer being read: a sample (when me), then a character of input if one is in. */
struct lc_answer_read {
	struct lc_cpu *me;
	struct console_line in;
};

static bool answer_step(void *arg, u64 now)
{
	struct lc_answer_read *r = arg;

	if (r->me)
		lc_step(r->me, LC_DURING);
	return console_line_take(&r->in);
}

bool lc_read_answer(struct lc_cpu *me, struct lc_answer *a, u64 give_up)
{
	struct lc_answer_read r = {me, {a->line, sizeof(a->line), 0, 0}};
	bool in = work_until(answer_step, &r, give_up);

	a->first_at = r.in.first_at;
	return in;
}
