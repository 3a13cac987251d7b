/*
 * gdb_undo.c — backward single steps undone from the step history's log
 * (undo_log.h) instead of replayed.
 *
 * gdb builds reverse-step and reverse-next from `bs` packets, reading a
 * little stack memory and the registers after each. A backward step that
 * replayed goes through step_history_goto with its log on; the next ones,
 * while the log covers them, only move the time the session shows
 * (undo_at): registers and memory come from the log over the replay, which
 * stays at the log's end. Anything else first brings the replay there
 * (target_undo_settle), so every other answer is the replay's own.
 *
 * An undo gives the stop a replayed step gives: the thread stepped, no
 * signal (a delivery cuts the log), and never onto a rep string
 * instruction (gdb_rep_steps.c's stops inside one need the replay).
 */
#include <stdio.h>

#include "gdbstub/regs_from_emu.h"
#include "replayer/gdb_target_internal.h"

uint64_t target_shown_time(const struct gdb_target *t)
{
	return t->undo_active ? t->undo_at : replay_session_now(t->s);
}

/* Whether the instruction at rip, at time `at` of the log, is a rep string
 * one (or cannot be read). */
static bool rep_string_at(const struct undo_log *log, uint64_t at, uint64_t rip)
{
	uint8_t bytes[15];
	size_t n = undo_log_read_memory(log, at, rip, bytes, sizeof bytes);
	struct emu_rep_string rep;
	return n == 0 || emu_rep_string(bytes, n, &rep);
}

/* Whether a backward move of thread k can be shown from the log: the
 * replay at its end, in no diversion, rep string or signal's delivery. */
static bool log_usable(const struct gdb_target *t, size_t k)
{
	const struct replay_session *s = t->s;
	const struct undo_log *log = &t->near.undo;
	return log->valid && !t->div && !t->rep_done && !s->sim.delivery_pending &&
	       s->sim.last_delivery_at != replay_session_now(s) && k == s->sim.current &&
	       k == undo_log_thread(log) && replay_session_now(s) == undo_log_end(log);
}

/* Shows time `at` of the log from now on. */
static void undo_to(struct gdb_target *t, uint64_t at)
{
	t->undo_active = true;
	t->undo_at = at;
	t->near.moves++;
	t->near.moves_from_kept++;
	t->near.moves_undone++;
}

int target_undo_step(struct gdb_target *t, size_t k, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	const struct undo_log *log = &t->near.undo;
	uint64_t shown = target_shown_time(t);
	if (!log_usable(t, k) || shown <= target_history_begin(t) ||
	    !undo_log_covers(log, shown - 1) ||
	    rep_string_at(log, shown - 1, undo_log_regs(log, shown - 1)->rip))
		return 0;
	undo_to(t, shown - 1);
	target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
	stop->tid = s->sim.threads[k].tid;
	return 1;
}

/* The stop a backward search notes at the instruction at time `at` of the
 * log, if any: as the search's observer sees it, a watched access made by
 * the instruction comes after the breakpoint at its start, and of its
 * accesses the last one that triggers counts. */
static bool hit_at(const struct gdb_target *t, const struct undo_log *log, uint64_t at,
		   struct gdbstub_stop *stop)
{
	int64_t tid = target_current_tid(t);
	size_t n;
	const struct undo_access *acc = undo_log_accesses(log, at, &n);
	for (size_t i = n; i-- > 0;) {
		const struct point *p = target_watch_hit(t, acc[i].addr, acc[i].len, acc[i].write);
		if (p) {
			*stop = (struct gdbstub_stop){ .reason = GDBSTUB_STOP_WATCHPOINT, .tid = tid,
						       .addr = p->addr, .kind = p->kind };
			return true;
		}
	}
	uint64_t rip = undo_log_regs(log, at)->rip;
	const struct point *bp = target_breakpoint_at(t, rip);
	if (!bp)
		return false;
	*stop = (struct gdbstub_stop){ .reason = GDBSTUB_STOP_BREAKPOINT, .tid = tid, .addr = rip,
				       .kind = bp->kind };
	return true;
}

/*
 * A backward continue stops at the last breakpoint or watched access
 * before the time shown, or at a received signal or caught syscall
 * (target_backward). Inside the log's stretch there are none of the
 * latter (a delivery or a syscall cuts it), but at its first instruction
 * there may be (the stretch begins just after one): the walk stops short
 * of it, and the replay searches from there as before. A stop at a rep
 * string instruction needs the replay too (target_rep_land).
 */
int target_undo_continue(struct gdb_target *t, struct gdbstub_stop *stop)
{
	const struct undo_log *log = &t->near.undo;
	uint64_t shown = target_shown_time(t);
	if (!log_usable(t, t->s->sim.current) || t->n_points == 0)
		return 0;
	uint64_t floor = target_history_begin(t);
	if (floor < log->first)
		floor = log->first;
	for (uint64_t at = shown; at-- > floor + 1;) {
		if (!undo_log_covers(log, at))
			return 0;
		if (!hit_at(t, log, at, stop))
			continue;
		if (rep_string_at(log, at, undo_log_regs(log, at)->rip))
			return 0;
		undo_to(t, at);
		t->near.continues_undone++;
		return 1;
	}
	return 0;
}

int target_undo_settle(struct gdb_target *t)
{
	undo_log_forget(&t->near.undo);
	if (!t->undo_active)
		return 0;
	t->undo_active = false;
	if (step_history_goto(&t->near, t->s, t->undo_at) != 0) {
		fprintf(stderr, "ttreplay: %s\n", t->s->error);
		return -1;
	}
	return 0;
}

bool target_undo_regs(const struct gdb_target *t, size_t k, struct gdbstub_regs *out)
{
	if (!t->undo_active || k != undo_log_thread(&t->near.undo))
		return false;
	/* (No syscall stop is shown there: orig_rax -1.) */
	gdbstub_regs_from_emu(undo_log_regs(&t->near.undo, t->undo_at), UINT64_MAX, out);
	return true;
}

bool target_undo_memory(const struct gdb_target *t, uint64_t addr, void *buf, size_t len,
			size_t *done)
{
	if (!t->undo_active)
		return false;
	*done = undo_log_read_memory(&t->near.undo, t->undo_at, addr, buf, len);
	return true;
}
