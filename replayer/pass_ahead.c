/*
 * pass_ahead.c — forward motions that run the first pass on (see
 * pass_ahead.h). The pass is a replay from its last snapshot with hooks
 * that note what it reads; a forward run reaching where the pass has read
 * (pass_reach) installs them on the running replay, which is the pass from
 * there on, and takes the snapshots at their times as the pass would.
 * Whatever else moves the replay parks the pass: it goes on from its last
 * snapshot later, noting again what it noted already (the notes are sets,
 * and first reads are kept only the first time), so the outcome is the
 * pass's whichever way it ran.
 */
#include <stdio.h>
#include <string.h>

#include "replayer/pass_ahead.h"
#include "replayer/replay_index.h"

/* The history ended (or the replay failed) in a forward run: the pass is
 * done. */
static enum resim_status end_pass(struct replay_session *s, enum resim_status st)
{
	pass_ahead_park(s);
	s->pass_done = true;
	if (replay_session_summarise_history(s, st) != 0) {
		s->pass_failed = true;
		snprintf(s->sim.error, sizeof(s->sim.error), "%.300s", s->error);
		return RESIM_ERROR;
	}
	if (s->use_index)
		replay_session_save_index(s);
	return st;
}

enum resim_status pass_ahead_run(struct replay_session *s, uint64_t t)
{
	struct resim *sim = &s->sim;
	if (!s->pass_live) {
		uint64_t now = resim_now(sim);
		if (now > s->pass_reach) {
			/* (Not reached: moves stay within where the pass read.) */
			snprintf(sim->error, sizeof(sim->error), "the replay is ahead of its first pass");
			return RESIM_ERROR;
		}
		uint64_t to = t < s->pass_reach ? t : s->pass_reach;
		enum resim_status st = resim_run(sim, to);
		if (st != RESIM_AT_TARGET || to == t)
			return st;
		replay_session_pass_hooks(s, true);
		s->pass_live = true;
	}
	for (;;) {
		uint64_t next = replay_session_next_snapshot_time(s);
		uint64_t to = t < next ? t : next;
		enum resim_status st = resim_run(sim, to);
		if (resim_now(sim) > s->pass_reach)
			s->pass_reach = resim_now(sim);
		if (st == RESIM_END || st == RESIM_ERROR)
			return end_pass(s, st);
		if (st != RESIM_AT_TARGET || to != next)
			return st;
		if (replay_session_pass_boundary(s) != 0)
			return end_pass(s, RESIM_ERROR);
		/* Progress (the gdb target's console lines); interrupts are
		 * the run's observer's. */
		if (s->pass_interrupted)
			s->pass_interrupted(s->pass_interrupt_ctx);
		if (to == t)
			return st;
	}
}

void pass_ahead_park(struct replay_session *s)
{
	if (!s->pass_live)
		return;
	replay_session_pass_hooks(s, false);
	s->pass_live = false;
}
