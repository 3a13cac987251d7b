/*
 * search_forward.c — forward continues that replay only the segments
 * that may stop them.
 *
 * Once the first pass has summarised a segment (the pages it executed
 * code from and wrote, its counts of signals and syscalls at both ends),
 * a segment that executed no breakpoint's page, wrote no watched page,
 * received no signal and (under catch syscall) made no syscall cannot
 * stop a continue: the continue restores the snapshot at the start of the
 * first segment that may, and runs interpreted under the breakpoints from
 * there, up to the next segment that cannot. The test is the backward
 * search's (target_segment_may_hit, target_segment_may_have_events). A
 * hit exactly at a segment's end is the run's (the watch noticed on its
 * last instruction, gdb_target.c's observed_run) or, for a stop the next
 * segment's replay makes (an event at its first time), that segment's
 * summary rules it in: a segment's summary is what a replay of it from
 * its snapshot to the next does, which is what the continue runs.
 *
 * The segment the pass is still reading has no summary yet: it, and all
 * after it, are run (by the pass itself: pass_ahead.h). Other stops:
 * Ctrl-C is looked at before each jump; the end of history, with nothing
 * to stop before it, is reached from the last snapshot.
 */
#include "replayer/search_forward.h"

#include "replayer/gdb_events_back.h"
#include "replayer/gdb_target_internal.h"

/* Whether segment k may stop a forward continue (true when it has no
 * summary yet, or the pass failed: its figures stop short). */
static bool segment_may_stop(const struct gdb_target *t, size_t k)
{
	const struct replay_session *s = t->s;
	if (s->pass_failed || (!s->pass_done && k + 1 >= s->n_snapshots))
		return true;
	return target_segment_may_hit(t, k) || target_segment_may_have_events(t, k);
}

int search_forward_skip(struct gdb_target *t, struct run_watch *w, uint64_t *run_to)
{
	struct replay_session *s = t->s;
	*run_to = UINT64_MAX;
	replay_session_try_index(s);
	uint64_t now = replay_session_now(s);
	if (s->pass_done && now >= s->summary.instructions)
		return 0;
	size_t here = replay_session_snapshot_for(s, now), k = here;
	while (k < s->n_snapshots && !segment_may_stop(t, k))
		k++;
	if (k > here) {
		if (w->interrupted && w->interrupted(w->interrupt_ctx)) {
			w->was_interrupted = true;
			return 0;
		}
		/* (Past the last segment: only when the pass is done.) */
		uint64_t to = k < s->n_snapshots ? s->snapshots[k].icount : s->summary.instructions;
		if (replay_session_goto(s, target_image_bound(t, to)) != 0)
			return -1;
		t->segments_skipped += k - here;
	}
	size_t next = k + 1;
	while (next < s->n_snapshots && segment_may_stop(t, next))
		next++;
	if (next < s->n_snapshots)
		*run_to = s->snapshots[next].icount;
	return 0;
}
