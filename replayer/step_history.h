/*
 * step_history.h — replay states kept just behind where the debugger has
 * been, so that the small backward moves gdb makes one after another
 * (reverse-stepi, and reverse-step / reverse-next, which gdb builds from
 * single steps and short backward continues) replay a few hundred
 * instructions from a kept state instead of a whole snapshot segment
 * (REPLAY_SNAPSHOT_INTERVAL instructions, with every block decoded again).
 *
 * A kept state is an ordinary saved re-simulation (resim_save): going
 * back to it and replaying forward gives exactly what replaying from the
 * first pass's snapshot gives. States are taken on the way whenever a move
 * replays far: at fixed distances before the time it goes to.
 */
#ifndef TTREC_STEP_HISTORY_H
#define TTREC_STEP_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "replayer/replay_session.h"
#include "replayer/undo_log.h"

#define STEP_HISTORY_STATES 8

struct step_history {
	struct {
		bool used;
		uint64_t last_use;   /* h->uses when last chosen or made */
		struct resim_state state;
	} kept[STEP_HISTORY_STATES];
	uint64_t uses;
	/* Moves, and how many replayed from a kept state (for tests); of
	 * those, how many were undone from the log (gdb_undo.c), which keeps
	 * the state of each of the last instructions replayed. */
	uint64_t moves, moves_from_kept, moves_undone;
	/* Of the undone ones, the backward continues (gdb_undo.c). */
	uint64_t continues_undone;
	/* Set by the caller for the next move only: its last instructions
	 * (UNDO_LOG_INSNS at most) replay under `undo`, which is valid
	 * after it when they can be undone (undo_log.h). Any move forgets
	 * the log. */
	bool log_next;
	struct undo_log undo;
};

/* Moves the session to time t, as replay_session_goto does, starting from
 * the latest of: the current position (when not after t), a kept state,
 * the first pass's snapshot. 0, or -1 with s->error. Clears log_next. */
int step_history_goto(struct step_history *h, struct replay_session *s, uint64_t t);

/*
 * The latest kept state strictly before `before` and not before `floor`:
 * its time, or UINT64_MAX. A backward search can look at
 * [that time, before) first, starting there with step_history_goto.
 */
uint64_t step_history_latest_before(const struct step_history *h, uint64_t floor,
				    uint64_t before);

void step_history_free(struct step_history *h);

#endif
