/*
 * pass_cuts.h — the first pass of a trace of several threads cut into
 * ranges (pass_parallel.c, pass_join.c): where a range can start
 * (resim_cut.c decides per checkpoint: every thread that has begun is
 * reset there, as a ring recorder's checkpoint groups do), the time it
 * starts at, and the check that a range started as the whole pass stands
 * at that time. Internal to the first pass's files.
 */
#ifndef TTREC_PASS_CUTS_H
#define TTREC_PASS_CUTS_H

#include "replayer/replay_session.h"

/* The checkpoints that can start a range of s's history at a time after
 * `after`, in increasing time, one per time; their reader indexes go to
 * `out` (room for every checkpoint). Returns how many. */
size_t pass_cuts_find(struct replay_session *s, uint64_t after, size_t *out);
/* The clock (time plus the history's origin) where a range starting at
 * reader checkpoint `checkpoint` starts: its count with one thread. */
uint64_t pass_cut_clock(const struct replay_session *s, size_t checkpoint);
/* NULL when `start`, the state a range of several threads has at its
 * start, is the whole pass's there (`whole`), as far as the range's
 * replay depends on it; else why not. */
const char *pass_cut_mismatch(const struct resim_state *whole, const struct resim_state *start);

/* Thread i of xs, a state a cut replay saved (x = &xs->threads[i]), as the
 * whole pass has it, whole being the whole pass's state where the replay
 * started: a thread still waiting for its checkpoint there is whole's (it
 * has run no instruction since). (A thread created and not begun where a
 * range starts fails pass_cut_mismatch: the range cannot know it was
 * created.) false when memory is short. */
bool pass_cut_complete_thread(struct resim_thread_state *x, size_t i,
			      const struct resim_state *whole, const struct resim_state *xs);

#endif
