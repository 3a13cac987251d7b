/*
 * step_history.c — replay states kept near the debugger's recent
 * positions (step_history.h).
 */
#include <stdio.h>
#include <string.h>

#include "replayer/step_history.h"

/* Distances before a far move's destination where states are kept: a
 * further step back replays at most the nearest of them (and takes a
 * nearer state then). The first pass's snapshots are further apart. */
static const uint64_t keep_distances[] = { 1u << 16, 1u << 12, 1u << 8 };

uint64_t step_history_latest_before(const struct step_history *h, uint64_t floor,
				    uint64_t before)
{
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; i < STEP_HISTORY_STATES; i++) {
		uint64_t at = h->kept[i].state.time;
		if (h->kept[i].used && at >= floor && at < before && (best == UINT64_MAX || at > best))
			best = at;
	}
	return best;
}

static long kept_at(const struct step_history *h, uint64_t time)
{
	for (size_t i = 0; i < STEP_HISTORY_STATES; i++)
		if (h->kept[i].used && h->kept[i].state.time == time)
			return (long)i;
	return -1;
}

/* Keeps the session's current state, in place of the one used longest ago. */
static void keep_current(struct step_history *h, struct replay_session *s)
{
	if (kept_at(h, replay_session_now(s)) >= 0)
		return;
	size_t victim = 0;
	for (size_t i = 0; i < STEP_HISTORY_STATES; i++) {
		if (!h->kept[i].used) {
			victim = i;
			break;
		}
		if (h->kept[i].last_use < h->kept[victim].last_use)
			victim = i;
	}
	if (h->kept[victim].used)
		resim_state_free(&h->kept[victim].state);
	h->kept[victim].used = resim_save(&s->sim, &h->kept[victim].state) == 0;
	h->kept[victim].last_use = ++h->uses;
	/* (Memory short: nothing kept, moves replay further.) */
}

/* Starts the session's replay at kept state i. */
static int restore(struct step_history *h, struct replay_session *s, size_t i)
{
	int r = s->sim_open
		? resim_reopen_state(&s->sim, s->cache_log2, s->jit, &h->kept[i].state)
		: resim_open_state(&s->sim, s->reader, s->cache_log2, s->jit, &h->kept[i].state);
	s->sim_open = false;
	if (r != 0) {
		snprintf(s->error, sizeof(s->error), "%s", s->sim.error);
		return -1;
	}
	s->sim_open = true;
	h->kept[i].last_use = ++h->uses;
	return 0;
}

/* The last leg of a move, from where the replay stands (not after t) to
 * t: as replay_session_goto runs it, its last instructions under the undo
 * log. */
static int last_leg(struct step_history *h, struct replay_session *s, uint64_t t)
{
	uint64_t from = t > UNDO_LOG_INSNS ? t - UNDO_LOG_INSNS : 0;
	if (replay_session_now(s) < from && replay_session_goto(s, from) != 0)
		return -1;
	undo_log_start(&h->undo, s);
	enum resim_status st = replay_session_run(s, t);
	undo_log_stop(&h->undo);
	if (replay_session_now(s) != t)
		undo_log_forget(&h->undo);
	return st == RESIM_ERROR ? -1 : 0;
}

int step_history_goto(struct step_history *h, struct replay_session *s, uint64_t t)
{
	bool log = h->log_next;
	h->log_next = false;
	undo_log_forget(&h->undo);
	/* Kept states need the whole history (snapshots, its end). */
	if (t <= s->snapshots[0].icount || replay_session_finish_pass(s) != 0)
		return replay_session_goto(s, t);
	if (t > s->summary.instructions)
		t = s->summary.instructions;
	h->moves++;
	uint64_t start = s->snapshots[replay_session_snapshot_for(s, t)].icount;
	uint64_t now = replay_session_now(s);
	bool run_on = s->sim_open && !s->sim.ended && now <= t && now >= start;
	if (run_on)
		start = now;
	/* A kept state helps when it is later than where the replay would
	 * start otherwise. */
	uint64_t kept = step_history_latest_before(h, run_on ? now + 1 : start, t + 1);
	if (kept != UINT64_MAX) {
		if (restore(h, s, (size_t)kept_at(h, kept)) != 0)
			return -1;
		h->moves_from_kept++;
		start = kept;
	} else if (!run_on && replay_session_goto(s, start) != 0) {
		return -1;
	}
	for (size_t i = 0; i < sizeof(keep_distances) / sizeof(keep_distances[0]); i++) {
		uint64_t d = keep_distances[i];
		if (t - start <= d)
			continue;
		if (replay_session_goto(s, t - d) != 0)
			return -1;
		keep_current(h, s);
	}
	return log ? last_leg(h, s, t) : replay_session_goto(s, t);
}

void step_history_free(struct step_history *h)
{
	for (size_t i = 0; i < STEP_HISTORY_STATES; i++)
		if (h->kept[i].used)
			resim_state_free(&h->kept[i].state);
	undo_log_free(&h->undo);
	memset(h, 0, sizeof(*h));
}
