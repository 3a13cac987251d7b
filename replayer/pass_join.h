/*
 * pass_join.h — a session's first pass on several cores: the rest of the
 * history cut at trace checkpoints into ranges; the session's own pass
 * replays the first, one worker thread each of the others (pass_worker.h)
 * with snapshots and segment summaries of its own, the images knowing
 * only what the range learned; then, in history order, each range's
 * snapshots are completed with what the ranges before left (pass_log.h,
 * memory_image_overlay) and join the session's, as the serial pass would
 * have taken them: the same snapshots, summaries, future image, figures.
 *
 * Only for a trace recorded whole (a trace of several threads only where
 * every thread stands at a checkpoint: pass_cuts.h; a wrapped ring's
 * history starts at a checkpoint of its own; a truncated trace's
 * end is not a range's), and, past the snapshot memory budget, while a
 * spill file can be made for the ranges' snapshots (each range spills as
 * the serial pass does): otherwise the serial pass runs on, and
 * s->summary.serial_reason says why.
 */
#ifndef TTREC_PASS_JOIN_H
#define TTREC_PASS_JOIN_H

#include "replayer/replay_session.h"

/* Runs the rest of s's first pass (s->sim: the pass at its last snapshot)
 * on up to `jobs` cores: 1 done, -1 done and failed (s->error), both with
 * the summary made; 0 when it was not cut or the ranges' work was
 * dropped, s->sim being then the pass at some time beyond (the serial
 * pass goes on from there) or, when s->pass_interrupted said so,
 * s->pass_was_interrupted set. */
int pass_join_session(struct replay_session *s, unsigned jobs);

#endif
