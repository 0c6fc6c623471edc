/* SPDX-License-Identifier: GPL-2.0-only */
/* The lifecycle test's sampling: what every vCPU does in each window of an event (its timers' ticks, its clocks' reads, the faults). */
#include "lifecycle_state.h"
#include "arch.h"
#include "atomic.h"
#include "irq.h"
#include "wait.h"

static u64 faulty_read(const struct lc_cpu *me, unsigned i, enum lc_phase ph)
{
	const struct lc_clock *c = &lc.rec.arch->clocks[i];
	u64 v = c->read();

	if (lc_skewed(me, i))
		return v + ns_to_ticks(LC_FAULT_SKEW_NS, lc_clock_hz(&lc.rec, c));
	if (ph < LC_AFTER)
		return v;
	if (lc.rec.fault == LC_FAULT_BACK)
		return v - ns_to_ticks(LC_FAULT_BACK_NS, lc_clock_hz(&lc.rec, c));
	if (lc.rec.fault == LC_FAULT_JUMP)
		return v + ns_to_ticks(LC_FAULT_JUMP_NS, lc_clock_hz(&lc.rec, c));
	return v;
}

/* One read of every clock on this vCPU, against the read before it; ph is never LC_FINISHED. */
static void sample(struct lc_cpu *me, enum lc_phase ph)
{
	for (unsigned i = 0; i < lc.rec.arch->nclocks; i++) {
		u64 v = faulty_read(me, i, ph);

		if (me->reads[i] && v < me->last[i]) {
			me->backwards[i]++;
			me->worst_back[i] = max(me->worst_back[i], me->last[i] - v);
		} else if (me->reads[i]) {
			me->step[ph][i] = max(me->step[ph][i], v - me->last[i]);
		}
		me->last[i] = v;
		me->reads[i]++;
	}
}

/* A periodic tick of the window before the event (w 0) or after it (w 1), for its period. */
static void stamp_tick(struct lc_timer *t, unsigned w, u64 now)
{
	u64 steal = lc.rec.has_steal ? steal_ns() : 0;

	if (t->nstamps[w] == LC_STAMPS)
		return;
	if (!t->nstamps[w])
		t->steal_first[w] = steal;
	t->steal_last[w] = steal;
	t->stamps[w][t->nstamps[w]++] = now;
}

/* A tick in a run of migrations: counted for the migration asked for last, with the time since the tick before. */
static void run_tick(struct lc_timer *t, u64 now)
{
	unsigned k = lc.rec.run.k;

	if (!k || lc.phase != LC_DURING)
		return;
	t->run_ticks[k]++;
	if (t->last_tick)
		t->run_gap[k] = max(t->run_gap[k], now - t->last_tick);
}

enum lc_role lc_timer_fired(unsigned slot, u64 now)
{
	struct lc_timer *t = &lc.rec.cpu[smp_id()].t[slot];
	enum lc_phase ph = min(lc.phase, LC_AFTER);
	unsigned k = lc.rec.run.k;

	if (t->role == LC_ROLE_ONESHOT) {
		if (!t->fired_at)
			t->fired_at = now;
		if (k && !t->run_fires[k]++)
			t->run_fired_at[k] = now;
	} else if (t->role == LC_ROLE_PERIODIC) {
		if (ph != LC_DURING)
			stamp_tick(t, ph == LC_AFTER, now);
		t->ticks[ph]++;
		if (t->last_tick && now - t->last_tick < t->period / LC_EARLY_DIV)
			t->early[ph]++;
		run_tick(t, now);
		t->last_tick = now;
	}
	return t->role;
}

/*
 * A vCPU's own timer alternates its role with the event, and on x86 (one
 * such timer per vCPU) with the vCPU; a device's is its own, on the boot vCPU.
 */
static enum lc_role role_of(int cpu, unsigned slot)
{
	unsigned k = lc_every_cpu_slots(lc.rec.arch) == 1 ? (unsigned)cpu : slot;

	switch (lc.rec.arch->slot_use[slot]) {
	case LC_SLOT_BOOT_PERIODIC:
		return cpu ? LC_ROLE_IDLE : LC_ROLE_PERIODIC;
	case LC_SLOT_BOOT_ONESHOT:
		return cpu ? LC_ROLE_IDLE : LC_ROLE_ONESHOT;
	default:
		return (k + lc.rec.seq) % 2 ? LC_ROLE_ONESHOT : LC_ROLE_PERIODIC;
	}
}

static void start_timers(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		t->role = role_of(smp_id(), s);
		t->period = ns_to_ticks(LC_PERIOD_NS, arch_counter_hz());
		if (t->role == LC_ROLE_PERIODIC)
			t->period = lc.rec.arch->periodic(s, t->period);
	}
}

/* As the request goes out: arm the one-shots for a deadline inside the event. */
void lc_arm_oneshots(struct lc_cpu *me, u64 deadline)
{
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		if (t->role != LC_ROLE_ONESHOT)
			continue;
		t->deadline = deadline;
		lc.rec.arch->oneshot_at(s, t->deadline);
		if (lc.rec.fault == LC_FAULT_REARM)
			lc.rec.arch->oneshot_at(
				s, t->deadline + ns_to_ticks(LC_FAULT_REARM_NS, arch_counter_hz()));
	}
	me->oneshot_armed = true;
}

/* Once the answer is in: the test-only faults on the periodic timers. */
static void periodic_faults(struct lc_cpu *me)
{
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++) {
		struct lc_timer *t = &me->t[s];

		if (t->role != LC_ROLE_PERIODIC || t->faulted)
			continue;
		t->faulted = true;
		if (lc.rec.fault == LC_FAULT_RATE)
			lc.rec.arch->periodic(s, t->period * 2);
		if (lc.rec.fault == LC_FAULT_RATE5)
			lc.rec.arch->periodic(s, t->period + t->period * LC_FAULT_RATE5_PPT / MILLI_PER_UNIT);
		if (lc.rec.fault == LC_FAULT_SILENT)
			lc.rec.arch->stop(s);
		for (u64 n = 0;
		     lc.rec.fault == LC_FAULT_STORM && n < lc.rec.done.duration_ns / LC_PERIOD_NS; n++)
			lc_timer_fired(s, arch_counter());
	}
}

/*
 * Take this vCPU's stopped flag as a guest's watchdog does (read, and
 * clear when set), counting it per phase. The host sets it when the VM
 * runs again after a stop, so it is looked at from the start: one set
 * before the request is as wrong as none after it.
 */
static void watch_stopped_flag(struct lc_cpu *me, enum lc_phase ph)
{
	if (!lc.rec.arch->take_stopped_flag)
		return;
	/* fault=stopped_reset: found and cleared after the event, then set again once */
	if (lc.rec.fault == LC_FAULT_STOPPED_RESET && ph == LC_AFTER && !me->stopped_reset &&
	    me->stopped_seen[LC_DURING] + me->stopped_seen[LC_AFTER]) {
		me->stopped_reset = true;
		lc.rec.arch->set_stopped_flag();
	}
	if (!lc.rec.arch->take_stopped_flag())
		return;
	/* fault=stopped_flag: cleared unseen from the request on, as if never set */
	if (lc.rec.fault == LC_FAULT_STOPPED_FLAG && ph >= LC_DURING)
		return;
	me->stopped_seen[ph]++;
}

/* A one-shot's deadline armed as an event's request goes out: inside a pause. */
u64 lc_oneshot_deadline(void)
{
	return arch_counter() + ns_to_ticks(LC_ONESHOT_NS, arch_counter_hz());
}

/* One step of any vCPU's loop: arm or fault what the phase asks for, sample. */
void lc_step(struct lc_cpu *me, enum lc_phase ph)
{
	if (lc.rec.run.n)
		lc_run_step(me);
	else if (ph >= LC_DURING && !me->oneshot_armed)
		lc_arm_oneshots(me, lc_oneshot_deadline());
	if (ph == LC_AFTER) {
		periodic_faults(me);
		lc_counter_fault(me);
	}
	watch_stopped_flag(me, ph);
	lc_follow_derived(me, ph);
	sample(me, ph);
}

/* A vCPU's timers started, its interrupts on, the derived clock followed afresh. */
void lc_start_sampling(struct lc_cpu *me)
{
	if (lc.rec.arch->derived)
		lc.rec.arch->derived->forget();
	start_timers(me);
	irq_enable();
}

void lc_stop_sampling(const struct lc_cpu *me)
{
	irq_disable();
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++)
		if (me->t[s].role != LC_ROLE_IDLE)
			lc.rec.arch->stop(s);
}

/* One sampling step in the boot vCPU's phase; true once it says the event is over. */
static bool step_until_finished(void *me)
{
	enum lc_phase ph = lc.phase;

	if (ph == LC_FINISHED)
		return true;
	lc_step(me, ph);
	return false;
}

/* What every vCPU does during one event, until the boot vCPU says it is over. */
static void sampler(struct lc_cpu *me)
{
	lc_start_sampling(me);
	wait_cond(step_until_finished, me);
	lc_stop_sampling(me);
}

void lc_ap_sampler(void *arg)
{
	sampler(&lc.rec.cpu[smp_id()]);
}

/* ---- a run of migrations (events=migrate=N): each vCPU's part in its step ---- */

/* The migration the faults strike: the middle one. */
static unsigned middle(void)
{
	return (lc.rec.run.n + 1) / 2;
}

static void each_periodic(struct lc_cpu *me, bool start)
{
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++) {
		if (me->t[s].role != LC_ROLE_PERIODIC)
			continue;
		if (start)
			lc.rec.arch->periodic(s, me->t[s].period);
		else
			lc.rec.arch->stop(s);
	}
}

/*
 * fault=run_lost: from the middle migration's answer the last vCPU's
 * periodic timers deliver nothing for LC_FAULT_RUN_LOST_NS (their
 * handlers never run), as a host that restored them late.
 */
static void fault_lost(struct lc_cpu *me)
{
	u64 now;

	if (lc.rec.fault != LC_FAULT_RUN_LOST || me != &lc.rec.cpu[cpu_count() - 1] || me->run_faulted ||
	    !lc.rec.run.answered[middle()])
		return;
	now = arch_counter();
	if (!me->run_silent_since) {
		me->run_silent_since = now;
		each_periodic(me, false);
	} else if (now - me->run_silent_since >=
		   ns_to_ticks(LC_FAULT_RUN_LOST_NS, arch_counter_hz())) {
		each_periodic(me, true);
		me->run_faulted = true;
	}
}

/* fault=run_twice: the boot vCPU's one-shot of the middle migration fires again, as a host that
 * delivers a restored one-shot twice. */
static void fault_twice(struct lc_cpu *me)
{
	unsigned k = lc.rec.run.k;

	if (lc.rec.fault != LC_FAULT_RUN_TWICE || me != &lc.rec.cpu[0] || me->run_faulted || k != middle())
		return;
	for (unsigned s = 0; s < lc.rec.arch->nslots; s++) {
		if (me->t[s].role != LC_ROLE_ONESHOT || me->t[s].run_fires[k] != 1)
			continue;
		lc.rec.arch->oneshot_at(
			s, arch_counter() + ns_to_ticks(LC_FAULT_RUN_TWICE_NS, arch_counter_hz()));
		me->run_faulted = true;
	}
}

void lc_run_step(struct lc_cpu *me)
{
	unsigned k = lc.rec.run.k;

	if (k && me->run_armed != k) {
		smp_mb(); /* the deadline was written before k */
		me->run_armed = k;
		lc_arm_oneshots(me, lc.rec.run.deadline);
	}
	fault_lost(me);
	fault_twice(me);
}
