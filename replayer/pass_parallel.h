/*
 * pass_parallel.h — the first pass's figures and verdict made on several
 * cores: the history cut at trace checkpoints into contiguous ranges, one
 * worker thread replaying each from its first checkpoint (a checkpoint
 * resets everything the replay carries: man/idna.5), the results joined
 * in history order. For sessions that need the summary alone (ttreplay
 * --verify, --info): the workers keep no snapshots and no memory image.
 *
 * The summary is the serial pass's: counts summed, the end of history and
 * the exit check from the last range, the first failure in history order
 * with the serial pass's message, and the number of snapshots the serial
 * pass takes (summary.snapshots) when it does not thin them.
 */
#ifndef TTREC_PASS_PARALLEL_H
#define TTREC_PASS_PARALLEL_H

#include "replayer/replay_session.h"

/* Runs the rest of s's first pass on up to `jobs` cores and fills
 * s->summary: 1 done, -1 done and failed (s->error), 0 when the history
 * cannot be cut (a trace of several threads with no place where every
 * thread stands at a checkpoint: pass_cuts.h; fewer than two ranges) or a range could not start at its
 * checkpoint (memory, a damaged checkpoint table): the caller runs the
 * serial pass. With one job, one range: the whole history replayed with
 * no snapshot, for a summary no index keeps (--no-index). */
int pass_parallel_summary(struct replay_session *s, unsigned jobs);

#endif
