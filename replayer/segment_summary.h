/*
 * segment_summary.h — the page sets a snapshot's segment carries (pages
 * written, run, read: struct replay_snapshot in replay_session.h), made,
 * joined, copied and freed in one place, so that the serial pass,
 * thinning, the spill file's index view and the parallel pass's join
 * treat every set alike. An absent set means "unknown": searches replay
 * that segment.
 */
#ifndef TTREPLAY_SEGMENT_SUMMARY_H
#define TTREPLAY_SEGMENT_SUMMARY_H

#include <stdbool.h>

struct replay_snapshot;
struct process_memory;

/* Empty sets for a new segment; false (and none) when memory is short. */
bool segment_summary_make(struct replay_snapshot *snap);
void segment_summary_free(struct replay_snapshot *snap);
/* Adds from's sets to into's. A set that cannot be joined (from's
 * unknown, or memory short) becomes unknown in into: false then. */
bool segment_summary_join(struct replay_snapshot *into, const struct replay_snapshot *from);
/* to's sets become copies of from's; false when memory is short (to's
 * copies made so far stay, to be freed). */
bool segment_summary_clone(struct replay_snapshot *to, const struct replay_snapshot *from);
/* From now on the pages p's program writes and reads go to snap's sets. */
void segment_summary_note_access(struct process_memory *p, struct replay_snapshot *snap);

#endif
